"""Run under mpiexec: the gradients of la.outer_reduce results into arrays (Sum, Prod, Min, MaxLoc) over a
distributed mesh give every rank's cells the gradients of one process.

Rank 0 prints one line per reducer: the result and a digest of the global gradient (the cells that
got one, with their values), gathered in global block order. The test compares the lines of 1, 2 and
4 ranks.
"""

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork import la
from brickwork.la.reducers import value_loc
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

world = C.world()
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
mesh = Mesh((16, 8), (4, 4), nghost=1, packages=[pkg])
rng = np.random.default_rng(5)
full_q = 1.0 + 0.05 * rng.standard_normal((len(mesh.block_list), *mesh.data("q").shape[1:]))
full_q[3, 0, 0, 2, 3] = 0.0  # one zero: the product's gradient goes to that cell only
mesh.data("q")[...] = mesh.local_part(full_q)
md = mesh.mesh_data()
q = VarTag("q")
pack = PackDescriptor(mesh, [q]).get_pack(md)
cells = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior, md=md,
                      nblocks=pack.get_nblocks())


def fold(rng, b):
    v = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: wp.float64(2.0) * v[q(), idx])


lines = []
for reducer in (la.Sum(wp.float64), la.Prod(wp.float64), la.Min(wp.float64), la.MaxLoc(wp.float64)):
    grad = mesh.field("q").grad
    grad[...] = 0.0
    dtype = value_loc(wp.float64) if reducer.with_location else wp.float64
    out = wp.zeros(1, dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        la.outer_reduce(cells.with_reducer(reducer), fold, out=out)
    tape.backward(out)
    gids = [blk.gid for blk in md.blocks]
    parts = world.allgather((gids, grad.copy()))
    full = np.zeros(full_q.shape)
    for ids, g in parts:
        full[ids] = g
    where = np.argwhere(full != 0.0)
    digest = [(tuple(int(x) for x in w), float(full[tuple(w)])) for w in where[:: max(1, len(where) // 8)]]
    result = out.numpy()[0]
    lines.append(f"{reducer!r} {result!r} {len(where)} {digest!r}")
if world.Get_rank() == 0:
    print("\n".join(lines), flush=True)
