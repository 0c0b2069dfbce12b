"""The CPU's topology sort (by row, then each row by column: sparse/row_sort.py) against the GPU's radix passes
(forced by a row limit of 0): the same layout and bit for bit the same sums, for triplets, products, sums and
transposes; rows longer than the limit sorted by the radix passes; rows without blocks before, between and after
the others; every triplet dropped; each slot's row (uncompress_rows, one pass per row); gradients through
a transpose (its copy kernel for blocks of one shape)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork.sparse import row_sort

from .util import dense


def _layout(A):
    nnz = A.nnz_sync()
    return A.offsets.numpy().tolist(), A.columns.numpy()[:nnz].tolist(), A.values.numpy()[:nnz].copy()


def _both(monkeypatch, make):
    """``make()``'s matrix with the row sort and with the radix passes."""
    ours = _layout(make())
    with monkeypatch.context() as m:
        m.setattr(row_sort, "MAX_ROW", 0)
        radix = _layout(make())
    return ours, radix


def _same(a, b):
    assert a[0] == b[0] and a[1] == b[1]
    np.testing.assert_array_equal(a[2], b[2])


def _shuffled_triplets(rng, nrow, ncol, n, dtype=np.float32):
    rows = rng.integers(-1, nrow + 1, n).astype(np.int32)  # some outside the matrix
    cols = rng.integers(0, ncol, n).astype(np.int32)
    vals = rng.uniform(-1, 1, n).astype(dtype) * 10.0 ** rng.integers(-4, 5, n)  # sums that depend on order
    return wp.array(rows, dtype=int), wp.array(cols, dtype=int), wp.array(vals.astype(dtype), dtype=wp.float32)


@pytest.mark.parametrize("nrow, ncol, n", [(50, 40, 3000), (7, 70000, 500), (3, 3, 1)])
def test_triplets_give_the_radix_sorts_layout_and_bits(monkeypatch, nrow, ncol, n):
    rng = np.random.default_rng(nrow)
    rows, cols, vals = _shuffled_triplets(rng, nrow, ncol, n)
    ours, radix = _both(monkeypatch, lambda: sp.bsr_from_triplets(nrow, ncol, rows, cols, vals))
    _same(ours, radix)
    r, c, v = rows.numpy(), cols.numpy(), vals.numpy()
    keep = (r >= 0) & (r < nrow) & (v != 0)
    assert ours[0][-1] == len(set(zip(r[keep], c[keep], strict=True)))


def test_products_sums_and_transposes_give_the_radix_sorts_bits(monkeypatch):
    rng = np.random.default_rng(5)
    A = sp.bsr_from_triplets(30, 30, *_shuffled_triplets(rng, 30, 30, 400))
    B = sp.bsr_from_triplets(30, 30, *_shuffled_triplets(rng, 30, 30, 400))
    for make in (lambda: A @ B, lambda: A + B, lambda: sp.bsr_transposed(A), lambda: 2.0 * A @ B - A):
        _same(*_both(monkeypatch, make))


def test_long_rows_are_sorted_by_the_radix_passes(monkeypatch):
    n = 2 * row_sort.MAX_ROW
    rng = np.random.default_rng(2)
    cols = rng.permutation(np.arange(n)).astype(np.int32)
    rows = np.zeros(n, dtype=np.int32)
    rows[::7] = 2
    vals = rng.uniform(1, 2, n)
    calls = []
    original = row_sort.build
    monkeypatch.setattr(row_sort, "build", lambda *a: calls.append(original(*a)) or calls[-1])
    A = sp.bsr_from_triplets(3, n, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                             wp.array(vals, dtype=wp.float64))
    assert calls == [None]  # row 0 has more than MAX_ROW contributions
    ref = np.zeros((3, n))
    ref[rows, cols] = vals
    np.testing.assert_array_equal(dense(A), ref)
    assert A.offsets.numpy().tolist() == [0, int((rows == 0).sum()), int((rows == 0).sum()), n]


