"""A matrix-free Poisson solve on a block mesh: the loop abstraction's stencil as the operator of optim.linear's CG.

-lap u = f on the unit square with u = 0 on the walls, for the exact solution u = exp(x) sin(pi x) sin(pi y). The
unknowns are the interior cells of the mesh's blocks; the operator copies a vector into a field, fills its
ghosts (a boundary function of your own: the odd reflection that puts u = 0 on the wall, halfway between
the last cell and its ghost) and applies the 5-point Laplacian with ``la.outer``. On several MPI ranks each
rank holds its blocks' unknowns, and ``LinearOperator(comm=mesh.comm)`` makes the solver add its inner
products over the ranks, so that every rank takes the same steps. The script prints the iterations and the
error against the exact solution (second order: about 4 times smaller at twice ``--n``), and writes ``u``
and its error for ParaView (``poisson_output/poisson.xdmf``; ``--vtk``: ``poisson.vtm``).

Run: ``python examples/poisson_mesh.py [--n 64] [--block 16] [--tol 1e-10] [--out DIR] [--vtk]``, or
``mpiexec -n 4 python examples/poisson_mesh.py`` (the same iterations; the last bits of the result differ, the
inner products' parts being added in another grouping).
"""

import argparse
import os

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.optim.linear import LinearOperator, cg

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=64, help="cells per direction")
parser.add_argument("--block", type=int, default=16, help="cells per block and direction")
parser.add_argument("--tol", type=float, default=1e-10, help="CG's tolerance, relative to |f|")
parser.add_argument("--out", default="poisson_output", help="directory of the outputs")
parser.add_argument("--vtk", action="store_true", help="write VTK files instead of HDF5 + XDMF")
args = parser.parse_args()
n, nb = args.n, args.block


def odd_reflection(block, view, side):
    """Ghost = minus the first interior cell: u = 0 on the wall. ``view`` is the block's (slots, k, j, i)."""
    if side == IndexDomain.inner_x1:
        view[..., 0] = -view[..., 1]
    elif side == IndexDomain.outer_x1:
        view[..., -1] = -view[..., -2]
    elif side == IndexDomain.inner_x2:
        view[..., 0, :] = -view[..., 1, :]
    elif side == IndexDomain.outer_x2:
        view[..., -1, :] = -view[..., -2, :]


pkg = Package("poisson")
pkg.add_field("p", Metadata("Cell", "FillGhost"))  # the vector the operator is applied to
pkg.add_field("ap", Metadata("Cell"))              # -lap p
pkg.add_field("u", Metadata("Cell"))               # the solution and its error, for the outputs
pkg.add_field("error", Metadata("Cell"))
mesh = Mesh(nx=(n, n), block_nx=(nb, nb), nghost=1, boundaries=odd_reflection, packages=[pkg])
inv_h2 = wp.float64(n * n)  # 1 / h^2, a float64 like the fields (a Python float is a float32 in kernels)

md = mesh.mesh_data()
p, ap = VarTag("p"), VarTag("ap")
pack = PackDescriptor(mesh, [p, ap]).get_pack(md)
space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                      nblocks=pack.get_nblocks(), md=md)
di, dj = space.get_delta(wp.X1DIR), space.get_delta(wp.X2DIR)


def minus_laplacian(rng, b):
    pv = la.make_pack_view(rng, pack)
    for idx in la.inner(rng):
        pv[ap(), idx] = inv_h2 * (wp.float64(4.0) * pv[p(), idx] - pv[p(), idx - di] - pv[p(), idx + di]
                                  - pv[p(), idx - dj] - pv[p(), idx + dj])


interior = (slice(None), 0, 0, slice(1, -1), slice(1, -1))  # (blocks, nb, nb) of a field's storage
size = mesh.nblocks * nb * nb                              # this rank's unknowns


def matvec(x, y, z, alpha, beta):
    """z = alpha * (-lap x) + beta * y, on this rank's blocks (fill_ghosts is collective)."""
    mesh.data("p")[interior] = x.numpy().reshape(mesh.nblocks, nb, nb)
    mesh.fill_ghosts("p")
    la.outer(space, minus_laplacian)
    z.assign(wp.array(alpha * mesh.data("ap")[interior].ravel() + beta * y.numpy()))


def exact_and_source(block):
    x, y = block.coords.x_center(1)[1:-1][None, :], block.coords.x_center(2)[1:-1][:, None]
    u = np.exp(x) * np.sin(np.pi * x) * np.sin(np.pi * y)
    f = -np.exp(x) * np.sin(np.pi * y) * ((1 - 2 * np.pi**2) * np.sin(np.pi * x) + 2 * np.pi * np.cos(np.pi * x))
    return u, f


f = np.stack([exact_and_source(block)[1] for block in mesh.blocks])
u = wp.zeros(size, dtype=wp.float64)
op = LinearOperator((size, size), wp.float64, "cpu", matvec, comm=mesh.comm)
iterations, residual, tolerance = cg(op, wp.array(f.ravel()), u, tol=args.tol)

mesh.data("u")[interior] = u.numpy().reshape(mesh.nblocks, nb, nb)
for block in mesh.blocks:
    mesh.data("error")[block.lid, 0, 0, 1:-1, 1:-1] = mesh.data("u")[block.lid, 0, 0, 1:-1, 1:-1] - \
        exact_and_source(block)[0]
error = max(mesh.comm.allgather(float(np.abs(mesh.data("error")[interior]).max())))

if mesh.rank == 0:
    os.makedirs(args.out, exist_ok=True)
mesh.comm.Barrier()  # the directory exists before any rank writes
stem = os.path.join(args.out, "poisson")
if args.vtk:
    mesh.write_vtk(stem, fields=["u", "error"], cycle=iterations)
else:
    mesh.write_output(stem, fields=["u", "error"], cycle=iterations)
if mesh.rank == 0:
    print(f"{n} x {n} cells on {mesh.nranks} rank(s): {iterations} CG iterations, residual {residual:.3g} "
          f"(tolerance {tolerance:.3g}); max |u - exact| = {error:.3e}")
    print(f"outputs in {args.out}/ (open {'poisson.vtm' if args.vtk else 'poisson.xdmf'} in ParaView)")
assert residual <= tolerance and error < 3.0 / n**2, (residual, tolerance, error)  # about 2.2 / n**2
