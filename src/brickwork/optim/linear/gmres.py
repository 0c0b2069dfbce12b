"""``GMRES``: restarted generalized minimal residual (GMRES[k]) for general systems, with a left or right
preconditioner.

A cycle builds an orthonormal basis of the Krylov space (Arnoldi with classical Gram-Schmidt: the inner
products of the new vector with every basis vector in one launch, one update), solves the small
least-squares problem with Givens rotations (one thread per batch), and updates ``x``; the true residual
``b - A x`` ends the cycle. Iterations are counted ``restart`` at a time.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty, zeros, zeros_like
from ...types.arrays import array, array2d, array3d
from ...types.scalars import float64, int32
from ._common import dtype_epsilon
from .conjugate import check_restart
from .kernels import entry_batch
from .state import LinearSolverState

_tid, _sqrt, _where = _FUNCTIONS["tid"], _FUNCTIONS["sqrt"], _FUNCTIONS["where"]


@kernel(enable_backward=False)
def normalize(x: array(dtype=Any), y: array(dtype=Any), norm_sq: array(dtype=Any), offsets: array(dtype=int32)):
    """``y = x / |x|`` per batch (``y = x`` where ``|x|`` is 0)."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        a = norm_sq[bid]
        y[i] = _where(a == norm_sq.dtype(0.0), x[i], x[i] / _sqrt(a))


@kernel(enable_backward=False)
def store_norm(norm_sq: array(dtype=Any), H: array3d(dtype=Any), row: int, col: int):
    bid = _tid()
    H[bid, row, col] = _sqrt(norm_sq[bid])


@kernel(enable_backward=False)
def store_sqrt(norm_sq: array(dtype=Any), out: array(dtype=Any)):
    bid = _tid()
    out[bid] = _sqrt(norm_sq[bid])


@kernel(enable_backward=False)
def arnoldi_subtract(j: int, V: array2d(dtype=Any), w: array(dtype=Any), H: array3d(dtype=Any),
                     offsets: array(dtype=int32)):
    """``w -= sum_k H[batch, k, j] V[k]`` over ``k <= j``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        s = w.dtype(H.dtype(0.0))
        for k in range(j + 1):
            s += H[bid, k, j] * V[k, i]
        w[i] = w[i] - s


@kernel(enable_backward=False)
def least_squares(k: int, pivot_tolerance: float64, beta: array(dtype=Any), H: array3d(dtype=Any),
                  y: array2d(dtype=Any)):
    """``y[batch]`` minimizing ``|H[batch] y - (beta, 0, ..., 0)|``: Givens rotations make the Hessenberg
    matrix triangular (in place), then back substitution. A column whose pivot falls below
    ``pivot_tolerance`` ends the basis early (the Krylov space was exhausted)."""
    bid = _tid()
    zero = H.dtype(0.0)
    rhs = beta[bid]
    used = k
    for i in range(k):
        a = H[bid, i, i]
        b = H[bid, i + 1, i]
        norm_sq = a * a + b * b
        if norm_sq < H.dtype(pivot_tolerance):
            used = i
            break
        norm = _sqrt(norm_sq)
        c = a / norm
        s = b / norm
        for col in range(i, k):
            top = H[bid, i, col]
            bottom = H[bid, i + 1, col]
            H[bid, i, col] = c * top + s * bottom
            H[bid, i + 1, col] = c * bottom - s * top
        y[bid, i] = c * rhs
        rhs = -s * rhs
    for i in range(used, k):
        y[bid, i] = zero
    for step in range(used):
        i = used - 1 - step
        yi = y[bid, i]
        for col in range(i + 1, used):
            yi -= H[bid, i, col] * y[bid, col]
        y[bid, i] = yi / H[bid, i, i]


@kernel(enable_backward=False)
def combine_basis(k: int, scale: Any, y: array2d(dtype=Any), V: array2d(dtype=Any), x: array(dtype=Any),
                  offsets: array(dtype=int32)):
    """``x = scale x + sum_j y[batch, j] V[j]`` over ``j < k``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        xi = scale * x[i]
        for j in range(k):
            xi += V[j, i] * y[bid, j]
        x[i] = xi


@kernel(enable_backward=False)
def add_active(update: array(dtype=Any), x: array(dtype=Any), offsets: array(dtype=int32)):
    i = _tid()
    if entry_batch(i, offsets) >= 0:
        x[i] = x[i] + update[i]


