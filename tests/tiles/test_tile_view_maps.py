"""Warp's reshaping views against numpy: ``tile_broadcast``, ``tile_transpose``, ``tile_reshape`` and
``tile_squeeze`` bound to a name share their source's elements, so writes through them reach the source; a
broadcast view's elements are one source element (Warp's stride 0), which takes every update (``tile_axpy``
accumulates into it); reductions and matmuls read views; chains of views; gradients. On the CPU and on the GPU
mapping run on the CPU (whose instances also compile for CUDA).
"""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

pytestmark = pytest.mark.compiles_for_cuda


@pytest.fixture(autouse=True, params=["cpu", "cuda-emulation"])
def target(request):
    with config.override(target=request.param):
        yield request.param


M, N = 4, 6
SRC = np.arange(M * N, dtype=np.float32).reshape(M, N) + 1.0
BIAS = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)


@wp.kernel
def axpy_into_broadcast(bias: wp.array(dtype=float), src: wp.array2d(dtype=float), alpha: float,
                        out: wp.array2d(dtype=float), out_bias: wp.array(dtype=float)):
    b = wp.tile_load(bias, shape=N)
    d = wp.tile_broadcast(b, shape=(M, N))
    s = wp.tile_load(src, shape=(M, N))
    wp.tile_axpy(alpha, s, d)
    wp.tile_store(out, d)  # every row reads the one accumulated row
    wp.tile_store(out_bias, b)


def test_axpy_into_a_broadcast_view_accumulates_into_its_source():
    out = wp.zeros((M, N), dtype=float)
    out_bias = wp.zeros(N, dtype=float)
    wp.launch_tiled(axpy_into_broadcast, dim=[1], inputs=[wp.array(BIAS), wp.array(SRC), 0.5, out, out_bias],
                    block_dim=8)
    expected = BIAS + 0.5 * SRC.sum(axis=0)
    np.testing.assert_allclose(out_bias.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(expected, (M, N)), rtol=1e-6)


@wp.kernel
def writes_through_broadcasts(bias: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    b = wp.tile_load(bias, shape=N)
    d = wp.tile_broadcast(b, shape=(M, N))
    d[2, 1] = -7.0  # the one element of column 1
    for i in range(M):
        d[i, 3] += 1.0  # four updates of element 3
    col = wp.tile_reshape(b, shape=(N, 1))
    wide = wp.tile_broadcast(col, shape=(N, 3))
    wide[5, 2] = 60.0
    wp.tile_store(out, wp.tile_broadcast(b, shape=(M, N)))


def test_element_writes_through_a_broadcast_view_reach_its_one_source_element():
    out = wp.zeros((M, N), dtype=float)
    wp.launch_tiled(writes_through_broadcasts, dim=[1], inputs=[wp.array(BIAS), out], block_dim=8)
    expected = BIAS.copy()
    expected[1] = -7.0
    expected[3] += 4.0
    expected[5] = 60.0
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(expected, (M, N)))


