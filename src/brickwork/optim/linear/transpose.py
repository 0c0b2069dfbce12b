"""The transposes of the operators and preconditioners a solve may take, for the adjoint of a solve by a solver
of non-symmetric systems (``adjoint.py``): a solve of ``A x = b`` is differentiated by solving ``A^T l = dL/dx``,
preconditioned by ``M^T`` (a right preconditioner ``A M y = b`` becomes ``A^T M^T y' = dL/dx``, a left one
``M A x = M b`` becomes ``M^T A^T l = M^T dL/dx``: either way ``M^T`` approximates ``A^-T``).

Known transposes: a dense 2-D array's (a kernel reading its columns), a BSR matrix's (``bsr_mv(...,
transpose=True)``), a diagonal's (itself), ``FSAI`` (``G^T G`` is symmetric), and those an operator carries:
``_symmetric`` (it is its own transpose) or ``_transposed()`` (block-Jacobi's). A ``LinearOperator`` of the
caller's own function has none: ``transposed`` returns None.
"""

from __future__ import annotations

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_copy import copy
from ...types.arrays import array, array2d
from ...types.scalars import Float
from .fsai import FSAI
from .operator import LinearOperator, _bsr_types

_tid = _FUNCTIONS["tid"]


@kernel(enable_backward=False)
def dense_mv_transposed(A: array2d(dtype=Float), x: array(dtype=Float), y: array(dtype=Float),
                        z: array(dtype=Float), alpha: Float, beta: Float):
    """``z[col] = alpha * (A[:, col] . x) + beta * y[col]``, one thread per column (``y`` unread when beta is 0)."""
    col = _tid()
    zero = type(alpha)(0.0)
    s = zero
    if alpha != zero:
        for row in range(A.shape[0]):
            s += A[row, col] * x[row]
        s = s * alpha
    if beta != zero:
        s += beta * y[col]
    z[col] = s


def _like(op: LinearOperator, matvec) -> LinearOperator:
    """An operator of ``op``'s transposed shape, dtype, device and batches applying ``matvec``."""
    shape = op.shape[::-1]
    return LinearOperator(shape, op.dtype, op.device, matvec, op.batch_offsets, op.max_batch_length)


def _dense(op: LinearOperator, A: array) -> LinearOperator:
    def matvec(x, y, z, alpha, beta):
        launch(dense_mv_transposed, dim=A.shape[1], inputs=[A, x, y, z, A.dtype(alpha), A.dtype(beta)],
               device=A.device, record_tape=False)

    return _like(op, matvec)


def _bsr(op: LinearOperator, A, sparse) -> LinearOperator:
    def matvec(x, y, z, alpha, beta):
        if beta != 0.0 and z.ptr != y.ptr:
            copy(z, y)  # bsr_mv updates its output in place: start it from y
        sparse.bsr_mv(A, x, z, alpha=alpha, beta=beta, transpose=True)

    return _like(op, matvec)


def transposed(op: LinearOperator | None) -> LinearOperator | None:
    """``op``'s transpose as an operator (``op`` itself when it is symmetric), or None when it is not known
    (``op`` None gives None too: check ``op`` first)."""
    if op is None:
        return None
    if isinstance(op, FSAI) or getattr(op, "_diagonal", None) is not None or getattr(op, "_symmetric", False):
        return op
    dense = getattr(op, "_dense_matrix", None)
    if dense is not None:
        return _dense(op, dense)
    matrix = getattr(op, "_bsr_matrix", None)
    if matrix is not None:
        return _bsr(op, matrix, _bsr_types())
    make = getattr(op, "_transposed", None)
    return make() if make is not None else None
