"""``bsr_mv(transpose=True)`` on the CPU (sparse/mv_transpose_cpu.py): sums in a fixed order, the same bits run to run
and on any thread count, against numpy for every block shape, padded rows, empty row ranges and a matrix changed in
place; under a tape with gradients the product stays the differentiable atomic one."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.sparse.mv_transpose_cpu import MAX_PARTS, _scratch, part_count

from .util import SHAPES, TOL, dense, random_bsr, vec_type


def _vector(rng, n, length, scalar):
    data = rng.uniform(-1.0, 1.0, (n, length) if length > 1 else n)
    return wp.array(data, dtype=vec_type(length, scalar)), data.reshape(-1)


def _product_bits(A, x, y0, alpha, beta, runs, threads):
    """The bytes of ``alpha * A^T x + beta * y0`` computed ``runs`` times on ``threads`` threads, every launch parallel."""
    results = set()
    with config.override(num_threads=threads, parallel_threshold=1):
        for _ in range(runs):
            y = wp.clone(y0)
            sp.bsr_mv(A, x, y, alpha=alpha, beta=beta, transpose=True)
            results.add(y.numpy().tobytes())
    return results


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 0.0), (0.5, 2.0), (-2.0, 1.0)])
def test_values_against_numpy_over_many_row_ranges(shape, scalar, alpha, beta):
    rng = np.random.default_rng(11)
    A, ref = random_bsr(rng, 300, 200, shape, scalar, density=0.03)
    assert part_count(A) == MAX_PARTS  # the scratch's rows are all used
    x, xd = _vector(rng, 300, shape[0], scalar)
    y, yd = _vector(rng, 200, shape[1], scalar)
    out = sp.bsr_mv(A, x, y, alpha=alpha, beta=beta, transpose=True)
    assert out is y
    np.testing.assert_allclose(y.numpy().reshape(-1), alpha * ref.T @ xd + beta * yd, atol=TOL[scalar] * 100)


def test_beta_zero_reads_no_y_and_alpha_zero_only_scales():
    rng = np.random.default_rng(2)
    A, ref = random_bsr(rng, 40, 30, (2, 3), wp.float64, density=0.2)
    x, xd = _vector(rng, 40, 2, wp.float64)
    y = wp.array(np.full((30, 3), np.nan), dtype=vec_type(3, wp.float64))
    sp.bsr_mv(A, x, y, alpha=3.0, beta=0.0, transpose=True)
    np.testing.assert_allclose(y.numpy().reshape(-1), 3.0 * ref.T @ xd, atol=1e-12)
    before = y.numpy().copy()
    sp.bsr_mv(A, x, y, alpha=0.0, beta=-1.0, transpose=True)
    np.testing.assert_array_equal(y.numpy(), -before)


@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
def test_same_bits_every_run_and_thread_count(scalar):
    """Many blocks per column (a column's terms come from several row ranges) in float32 too, where any other order
    of the additions would show in the last bits."""
    rng = np.random.default_rng(7)
    A, ref = random_bsr(rng, 10000, 40, (1, 1), scalar, density=0.5)  # ~5000 blocks a column (the atomic product
    x, xd = _vector(rng, 10000, 1, scalar)  # gave 3 different results in 20 runs of 500000 blocks on 2 threads)
    y0, yd = _vector(rng, 40, 1, scalar)
    two = _product_bits(A, x, y0, 0.75, 0.5, runs=20, threads=2)
    assert len(two) == 1
    assert _product_bits(A, x, y0, 0.75, 0.5, runs=3, threads=1) == two
    assert _product_bits(A, x, y0, 0.75, 0.5, runs=3, threads=4) == two
    got = np.frombuffer(two.pop(), dtype=np.float32 if scalar is wp.float32 else np.float64)
    np.testing.assert_allclose(got, 0.75 * ref.T @ xd + 0.5 * yd, rtol=1e-4 if scalar is wp.float32 else 1e-12)


def test_padded_rows_and_ranges_without_blocks():
    """A padded matrix (row capacities above the row counts: the slots past them are no blocks) whose first half of
    rows is empty, so that some row ranges reach no column."""
    nrow, ncol = 200, 60
    rng = np.random.default_rng(4)
    rows = rng.integers(nrow // 2, nrow, 900).astype(np.int32)
    cols = rng.integers(0, ncol, 900).astype(np.int32)
    values = rng.uniform(-1.0, 1.0, (900, 2, 2))
    A = sp.bsr_zeros(nrow, ncol, wp.mat22d, row_capacity=wp.array(np.full(nrow, 12), dtype=int))
    sp.bsr_set_from_triplets(A, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                             wp.array(values, dtype=wp.mat22d), topology="padded")
    assert A.row_counts is not None and part_count(A) > 1
    ref = dense(A)
    x, xd = _vector(rng, nrow, 2, wp.float64)
    y, yd = _vector(rng, ncol, 2, wp.float64)
    sp.bsr_mv(A, x, y, alpha=1.5, beta=-1.0, transpose=True)
    np.testing.assert_allclose(y.numpy().reshape(-1), 1.5 * ref.T @ xd - yd, atol=1e-12)


def test_a_matrix_changed_in_place_gets_new_scratch():
    rng = np.random.default_rng(9)
    A, _ = random_bsr(rng, 300, 200, (1, 1), wp.float64, density=0.03)
    x, _ = _vector(rng, 300, 1, wp.float64)
    sp.bsr_mv(A, x, transpose=True)
    small, _ = random_bsr(rng, 10, 5, (1, 1), wp.float64, density=0.5)
    sp.bsr_assign(A, small)  # the same object, now 10 x 5 with few blocks
    ref = dense(A)
    x, xd = _vector(rng, 10, 1, wp.float64)
    np.testing.assert_allclose(sp.bsr_mv(A, x, transpose=True).numpy(), ref.T @ xd, atol=1e-12)


def test_threads_sharing_a_matrix_get_one_threads_bits():
    # each thread's product in its own scratch: one shared scratch gave a thread the other's partial sums (about
    # 1 product in 75 of two threads at Python's default switch interval)
    rng = np.random.default_rng(5)
    A, ref = random_bsr(rng, 300, 200, (2, 3), wp.float64, density=0.05)
    assert part_count(A) > 1
    xs = [_vector(rng, 300, 2, wp.float64)[0] for _ in range(3)]
    alone = [sp.bsr_mv(A, x, transpose=True).numpy().tobytes() for x in xs]
    np.testing.assert_allclose(np.frombuffer(alone[0]), ref.T @ xs[0].numpy().reshape(-1), atol=1e-12)
    start = threading.Barrier(len(xs))
    found = [[] for _ in xs]

    def products(t):
        start.wait()
        for _ in range(100):
            found[t].append(sp.bsr_mv(A, xs[t], transpose=True).numpy().tobytes())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, between the scratch's two kernels too
    try:
        threads = [threading.Thread(target=products, args=(t,)) for t in range(len(xs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert [set(bits) for bits in found] == [{bits} for bits in alone]


def test_each_thread_keeps_its_own_scratch():
    rng = np.random.default_rng(3)
    A, _ = random_bsr(rng, 300, 200, (1, 1), wp.float64, density=0.03)
    mine = _scratch(A, 4, 200, wp.float64)
    assert _scratch(A, 4, 200, wp.float64) is mine  # kept between products
    other = []
    thread = threading.Thread(target=lambda: other.append(_scratch(A, 4, 200, wp.float64)))
    thread.start()
    thread.join()
    assert other[0][1] is not mine[1] and other[0][0] is not mine[0]
    assert _scratch(A, 4, 200, wp.float64) is mine


@wp.kernel
def _sum_of_squares(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


def test_under_a_tape_with_gradients_the_product_is_differentiated():
    rng = np.random.default_rng(5)
    A, ref = random_bsr(rng, 30, 20, (1, 1), wp.float64, density=0.3)
    xd = rng.uniform(-1.0, 1.0, 30)
    x = wp.array(xd, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(20, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        sp.bsr_mv(A, x, y, alpha=2.0, transpose=True)
        wp.launch(_sum_of_squares, 20, inputs=[y, loss])
    tape.backward(loss)
    yd = 2.0 * ref.T @ xd
    np.testing.assert_allclose(y.numpy(), yd, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * ref @ (2.0 * yd), atol=1e-12)  # d/dx |2 A^T x|^2


def test_under_a_tape_without_gradients_nothing_is_recorded():
    rng = np.random.default_rng(6)
    A, ref = random_bsr(rng, 30, 20, (1, 1), wp.float64, density=0.3)
    x, xd = _vector(rng, 30, 1, wp.float64)
    with wp.Tape() as tape:
        y = sp.bsr_mv(A, x, transpose=True)
    assert tape.launches == []
    np.testing.assert_allclose(y.numpy(), ref.T @ xd, atol=1e-12)
