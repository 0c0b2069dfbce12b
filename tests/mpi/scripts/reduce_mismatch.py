"""Run under mpiexec -n 2: ``la.outer_reduce`` over the mesh with another reducer on each rank is a ValueError on
every rank naming both, and a right reduction works after it. Before: Sum on rank 0 and Max on rank 1 gave each
rank a different wrong number (264 and 32 for 512), Min against MinLoc numpy's DTypePromotionError."""

import sys

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
mesh = Mesh((32, 16), (8, 4), nghost=1, packages=[pkg])
mesh.data("q")[...] = 1.0
md = mesh.mesh_data()
q = VarTag("q")
pack = PackDescriptor(mesh, [q]).get_pack(md)
cells = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior, md=md,
                      nblocks=pack.get_nblocks())


def fold_q(rng, b):
    v = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: v[q(), idx])


for mine, theirs in ((la.Sum(wp.float64), la.Max(wp.float64)), (la.Min(wp.float64), la.MinLoc(wp.float64))):
    try:
        la.outer_reduce(cells.with_reducer(mine if mesh.rank == 0 else theirs), fold_q)
        sys.stdout.write(f"rank {mesh.rank}: no error\n")
    except ValueError as e:
        sys.stdout.write(f"rank {mesh.rank}: {e}\n")
sys.stdout.write(f"rank {mesh.rank} sum {la.outer_reduce(cells.with_reducer(la.Sum(wp.float64)), fold_q)}\n")
