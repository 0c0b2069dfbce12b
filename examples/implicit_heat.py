"""Implicit (backward Euler) heat equation on a 2-D or 3-D grid with brickwork.sparse and optim.linear's CG.

du/dt = kappa lap(u) on the unit square (cube), u = 0 on the boundary, ``n`` interior points per direction
(h = 1 / (n + 1)). Each step solves (I - dt kappa L) u_new = u_old, L the 5-point (7-point) Laplacian, with
``cg`` and a Jacobi preconditioner. The matrix is assembled on the device: a kernel writes each point's
2 d + 1 triplets (a neighbour outside the grid gets row -1, and ``bsr_from_triplets`` drops it).

The start, u = prod sin(pi x_d), is an eigenvector of L with the eigenvalue -lam, lam = sum_d 4/h^2
sin^2(pi h / 2): after the steps dt_1, dt_2, ... the discrete solution is prod_k 1/(1 + dt_k kappa lam) times
it, exactly, so the printed error is the solver's (``--tol``), and the PDE's exp(-kappa d pi^2 t) is printed
for comparison. ``--growth G`` multiplies dt by G each step: the matrix then changes, and is reassembled each
step into the same ``BsrMatrix`` (``bsr_set_from_triplets``, reusing its arrays).

``--fields 2`` solves two fields coupled by an exchange term, du/dt = kappa lap(u) - a (u - v) and
dv/dt = kappa lap(v) - a (v - u), as one system of 2x2 blocks (``wp.mat22d``, vectors ``wp.vec2d``) with the
block-Jacobi preconditioner; u + v decays as one field, u - v with lam + 2 a / kappa.

Run: ``python examples/implicit_heat.py [--dim 3] [--n 64] [--steps 10] [--dt 1e-3] [--growth 1.0]
[--fields 1] [--tol 1e-10] [--device cpu]``.
"""

import argparse
import time

import numpy as np

import brickwork as wp
import brickwork.sparse as sp
from brickwork.optim.linear import cg, preconditioner


