"""The CPU's counting-sort transpose (sparse/transpose_cpu.py) against the general sorted build it stands for: the
same offsets, columns and value bits (the slots past the last block too), for scalars and blocks, scaled, padded
and with an upper-bound nnz; matrices written by hand whose rows are not ascending and distinct take the sort;
a transpose a tape records copies its values with the general copy kernel, from the counting sort's plan."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork.sparse import transpose_cpu

from .util import block_type, dense, random_bsr


def _layout(T):
    """Everything a transpose writes: offsets, the columns of its blocks, every value slot (``nnz``: the host's
    upper bound, so the slots past the last block are compared too)."""
    blocks = int(T.offsets.numpy()[T.nrow])
    return (T.nnz, T.offsets.numpy()[:T.nrow + 1].tolist(), T.columns.numpy()[:blocks].tolist(),
            T.values.numpy()[:T.nnz].copy())


def _both(monkeypatch, make):
    """``make()``'s layout with the counting sort (asserted taken) and with the general sorted build."""
    taken = []
    real = transpose_cpu.column_offsets

    def spy(*args):
        found = real(*args)
        taken.append(found is not None)
        return found

    with monkeypatch.context() as m:
        m.setattr(transpose_cpu, "column_offsets", spy)
        ours = _layout(make())
    with monkeypatch.context() as m:
        m.setattr(transpose_cpu, "column_offsets", lambda *args: None)
        general = _layout(make())
    return ours, general, taken


def _same(a, b):
    assert a[:3] == b[:3]
    assert a[3].dtype == b[3].dtype
    np.testing.assert_array_equal(a[3].view(np.uint8), b[3].view(np.uint8))  # bits: -0.0 is not 0.0


@pytest.mark.parametrize("shape, scalar, scale", [((1, 1), wp.float64, 1.0), ((1, 1), wp.float32, -2.0),
                                                  ((2, 3), wp.float64, 1.0), ((3, 1), wp.float32, 0.5)])
def test_the_counting_sort_gives_the_general_builds_layout_and_bits(monkeypatch, shape, scalar, scale):
    rng = np.random.default_rng(3)
    A, ref = random_bsr(rng, 23, 17, shape, scalar, density=0.3)  # duplicates summed: nnz above the block count
    assert A.nnz > int(A.offsets.numpy()[A.nrow])
    ours, general, taken = _both(monkeypatch, lambda: sp.bsr_transposed(scale * A if scale != 1.0 else A))
    assert taken == [True]
    _same(ours, general)
    if scale < 0:  # the unused slots hold what the general copy writes for an empty range: scale * 0 = -0.0
        assert np.signbit(ours[3][len(ours[2]):]).all() and len(ours[2]) < ours[0]
    T = sp.bsr_transposed(scale * A)
    np.testing.assert_allclose(dense(T), scale * ref.T, rtol=1e-6)


def test_padded_sources_empty_rows_and_columns(monkeypatch):
    P = sp.bsr_zeros(5, 6, wp.float64, row_capacity=wp.array([2, 0, 3, 1, 2], dtype=int))
    sp.bsr_set_from_triplets(P, wp.array([0, 2, 2, 4, 0], dtype=int), wp.array([5, 0, 3, 3, 1], dtype=int),
                             wp.array([1.0, 2.0, 3.0, 4.0, -0.0], dtype=wp.float64), topology="padded",
                             prune_numerical_zeros=False)
    assert P.row_counts.numpy().tolist() == [2, 0, 2, 0, 1]  # unused slots in rows 2 and 3
    ours, general, taken = _both(monkeypatch, lambda: sp.bsr_transposed(P))
    assert taken == [True]
    _same(ours, general)
    assert ours[1] == [0, 1, 2, 2, 4, 4, 5] and ours[2] == [2, 0, 2, 4, 0]
    np.testing.assert_array_equal(dense(sp.bsr_transposed(P)), dense(P).T)


