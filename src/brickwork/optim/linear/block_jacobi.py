"""Block-Jacobi preconditioners of BSR matrices with square blocks: each diagonal block is inverted
(``"block_jacobi_direct"``: Householder QR) or factorized (``"block_jacobi_sequential"`` and
``"block_jacobi_tile"``: L D L^T), one thread per block, and applied block by block.

As in Warp, a block that cannot be used becomes the identity (the preconditioner leaves those degrees of
freedom alone, as scalar Jacobi does with a zero diagonal): for QR a pivot that is not finite or below
``rel_tol`` times the largest one (singular or rank-deficient blocks), for L D L^T a block that is not
symmetric or a pivot that is not above ``rel_tol`` times the largest diagonal coefficient (blocks that are
not positive definite). ``rel_tol`` depends on the scalar type (float16 1e-3, float32 1e-6, float64 1e-12).
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array
from ...types.scalars import Float, float16, float32, float64
from ._common import LinearSolverValueError
from .operator import LinearOperator

_tid, _abs, _max, _sqrt, _sign, _isfinite, _transpose = (_FUNCTIONS[n] for n in ("tid", "abs", "max", "sqrt", "sign",
                                                                                   "isfinite", "transpose"))

#: pivots below this fraction of the block's scale count as zero
PIVOT_REL_TOL = {float16: 1.0e-3, float32: 1.0e-6, float64: 1.0e-12}


@func
def identity_like(A: Any):
    M = A * A.dtype(0.0)
    n = A[0].length
    for i in range(n):
        M[i, i] = A.dtype(1.0)
    return M


@func
def max_abs_diagonal(A: Any):
    m = A.dtype(0.0)
    for j in range(A[0].length):
        m = _max(m, _abs(A[j, j]))
    return m


@func
def is_symmetric(A: Any, rel_tol: Any):
    """``|A[i, j] - A[j, i]| <= rel_tol * max |A[k, k]|`` for every pair."""
    bound = rel_tol * max_abs_diagonal(A)
    n = A[0].length
    same = 1
    for j in range(n):
        for i in range(j + 1, n):
            if _abs(A[i, j] - A[j, i]) > bound:
                same = 0
    return same


@func
def qr_inverse(A: Any, rel_tol: Any):
    """``A^-1 = R^-1 Q^T`` from Householder reflections, or the identity for a (numerically) singular ``A``."""
    n = A[0].length
    zero = A.dtype(0.0)
    two = A.dtype(2.0)
    R = A
    QT = identity_like(A)
    v = A[0]
    for i in range(n):
        norm_sq = zero
        for k in range(i, n):
            norm_sq += R[k, i] * R[k, i]
        norm = _sqrt(norm_sq)
        # v = x + sign(x_i) |x| e_i over rows i..n-1: reflects column i onto e_i
        for k in range(n):
            v[k] = zero
            if k >= i:
                v[k] = R[k, i]
        head = R[i, i]
        v[i] = head + _sign(head) * norm
        vv = zero
        for k in range(i, n):
            vv += v[k] * v[k]
        if vv > zero:
            scale = two / vv
            for j in range(n):
                r_dot = zero
                q_dot = zero
                for k in range(i, n):
                    r_dot += v[k] * R[k, j]
                    q_dot += v[k] * QT[k, j]
                for k in range(i, n):
                    R[k, j] = R[k, j] - scale * v[k] * r_dot
                    QT[k, j] = QT[k, j] - scale * v[k] * q_dot
    largest = max_abs_diagonal(R)
    singular = 0
    for j in range(n):
        pivot = R[j, j]
        if not _isfinite(pivot) or _abs(pivot) <= rel_tol * largest:
            singular = 1
    inverse = identity_like(A)
    if singular == 0:
        for c in range(n):  # column c of the inverse: R x = column c of Q^T
            for step in range(n):
                i = n - 1 - step
                s = QT[i, c]
                for j in range(i + 1, n):
                    s -= R[i, j] * inverse[j, c]
                inverse[i, c] = s / R[i, i]
    return inverse


@func
def ldlt(A: Any, rel_tol: Any):
    """``A = L D L^T`` packed in one matrix (``D`` on the diagonal, ``L``'s unit diagonal implied), or the
    identity for a block that is not symmetric positive definite."""
    n = A[0].length
    zero = A.dtype(0.0)
    M = A * zero
    usable = is_symmetric(A, rel_tol)
    bound = rel_tol * max_abs_diagonal(A)
    if usable == 1:
        for j in range(n):
            if usable == 1:
                d = A[j, j]
                for k in range(j):
                    d -= M[j, k] * M[j, k] * M[k, k]
                if not _isfinite(d) or d <= bound:
                    usable = 0
                else:
                    M[j, j] = d
                    for i in range(j + 1, n):
                        t = A[i, j]
                        for k in range(j):
                            t -= M[i, k] * M[j, k] * M[k, k]
                        M[i, j] = t / d
    if usable == 0:
        M = identity_like(A)
    return M


@func
def ldlt_solve(M: Any, x: Any):
    """``(L D L^T)^-1 x`` from the packed factors."""
    n = x.length
    y = x
    for i in range(n):  # L y = x
        for j in range(i):
            y[i] = y[i] - M[i, j] * y[j]
    for step in range(n):  # L^T z = D^-1 y
        i = n - 1 - step
        s = y[i] / M[i, i]
        for j in range(i + 1, n):
            s -= M[j, i] * y[j]
        y[i] = s
    return y


@kernel(enable_backward=False)
def invert_blocks(blocks: array(dtype=Any), rel_tol: Float, out: array(dtype=Any)):
    i = _tid()
    out[i] = qr_inverse(blocks[i], blocks.dtype.dtype(rel_tol))


@kernel(enable_backward=False)
def factorize_blocks(blocks: array(dtype=Any), rel_tol: Float, out: array(dtype=Any)):
    i = _tid()
    out[i] = ldlt(blocks[i], blocks.dtype.dtype(rel_tol))


@func
def apply_block(factors: Any, v: Any, ldl: int):
    result = v
    if ldl != 0:
        result = ldlt_solve(factors, v)
    else:
        result = factors * v
    return result


@kernel(enable_backward=False)
def apply_blocks_vector(factors: array(dtype=Any), ldl: int, x: array(dtype=Any), y: array(dtype=Any),
                        z: array(dtype=Any), alpha: Float, beta: Float):
    """``z[i] = alpha * B_i^-1 x[i] + beta * y[i]`` for vectors of the block's size."""
    i = _tid()
    zero = type(alpha)(0.0)
    s = z.dtype(zero)
    if alpha != zero:
        s = alpha * apply_block(factors[i], x[i], ldl)
    if beta != zero:
        s += beta * y[i]
    z[i] = s


@kernel(enable_backward=False)
def apply_blocks_scalar(factors: array(dtype=Any), ldl: int, x: array(dtype=Float), y: array(dtype=Float),
                        z: array(dtype=Float), alpha: Float, beta: Float):
    """As ``apply_blocks_vector`` for scalar arrays (block ``i`` covers ``[i * n, (i + 1) * n)``)."""
    i = _tid()
    F = factors[i]
    v = F[0]
    n = v.length
    for c in range(n):
        v[c] = x[i * n + c]
    zero = type(alpha)(0.0)
    w = v * zero
    if alpha != zero:
        w = alpha * apply_block(F, v, ldl)
    for c in range(n):
        s = w[c]
        if beta != zero:
            s += beta * y[i * n + c]
        z[i * n + c] = s


def block_jacobi(A, ptype: str, sparse) -> LinearOperator | None:
    """The ``ptype`` block-Jacobi preconditioner of BSR matrix ``A``, or None for 1x1 blocks (the caller
    builds scalar Jacobi)."""
    if sparse is None or not isinstance(A, sparse.BsrMatrix):
        raise LinearSolverValueError(f"Block-Jacobi preconditioner ('{ptype}') requires a BsrMatrix input, got "
                                     f"{type(A).__name__}")
    rows, cols = A.block_shape
    if rows != cols:
        raise LinearSolverValueError(f"Block-Jacobi preconditioner requires square matrix blocks, got shape "
                                     f"{A.block_shape}")
    if A.nrow != A.ncol:
        raise LinearSolverValueError(f"Block-Jacobi preconditioner requires the same number of block rows and block "
                                     f"columns, got {A.nrow} block rows and {A.ncol} block columns (shape {A.shape})")
    scalar = A.scalar_type
    if ptype == "block_jacobi_tile" and scalar not in (float32, float64):
        raise LinearSolverValueError(f"'block_jacobi_tile' preconditioner requires a float32 or float64 scalar type, "
                                     f"got {scalar.__name__}")
    if rows == 1:
        return None
    blocks = sparse.bsr_get_diag(A)
    count = blocks.shape[0]
    factors = empty(count, dtype=blocks.dtype, device=A.device)
    ldl = 0 if ptype == "block_jacobi_direct" else 1
    step = invert_blocks if ldl == 0 else factorize_blocks
    launch(step, dim=count, inputs=[blocks, scalar(PIVOT_REL_TOL[scalar]), factors], device=A.device,
           record_tape=False)
    return _blocks_operator(A, factors, ldl)


@kernel(enable_backward=False)
def transpose_blocks(blocks: array(dtype=Any), out: array(dtype=Any)):
    i = _tid()
    out[i] = _transpose(blocks[i])


def _blocks_operator(A, factors: array, ldl: int) -> LinearOperator:
    """The operator applying ``factors`` block by block; it knows its transpose, for the adjoint solve of a
    non-symmetric solver (transpose.py): L D L^T factors (or the identity) are symmetric, inverses are transposed."""
    scalar, count, rows = A.scalar_type, factors.shape[0], A.block_shape[0]

    def matvec(x, y, z, alpha, beta):
        apply = apply_blocks_scalar if x.dtype is scalar else apply_blocks_vector
        launch(apply, dim=count, inputs=[factors, ldl, x, y, z, scalar(alpha), scalar(beta)], device=A.device,
               record_tape=False)

    op = LinearOperator((count * rows, count * rows), A.dtype, A.device, matvec)
    if ldl:
        op._symmetric = True
    else:
        def transposed() -> LinearOperator:
            inverses = empty(count, dtype=factors.dtype, device=A.device)
            launch(transpose_blocks, dim=count, inputs=[factors, inverses], device=A.device, record_tape=False)
            return _blocks_operator(A, inverses, 0)

        op._transposed = transposed
    return op