@wp.kernel
def writes_through_shapes(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    tt = wp.tile_transpose(t)
    tt[0, 1] = -1.0  # t[1, 0]
    wp.tile_assign(tt, wp.tile_full(shape=(2, 1), value=-2.0, dtype=float), offset=(4, 3))  # t[3, 4:6]
    flat = wp.tile_reshape(t, shape=(24,))
    flat[7] = -3.0  # t[1, 1]
    grid = wp.tile_reshape(flat, shape=(2, 2, N))
    grid[1, 0, 2] = -4.0  # t[2, 2]
    row = wp.tile_reshape(t[3], shape=(1, N))
    line = wp.tile_squeeze(row)
    line[0] = -5.0  # t[3, 0]
    tt += wp.tile_ones(shape=(N, M), dtype=float)  # every element of t, through the transpose
    wp.tile_store(out, t)


def test_writes_through_transposed_reshaped_and_squeezed_views_reach_their_tile():
    out = wp.zeros((M, N), dtype=float)
    wp.launch_tiled(writes_through_shapes, dim=[1], inputs=[wp.array(SRC), out], block_dim=8)
    expected = SRC.copy()
    expected[1, 0] = -1.0
    expected[3, 4:6] = -2.0
    expected[1, 1] = -3.0
    expected[2, 2] = -4.0
    expected[3, 0] = -5.0
    np.testing.assert_array_equal(out.numpy(), expected + 1.0)


@wp.kernel
def reductions_of_views(src: wp.array2d(dtype=float), bias: wp.array(dtype=float), sums: wp.array(dtype=float),
                        rows: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    tt = wp.tile_transpose(t)
    b = wp.tile_broadcast(wp.tile_load(bias, shape=N), shape=(M, N))
    named = wp.tile_load(bias, shape=N)
    wide = wp.tile_broadcast(named, shape=(3, N))
    wp.tile_store(sums, wp.tile_sum(tt, axis=0))  # the sums of t's rows
    wp.tile_store(rows, wp.tile_sum(wide, axis=0))
    wp.tile_store(out, b + wp.tile_transpose(tt))


def test_reductions_read_views():
    sums, rows, out = wp.zeros(M, dtype=float), wp.zeros(N, dtype=float), wp.zeros((M, N), dtype=float)
    wp.launch_tiled(reductions_of_views, dim=[1], inputs=[wp.array(SRC), wp.array(BIAS), sums, rows, out],
                    block_dim=8)
    np.testing.assert_allclose(sums.numpy(), SRC.sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(rows.numpy(), 3.0 * BIAS, rtol=1e-6)
    np.testing.assert_array_equal(out.numpy(), SRC + BIAS)


@wp.kernel
def matmul_of_transposes(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
                         d: wp.array2d(dtype=float)):
    ta = wp.tile_load(a, shape=(M, N))
    tb = wp.tile_load(b, shape=(M, N))
    at = wp.tile_transpose(ta)  # (N, M)
    wp.tile_store(c, wp.tile_matmul(at, tb))  # a.T @ b
    acc = wp.tile_zeros(shape=(N, N), dtype=float)
    acc_t = wp.tile_transpose(acc)
    wp.tile_matmul(at, tb, acc_t)  # writes acc through its transpose: acc = (a.T @ b).T
    wp.tile_matmul(wp.tile_transpose(tb), ta, acc_t, alpha=2.0)  # acc_t += 2 b.T @ a
    wp.tile_store(d, acc)


def test_matmul_of_transposed_views():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)
    c, d = wp.zeros((N, N), dtype=float), wp.zeros((N, N), dtype=float)
    wp.launch_tiled(matmul_of_transposes, dim=[1], inputs=[wp.array(a), wp.array(b), c, d], block_dim=8)
    np.testing.assert_allclose(c.numpy(), a.T @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d.numpy(), (a.T @ b + 2.0 * b.T @ a).T, rtol=1e-5, atol=1e-5)


@wp.kernel
def rows_broadcast_in_a_loop(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    ones = wp.tile_ones(shape=(3, N), dtype=float)
    for i in range(M):
        spread = wp.tile_broadcast(t[i], shape=(3, N))  # rebound each iteration: another row of t
        wp.tile_axpy(float(i), ones, spread)  # row i gains 3 i
    k = M - 1
    last = wp.tile_broadcast(t[k], shape=(2, N))
    wp.tile_axpy(1.0, wp.tile_ones(shape=(2, N), dtype=float), last)
    wp.tile_store(out, t)


def test_a_broadcast_of_a_row_rebound_in_a_loop_accumulates_into_each_row():
    out = wp.zeros((M, N), dtype=float)
    wp.launch_tiled(rows_broadcast_in_a_loop, dim=[1], inputs=[wp.array(SRC), out], block_dim=8)
    expected = SRC + 3.0 * np.arange(M, dtype=np.float32)[:, None]
    expected[M - 1] += 2.0
    np.testing.assert_array_equal(out.numpy(), expected)


@wp.kernel
def copies_stay_copies(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float), flat: wp.array(dtype=float)):
    t = wp.tile_load(src, shape=(N, N))
    t = wp.tile_transpose(t)  # a name that holds a tile already: rebinding it copies
    t[0, 1] = 0.0
    moved = wp.tile_transpose(t)
    wp.tile_store(flat, wp.tile_reshape(moved, shape=(36,)))  # numpy's order of the transposed elements
    wp.tile_store(out, t)


def test_rebinding_a_tile_name_and_reshaping_a_transpose_copy():
    a = np.arange(N * N, dtype=np.float32).reshape(N, N)
    out, flat = wp.zeros((N, N), dtype=float), wp.zeros(N * N, dtype=float)
    wp.launch_tiled(copies_stay_copies, dim=[1], inputs=[wp.array(a), out, flat], block_dim=8)
    expected = a.T.copy()
    expected[0, 1] = 0.0
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(flat.numpy(), expected.T.reshape(-1))


@wp.kernel
def broadcast_axpy_loss(bias: wp.array(dtype=float), src: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    b = wp.tile_load(bias, shape=N)
    d = wp.tile_broadcast(b, shape=(M, N))
    s = wp.tile_load(src, shape=(M, N))
    wp.tile_axpy(2.0, s, d)
    wp.tile_atomic_add(loss, wp.tile_sum(b * b))


def test_gradients_flow_through_a_broadcast_view_update():
    bias = wp.array(BIAS, requires_grad=True)
    src = wp.array(SRC, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(broadcast_axpy_loss, dim=[1], inputs=[bias, src, loss], block_dim=8)
    tape.backward(loss)
    final = BIAS + 2.0 * SRC.sum(axis=0)  # loss = sum(final^2)
    np.testing.assert_allclose(loss.numpy()[0], (final * final).sum(), rtol=1e-5)
    np.testing.assert_allclose(bias.grad.numpy(), 2.0 * final, rtol=1e-5)
    np.testing.assert_allclose(src.grad.numpy(), np.broadcast_to(4.0 * final, (M, N)), rtol=1e-5)


@wp.kernel
def unnamed_views(src: wp.array2d(dtype=float), bias: wp.array(dtype=float), out: wp.array2d(dtype=float),
                  out_bias: wp.array(dtype=float)):
    t = wp.tile_load(src, shape=(N, N))
    b = wp.tile_load(bias, shape=N)
    wp.tile_axpy(1.0, wp.tile_ones(shape=(3, N), dtype=float), wp.tile_broadcast(b, shape=(3, N)))  # b += 3
    wp.tile_assign(t, wp.tile_transpose(t))  # read only: a copy, so t becomes its transpose
    wp.tile_assign(wp.tile_transpose(t), wp.tile_full(shape=(N, 1), value=-1.0, dtype=float), offset=(0, 2))
    wp.tile_store(out, t)  # row 2 of t is -1
    wp.tile_store(out_bias, b)


def test_an_unnamed_view_written_by_an_inplace_function_writes_its_source():
    a = np.arange(N * N, dtype=np.float32).reshape(N, N)
    out, out_bias = wp.zeros((N, N), dtype=float), wp.zeros(N, dtype=float)
    wp.launch_tiled(unnamed_views, dim=[1], inputs=[wp.array(a), wp.array(BIAS), out, out_bias], block_dim=8)
    expected = a.T.copy()
    expected[2] = -1.0
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(out_bias.numpy(), BIAS + 3.0)


@wp.kernel
def whole_update_of_a_broadcast(bias: wp.array(dtype=float), src: wp.array2d(dtype=float),
                                out_bias: wp.array(dtype=float)):
    b = wp.tile_load(bias, shape=N)
    d = wp.tile_broadcast(b, shape=(M, N))
    d += wp.tile_load(src, shape=(M, N))  # Warp's tile_add_inplace: d + src, then stored element by element
    wp.tile_store(out_bias, b)


def test_a_whole_tile_update_of_a_broadcast_view_stores_its_last_row_as_warp_does():
    out_bias = wp.zeros(N, dtype=float)
    wp.launch_tiled(whole_update_of_a_broadcast, dim=[1], inputs=[wp.array(BIAS), wp.array(SRC), out_bias],
                    block_dim=8)
    np.testing.assert_array_equal(out_bias.numpy(), BIAS + SRC[M - 1])


@wp.func
def negate_first(x: wp.tile[float, N]):
    x[0] = -x[0]


@wp.kernel
def unnamed_parts(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    wp.tile_axpy(2.0, wp.tile_ones(shape=N, dtype=float), t[1])  # row 1 gains 2
    negate_first(t[2])  # a @func writing its argument writes row 2
    wp.tile_assign(t[0:2, 4:6], wp.tile_zeros(shape=(1, 2), dtype=float), offset=(1, 0))  # t[1, 4:6] = 0
    wp.tile_store(sums, wp.tile_sum(t[3], axis=0))  # only read: a copy
    wp.tile_store(out, t)


def test_an_unnamed_part_written_by_a_function_writes_its_tile():
    out, sums = wp.zeros((M, N), dtype=float), wp.zeros(1, dtype=float)
    wp.launch_tiled(unnamed_parts, dim=[1], inputs=[wp.array(SRC), out, sums], block_dim=8)
    expected = SRC.copy()
    expected[1] += 2.0
    expected[2, 0] = -expected[2, 0]
    expected[1, 4:6] = 0.0
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(sums.numpy(), [SRC[3].sum()])


@wp.kernel(module="unique", module_options={"mode": "debug"})
def broadcast_index(bias: wp.array(dtype=float), out: wp.array(dtype=float), i: int):
    b = wp.tile_load(bias, shape=N)
    d = wp.tile_broadcast(b, shape=(M, N))
    d[i, 2] = 9.0  # row i of a broadcast axis: one source element, but the index is the view's
    wp.tile_store(out, b)


def test_debug_mode_checks_an_index_into_a_broadcast_view_against_its_shape():
    out = wp.zeros(N, dtype=float)
    wp.launch_tiled(broadcast_index, dim=[1], inputs=[wp.array(BIAS), out, 3], block_dim=8)
    expected = BIAS.copy()
    expected[2] = 9.0
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(wp.BoundsError, match=r"index \(7, 2\) is out of bounds for shape \(4, 6\) at "
                                             r".*test_tile_view_maps.py:\d+"):
        wp.launch_tiled(broadcast_index, dim=[1], inputs=[wp.array(BIAS), out, 7], block_dim=8)
