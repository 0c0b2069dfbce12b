"""bsr_zeros, bsr_set_zero, bsr_set_from_triplets and bsr_from_triplets against dense numpy sums, the kernel-side
searches, and the errors a caller can cause."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config

from .util import SHAPES, TOL, block_type, dense, triplets


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scalar", [wp.float16, wp.float32, wp.float64])
def test_from_triplets_sums_duplicates_and_drops_invalid(shape, scalar):
    rng = np.random.default_rng(hash((shape, scalar.__name__)) % 2**32)
    rows, cols, values, ref = triplets(rng, 7, 5, 60, shape, scalar, invalid=True)
    A = sp.bsr_from_triplets(7, 5, rows, cols, values)
    assert (A.nrow, A.ncol, A.block_shape, A.scalar_type, A.dtype) == (7, 5, shape, scalar, block_type(shape, scalar))
    assert A.shape == (7 * shape[0], 5 * shape[1]) and A.block_size == shape[0] * shape[1]
    np.testing.assert_allclose(dense(A), ref, atol=TOL[scalar] * 10)
    assert A.nnz == 60  # as in Warp: the triplet count, an upper bound of the blocks
    assert A.nnz_sync() == len({(r, c) for r, c in zip(rows.numpy(), cols.numpy(), strict=True)
                                         if 0 <= r < 7 and 0 <= c < 5})
    assert A.row_counts is None and A.offsets.shape == (8,)


def test_exact_layout_and_pruning_of_zero_triplets():
    # Warp drops each zero-valued triplet (not blocks that sum to zero), and triplets outside the matrix
    rows = wp.array([0, 1, 1, -1, 0, 2, 1, 0], dtype=int)
    cols = wp.array([1, 0, 0, 0, 1, 0, 5, 2], dtype=int)
    vals = wp.array([1.0, 2.0, 3.0, 4.0, -1.0, 0.0, 7.0, 8.0], dtype=float)
    A = sp.bsr_from_triplets(3, 3, rows, cols, vals)
    assert A.offsets.numpy().tolist() == [0, 2, 3, 3]
    assert A.columns.numpy()[:3].tolist() == [1, 2, 0] and A.values.numpy()[:3].tolist() == [0.0, 8.0, 5.0]
    B = sp.bsr_from_triplets(3, 3, rows, cols, vals, prune_numerical_zeros=False)
    assert B.offsets.numpy().tolist() == [0, 2, 3, 4] and B.columns.numpy()[:4].tolist() == [1, 2, 0, 0]
    assert B.uncompress_rows().numpy().tolist() == [0, 0, 1, 2, -1, -1, -1, -1]  # nnz: the triplet count


def test_count_three_d_values_and_structure_only():
    rng = np.random.default_rng(3)
    rows, cols, _, _ = triplets(rng, 4, 4, 10, (2, 3))
    scalars = rng.uniform(-1, 1, (10, 2, 3)).astype(np.float32)
    m23 = wp.types.matrix(shape=(2, 3), dtype=wp.float32)
    A = sp.bsr_zeros(4, 4, m23)
    sp.bsr_set_from_triplets(A, rows, cols, wp.array(scalars, dtype=wp.float32), count=wp.array([6], dtype=int))
    ref = np.zeros((8, 12))
    for r, c, v in zip(rows.numpy()[:6], cols.numpy()[:6], scalars[:6], strict=True):
        ref[2 * r:2 * r + 2, 3 * c:3 * c + 3] += v
    np.testing.assert_allclose(dense(A), ref, atol=1e-6)
    B = sp.bsr_zeros(4, 4, m23)
    sp.bsr_set_from_triplets(B, rows, cols)  # topology only
    assert B.nnz_sync() == len(set(zip(rows.numpy(), cols.numpy(), strict=True)))
    C = sp.bsr_from_triplets(4, 4, rows, cols, wp.array(scalars, dtype=wp.float32))
    assert C.dtype == m23 and C.nnz_sync() == B.nnz


def test_empty_and_zero_sized():
    A = sp.bsr_zeros(0, 3, wp.mat33)
    assert A.shape == (0, 9) and A.nnz == 0 and A.offsets.numpy().tolist() == [0]
    B = sp.bsr_zeros(2, 2, float)
    none = wp.zeros(0, dtype=int)
    sp.bsr_set_from_triplets(B, none, none, wp.zeros(0, dtype=float))
    assert B.nnz == 0 and B.offsets.numpy().tolist() == [0, 0, 0]
    rows = wp.array([5, -2], dtype=int)
    sp.bsr_set_from_triplets(B, rows, rows, wp.array([1.0, 2.0], dtype=float))
    assert B.nnz_sync() == 0 and B.offsets.numpy().tolist() == [0, 0, 0]


def test_set_zero_resizes_and_matrix_t():
    A = sp.bsr_from_triplets(2, 2, wp.array([0, 1], dtype=int), wp.array([1, 0], dtype=int),
                             wp.array([1.0, 2.0], dtype=float))
    sp.bsr_set_zero(A, 4, 3)
    assert (A.nrow, A.ncol, A.nnz) == (4, 3, 0) and A.offsets.numpy().tolist() == [0] * 5
    cls = sp.bsr_matrix_t(wp.mat22d)
    assert cls is sp.bsr_matrix_t(wp.mat22d) and issubclass(cls, sp.BsrMatrix)
    M = cls()
    assert M.dtype is wp.mat22d and M.shape == (0, 0) and M.scalar_type is wp.float64
    Z = sp.bsr_zeros(3, 2, float)
    assert isinstance(Z, sp.BsrMatrix) and Z.scalar_type is wp.float32 and Z.block_shape == (1, 1)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 40), st.integers(1, 6), st.integers(1, 6), st.randoms(use_true_random=False))
def test_triplet_order_does_not_matter(n, nrow, ncol, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    rows, cols, values, ref = triplets(rng, nrow, ncol, n, (1, 3), wp.float64)
    perm = rng.permutation(n)
    shuffled = [wp.array(a.numpy()[perm], dtype=a.dtype) for a in (rows, cols, values)]
    A = sp.bsr_from_triplets(nrow, ncol, rows, cols, values)
    B = sp.bsr_from_triplets(nrow, ncol, *shuffled)
    assert A.offsets.numpy().tolist() == B.offsets.numpy().tolist()
    np.testing.assert_array_equal(A.columns.numpy()[:A.nnz_sync()], B.columns.numpy()[:B.nnz_sync()])
    np.testing.assert_allclose(dense(A), dense(B), atol=1e-12)
    np.testing.assert_allclose(dense(A), ref, atol=1e-12)


def test_values_gradient_flows_to_triplets():
    rows, cols = wp.array([1, 0, 0, 1], dtype=int), wp.array([0, 1, 0, 0], dtype=int)
    vals = wp.array(np.random.default_rng(0).random((4, 3, 3)), dtype=wp.mat33, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 2, rows, cols, vals)
    assert A.nnz_sync() == 3 and A.requires_grad
    A.values.grad[2:3].fill_(1.0)  # block (1, 0): triplets 0 and 3
    tape.backward()
    assert vals.grad.numpy().sum(axis=(1, 2)).tolist() == [9.0, 0.0, 0.0, 9.0]


@wp.kernel
def _lookups(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), counts: wp.array(dtype=int), nrow: int,
             ncol: int, rows: wp.array(dtype=int), blocks: wp.array2d(dtype=int), padded_rows: wp.array(dtype=int)):
    i = wp.tid()
    rows[i] = sp.bsr_row_index(offsets, nrow, i)
    padded_rows[i] = sp.bsr_row_index(offsets, nrow, i, counts)
    for c in range(ncol):
        blocks[i, c] = sp.bsr_block_index(i, c, offsets, columns)


def test_kernel_side_row_and_block_index():
    A = sp.bsr_from_triplets(3, 4, wp.array([0, 0, 2], dtype=int), wp.array([3, 1, 1], dtype=int),
                             wp.array([1.0, 2.0, 3.0], dtype=float))
    rows, padded = wp.zeros(3, dtype=int), wp.zeros(3, dtype=int)
    blocks = wp.zeros((3, 4), dtype=int)
    wp.launch(_lookups, 3, inputs=[A.offsets, A.columns, None, 3, 4, rows, blocks, padded])
    assert rows.numpy().tolist() == [0, 0, 2] == padded.numpy().tolist()
    assert blocks.numpy().tolist() == [[-1, 0, -1, 1], [-1] * 4, [-1, 2, -1, -1]]


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("shape", [(1, 1), (3, 2)])
def test_from_triplets_on_the_emulation_target(shape):
    rng = np.random.default_rng(11)
    with config.override(target="cuda-emulation"):
        rows, cols, values, ref = triplets(rng, 9, 6, 200, shape, wp.float32, invalid=True)
        A = sp.bsr_from_triplets(9, 6, rows, cols, values)
        np.testing.assert_allclose(dense(A), ref, atol=1e-5)
        rows_of = A.uncompress_rows().numpy()[:A.nnz_sync()]
        assert rows_of.tolist() == sorted(rows_of.tolist()) and rows_of.min() >= 0


def _unchanged(A):
    return (A.nrow, A.ncol, A.nnz, A.offsets.numpy().tolist(), A.columns.numpy().tolist(), A.values.numpy().tolist())


@pytest.mark.parametrize("case, error, text", [
    (dict(rows=wp.array([0.0], dtype=float)), TypeError, "int32"),
    (dict(rows=wp.array([0, 1], dtype=int)), ValueError, "'rows' and 'columns'"),
    (dict(values=wp.array([1.0], dtype=wp.float64)), ValueError, "'values' has type float64"),
    (dict(values=wp.array([1.0, 2.0], dtype=float)), ValueError, "same length"),
    (dict(values=wp.zeros((1, 2, 2), dtype=float)), ValueError, "block shape"),
    (dict(count=wp.array([1, 1], dtype=int)), ValueError, "'count'"),
    (dict(dest=None), ValueError, "'dest' must be a BsrMatrix"),
    (dict(topology="weird"), ValueError, "Unsupported topology"),
])
def test_errors_name_the_argument_and_change_nothing(case, error, text):
    A = sp.bsr_from_triplets(2, 2, wp.array([0, 1], dtype=int), wp.array([1, 0], dtype=int),
                             wp.array([1.0, 2.0], dtype=float))
    before = _unchanged(A)
    args = dict(dest=A, rows=wp.array([0], dtype=int), columns=wp.array([0], dtype=int),
                values=wp.array([5.0], dtype=float))
    args.update(case)
    with pytest.raises(error, match=text):
        sp.bsr_set_from_triplets(**args)
    assert _unchanged(A) == before


def test_size_and_type_errors():
    with pytest.raises(ValueError, match="'rows_of_blocks' must be non-negative"):
        sp.bsr_zeros(-1, 2, float)
    with pytest.raises(TypeError, match="'cols_of_blocks' must be an int"):
        sp.bsr_zeros(1, 2.5, float)
    with pytest.raises(ValueError, match="block type"):
        sp.bsr_zeros(1, 1, wp.vec3)
    with pytest.raises(ValueError, match="row_capacity requires"):
        sp.bsr_set_zero(sp.bsr_zeros(1, 1, float), row_capacity=2)