def test_rows_written_by_hand_out_of_order_take_the_sort(monkeypatch):
    """Columns descending, repeated, outside the matrix, offsets that go back: the general build's result."""
    def by_hand(offsets, columns):
        A = sp.bsr_zeros(3, 4, wp.float64)
        A.offsets = wp.array(offsets, dtype=int)
        A.columns = wp.array(columns, dtype=int)
        A.values = wp.array(np.arange(1.0, len(columns) + 1.0), dtype=wp.float64)
        A.nnz = len(columns)
        return A

    cases = [([0, 2, 3, 4], [3, 1, 0, 2]), ([0, 2, 3, 4], [1, 1, 0, 2]), ([0, 1, 2, 3], [0, 4, 1])]
    for offsets, columns in cases:
        A = by_hand(offsets, columns)
        ours, general, taken = _both(monkeypatch, lambda A=A: sp.bsr_transposed(A))
        assert taken == [False]
        _same(ours, general)
    # two ascending rows that share their slots (offsets going back): sorted as the general build reads them
    A = by_hand([0, 2, 1, 3], [0, 2, 3])
    ours, general, taken = _both(monkeypatch, lambda: sp.bsr_transposed(A))
    assert taken == [False]
    _same(ours, general)
    # the descending row's blocks, summed into one block per column of the transpose
    T = sp.bsr_transposed(by_hand([0, 2, 3, 4], [1, 1, 0, 2]))
    np.testing.assert_array_equal(dense(T), [[0.0, 3.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 4.0], [0.0, 0.0, 0.0]])


def test_a_recorded_transpose_copies_from_the_plan(monkeypatch):
    """Values that need gradients take the plan and the copy kernel, which the tape records."""
    calls = []
    real = transpose_cpu.plan
    monkeypatch.setattr(transpose_cpu, "plan", lambda *a: calls.append(1) or real(*a))
    vals = wp.array(np.arange(1.0, 7.0), dtype=wp.float64, requires_grad=True)
    x = wp.array([1.0, 2.0, 3.0], dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 3, wp.array([0, 0, 1, 1, 1, 0], dtype=int), wp.array([0, 2, 0, 1, 2, 1], dtype=int),
                                 vals)
        y = sp.bsr_mv(sp.bsr_transposed(-1.0 * A), wp.array([1.0, 10.0], dtype=wp.float64, requires_grad=True))
        z = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        wp.launch(_dot, 3, inputs=[y, x, z])
    assert calls == [1]
    a = np.array([[1.0, 6.0, 2.0], [3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(y.numpy(), -a.T @ [1.0, 10.0])
    tape.backward(loss=z)
    # z = -x . A^T w: the gradient of A[r, c] is -w[r] x[c], in triplet order
    rows, cols = [0, 0, 1, 1, 1, 0], [0, 2, 0, 1, 2, 1]
    w = [1.0, 10.0]
    np.testing.assert_array_equal(vals.grad.numpy(), [-w[r] * (c + 1.0) for r, c in zip(rows, cols, strict=True)])


@wp.kernel
def _dot(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i] * b[i])


@settings(max_examples=25, deadline=None)
@given(nrow=st.integers(1, 12), ncol=st.integers(1, 12), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**16),
       shape=st.sampled_from([(1, 1), (2, 2), (1, 3)]))
def test_any_pattern_transposes_as_the_general_build(nrow, ncol, density, seed, shape):
    rng = np.random.default_rng(seed)
    A, ref = random_bsr(rng, nrow, ncol, shape, wp.float64, density=density)
    T = sp.bsr_transposed(A)
    real = transpose_cpu.column_offsets
    transpose_cpu.column_offsets = lambda *args: None
    try:
        G = sp.bsr_transposed(A)
    finally:
        transpose_cpu.column_offsets = real
    _same(_layout(T), _layout(G))
    assert T.values.dtype is block_type(shape[::-1], wp.float64)
    np.testing.assert_array_equal(dense(T), ref.T)
