"""Conversions between ``BsrMatrix`` and scipy.sparse (``bsr_from_scipy``, ``bsr_to_scipy``).

scipy's BSR layout is brickwork's (``indptr``/``indices``/``data`` are ``offsets``/``columns``/the values as a
3-D array of scalars), so a conversion copies the three arrays once, through the host. scipy stays optional:
it is imported when a conversion runs, never at ``import brickwork.sparse``."""

from __future__ import annotations

import numpy as np

from ..runtime.warp_names import wp
from ..types.scalars import dtype_from_numpy, dtype_to_numpy, is_scalar_type
from .matrix import BsrMatrix
from .triplets import bsr_from_triplets

_SCIPY_MISSING = "needs scipy, which is not installed (pip install scipy)"


def _scipy_sparse(func: str):
    try:
        import scipy.sparse
    except ImportError:
        raise ImportError(f"{func} {_SCIPY_MISSING}") from None
    return scipy.sparse


def bsr_from_scipy(matrix, block_shape: tuple[int, int] | None = None, dtype=None, device=None) -> BsrMatrix:
    """A ``BsrMatrix`` with the values of the scipy sparse matrix or array ``matrix`` (any format), on ``device``.

    ``block_shape`` is the blocks' shape in scalars (default: ``matrix.blocksize`` for a BSR matrix, else 1 x 1,
    which gives a CSR matrix of scalar blocks); ``dtype`` their scalar type (default: ``matrix.dtype``'s, which
    must be one of brickwork's). Duplicate entries are summed and explicitly stored zeros stay stored blocks, as
    scipy keeps them."""
    sparse = _scipy_sparse("bsr_from_scipy")
    if not sparse.issparse(matrix):
        raise TypeError(f"bsr_from_scipy: 'matrix' must be a scipy.sparse matrix or array, got "
                        f"{type(matrix).__name__} (a dense numpy array converts with scipy.sparse.csr_array(a))")
    shape = tuple(int(n) for n in matrix.shape)
    if block_shape is None:
        block_shape = tuple(matrix.blocksize) if matrix.format == "bsr" else (1, 1)
    block_shape = _block_shape(block_shape)
    if shape[0] % block_shape[0] or shape[1] % block_shape[1]:
        raise ValueError(f"bsr_from_scipy: a matrix of shape {shape} is not made of {block_shape[0]}x"
                         f"{block_shape[1]} blocks (each dimension must be a multiple of the block's)")
    scalar = _scalar_type(matrix.dtype if dtype is None else dtype)
    bsr = matrix.tobsr(blocksize=block_shape, copy=True)
    bsr.sum_duplicates()
    nrow, ncol = shape[0] // block_shape[0], shape[1] // block_shape[1]
    rows = np.repeat(np.arange(nrow, dtype=np.int32), np.diff(bsr.indptr))
    values = np.ascontiguousarray(bsr.data, dtype=dtype_to_numpy(scalar))
    if block_shape == (1, 1):
        values = values.reshape(-1)
    device = wp.get_device(device)
    return bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int, device=device),
                             wp.array(bsr.indices.astype(np.int32), dtype=int, device=device),
                             wp.array(values, dtype=scalar, device=device), prune_numerical_zeros=False)


def bsr_to_scipy(matrix: BsrMatrix):
    """The stored blocks of ``matrix`` as a scipy sparse array (copied to the host): a ``scipy.sparse.csr_array``
    for scalar blocks, else a ``bsr_array`` of its block shape, with the matrix's scalar type."""
    if not isinstance(matrix, BsrMatrix):
        raise TypeError(f"bsr_to_scipy: 'matrix' must be a BsrMatrix, got {type(matrix).__name__}")
    sparse = _scipy_sparse("bsr_to_scipy")
    block_rows = matrix.uncompress_rows().numpy()
    stored = np.flatnonzero(block_rows >= 0)  # the active slots, in row order (padded rows leave gaps)
    rows = block_rows[stored]
    columns = matrix.columns.numpy()[stored]
    data = matrix.scalar_values.numpy()[stored]
    indptr = np.zeros(matrix.nrow + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=matrix.nrow), out=indptr[1:])
    if matrix.block_shape == (1, 1):
        return sparse.csr_array((data.reshape(-1), columns, indptr), shape=matrix.shape)
    return sparse.bsr_array((data, columns, indptr), shape=matrix.shape, blocksize=matrix.block_shape)


def _block_shape(value) -> tuple[int, int]:
    """``block_shape`` as two positive ints, else a ``ValueError`` naming it."""
    try:
        shape = tuple(int(n) for n in value)
    except TypeError:
        shape = ()
    if len(shape) != 2 or min(shape) < 1:
        raise ValueError(f"bsr_from_scipy: 'block_shape' must be two positive ints (rows, cols), got {value!r}")
    return shape


def _scalar_type(dtype):
    """brickwork's scalar type of a numpy dtype or a brickwork scalar type, else a ``TypeError`` naming it."""
    if is_scalar_type(dtype):  # already a brickwork scalar type
        return dtype
    try:
        return dtype_from_numpy(np.dtype(dtype))
    except (TypeError, KeyError):
        raise TypeError(f"bsr_from_scipy: blocks of {np.dtype(dtype).name} values are not a brickwork scalar type "
                        f"(pass dtype=wp.float32 or wp.float64 to convert them)") from None
