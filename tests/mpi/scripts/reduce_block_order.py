"""Run under mpiexec: la.outer_reduce over mesh data of a subset of the blocks, or of the blocks in
reverse order, gives the bits of one process, and a location's b is the block's global id.

Rank 0 prints one line per case and reducer, ``case name repr(result)``; every rank checks that it
got rank 0's result and that a location names the global cell holding the value. The test compares
the lines of 1, 2 and 4 ranks.
"""

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

world = C.world()
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
mesh = Mesh((32, 32), (8, 8), nghost=1, packages=[pkg])  # 16 blocks
full_q = np.random.default_rng(0).random((len(mesh.block_list), *mesh.data("q").shape[1:]))
full_q *= 10.0 ** np.random.default_rng(1).integers(-6, 6, size=full_q.shape)  # the sum's order shows
full_q[:, 0, 0, 1, 1] = -5.0  # the same minimum in every block: MinLoc names the first in gid order
mesh.data("q")[...] = mesh.local_part(full_q)
q = VarTag("q")
odd = [b for b in mesh.blocks if b.gid % 2 == 1]
cases = {  # name: (the space's blocks, the pack's blocks; None: all of this rank's)
    "odd": (odd, odd),
    "reversed": (list(reversed(mesh.blocks)), list(reversed(mesh.blocks))),
    "fewer": (None, odd),  # the space over every block, the pack (and nblocks) over the odd ones
}

lines = []
for name, (space_blocks, pack_blocks) in cases.items():
    pack = PackDescriptor(mesh, [q]).get_pack(mesh.mesh_data(pack_blocks))
    space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                          md=mesh.mesh_data(space_blocks), nblocks=pack.get_nblocks())

    def fold(rng, b):
        v = la.make_pack_view(rng, pack)
        la.inner_reduce(rng, lambda idx: v[q(), idx])

    for reducer in (la.Sum(wp.float64), la.MinLoc(wp.float64), la.MaxLoc(wp.float64)):
        result = la.outer_reduce(space.with_reducer(reducer), fold)
        assert world.bcast(result, root=0) == result, (world.Get_rank(), name, reducer, result)
        if reducer.with_location:
            value, (gid, k, j, i) = result
            assert full_q[gid, 0, k, j, i] == value, (name, result)
        lines.append(f"{name} {reducer!r} {result!r}")
if world.Get_rank() == 0:
    print("\n".join(lines), flush=True)
