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
