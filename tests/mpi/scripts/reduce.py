"""Run under mpiexec: la.outer_reduce over a distributed mesh gives every rank the bits of one process.

Rank 0 prints one line per reducer, ``name repr(result)``; every rank checks that it got the same
result as rank 0. The test compares the lines of 1, 2 and 4 ranks.
"""

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

world = C.world()
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
pkg.add_field("s", Metadata("Cell"), dtype=np.float32)
mesh = Mesh((32, 16), (8, 4), nghost=1, packages=[pkg])
rng = np.random.default_rng(3)
full_q = rng.standard_normal((len(mesh.block_list), *mesh.data("q").shape[1:]))
full_s = rng.standard_normal(full_q.shape).astype(np.float32)
mesh.data("q")[...] = mesh.local_part(full_q)
mesh.data("s")[...] = mesh.local_part(full_s)
md = mesh.mesh_data()
q, s = VarTag("q"), VarTag("s")
pack = PackDescriptor(mesh, [q]).get_pack(md)
pack_s = PackDescriptor(mesh, [s]).get_pack(md)  # a pack holds one dtype
cells = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior, md=md,
                      nblocks=pack.get_nblocks())


def fold_q(rng, b):
    v = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: v[q(), idx])


def fold_s(rng, b):
    v = la.make_pack_view(rng, pack_s)
    la.inner_reduce(rng, lambda idx: v[s(), idx])


lines = []
for reducer, body in ((la.Sum(wp.float64), fold_q), (la.Sum(wp.float32), fold_s), (la.Min(wp.float64), fold_q),
                      (la.MaxLoc(wp.float32), fold_s), (la.MinLoc(wp.float64), fold_q)):
    result = la.outer_reduce(cells.with_reducer(reducer), body)
    assert world.bcast(result, root=0) == result, (world.Get_rank(), reducer, result)
    lines.append(f"{reducer!r} {result!r}")
# MinLoc names the global block: check it against the global array
value, (gid, k, j, i) = la.outer_reduce(cells.with_reducer(la.MinLoc(wp.float64)), fold_q)
assert full_q[gid, 0, k, j, i] == value == full_q[:, 0, :, 1:-1, 1:-1].min()
if world.Get_rank() == 0:
    print("\n".join(lines), flush=True)
