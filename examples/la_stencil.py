"""A 3-D 7-point Laplacian with the loop abstraction (bovi + logical_flat), checked against numpy.

The mesh is periodic and cut into 2 x 2 x 2 blocks with one ghost layer; after the ghost
exchange every block's Laplacian only needs its own storage. The outer body gets one chunk of
a block (``ninner = la.ij_slab``: one k plane) and walks it with ``la.inner``; the body's flat
index ``idx`` moves by ``get_delta(X1DIR/X2DIR/X3DIR)`` to the six neighbours, and the pack view
turns ``pv[u(), idx]`` into a load at a fixed pointer plus ``idx`` (a contiguous, vectorized
access in the inner loop).

Run: ``python examples/la_stencil.py`` (or with ``PYTHONPATH=src`` from a checkout); on several MPI
ranks, ``mpiexec -n 2 python examples/la_stencil.py``: each rank computes its own blocks, and rank 0
prints (the error is the largest of every rank's).
"""

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("heat")
pkg.add_field("u", Metadata("Cell", "FillGhost"))
pkg.add_field("lap", Metadata("Cell"))
mesh = Mesh(nx=(48, 40, 32), block_nx=(24, 20, 16), nghost=1, packages=[pkg],
            boundaries={"x1": "periodic", "x2": "periodic", "x3": "periodic"},
            xmin=(0.0, 0.0, 0.0), xmax=(1.0, 1.0, 1.0))

# u = sin(2 pi x) cos(4 pi y) + z on the cell centres of each block
for block in mesh.blocks:
    x, y, z = (block.coords.x_center(d) for d in (1, 2, 3))
    u = mesh.data("u")[block.lid, 0]
    u[...] = np.sin(2 * np.pi * x)[None, None, :] * np.cos(4 * np.pi * y)[None, :, None] + z[:, None, None]
mesh.fill_ghosts()  # periodic ghosts from the neighbouring blocks

md = mesh.mesh_data()
u, lap = VarTag("u"), VarTag("lap")
pack = PackDescriptor(mesh, [u, lap]).get_pack(md)

space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                      nblocks=pack.get_nblocks(), md=md)
dx1, dx2, dx3 = (space.get_delta(d) for d in (wp.X1DIR, wp.X2DIR, wp.X3DIR))
if mesh.rank == 0:  # under mpiexec every rank runs this script: one of them prints
    print(space)
    print("deltas:", dx1, dx2, dx3)
    where = f" on rank 0 (of {len(mesh.block_list)} on {mesh.nranks} ranks)" if mesh.nranks > 1 else ""
    print(f"{space.get_nouter()} chunks of {space.get_ninner()} cells per block, {space.nblocks} blocks{where}")


def laplacian(rng, b):
    pv = la.make_pack_view(rng, pack)
    for idx in la.inner(rng):
        pv[lap(), idx] = (pv[u(), idx - dx3] + pv[u(), idx + dx3] + pv[u(), idx - dx2] + pv[u(), idx + dx2]
                          + pv[u(), idx - dx1] + pv[u(), idx + dx1] - wp.float64(6.0) * pv[u(), idx])


la.outer(space, laplacian)

# numpy: the same stencil on every block's storage (ghosts included), interior cells compared
s = mesh.data("u")[:, 0]
ref = (s[:, :-2, 1:-1, 1:-1] + s[:, 2:, 1:-1, 1:-1] + s[:, 1:-1, :-2, 1:-1] + s[:, 1:-1, 2:, 1:-1]
       + s[:, 1:-1, 1:-1, :-2] + s[:, 1:-1, 1:-1, 2:] - 6.0 * s[:, 1:-1, 1:-1, 1:-1])
got = mesh.data("lap")[:, 0, 1:-1, 1:-1, 1:-1]
err = max(mesh.comm.allgather(float(np.abs(got - ref).max())))  # over every rank's blocks
if mesh.rank == 0:
    print(f"max |brickwork - numpy| = {err:.3g}")
assert err < 1e-12
untouched = mesh.data("lap")[:, 0].copy()
untouched[:, 1:-1, 1:-1, 1:-1] = 0.0
assert not untouched.any(), "logical_flat visits interior cells only"
