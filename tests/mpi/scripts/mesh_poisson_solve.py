"""A matrix-free Poisson solve, -lap u = f with u = 0 on the walls, over a 2-D block mesh spread over the ranks:
each rank's vectors are its blocks' interior cells, the operator fills the ghosts (an odd reflection at the
walls) and applies the 5-point Laplacian, and ``LinearOperator(comm=mesh.comm)`` makes the solvers add their
inner products over the ranks. Each solver's solution, gathered on rank 0, against numpy's dense solve of the
whole system; prints every rank's iterations (the same on every rank)."""

import numpy as np

import brickwork as wp
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package
from brickwork.optim.linear import LinearOperator, bicgstab, cg, cr, gmres

N, BLOCK = 16, 4  # 16 blocks of 4 x 4 cells


def odd_reflection(block, view, side):
    if side == IndexDomain.inner_x1:
        view[..., 0] = -view[..., 1]
    elif side == IndexDomain.outer_x1:
        view[..., -1] = -view[..., -2]
    elif side == IndexDomain.inner_x2:
        view[..., 0, :] = -view[..., 1, :]
    elif side == IndexDomain.outer_x2:
        view[..., -1, :] = -view[..., -2, :]


pkg = Package("poisson")
pkg.add_field("p", Metadata("Cell", "FillGhost"))
mesh = Mesh(nx=(N, N), block_nx=(BLOCK, BLOCK), nghost=1, boundaries=odd_reflection, packages=[pkg])
h2 = (1.0 / N) ** 2
field = mesh.data("p")  # (blocks, 1, 1, BLOCK + 2, BLOCK + 2)
size = mesh.nblocks * BLOCK * BLOCK  # this rank's unknowns


def matvec(x, y, z, alpha, beta):
    field[:, 0, 0, 1:-1, 1:-1] = x.numpy().reshape(mesh.nblocks, BLOCK, BLOCK)
    mesh.fill_ghosts("p")
    p = field[:, 0, 0]
    ax = (4.0 * p[:, 1:-1, 1:-1] - p[:, :-2, 1:-1] - p[:, 2:, 1:-1] - p[:, 1:-1, :-2] - p[:, 1:-1, 2:]) / h2
    z.assign(wp.array(alpha * ax.ravel() + beta * y.numpy(), dtype=wp.float64))


rhs = np.zeros((mesh.nblocks, BLOCK, BLOCK))
for block in mesh.blocks:
    x, y = block.coords.x_center(1)[1:-1], block.coords.x_center(2)[1:-1]
    rhs[block.lid] = np.sin(3 * np.pi * x)[None, :] * (y[:, None] > 0.3) + x[None, :]
op = LinearOperator((size, size), wp.float64, "cpu", matvec, comm=mesh.comm)
b = wp.array(rhs.ravel())

# the whole system on rank 0: the cells in the global (j, i) order, the Laplacian with u = 0 walls
if mesh.rank == 0:
    one = np.eye(N) * 2.0 - np.eye(N, k=1) - np.eye(N, k=-1)
    one[0, 0] = one[-1, -1] = 3.0  # the ghost is minus the first cell
    dense = (np.kron(np.eye(N), one) + np.kron(one, np.eye(N))) / h2
global_rhs = mesh.gather_blocks(rhs)


def whole(blocks):  # (16 blocks in gid order, BLOCK, BLOCK) -> (N, N)
    return blocks.reshape(N // BLOCK, N // BLOCK, BLOCK, BLOCK).transpose(0, 2, 1, 3).reshape(N, N)


for name, solve in (("cg", cg), ("cr", cr), ("bicgstab", bicgstab), ("gmres", gmres)):
    u = wp.zeros(size, dtype=wp.float64)
    iterations, residual, tolerance = solve(op, b, u, tol=1e-10, maxiter=400)
    assert residual <= tolerance, (name, residual, tolerance)
    solution = mesh.gather_blocks(u.numpy().reshape(mesh.nblocks, BLOCK, BLOCK))
    if mesh.rank == 0:
        expected = np.linalg.solve(dense, whole(global_rhs).ravel()).reshape(N, N)
        error = np.abs(whole(solution) - expected).max() / np.abs(expected).max()
        assert error < 1e-8, (name, error)
    print(f"rank {mesh.rank} {name} {iterations} iterations, residual {residual!r}", flush=True)
