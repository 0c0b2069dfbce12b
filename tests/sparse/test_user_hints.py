"""Errors a new user meets first, and what their messages tell: numpy or list arguments where arrays are needed,
int64 row and column indices, a matrix multiplied by a numpy vector. Nothing is changed by a refused call."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp


def test_numpy_and_list_arguments_say_how_to_convert():
    with pytest.raises(TypeError, match=r"'values' must be an array, got ndarray \(convert it with "
                                        r"wp.array\(values, dtype=...\), on the matrix's device\)"):
        sp.bsr_from_triplets(3, 3, np.arange(3), np.arange(3), np.ones(3))
    with pytest.raises(TypeError, match=r"'rows' must be an array, got list \(convert it with wp.array\(rows"):
        sp.bsr_from_triplets(3, 3, [0, 1], [0, 1], wp.array([1.0, 2.0], dtype=wp.float64))
    A = sp.bsr_identity(3, wp.float64)
    with pytest.raises(TypeError, match=r"bsr_mv: 'x' must be an array, got ndarray \(convert it with wp.array\(x"):
        sp.bsr_mv(A, np.ones(3))
    with pytest.raises(ValueError, match=r"cannot be interpreted as a BsrMatrix \(got ndarray\); a numpy array must "
                                         r"be a brickwork array \(wp.array\(...\)\) to multiply a matrix"):
        A @ np.ones(3)  # noqa: B018
    with pytest.raises(TypeError, match=r"'x' must be an array, got int$"):  # no hint for other types
        sp.bsr_mv(A, 3)


def test_int64_indices_name_their_type_and_the_fix():
    B = sp.bsr_from_triplets(2, 2, wp.array([0], dtype=int), wp.array([1], dtype=int),
                             wp.array([5.0], dtype=wp.float64))
    rows = wp.array([0, 1], dtype=wp.int64)
    with pytest.raises(TypeError, match=r"'rows' and 'columns' are int64 and int32 arrays; make them with "
                                        r"dtype=wp.int32, or convert them: wp.array\(rows.numpy\(\), "
                                        r"dtype=wp.int32\). Rows and columns arrays must be of type int32$"):
        sp.bsr_set_from_triplets(B, rows, wp.array([0, 1], dtype=int), wp.array([1.0, 2.0], dtype=wp.float64))
    assert B.nnz_sync() == 1 and B.columns.numpy()[:1].tolist() == [1] and B.values.numpy()[:1].tolist() == [5.0]