class GMRES(LinearSolverState):
    """GMRES[k], as ``warp.optim.linear.GMRES``: the buffers of ``gmres`` for ``A``, ``b``, ``x``, run by calling
    the object (see ``LinearSolverState``). ``restart``: the ``k``, the size of the Krylov basis (at most
    ``maxiter``); ``is_left_preconditioner``: apply ``M`` on the left rather than the right. ``M`` may
    change, or come and go, between calls."""

    _NAME = "GMRES"

    def __init__(self, A, b, x, tol=None, atol=None, restart: int = 31, maxiter=0, M=None, callback=None,
                 check_every: int = 31, use_cuda_graph=True, is_left_preconditioner=False):
        restart = check_restart("GMRES", restart)
        if restart is None:
            restart = 31
        self._restart = restart
        self._is_left_preconditioner = bool(is_left_preconditioner)
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _allocate(self) -> None:
        restart = self._restart = max(1, min(self._restart, self._maxiter))
        if self._check_every > 0:
            self._check_every = max(restart, self._check_every)
        b, scalar, device, batches = self._b, self._scalar_type, self._device, self._batch_count
        self._pivot_tolerance = dtype_epsilon(scalar) ** 2
        self._r, self._w = zeros_like(b), zeros_like(b)  # w is a matvec's y with beta = 0 (see CG._allocate)
        self._H = empty((batches, restart + 1, restart), dtype=scalar, device=device)
        self._y = empty((batches, restart + 1), dtype=scalar, device=device)
        self._V = zeros((restart + 1, b.shape[0]), dtype=b.dtype, device=device)
        self._residuals = empty((2, batches), dtype=scalar, device=device)  # beta, atol_sq
        self._dot = self._dots(2, rows=restart + 1)  # r.r, a vector's norm

    def _launch(self, step, *inputs, dim=None) -> None:
        launch(step, dim=self._b.shape[0] if dim is None else dim, inputs=list(inputs), device=self._device,
               record_tape=False)

    def _run(self, A, b, x, M):
        dot, r, w, H, y, V, offsets = self._dot, self._r, self._w, self._H, self._y, self._V, self._offsets
        restart, batches, scalar = self._restart, self._batch_count, self._scalar_type
        left = M is not None and self._is_left_preconditioner
        beta, atol_sq = self._residuals[0], self._residuals[1]
        r_norm_sq, norm_sq = dot.col(0), dot.col(1)
        self._init_tolerance(b, dot, atol_sq)
        A.matvec(x, b, r, alpha=-1.0, beta=1.0)
        dot.compute(r, r, 0)
        w.zero_()

        def arnoldi(j: int) -> None:
            if M is None:
                A.matvec(V[j], w, w, alpha=1.0, beta=0.0)
            elif left:
                A.matvec(V[j], V[j + 1], V[j + 1], alpha=1.0, beta=0.0)
                M.matvec(V[j + 1], w, w, alpha=1.0, beta=0.0)
            else:
                M.matvec(V[j], V[j + 1], V[j + 1], alpha=1.0, beta=0.0)
                A.matvec(V[j + 1], w, w, alpha=1.0, beta=0.0)
            dot.compute_rows(w, V, j + 1, H, j)
            self._launch(arnoldi_subtract, j, V, w, H, offsets)
            dot.compute(w, w, 1)
            self._launch(normalize, w, V[j + 1], norm_sq, offsets)
            self._launch(store_norm, norm_sq, H, j + 1, j, dim=batches)

        def cycle() -> None:
            if left:
                M.matvec(r, w, w, alpha=1.0, beta=0.0)
            rh = w if left else r
            dot.compute(rh, rh, 1)
            self._launch(normalize, rh, V[0], norm_sq, offsets)
            self._launch(store_sqrt, norm_sq, beta, dim=batches)
            for j in range(restart):
                arnoldi(j)
            self._launch(least_squares, restart, float(self._pivot_tolerance), beta, H, y, dim=batches)
            if M is None or left:
                self._launch(combine_basis, restart, scalar(1.0), y, V, x, offsets)
            else:
                self._launch(combine_basis, restart, scalar(0.0), y, V, w, offsets)
                M.matvec(w, r, r, alpha=1.0, beta=0.0)
                self._launch(add_active, r, x, offsets)
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            dot.compute(r, r, 0)

        return self._loop(cycle, r_norm_sq, atol_sq, restart)


def gmres(A, b: array, x: array, tol: float | None = None, atol: float | None = None, restart=31,
          maxiter: float | None = 0, M=None, callback=None, check_every=31, use_cuda_graph=True,
          is_left_preconditioner=False, run: bool = True):
    """Solve ``A x = b`` (any nonsingular ``A``) by restarted GMRES[``restart``], as ``warp.optim.linear.gmres``.

    Iterations are counted a cycle (``restart`` iterations) at a time, so up to ``restart - 1`` more than
    ``maxiter`` may run. Returns ``(iterations, residual_norm, absolute_tolerance)`` (the true residual of
    the last cycle), device arrays of the squares with ``check_every == 0``, or with ``run=False`` the
    ``GMRES`` object, unrun. ``M`` is a right preconditioner, a left one with ``is_left_preconditioner``.
    """
    state = GMRES(A, b, x, tol=tol, atol=atol, restart=restart, maxiter=maxiter, M=M, callback=callback,
                  check_every=check_every, use_cuda_graph=use_cuda_graph,
                  is_left_preconditioner=is_left_preconditioner)
    return state() if run else state
