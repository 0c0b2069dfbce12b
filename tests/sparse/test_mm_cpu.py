"""bsr_mm's CPU row-by-row product (sparse/mm_cpu.py) against the general product (pairs sorted into blocks,
forced by a scratch limit of 0): the same layout and bit for bit the same values, for scalar and block matrices,
``beta * z`` terms, padded operands and results, masked results, one matrix as several operands; the general
path for products that need gradients or too much scratch."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.sparse import mm_cpu

from .util import dense, random_bsr


def _layout(A):
    nnz = A.nnz_sync()
    counts = None if A.row_counts is None else A.row_counts.numpy().tolist()
    return A.offsets.numpy().tolist(), counts, A.columns.numpy()[:nnz].tolist(), A.values.numpy()[:nnz].copy()


def _both(monkeypatch, make):
    taken = []
    original = mm_cpu.product
    monkeypatch.setattr(mm_cpu, "product", lambda *a: taken.append(1) or original(*a))
    with config.override(num_threads=3, parallel_threshold=1, adaptive_threads=False):  # rows in three chunks
        ours = _layout(make())
    assert taken, "the row-by-row product was not used"
    with monkeypatch.context() as m:
        m.setattr(mm_cpu, "MAX_SCRATCH", 0)
        general = _layout(make())
    assert len(taken) == 1
    return ours, general


def _same(a, b):
    assert a[:3] == b[:3]
    np.testing.assert_array_equal(a[3], b[3])


def _ordered(rng, nrow, ncol, shape, scalar):
    """A random matrix whose values span magnitudes, so that sums in another order differ."""
    A, _ = random_bsr(rng, nrow, ncol, shape, scalar, density=0.5)
    values = A.scalar_values.numpy() * 10.0 ** rng.integers(-5, 6, A.scalar_values.shape)
    A.scalar_values.assign(values.astype(A.scalar_values.numpy().dtype))
    return A


@pytest.mark.parametrize("xs, ys", [((1, 1), (1, 1)), ((3, 3), (3, 3)), ((2, 3), (3, 1)), ((1, 2), (2, 2))])
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
def test_products_match_the_general_path_bit_for_bit(monkeypatch, xs, ys, scalar):
    rng = np.random.default_rng(11)
    x = _ordered(rng, 12, 9, xs, scalar)
    y = _ordered(rng, 9, 14, ys, scalar)
    _same(*_both(monkeypatch, lambda: sp.bsr_mm(x, y, alpha=0.7)))
    z0 = _ordered(rng, 12, 14, (xs[0], ys[1]), scalar)

    def with_z():
        z = sp.bsr_copy(z0)
        return sp.bsr_mm(x, y, z, alpha=-1.3, beta=0.5)

    ours, general = _both(monkeypatch, with_z)
    _same(ours, general)
    ref = -1.3 * dense(x).astype(np.float64) @ dense(y) + 0.5 * dense(z0)
    np.testing.assert_allclose(dense(with_z()), ref, rtol=1e-3 if scalar is wp.float32 else 1e-12, atol=1e-3)


def test_padded_and_masked_results_and_operands(monkeypatch):
    rng = np.random.default_rng(3)
    x = _ordered(rng, 8, 8, (1, 1), wp.float64)

    def padded():
        P = sp.bsr_zeros(8, 8, wp.float64, row_capacity=8)
        sp.bsr_assign(P, x, topology="padded")  # a padded operand
        Z = sp.bsr_zeros(8, 8, wp.float64, row_capacity=4)
        return sp.bsr_mm(P, P, Z, topology="padded")

    _same(*_both(monkeypatch, padded))

    def masked():
        M = sp.bsr_identity(8, wp.float64)
        return sp.bsr_mm(x, x, M, beta=2.0, topology="masked")

    _same(*_both(monkeypatch, masked))


def test_one_matrix_as_every_operand(monkeypatch):
    rng = np.random.default_rng(4)
    a0 = _ordered(rng, 10, 10, (2, 2), wp.float64)

    def squared_in_place():
        A = sp.bsr_copy(a0)
        return sp.bsr_mm(A, A, A, alpha=1.5, beta=-1.0)

    _same(*_both(monkeypatch, squared_in_place))
    want = 1.5 * dense(a0) @ dense(a0) - dense(a0)
    np.testing.assert_allclose(dense(squared_in_place()), want, rtol=1e-12, atol=1e-12)


def test_gradients_and_large_scratch_take_the_general_path(monkeypatch):
    calls = []
    monkeypatch.setattr(mm_cpu, "product", lambda *a: calls.append(1))
    vals = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 2, wp.array([0, 1, 1], dtype=int), wp.array([1, 0, 1], dtype=int), vals)
        C = sp.bsr_mm(A, A)
    assert calls == [] and dense(C).tolist() == [[2.0, 3.0], [6.0, 11.0]]
    C.values.grad.fill_(1.0)
    tape.backward()
    assert vals.grad.numpy().tolist() == [7.0, 5.0, 9.0]  # d sum(A @ A) / d a_pq = row sum q + column sum p
    B = sp.bsr_from_triplets(2, 2, wp.array([0, 1], dtype=int), wp.array([1, 0], dtype=int),
                             wp.array([1.0, 2.0], dtype=float))
    monkeypatch.setattr(mm_cpu, "MAX_SCRATCH", 8)
    assert dense(sp.bsr_mm(B, B)).tolist() == [[2.0, 0.0], [0.0, 2.0]] and calls == []


@pytest.mark.parametrize("xs, ys", [((1, 1), (1, 1)), ((2, 3), (3, 2))])
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
@pytest.mark.parametrize("alpha", [1.0, 0.5, -1.0])
def test_signed_zeros_and_non_finite_values_match_the_general_path_bit_for_bit(monkeypatch, xs, ys, scalar, alpha):
    """The row-by-row product starts each block product from its first term and leaves out ``alpha`` when it is
    1; the general one adds from zero and multiplies: only the sign of a zero term differs, which no sum kept."""
    rng = np.random.default_rng(int(alpha * 10) + 20 + xs[0])
    specials = np.array([-0.0, 0.0, 1.0, -2.0, np.inf, -np.inf, np.nan, 5e-324, -3.0, 0.25])

    def special(nrow, ncol, shape):
        A, _ = random_bsr(rng, nrow, ncol, shape, scalar, density=0.6)
        v = A.scalar_values.numpy()
        A.scalar_values.assign(rng.choice(specials, v.shape).astype(v.dtype))
        return A

    x, y = special(9, 7, xs), special(7, 8, ys)
    with np.errstate(all="ignore"):
        ours, general = _both(monkeypatch, lambda: sp.bsr_mm(x, y, alpha=alpha))
    assert ours[:3] == general[:3]
    nan = np.isnan(ours[3])
    np.testing.assert_array_equal(nan, np.isnan(general[3]))
    # every other value's bits, a zero's sign included (a NaN's sign and payload are the compiler's: where two
    # NaNs meet, which one an addition returns depends on its operands' order, in either path)
    assert np.where(nan, 0, ours[3]).tobytes() == np.where(nan, 0, general[3]).tobytes()


def test_a_compact_product_is_written_into_zs_arrays_unless_an_operand_shares_them():
    rng = np.random.default_rng(8)
    x = _ordered(rng, 30, 30, (1, 1), wp.float64)
    want = dense(x) @ dense(x)
    Z = sp.bsr_mm(x, x)
    arrays = (Z.offsets, Z.columns, Z.values)
    for _ in range(2):  # as Warp: z's storage holds the result, so a repeated product allocates nothing
        sp.bsr_mm(x, x, Z)
        assert all(a is b for a, b in zip((Z.offsets, Z.columns, Z.values), arrays))
        np.testing.assert_allclose(dense(Z), want, rtol=1e-12)
    before = [a.numpy().copy() for a in (x.offsets, x.columns, x.values)]
    S = sp.bsr_copy(x)
    S.offsets, S.columns = x.offsets, x.columns  # a topology shared with the operand: fresh arrays
    sp.bsr_mm(x, x, S)
    assert S.offsets is not x.offsets and S.columns is not x.columns
    np.testing.assert_allclose(dense(S), want, rtol=1e-12)
    for a, b in zip((x.offsets, x.columns, x.values), before):
        np.testing.assert_array_equal(a.numpy(), b)
    A = sp.bsr_copy(x)
    sp.bsr_mm(A, A, A)  # one matrix as every operand, beta 0
    np.testing.assert_allclose(dense(A), want, rtol=1e-12)
