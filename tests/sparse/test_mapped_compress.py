"""BsrTripletMap with bsr_set_from_mapped_values, bsr_compress, padded matrices (row capacity, status) and
bsr_set_zero's topology policies."""

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config

from .util import dense, triplets

ROWS = [0, 0, 0, 1, 1, 1]
COLS = [0, 1, 1, 0, 0, 1]


def _arrays(device="cpu"):
    return wp.array(ROWS, dtype=int, device=device), wp.array(COLS, dtype=int, device=device)


def test_mapped_values_gather_and_atomic():
    rows, cols = _arrays()
    A = sp.bsr_zeros(2, 2, float)
    mapping = sp.bsr_set_from_triplets(A, rows, cols, wp.array([0.0, 2, 3, 4, 5, 6], dtype=float),
                                       prune_numerical_zeros=False, build_mapping=True)
    assert isinstance(mapping, sp.BsrTripletMap) and mapping.triplet_count == 6 and A.nnz == 6
    assert mapping._triplet_blocks.numpy().tolist() == [0, 1, 1, 2, 2, 3]
    assert mapping._block_ends.numpy()[:4].tolist() == [1, 3, 5, 6]
    updated = wp.array([2.0, 1, 4, 3, 6, 5], dtype=float)
    for reduction in ("gather", "atomic"):
        sp.bsr_set_from_mapped_values(A, mapping, updated, reduction=reduction)
        np.testing.assert_allclose(dense(A), [[2.0, 5.0], [9.0, 5.0]])
    dropped = sp.bsr_zeros(2, 2, float)
    m2 = sp.bsr_set_from_triplets(dropped, wp.array([0, -1, 1, 5], dtype=int), wp.array([0, 0, 1, 0], dtype=int),
                                  prune_numerical_zeros=False, build_mapping=sp.BsrTripletMap(capacity=2))
    assert m2.capacity == 4 and m2._triplet_blocks.numpy().tolist() == [0, -1, 1, -1]
    sp.bsr_set_from_mapped_values(dropped, m2, wp.array([7.0, 11, 13, 17], dtype=float), reduction="atomic")
    np.testing.assert_allclose(dense(dropped), [[7.0, 0.0], [0.0, 13.0]])


def test_mapped_errors():
    rows, cols = _arrays()
    A = sp.bsr_zeros(2, 2, float)
    values = wp.array(np.arange(6.0), dtype=float)
    with pytest.raises(ValueError, match="has not been built"):
        sp.bsr_set_from_mapped_values(A, sp.BsrTripletMap(), values)
    with pytest.raises(ValueError, match="requires prune_numerical_zeros=False"):
        sp.bsr_set_from_triplets(A, rows, cols, values, build_mapping=True)
    with pytest.raises(ValueError, match="requires topology"):
        sp.bsr_set_from_triplets(A, rows, cols, values, topology="masked", build_mapping=True)
    with pytest.raises(TypeError, match="build_mapping must be"):
        sp.bsr_set_from_triplets(A, rows, cols, values, prune_numerical_zeros=False, build_mapping="yes")
    mapping = sp.bsr_set_from_triplets(A, rows, cols, values, prune_numerical_zeros=False, build_mapping=True)
    with pytest.raises(ValueError, match="Values must contain 6 triplets"):
        sp.bsr_set_from_mapped_values(A, mapping, values[:3])
    with pytest.raises(ValueError, match="'values' must be contiguous"):
        sp.bsr_set_from_mapped_values(A, mapping, wp.array(np.arange(12.0), dtype=float)[::2])
    with pytest.raises(ValueError, match="Unsupported mapped reduction"):
        sp.bsr_set_from_mapped_values(A, mapping, values, reduction="sum")
    with pytest.raises(TypeError, match="'mapping' must be a BsrTripletMap"):
        sp.bsr_set_from_mapped_values(A, None, values)
    sp.bsr_set_from_triplets(A, rows, cols, values)  # new topology arrays: the map no longer fits
    with pytest.raises(ValueError, match="differs"):
        sp.bsr_set_from_mapped_values(A, mapping, values)


def test_compress_sorts_merges_and_prunes():
    A = sp.bsr_zeros(2, 3, float)
    A.offsets = wp.array([0, 4, 6], dtype=int)
    A.columns = wp.array([2, 0, 2, 5, 1, -1], dtype=int)
    A.values = wp.array([1.0, 2.0, 3.0, 9.0, 0.0, 7.0], dtype=float)
    A.nnz = 6
    sp.bsr_compress(A, prune_numerical_zeros=False)
    assert A.nnz_sync() == 3 and A.row_counts is None
    assert A.offsets.numpy().tolist() == [0, 2, 3]
    np.testing.assert_allclose(dense(A), [[2.0, 0.0, 4.0], [0.0, 0.0, 0.0]])
    B = sp.bsr_zeros(1, 3, float)
    B.offsets, B.columns, B.nnz = wp.array([0, 3], dtype=int), wp.array([1, 1, 0], dtype=int), 3
    B.values = wp.array([1.0, -1.0, 0.0], dtype=float)
    sp.bsr_compress(B)  # the zero triplet is pruned, the cancelling pair kept (a zero block)
    assert B.nnz_sync() == 1 and B.columns.numpy()[:1].tolist() == [1]
    P = sp.bsr_zeros(2, 3, float, row_capacity=3)
    P.columns = wp.array([2, 0, 2, 1, -1, 1], dtype=int)
    P.values = wp.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=float)
    P.row_counts = wp.array([3, 2], dtype=int)
    sp.bsr_compress(P, topology="padded")
    assert P.offsets.numpy().tolist() == [0, 3, 6] and P.row_counts.numpy().tolist() == [2, 1]
    np.testing.assert_allclose(dense(P), [[2.0, 0.0, 4.0], [0.0, 4.0, 0.0]])
    with pytest.raises(ValueError, match="concrete BsrMatrix"):
        sp.bsr_compress(2.0 * P)