def test_empty_rows_and_dropped_triplets():
    A = sp.bsr_from_triplets(6, 4, wp.array([3, 1, 3, 1], dtype=int), wp.array([2, 0, 1, 0], dtype=int),
                             wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float64))
    assert A.offsets.numpy().tolist() == [0, 0, 1, 1, 3, 3, 3]
    assert A.columns.numpy()[:3].tolist() == [0, 1, 2] and A.values.numpy()[:3].tolist() == [6.0, 3.0, 1.0]
    B = sp.bsr_from_triplets(4, 4, wp.array([-1, 4, 9], dtype=int), wp.array([0, 0, 0], dtype=int),
                             wp.array([1.0, 2.0, 3.0], dtype=wp.float64))
    assert B.offsets.numpy().tolist() == [0, 0, 0, 0, 0] and B.nnz_sync() == 0
    C = sp.bsr_from_triplets(0, 4, wp.array([0], dtype=int), wp.array([0], dtype=int),
                             wp.array([1.0], dtype=wp.float64))
    assert C.offsets.numpy().tolist() == [0] and C.nnz_sync() == 0


def test_slot_rows_of_padded_and_compact_matrices():
    P = sp.bsr_zeros(3, 3, wp.float64, row_capacity=3)
    sp.bsr_set_from_triplets(P, wp.array([0, 2, 2, 0], dtype=int), wp.array([1, 0, 2, 1], dtype=int),
                             wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float64), topology="padded")
    assert P.uncompress_rows().numpy().tolist() == [0, -1, -1, -1, -1, -1, 2, 2, -1]
    A = sp.bsr_from_triplets(4, 4, wp.array([3, 1, 3, 3], dtype=int), wp.array([0, 1, 0, 2], dtype=int),
                             wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float64))
    assert A.nnz == 4 and A.uncompress_rows().numpy().tolist() == [1, 3, 3, -1]  # the last slot is unused
    out = wp.full(6, 7, dtype=int)
    A.uncompress_rows(out)
    assert out.numpy().tolist() == [1, 3, 3, -1, 7, 7]


def test_gradients_flow_through_a_scaled_transpose():
    vals = wp.array(np.arange(12.0).reshape(3, 2, 2), dtype=wp.mat22d, requires_grad=True)
    xs = np.arange(4.0).reshape(2, 2)
    x = wp.array(xs, dtype=wp.vec2d, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 2, wp.array([0, 0, 1], dtype=int), wp.array([0, 1, 1], dtype=int), vals)
        y = sp.bsr_mv(sp.bsr_transposed(2.0 * A), x)
    dense_a = np.array([[0, 1, 4, 5], [2, 3, 6, 7], [0, 0, 8, 9], [0, 0, 10, 11]], dtype=float)
    assert y.numpy().reshape(-1).tolist() == (2 * dense_a.T @ xs.reshape(-1)).tolist()
    ybar = np.array([[1.0, 2.0], [3.0, 4.0]])
    y.grad.assign(ybar)
    tape.backward()
    assert x.grad.numpy().reshape(-1).tolist() == (2 * dense_a @ ybar.reshape(-1)).tolist()
    # y = 2 A^T x: the gradient of block (r, c) is 2 outer(x_r, ybar_c)
    want = [2 * np.outer(xs[0], ybar[0]), 2 * np.outer(xs[0], ybar[1]), 2 * np.outer(xs[1], ybar[1])]
    np.testing.assert_array_equal(vals.grad.numpy(), np.array(want))


@pytest.mark.compiles_for_cuda
def test_the_emulation_target_runs_the_gpus_algorithms(monkeypatch):
    from brickwork import config
    from brickwork.sparse import mm_cpu

    calls = []
    monkeypatch.setattr(row_sort, "build", lambda *a: calls.append("row sort"))
    monkeypatch.setattr(mm_cpu, "product", lambda *a: calls.append("row product"))
    rng = np.random.default_rng(9)
    rows, cols, vals = _shuffled_triplets(rng, 6, 6, 40)
    with config.override(target="cuda-emulation"):
        A = sp.bsr_from_triplets(6, 6, rows, cols, vals)
        C = A @ sp.bsr_transposed(A)
    assert calls == []
    np.testing.assert_allclose(dense(C), dense(A) @ dense(A).T, rtol=1e-5, atol=1e-3)
