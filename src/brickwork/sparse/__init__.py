"""Block sparse row (BSR) matrices, as Warp's ``warp.sparse``: construction from triplets, sums, products,
transposes and diagonals, every numeric step a kernel on the matrix's device.

Import it explicitly (``import brickwork.sparse``), as Warp's. See docs/sparse.md.
"""

from .assign import bsr_assign, bsr_copy, bsr_set_transpose, bsr_transposed
from .axpy import bsr_axpy, bsr_axpy_work_arrays, bsr_scale
from .compress import bsr_compress
from .diag import bsr_diag, bsr_get_diag, bsr_identity, bsr_set_diag, bsr_set_identity
from .indexing import bsr_block_index, bsr_row_index
from .mapped import BsrTripletMap, bsr_set_from_mapped_values
from .matrix import (
    BSR_STATUS_ROW_CAPACITY_EXCEEDED,
    BSR_STATUS_SUCCESS,
    BsrMatrix,
    bsr_matrix_t,
    bsr_set_zero,
    bsr_zeros,
)
from .mm import bsr_mm, bsr_mm_work_arrays
from .mv import bsr_mv
from .scipy_convert import bsr_from_scipy, bsr_to_scipy
from .triplets import bsr_from_triplets, bsr_set_from_triplets

__all__ = [
    "BSR_STATUS_ROW_CAPACITY_EXCEEDED",
    "BSR_STATUS_SUCCESS",
    "BsrMatrix",
    "BsrTripletMap",
    "bsr_compress",
    "bsr_set_from_mapped_values",
    "bsr_assign",
    "bsr_axpy",
    "bsr_axpy_work_arrays",
    "bsr_mm",
    "bsr_mm_work_arrays",
    "bsr_scale",
    "bsr_copy",
    "bsr_set_transpose",
    "bsr_transposed",
    "bsr_block_index",
    "bsr_diag",
    "bsr_get_diag",
    "bsr_identity",
    "bsr_row_index",
    "bsr_set_diag",
    "bsr_set_identity",
    "bsr_from_triplets",
    "bsr_from_scipy",
    "bsr_to_scipy",
    "bsr_matrix_t",
    "bsr_mv",
    "bsr_set_from_triplets",
    "bsr_set_zero",
    "bsr_zeros",
]