def test_padded_matrices_and_set_zero_policies():
    caps = wp.array([1, 0, 3], dtype=int)
    R = sp.bsr_zeros(3, 4, float, row_capacity=caps)
    assert R.nnz == 4 and R.offsets.numpy().tolist() == [0, 1, 1, 4]
    sp.bsr_set_from_triplets(R, wp.array([0, 2, 2], dtype=int), wp.array([0, 1, 3], dtype=int),
                             wp.array([1.0, 2.0, 3.0], dtype=float), topology="padded")
    assert R.row_counts.numpy().tolist() == [1, 0, 2] and R.status_sync() == sp.BSR_STATUS_SUCCESS
    np.testing.assert_allclose(dense(R), [[1.0, 0, 0, 0], [0, 0, 0, 0], [0, 2.0, 0, 3.0]])
    sp.bsr_set_zero(R, topology="padded")  # the capacity kept, every row empty
    assert R.offsets.numpy().tolist() == [0, 1, 1, 4] and R.row_counts.numpy().tolist() == [0, 0, 0]
    sp.bsr_set_from_triplets(R, wp.array([1], dtype=int), wp.array([0], dtype=int), wp.array([1.0], dtype=float),
                             topology="padded")
    assert R.status_sync() == sp.BSR_STATUS_ROW_CAPACITY_EXCEEDED and R.status_message() == "row capacity exceeded"
    R.clear_status()
    assert R.status_sync() == sp.BSR_STATUS_SUCCESS
    sp.bsr_set_zero(R, topology="padded", row_capacity=wp.array([0, 2, 1], dtype=int))
    assert R.nnz_sync() == 3 and R.offsets.numpy().tolist() == [0, 0, 2, 3]
    M = sp.bsr_from_triplets(2, 2, wp.array([0, 1], dtype=int), wp.array([1, 0], dtype=int),
                             wp.array([1.0, 2.0], dtype=float))
    sp.bsr_set_zero(M, topology="masked")
    assert M.offsets.numpy().tolist() == [0, 1, 2] and dense(M).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="Cannot resize"):
        sp.bsr_set_zero(M, 3, topology="masked")
    with pytest.raises(ValueError, match="row_capacity must have shape"):
        sp.bsr_zeros(3, 4, float, row_capacity=wp.array([1, 2], dtype=int))
    A = sp.bsr_zeros(3, 3, float)
    A.notify_nnz_changed(10)
    assert A.nnz == 10 and A.values.shape[0] >= 10 and A.nnz_sync() == 0


def test_mm_max_new_nnz_truncates_with_a_warning(capfd):
    ones = wp.array([0, 0, 1, 1], dtype=int), wp.array([0, 1, 0, 1], dtype=int)
    A = sp.bsr_from_triplets(2, 2, *ones, wp.array([1.0, 2.0, 3.0, 4.0], dtype=float))
    C = sp.bsr_zeros(2, 2, float)
    sp.bsr_mm(A, A, C, max_new_nnz=4)
    assert C.nnz_sync() == 4
    sp.bsr_mm(A, A, C, max_new_nnz=2)
    assert C.nnz_sync() == 2 and "exceeded" in capfd.readouterr().out


@pytest.mark.compiles_for_cuda
def test_mapped_and_compress_on_the_emulation_target():
    rng = np.random.default_rng(12)
    with config.override(target="cuda-emulation"):
        rows, cols, values, ref = triplets(rng, 6, 5, 80, (2, 2), wp.float32)
        A = sp.bsr_zeros(6, 5, wp.mat22f)
        mapping = sp.bsr_set_from_triplets(A, rows, cols, values, prune_numerical_zeros=False, build_mapping=True)
        doubled = wp.array(2.0 * values.numpy(), dtype=wp.mat22f)
        for reduction in ("gather", "atomic"):
            sp.bsr_set_from_mapped_values(A, mapping, doubled, reduction=reduction)
            np.testing.assert_allclose(dense(A), 2 * ref, atol=1e-5)
        P = sp.bsr_zeros(6, 5, wp.mat22f, row_capacity=5)
        sp.bsr_set_from_triplets(P, rows, cols, values, topology="padded")
        np.testing.assert_allclose(dense(P), ref, atol=1e-5)
        sp.bsr_compress(P)
        np.testing.assert_allclose(dense(P), ref, atol=1e-5)