def at_least(minimum, kind=int, exclusive=False):
    """An argparse type: a number of ``kind`` of at least (``exclusive``: above) ``minimum`` (--n 0 and --steps 0
    assembled no matrix, then failed)."""

    def parse(text: str):
        value = kind(text)
        if not (value > minimum if exclusive else value >= minimum):  # NaN too
            raise argparse.ArgumentTypeError(f"must be {'above' if exclusive else 'at least'} {minimum}, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse's word for a value that is no number: "invalid int value: 'x'"
    return parse


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--dim", type=int, default=2, choices=(2, 3))
parser.add_argument("--n", type=at_least(1), default=128, help="interior points per direction")
parser.add_argument("--steps", type=at_least(1), default=10)
parser.add_argument("--dt", type=at_least(0.0, float, exclusive=True), default=1e-3, help="the first time step")
parser.add_argument("--growth", type=at_least(0.0, float, exclusive=True), default=1.0,
                    help="dt grows by this factor each step")
parser.add_argument("--kappa", type=at_least(0.0, float), default=1.0)
parser.add_argument("--fields", type=int, default=1, choices=(1, 2), help="2: two coupled fields, 2x2 blocks")
parser.add_argument("--exchange", type=float, default=5.0, help="the coupling rate a of --fields 2")
parser.add_argument("--tol", type=at_least(0.0, float), default=1e-10, help="CG's relative tolerance")
parser.add_argument("--device", default="cpu")
args = parser.parse_args()

n, dim = args.n, args.dim
h = 1.0 / (n + 1)
shape = (n,) * dim
npoints = n**dim
strides = (n * n, n, 1)[3 - dim:]  # point index = sum_d i_d * strides[d]


@wp.kernel
def stencil_triplets(n: int, dim: int, c: wp.float64, diag: wp.float64, rows: wp.array(dtype=int),
                     cols: wp.array(dtype=int), vals: wp.array(dtype=wp.float64)):
    # point p writes triplets 7p .. 7p + 2 dim: its diagonal, then one per neighbour (row -1 if it is outside)
    p = wp.tid()
    k = p * (2 * dim + 1)
    rows[k] = p
    cols[k] = p
    vals[k] = diag
    stride = int(1)  # noqa: UP018 (Warp: a variable a dynamic loop changes is declared so)
    rest = int(p)
    for _d in range(dim):
        i = rest % n
        rest = rest // n
        for side in range(2):
            k += 1
            j = i + 2 * side - 1
            rows[k] = wp.where(j >= 0 and j < n, p, -1)
            cols[k] = p + (2 * side - 1) * stride
            vals[k] = -c
        stride *= n


@wp.kernel
def coupled_blocks(vals: wp.array(dtype=wp.float64), diag_coupling: wp.mat22d, blocks: wp.array(dtype=wp.mat22d)):
    # the scalar stencil's value times the identity, plus the exchange term on diagonal blocks (even scalars
    # with a nonzero diagonal come first in each point's run of triplets)
    k = wp.tid()
    blocks[k] = vals[k] * wp.identity(n=2, dtype=wp.float64)
    if vals[k] > wp.float64(0.0):
        blocks[k] = blocks[k] + diag_coupling


ntrip = npoints * (2 * dim + 1)
rows = wp.empty(ntrip, dtype=int, device=args.device)
cols = wp.empty(ntrip, dtype=int, device=args.device)
vals = wp.empty(ntrip, dtype=wp.float64, device=args.device)
blocks = wp.empty(ntrip, dtype=wp.mat22d, device=args.device) if args.fields == 2 else None


def assemble(A, dt):
    """Fill the triplets of I - dt kappa L (plus the exchange term), then A from them (new if A is None)."""
    c = dt * args.kappa / (h * h)
    wp.launch(stencil_triplets, npoints, inputs=[n, dim, c, 1.0 + 2 * dim * c, rows, cols, vals], device=args.device)
    values = vals
    if args.fields == 2:
        a = dt * args.exchange
        wp.launch(coupled_blocks, ntrip, inputs=[vals, wp.mat22d(a, -a, -a, a), blocks], device=args.device)
        values = blocks
    if A is None:
        return sp.bsr_from_triplets(npoints, npoints, rows, cols, values)
    sp.bsr_set_from_triplets(A, rows, cols, values)
    return A


# the start: the lowest sine mode (u), and v = 0 for two fields
grid = [np.arange(1, n + 1) * h] * dim
mode = np.ones(shape)
for d in range(dim):
    mode = mode * np.sin(np.pi * grid[d]).reshape([n if e == d else 1 for e in range(dim)])
mode = mode.reshape(-1)
if args.fields == 1:
    u = wp.array(mode, dtype=wp.float64, device=args.device)
else:
    u = wp.array(np.stack([mode, np.zeros_like(mode)], axis=1), dtype=wp.vec2d, device=args.device)
rhs = wp.empty_like(u)

lam = sum(4.0 / h**2 * np.sin(np.pi * h / 2) ** 2 for _ in range(dim))
dt, t = args.dt, 0.0
damp_sum, damp_diff = 1.0, 1.0  # the discrete solution's factors (u + v, u - v)
A = None
ptype = "diag" if args.fields == 1 else "block_jacobi_direct"
iterations = 0
start = time.perf_counter()
for step in range(args.steps):
    if A is None or args.growth != 1.0:
        A = assemble(A, dt)
        M = preconditioner(A, ptype)
    wp.copy(rhs, u)
    done, residual, tolerance = cg(A, rhs, u, tol=args.tol, M=M, maxiter=1000)
    assert residual <= tolerance, f"step {step}: CG did not converge ({residual:.3g} > {tolerance:.3g})"
    iterations += done
    t += dt
    damp_sum /= 1.0 + dt * args.kappa * lam
    damp_diff /= 1.0 + dt * (args.kappa * lam + 2.0 * args.exchange)
    dt *= args.growth
elapsed = time.perf_counter() - start

got = u.numpy().reshape(npoints, -1)
if args.fields == 1:
    want = (damp_sum * mode)[:, None]
else:  # u = (sum + diff) / 2, v = (sum - diff) / 2 with sum = diff = mode at the start
    want = np.stack([(damp_sum + damp_diff) / 2 * mode, (damp_sum - damp_diff) / 2 * mode], axis=1)
err = float(np.abs(got - want).max() / np.abs(want).max())
pde = np.exp(-args.kappa * dim * np.pi**2 * t)
print(f"{n}^{dim} points, {args.fields} field(s), {A.nnz_sync()} blocks: {args.steps} steps to t = {t:.4g} in "
      f"{elapsed:.3g} s ({iterations} CG iterations)")
print(f"amplitude {damp_sum:.8f} (the PDE's: {pde:.8f})")
print(f"max |u - discrete solution| / max |u| = {err:.3g}")
assert err < max(1e3 * args.tol, 1e-12), err
