"""Block-diagonal matrices: ``bsr_diag``, ``bsr_set_diag``, ``bsr_identity``, ``bsr_set_identity``, ``bsr_get_diag``."""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from ..types.arrays import array, type_name
from ._types import block_type as as_block_type
from ._types import check_array, dim, shape_of
from .indexing import bsr_block_index
from .matrix import BsrMatrix, bsr_zeros, ensure_fits, scalar_view3d, unpack


@wp.kernel(enable_backward=False)
def _diag_topology(nnz: int, offsets: wp.array(dtype=int), columns: wp.array(dtype=int)):
    row = wp.tid()
    offsets[row] = wp.min(row, nnz)
    if row < nnz:
        columns[row] = row


@wp.kernel(enable_backward=False)
def _identity_values(values: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    if i == j:
        values[b, i, j] = values.dtype(1.0)
    else:
        values[b, i, j] = values.dtype(0.0)


@wp.kernel
def _get_diag(scale: Any, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
              columns: wp.array(dtype=int), values: wp.array3d(dtype=Any), out: wp.array3d(dtype=Any)):
    row, i, j = wp.tid()
    b = bsr_block_index(row, row, offsets, columns, row_counts)
    if b != -1:
        out[row, i, j] = scale * values[b, i, j]


def _square_dims(rows_of_blocks, cols_of_blocks):
    if rows_of_blocks is None and cols_of_blocks is not None:
        rows_of_blocks = cols_of_blocks
    if cols_of_blocks is None and rows_of_blocks is not None:
        cols_of_blocks = rows_of_blocks
    return rows_of_blocks, cols_of_blocks


def bsr_set_diag(A: BsrMatrix, diag, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None) -> None:
    """Make ``A`` block-diagonal: ``diag`` is an array of blocks (its length sets the size unless given), one
    block for every diagonal entry, or ``None`` (values left unset). One of the sizes given: both equal."""
    if not isinstance(A, BsrMatrix):
        raise ValueError(f"bsr_set_diag: 'A' must be a BsrMatrix, got {type(A).__name__}")
    rows_of_blocks, cols_of_blocks = _square_dims(rows_of_blocks, cols_of_blocks)
    if isinstance(diag, array):
        check_array(diag, "diag", "bsr_set_diag", A.device)
        if diag.dtype is not A.values.dtype:
            raise ValueError(f"bsr_set_diag: 'diag' has dtype {type_name(diag.dtype)}, the matrix's blocks "
                             f"{type_name(A.dtype)}")
        if rows_of_blocks is None:
            rows_of_blocks = cols_of_blocks = diag.shape[0]
    nrow = A.nrow if rows_of_blocks is None else dim(rows_of_blocks, "rows_of_blocks")
    ncol = A.ncol if cols_of_blocks is None else dim(cols_of_blocks, "cols_of_blocks")
    nnz = min(nrow, ncol)
    if isinstance(diag, array) and diag.shape[0] < nnz:
        raise ValueError(f"bsr_set_diag: 'diag' holds {diag.shape[0]} blocks, the diagonal {nnz}")
    if nrow != A.nrow or A.offsets.shape[0] < nrow + 1:
        A.offsets = wp.empty(nrow + 1, dtype=int, device=A.device)
    A.nrow, A.ncol, A.row_counts = nrow, ncol, None
    ensure_fits(A, nnz)
    wp.launch(_diag_topology, nrow + 1, inputs=[nnz, A.offsets, A.columns], device=A.device, record_tape=False)
    if isinstance(diag, array):
        if nnz:
            wp.copy(dest=A.values, src=diag, count=nnz)
    elif diag is not None:
        A.values.fill_(diag)


def bsr_diag(diag=None, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None, block_type=None,
             device=None) -> BsrMatrix:
    """A new block-diagonal matrix of ``diag`` (an array of blocks, or one block repeated: then give the size)."""
    rows_of_blocks, cols_of_blocks = _square_dims(rows_of_blocks, cols_of_blocks)
    if isinstance(diag, array):
        if rows_of_blocks is None:
            rows_of_blocks = cols_of_blocks = diag.shape[0]
        block_type, device = diag.dtype, diag.device
    elif rows_of_blocks is None:
        raise ValueError("bsr_diag: 'rows_of_blocks' and/or 'cols_of_blocks' must be given for a uniform diagonal")
    if block_type is None:
        if diag is None:
            raise ValueError("bsr_diag: either 'diag' or 'block_type' must be given")
        block_type = type(diag)
        if isinstance(diag, (int, float)):
            block_type = float
    A = bsr_zeros(rows_of_blocks, cols_of_blocks, as_block_type(block_type), device=device)
    if isinstance(diag, array) and diag.requires_grad:
        A.values = wp.empty(0, dtype=A.values.dtype, device=A.device, requires_grad=True)
    bsr_set_diag(A, diag, A.nrow, A.ncol)  # the sizes given (Warp 1.19 resizes to the array: its docs say these)
    return A


def bsr_set_identity(A: BsrMatrix, rows_of_blocks: int | None = None) -> None:
    """Make ``A`` the identity (square blocks), resized to ``rows_of_blocks`` square when given."""
    if not isinstance(A, BsrMatrix):
        raise ValueError(f"bsr_set_identity: 'A' must be a BsrMatrix, got {type(A).__name__}")
    r, c = A.block_shape
    if r != c:
        raise ValueError(f"bsr_set_identity: the blocks of 'A' must be square, got {r}x{c}")
    bsr_set_diag(A, None, rows_of_blocks, rows_of_blocks)
    if A.nnz:
        wp.launch(_identity_values, (A.nnz, r, c), inputs=[scalar_view3d(A.values)], device=A.device,
                  record_tape=False)


def bsr_identity(rows_of_blocks: int, block_type, device=None) -> BsrMatrix:
    """A new ``rows_of_blocks`` square identity matrix of ``block_type`` (square) blocks."""
    block_type = as_block_type(block_type)
    r, c = shape_of(block_type)
    if r != c:
        raise ValueError(f"bsr_identity: 'block_type' must be a square block type, got {r}x{c}")
    A = bsr_zeros(rows_of_blocks, rows_of_blocks, block_type, device=device)
    bsr_set_identity(A)
    return A


def bsr_get_diag(A, out: array | None = None) -> array:
    """The diagonal blocks of ``A`` (zero where absent), into ``out`` when given."""
    A, scale = unpack(A, "bsr_get_diag", "A")
    n = min(A.nrow, A.ncol)
    if out is None:
        out = wp.zeros(n, dtype=A.values.dtype, device=A.device)
    else:
        check_array(out, "out", "bsr_get_diag", A.device)
        if out.dtype is not A.values.dtype:
            raise ValueError(f"bsr_get_diag: 'out' must have the matrix's block type {type_name(A.dtype)}, got "
                             f"{type_name(out.dtype)}")
        if out.shape[0] < n:
            raise ValueError(f"bsr_get_diag: 'out' must hold at least {n} blocks, got {out.shape[0]}")
        out.zero_()
    if n:
        wp.launch(_get_diag, (n, *A.block_shape),
                  inputs=[A.scalar_type(scale), A.offsets, A.row_counts, A.columns, A.scalar_values,
                          scalar_view3d(out)], device=A.device)
    return out
