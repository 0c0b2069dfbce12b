"""bsr_copy/bsr_assign (scalar type and block shape), transposes, bsr_axpy, bsr_scale and bsr_mm against numpy,
under each topology policy, with hypothesis properties and the errors a caller can cause."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config

from .util import SHAPES, TOL, dense, random_bsr


@pytest.mark.parametrize("shape", SHAPES + [(2, 4)])
def test_transpose_and_copies(shape):
    rng = np.random.default_rng(21)
    A, ref = random_bsr(rng, 5, 4, shape, wp.float64)
    T = sp.bsr_transposed(A)
    assert T.block_shape == shape[::-1] and (T.nrow, T.ncol) == (4, 5)
    np.testing.assert_allclose(dense(T), ref.T)
    np.testing.assert_allclose(dense(A.transpose().transpose()), ref)
    np.testing.assert_allclose(dense((2.0 * A).transpose().eval()), 2 * ref.T)
    C = sp.bsr_copy(A, scalar_type=wp.float32)
    assert C.scalar_type is wp.float32
    np.testing.assert_allclose(dense(C), ref, atol=1e-6)
    for bs in [(1, 1), (shape[0], 1), (1, shape[1])]:
        D = sp.bsr_copy(-A, block_shape=bs)
        assert D.block_shape == bs
        np.testing.assert_allclose(dense(D), -ref)
    E = sp.bsr_zeros(1, 1, A.dtype)
    sp.bsr_assign(E, 3.0 * A)
    assert (E.nrow, E.ncol) == (5, 4)
    np.testing.assert_allclose(dense(E), 3 * ref)


def test_merging_blocks_and_incompatible_shapes():
    rng = np.random.default_rng(2)
    A, ref = random_bsr(rng, 6, 4, (1, 1), wp.float64)
    for bs in [(2, 2), (3, 4), (6, 1)]:
        np.testing.assert_allclose(dense(sp.bsr_copy(A, block_shape=bs)), ref)
    with pytest.raises(ValueError, match="block rows must evenly divide"):
        sp.bsr_copy(sp.bsr_copy(A, block_shape=(2, 2)), block_shape=(3, 2))
    with pytest.raises(ValueError, match="does not evenly divide"):
        sp.bsr_copy(A, block_shape=(4, 1))
    with pytest.raises(ValueError, match="'scalar_type' must be a scalar type"):
        sp.bsr_copy(A, scalar_type=wp.vec3)
    with pytest.raises(ValueError, match="'block_shape' must be two positive ints"):
        sp.bsr_copy(A, block_shape=(0, 2))
    with pytest.raises(ValueError, match="'dest': Destination block shape must be"):
        sp.bsr_set_transpose(sp.bsr_zeros(4, 6, wp.mat22d), sp.bsr_copy(A, block_shape=(2, 1)))
    with pytest.raises(ValueError, match="'src' cannot be interpreted"):
        sp.bsr_assign(sp.bsr_zeros(1, 1, float), np.eye(2))


def test_masked_and_padded_assign():
    rng = np.random.default_rng(3)
    A, ref = random_bsr(rng, 4, 4, (2, 2), wp.float64, density=0.5)
    mask = sp.bsr_diag(rows_of_blocks=4, block_type=wp.mat22d)
    sp.bsr_assign(mask, A, topology="masked")
    assert mask.nnz == 4
    expect = np.zeros_like(ref)
    for i in range(4):
        expect[2 * i:2 * i + 2, 2 * i:2 * i + 2] = ref[2 * i:2 * i + 2, 2 * i:2 * i + 2]
    np.testing.assert_allclose(dense(mask), expect)
    P = sp.bsr_zeros(4, 4, wp.mat22d, row_capacity=4)
    sp.bsr_assign(P, A, topology="padded")
    assert P.status_sync() == sp.BSR_STATUS_SUCCESS and P.offsets.numpy().tolist() == [0, 4, 8, 12, 16]
    np.testing.assert_allclose(dense(P), ref)
    small = sp.bsr_zeros(4, 4, wp.mat22d, row_capacity=1)
    sp.bsr_assign(small, A, topology="padded")
    counts = np.diff(A.offsets.numpy())
    if counts.max() > 1:
        assert small.status_sync() == sp.BSR_STATUS_ROW_CAPACITY_EXCEEDED
    assert small.row_counts.numpy().tolist() == np.minimum(counts, 1).tolist()
    np.testing.assert_allclose(dense(sp.bsr_copy(P)), ref)  # a padded source read through its row counts
    np.testing.assert_allclose(sp.bsr_mv(P, wp.array(np.ones(8), dtype=wp.float64)).numpy().reshape(-1),
                               ref @ np.ones(8))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
def test_axpy(shape, scalar):
    rng = np.random.default_rng(9)
    x, xr = random_bsr(rng, 5, 4, shape, scalar)
    y, _ = random_bsr(rng, 5, 4, shape, scalar)
    tol = TOL[scalar] * 10
    work = sp.bsr_axpy_work_arrays()
    for a, b in [(-1.0, 2.0), (0.0, -1.0), (1.0, 0.0), (2.0, 3.0)]:
        ref = a * xr + b * dense(y)
        assert sp.bsr_axpy(x, y, a, b, work_arrays=work) is y
        np.testing.assert_allclose(dense(y), ref, atol=tol)
    ref = 3 * dense(y)
    y += y * 2.0
    np.testing.assert_allclose(dense(y), ref, atol=tol)
    np.testing.assert_allclose(dense(x + y), xr + ref, atol=tol)
    np.testing.assert_allclose(dense(x - 2.0 * y), xr - 2 * ref, atol=tol)
    np.testing.assert_allclose(dense(sp.bsr_axpy(x, alpha=2.0)), 2 * xr, atol=tol)
    sp.bsr_scale(y, 0.5)
    np.testing.assert_allclose(dense(y), 0.5 * ref, atol=tol)
    y *= 2.0
    np.testing.assert_allclose(dense(y), ref, atol=tol)


def test_axpy_masked_and_errors():
    rng = np.random.default_rng(4)
    x, xr = random_bsr(rng, 3, 3, (1, 1), wp.float64)
    mask = sp.bsr_identity(3, wp.float64)
    sp.bsr_axpy(x, mask, topology="masked")
    np.testing.assert_allclose(dense(mask), np.eye(3) + np.diag(np.diag(xr)))
    other = sp.bsr_zeros(3, 4, wp.float64)
    before = other.offsets.numpy().tolist()
    with pytest.raises(ValueError, match="same number of rows and columns"):
        sp.bsr_axpy(x, other)
    with pytest.raises(ValueError, match="same block type"):
        sp.bsr_axpy(x, sp.bsr_zeros(3, 3, wp.float32))
    with pytest.raises(ValueError, match="'y' matrix must be provided"):
        sp.bsr_axpy(x, topology="masked")
    assert other.offsets.numpy().tolist() == before


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
def test_mm(shape, scalar):
    rng = np.random.default_rng(17)
    tol = TOL[scalar] * 100
    x, xr = random_bsr(rng, 5, 4, shape, scalar)
    y, yr = random_bsr(rng, 4, 3, shape[::-1], scalar)
    z, _ = random_bsr(rng, 5, 3, (shape[0], shape[0]), scalar)
    work = sp.bsr_mm_work_arrays()
    for a, b in [(-1.0, 2.0), (0.0, -1.0), (2.0, 0.0)]:
        ref = a * xr @ yr + b * dense(z)
        assert sp.bsr_mm(x, y, z, a, b, work_arrays=work) is z
        np.testing.assert_allclose(dense(z), ref, atol=tol)
    np.testing.assert_allclose(dense(x @ y), xr @ yr, atol=tol)
    np.testing.assert_allclose(dense((2.0 * x) @ y), 2 * xr @ yr, atol=tol)
    s, sr = random_bsr(rng, 5, 5, (shape[0], shape[0]), scalar)
    sp.bsr_mm(s, s, s, -1.0, 2.0)  # all three one matrix
    np.testing.assert_allclose(dense(s), -sr @ sr + 2 * sr, atol=tol)


def test_mm_masked_padded_and_errors():
    rng = np.random.default_rng(6)
    x, xr = random_bsr(rng, 4, 4, (2, 2), wp.float64, density=0.6)
    y, yr = random_bsr(rng, 4, 4, (2, 2), wp.float64, density=0.6)
    z = sp.bsr_diag(rows_of_blocks=4, block_type=wp.mat22d)
    sp.bsr_mm(x, y, z, topology="masked")
    full = xr @ yr
    expect = np.zeros_like(full)
    for i in range(4):
        expect[2 * i:2 * i + 2, 2 * i:2 * i + 2] = full[2 * i:2 * i + 2, 2 * i:2 * i + 2]
    np.testing.assert_allclose(dense(z), expect, atol=1e-12)
    p = sp.bsr_zeros(4, 4, wp.mat22d, row_capacity=4)
    sp.bsr_mm(x, y, p, topology="padded")
    np.testing.assert_allclose(dense(p), full, atol=1e-12)
    with pytest.raises(ValueError, match="Incompatible block sizes"):
        sp.bsr_mm(x, sp.bsr_zeros(4, 4, wp.types.matrix(shape=(3, 2), dtype=wp.float64)))
    with pytest.raises(ValueError, match="Incompatible number of rows/columns"):
        sp.bsr_mm(x, sp.bsr_zeros(3, 4, wp.mat22d))
    with pytest.raises(ValueError, match="same scalar type"):
        sp.bsr_mm(x, sp.bsr_zeros(4, 4, wp.mat22f))
    np.testing.assert_allclose(dense(x), xr)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.integers(0, 3), st.randoms(use_true_random=False))
def test_products_associate_and_transposes_invert(n, m, k, shape_index, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    shape = SHAPES[shape_index]
    A, ar = random_bsr(rng, n, m, shape, wp.float64)
    B, br = random_bsr(rng, m, k, shape[::-1], wp.float64)
    x = wp.array(rng.uniform(-1, 1, k * shape[0]), dtype=wp.float64)
    left = sp.bsr_mv(A @ B, x).numpy().reshape(-1)
    right = sp.bsr_mv(A, sp.bsr_mv(B, x)).numpy().reshape(-1)
    np.testing.assert_allclose(left, right, atol=1e-12)
    np.testing.assert_allclose(dense(sp.bsr_transposed(sp.bsr_transposed(A))), ar)
    np.testing.assert_allclose(dense(sp.bsr_transposed(A @ B)), (ar @ br).T, atol=1e-12)


@pytest.mark.compiles_for_cuda
def test_ops_on_the_emulation_target():
    rng = np.random.default_rng(30)
    with config.override(target="cuda-emulation"):
        x, xr = random_bsr(rng, 6, 5, (3, 2), wp.float32)
        y, yr = random_bsr(rng, 5, 4, (2, 3), wp.float32)
        np.testing.assert_allclose(dense(x @ y), xr @ yr, atol=1e-4)
        np.testing.assert_allclose(dense(sp.bsr_transposed(x)), xr.T)
        np.testing.assert_allclose(dense(x + 2.0 * x), 3 * xr, atol=1e-5)
        np.testing.assert_allclose(dense(sp.bsr_copy(x, block_shape=(1, 1), scalar_type=wp.float64)), xr, atol=1e-6)
        mask = sp.bsr_copy(x)
        sp.bsr_scale(mask, 0.0)
        sp.bsr_assign(mask, x, topology="masked")
        np.testing.assert_allclose(dense(mask), xr)
