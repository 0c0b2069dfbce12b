"""``preconditioner(A, ptype)``: Jacobi (inverse diagonal) preconditioners, as Warp's ``"diag"``,
``"diag_abs"`` and ``"id"``, and the block-Jacobi ones of BSR matrices (block_jacobi.py).

A zero diagonal coefficient gives 1 (the preconditioner leaves that degree of freedom alone), as in Warp.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array, array2d
from ...types.composite import is_matrix_type, vector
from ...types.scalars import Float
from ._common import SCALARS, LinearSolverValueError
from .block_jacobi import block_jacobi
from .fsai import FSAI
from .operator import LinearOperator, _bsr_types, aslinearoperator

_tid, _abs, _where, _get_diag = (_FUNCTIONS[n] for n in ("tid", "abs", "where", "get_diag"))

_BLOCK_JACOBI = ("block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile")


@func
def inverse_coefficient(c: Float, use_abs: int):
    zero = type(c)(0.0)
    one = type(c)(1.0)
    return _where(c == zero, one, one / _where(use_abs != 0, _abs(c), c))


@kernel(enable_backward=False)
def inverse_diagonal_dense(A: array2d(dtype=Float), out: array(dtype=Float), use_abs: int):
    i = _tid()
    out[i] = inverse_coefficient(A[i, i], use_abs)


@kernel(enable_backward=False)
def inverse_diagonal_scalar(d: array(dtype=Float), out: array(dtype=Float), use_abs: int):
    i = _tid()
    out[i] = inverse_coefficient(d[i], use_abs)


@kernel(enable_backward=False)
def inverse_diagonal_blocks(blocks: array(dtype=Any), out: array(dtype=Any), use_abs: int):
    """The inverse of each diagonal block's own diagonal, as a vector."""
    i = _tid()
    d = _get_diag(blocks[i])
    for k in range(d.length):
        d[k] = inverse_coefficient(d[k], use_abs)
    out[i] = d


def preconditioner(A, ptype: str = "diag") -> LinearOperator | None:
    """A preconditioner for ``A`` (a dense 2-D array or a BSR matrix of ``brickwork.sparse``).

    ``ptype``: ``"diag"`` (Jacobi: the inverse of the diagonal), ``"diag_abs"`` (the inverse of the
    diagonal's absolute values), ``"id"`` (no preconditioner: returns ``None``), or for a BSR matrix with
    square blocks ``"block_jacobi_direct"``, ``"block_jacobi_sequential"`` or ``"block_jacobi_tile"``
    (the inverse of each diagonal block: block_jacobi.py; 1x1 blocks give ``"diag"``), or ``"fsai"`` for an SPD
    BSR matrix (``FSAI(A)`` with its default options: fsai.py).
    """
    if not isinstance(ptype, str):
        raise LinearSolverValueError(f"preconditioner: ptype must be a string, got {type(ptype).__name__}")
    if ptype == "id":
        return None
    if ptype == "fsai":
        return FSAI(A)  # the default options; construct FSAI directly to choose them
    if ptype in _BLOCK_JACOBI:
        found = block_jacobi(A, ptype, _bsr_types())
        if found is not None:
            return found
        ptype = "diag"  # 1x1 blocks: block-Jacobi is scalar Jacobi
    if ptype not in ("diag", "diag_abs"):
        raise LinearSolverValueError(f"Unsupported preconditioner type '{ptype}' (expected 'diag', 'diag_abs', 'id', "
                                     f"'block_jacobi_direct', 'block_jacobi_sequential', 'block_jacobi_tile' or "
                                     f"'fsai')")
    use_abs = 1 if ptype == "diag_abs" else 0
    if isinstance(A, array) and A.ndim == 2:
        if A.dtype not in SCALARS:
            raise LinearSolverValueError(f"preconditioner: a dense matrix must hold float16, float32 or float64 "
                                         f"scalars, got {A.dtype.__name__}")
        if A.shape[0] != A.shape[1]:
            raise LinearSolverValueError(f"preconditioner: A must be square, got shape {A.shape}")
        inv = empty(A.shape[0], dtype=A.dtype, device=A.device)
        launch(inverse_diagonal_dense, dim=A.shape[0], inputs=[A, inv, use_abs], device=A.device, record_tape=False)
        return aslinearoperator(inv)
    sparse = _bsr_types()
    if sparse is not None and isinstance(A, sparse.BsrMatrix):
        diag = sparse.bsr_get_diag(A)
        if is_matrix_type(A.dtype):
            inv = empty(A.nrow, dtype=vector(A.block_shape[0], A.scalar_type), device=A.device)
            step = inverse_diagonal_blocks
        else:
            inv = empty(A.nrow, dtype=A.dtype, device=A.device)
            step = inverse_diagonal_scalar
        launch(step, dim=inv.shape[0], inputs=[diag, inv, use_abs], device=A.device, record_tape=False)
        return aslinearoperator(inv)
    raise LinearSolverValueError(f"Unsupported source matrix type for building diagonal preconditioner: "
                                 f"{type(A).__name__} (a dense 2-D array or a BsrMatrix)")
