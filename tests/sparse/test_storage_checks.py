"""A matrix whose attributes were set by hand so that its arrays are shorter than its sizes (``columns`` or
``values`` of fewer than ``nnz`` entries, ``offsets`` of fewer than ``nrow + 1``), or are no arrays of the right
kind, is refused by every operation before anything runs (``sparse.matrix.check_storage``): the kernels read
such arrays past their ends, giving garbage or crashing. The message names the operation, the argument and the
sizes, and neither the matrix nor the output changes."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp


def _matrix():
    rows, cols = wp.array([0, 1, 2], dtype=int), wp.array([0, 1, 2], dtype=int)
    return sp.bsr_from_triplets(3, 3, rows, cols, wp.array([1.0, 2.0, 3.0], dtype=float))


def _short_columns(A):
    A.columns = wp.array([0], dtype=int)


def _short_values(A):
    A.values = wp.array([1.0], dtype=float)


def _short_offsets(A):
    A.offsets = wp.array([0, 1], dtype=int)


def _int64_offsets(A):
    A.offsets = wp.array([0, 1, 2, 3], dtype=wp.int64)


def _numpy_columns(A):
    A.columns = np.arange(3, dtype=np.int32)


def _negative_nnz(A):
    A.nnz = -1


def _float_nrow(A):
    A.nrow = 3.0


_EDITS = {
    _short_columns: r"'A.columns' holds 1 entries, but A has nnz = 3 \(A.notify_nnz_changed\(\) grows columns and "
                    r"values to nnz\)",
    _short_values: r"'A.values' holds 1 entries, but A has nnz = 3",
    _short_offsets: r"'A.offsets' holds 2 entries, but A has nrow \+ 1 = 4 \(set A.nrow with A.offsets\)",
    _int64_offsets: r"'A.offsets' must be a 1-D array of int32 values, got an array of 1 dimension\(s\) of int64",
    _numpy_columns: r"'A.columns' must be a 1-D array of int32 values, got a ndarray",
    _negative_nnz: r"'A.nnz' must be a non-negative int, got -1",
    _float_nrow: r"'A.nrow' must be a non-negative int, got 3.0",
}


def _operations(A, y):
    return {
        "bsr_mv": lambda: sp.bsr_mv(A, wp.ones(3, dtype=float), y, beta=1.0),
        "bsr_mv_transpose": lambda: sp.bsr_mv(A, wp.ones(3, dtype=float), y, beta=1.0, transpose=True),
        "bsr_transposed": lambda: sp.bsr_transposed(A),
        "bsr_copy": lambda: sp.bsr_copy(A),
        "bsr_get_diag": lambda: sp.bsr_get_diag(A),
        "bsr_scale": lambda: sp.bsr_scale(A, 2.0),
        "bsr_compress": lambda: sp.bsr_compress(A),
        "uncompress_rows": lambda: A.uncompress_rows(),
    }


@pytest.mark.parametrize("edit", list(_EDITS), ids=lambda f: f.__name__[1:])
@pytest.mark.parametrize("operation", list(_operations(None, None)))
def test_a_matrix_whose_arrays_disagree_with_its_sizes_is_refused(edit, operation):
    A = _matrix()
    edit(A)
    before = {name: np.array(getattr(A, name)) if hasattr(getattr(A, name), "shape") else getattr(A, name)
              for name in ("offsets", "columns", "values", "nrow", "ncol", "nnz")}
    y = wp.full(3, 7.0, dtype=float)
    func = operation.removesuffix("_transpose")
    name = {"bsr_scale": "x", "bsr_compress": "src"}.get(func, "A")  # the argument's name, as in Warp
    with pytest.raises(ValueError, match=rf"^{func}: {_EDITS[edit].replace('A', name)}"):
        _operations(A, y)[operation]()
    np.testing.assert_array_equal(y.numpy(), 7.0)
    for name, value in before.items():
        np.testing.assert_array_equal(np.array(getattr(A, name)), value)


def test_products_and_sums_name_their_argument():
    A, B = _matrix(), _matrix()
    _short_columns(B)
    with pytest.raises(ValueError, match=r"^bsr_mm: 'y.columns' holds 1 entries, but y has nnz = 3"):
        sp.bsr_mm(A, B)
    with pytest.raises(ValueError, match=r"^bsr_axpy: 'x.columns' holds 1 entries, but x has nnz = 3"):
        sp.bsr_axpy(B, A)
    np.testing.assert_array_equal(A.values.numpy()[:3], [1.0, 2.0, 3.0])


def test_longer_arrays_and_a_matching_edit_are_accepted():
    A = _matrix()
    A.columns = wp.array([0, 1, 2, 0, 0], dtype=int)  # spare slots past nnz, as bsr_zeros(nnz_capacity=) makes
    A.values = wp.array([1.0, 2.0, 3.0, 9.0, 9.0], dtype=float)
    np.testing.assert_array_equal(sp.bsr_mv(A, wp.ones(3, dtype=float)).numpy(), [1.0, 2.0, 3.0])
    A.nrow, A.offsets = 2, wp.array([0, 1, 3], dtype=int)  # two rows now: (0, 0) and (1, 1), (1, 2)
    np.testing.assert_array_equal(sp.bsr_mv(A, wp.ones(3, dtype=float)).numpy(), [1.0, 5.0])
