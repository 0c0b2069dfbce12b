"""``wp.tid()`` over launches of more dimensions than it gives indices, as Warp 1.19 runs them (its CPU backend
measured: the expectations below are the values it gave). A kernel that unpacks ``tid()`` into n indices keeps
the first n extents of ``dim``; the extents left over repeat each of those points (``i = wp.tid()`` over
``dim=(2, 3)`` is 0, 0, 0, 1, 1, 1). Fewer extents than indices: the missing ones are 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config

EMULATION = dict(target="cuda-emulation")


@wp.kernel
def count_1(counts: wp.array(dtype=wp.int32), first: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1)
    first[i] = i


@wp.kernel
def count_2(counts: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    wp.atomic_add(counts, i, j, 1)


@wp.kernel
def count_3(counts: wp.array3d(dtype=wp.int32)):
    i, j, k = wp.tid()
    wp.atomic_add(counts, i, j, k, 1)


@wp.kernel
def add_square(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] += x[i] * x[i]


@wp.kernel
def bump(y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = y[i] + 1.0  # not atomic: every repeat of a point runs in one thread, as on Warp's CPU


@wp.kernel
def fill_first(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = float(i)


# (dim, the number of times Warp 1.19 ran each value of i, for i = 0, 1, 2, 3)
ONE_INDEX = [
    (4, [1, 1, 1, 1]),
    ((4,), [1, 1, 1, 1]),
    ((2, 3), [3, 3, 0, 0]),
    ((2, 3, 2), [6, 6, 0, 0]),
    ((2, 1, 3, 2), [6, 6, 0, 0]),
    ((2, 2, 2, 2), [8, 8, 0, 0]),
    ((0, 3), [0, 0, 0, 0]),
    ((3, 0), [0, 0, 0, 0]),
    ((), [1, 0, 0, 0]),
]


def _one_index(dim):
    counts, first = wp.zeros(4, dtype=wp.int32), wp.full(4, -1, dtype=wp.int32)
    wp.launch(count_1, dim=dim, inputs=[counts, first])
    return counts.numpy().tolist(), first.numpy().tolist()


@pytest.mark.parametrize("dim, times", ONE_INDEX)
def test_one_index_is_the_first_index_of_the_launch(dim, times):
    counts, first = _one_index(dim)
    assert counts == times
    assert first == [i if n else -1 for i, n in enumerate(times)]


@pytest.mark.parametrize("dim, times", [
    ((2, 3), [[1, 1, 1], [1, 1, 1]]),
    ((2, 3, 2), [[2, 2, 2], [2, 2, 2]]),
    ((2, 1, 3, 2), [[6, 0, 0], [6, 0, 0]]),
    ((2, 2, 2, 2), [[4, 4, 0], [4, 4, 0]]),
    (2, [[1, 0, 0], [1, 0, 0]]),
])
def test_two_indices_keep_the_first_two_extents(dim, times):
    counts = wp.zeros((2, 3), dtype=wp.int32)
    wp.launch(count_2, dim=dim, inputs=[counts])
    assert counts.numpy().tolist() == times


def test_three_indices_over_four_dimensions():
    counts = wp.zeros((2, 1, 3), dtype=wp.int32)
    wp.launch(count_3, dim=(2, 1, 3, 2), inputs=[counts])  # Warp: every (i, 0, k) twice
    np.testing.assert_array_equal(counts.numpy(), np.full((2, 1, 3), 2))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 3), dim=st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_each_kept_point_runs_once_per_point_of_the_extents_left_over(n, dim):
    """n indices over any dim: every point of the first n extents (missing ones 1) runs as many times as the
    other extents have points, and no other point runs."""
    kernel, shape = {1: (count_1, (4,)), 2: (count_2, (4, 4)), 3: (count_3, (4, 4, 4))}[n]
    counts = wp.zeros(shape, dtype=wp.int32)
    inputs = [counts, wp.zeros(4, dtype=wp.int32)] if n == 1 else [counts]
    wp.launch(kernel, dim=tuple(dim), inputs=inputs)
    kept = (list(dim) + [1] * n)[:n]
    expected = np.zeros(shape, dtype=np.int32)
    expected[tuple(slice(0, k) for k in kept)] = int(np.prod(dim[n:], dtype=np.int64))
    np.testing.assert_array_equal(counts.numpy(), expected)


def test_max_blocks_and_a_recorded_launch_repeat_the_same_points():
    counts, first = wp.zeros(4, dtype=wp.int32), wp.full(4, -1, dtype=wp.int32)
    wp.launch(count_1, dim=(2, 3), inputs=[counts, first], max_blocks=1)
    assert counts.numpy().tolist() == [3, 3, 0, 0]
    cmd = wp.launch(count_1, dim=(2, 3), inputs=[counts, first], record_cmd=True)
    cmd.launch()
    assert counts.numpy().tolist() == [6, 6, 0, 0]
    cmd.set_dim((3, 2))
    cmd.launch()
    assert counts.numpy().tolist() == [8, 8, 2, 0]


def test_a_captured_launch_replays_the_repeats():
    counts, first = wp.zeros(4, dtype=wp.int32), wp.full(4, -1, dtype=wp.int32)
    with wp.ScopedCapture() as capture:
        wp.launch(count_1, dim=(2, 3), inputs=[counts, first])
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    assert counts.numpy().tolist() == [6, 6, 0, 0]


def test_launch_tiled_gives_the_first_tile_index():
    counts, first = wp.zeros(4, dtype=wp.int32), wp.full(4, -1, dtype=wp.int32)
    wp.launch_tiled(count_1, dim=(2, 3), inputs=[counts, first], block_dim=4)
    assert counts.numpy().tolist() == [3, 3, 0, 0]
    grid = wp.zeros((2, 3), dtype=wp.int32)
    wp.launch_tiled(count_2, dim=2, inputs=[grid], block_dim=4)  # the trailing (thread) index is 0, as Warp's CPU
    assert grid.numpy().tolist() == [[1, 0, 0], [1, 0, 0]]


def test_every_repeat_adds_and_the_gradient_counts_them():
    """Warp 1.19: y = 2 x**2 over dim=(3, 2), and the gradient of sum(y) is 4 x."""
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(add_square, dim=(3, 2), inputs=[x, y])
    assert y.numpy().tolist() == [2.0, 8.0, 18.0]
    tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32))})
    assert x.grad.numpy().tolist() == [4.0, 8.0, 12.0]


def test_repeats_of_a_point_run_in_one_thread():
    y = wp.zeros(64, dtype=wp.float32)
    with config.override(num_threads=2, parallel_threshold=1):
        wp.launch(bump, dim=(3, 1001), inputs=[y])  # two threads share point 1
    np.testing.assert_array_equal(y.numpy(), [1001.0] * 3 + [0.0] * 61)


def test_the_launch_check_bounds_the_first_index_by_the_first_extent():
    x = wp.zeros(2, dtype=wp.float32)
    wp.launch(fill_first, dim=(2, 3), inputs=[x])  # i runs to 1 only: within x
    assert x.numpy().tolist() == [0.0, 1.0]
    short = wp.zeros(2, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=r"index 2 on its axis 0 \(tid\(\) component 0 runs to 2\)"):
        wp.launch(fill_first, dim=(3, 2), inputs=[short])
    assert not short.numpy().any()


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("dim, times", [d for d in ONE_INDEX if d[0] != ()])
def test_one_index_on_the_emulation_target(dim, times):
    with config.override(**EMULATION):
        counts, first = _one_index(dim)
    assert counts == times
    assert first == [i if n else -1 for i, n in enumerate(times)]


@pytest.mark.compiles_for_cuda
def test_two_indices_and_the_gradient_on_the_emulation_target():
    with config.override(**EMULATION):
        counts = wp.zeros((2, 3), dtype=wp.int32)
        wp.launch(count_2, dim=(2, 3, 2), inputs=[counts])
        x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
        y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(add_square, dim=(3, 2), inputs=[x, y])
        tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32))})
    assert counts.numpy().tolist() == [[2, 2, 2], [2, 2, 2]]
    assert x.grad.numpy().tolist() == [4.0, 8.0, 12.0]


@wp.func
def index_of_thread():
    return wp.tid()


@wp.kernel
def calls_tid_in_func(out: wp.array(dtype=wp.int32)):
    out[0] = index_of_thread()


def test_tid_in_a_function_is_refused_as_in_warp():
    """Warp 1.19: "tid() may only be called from a Warp kernel, not a Warp function"."""
    out = wp.full(1, -1, dtype=wp.int32)
    with pytest.raises(wp.KernelTypeError, match=r"tid\(\) can only be called in a kernel") as e:
        wp.launch(calls_tid_in_func, dim=1, inputs=[out])
    assert 'test_tid_launch_rank.py", line' in str(e.value) and "in index_of_thread" in str(e.value)
    assert out.numpy()[0] == -1


@pytest.mark.compiles_for_cuda
def test_larger_launches_on_the_emulation_target_run_in_tiles_and_blocks_alike():
    """Launches large enough for the GPU mapping's tiles (32 x 8 threads) and for several blocks of 256."""
    with config.override(**EMULATION):
        counts = wp.zeros(40, dtype=wp.int32)
        wp.launch(count_1, dim=(40, 50), inputs=[counts, wp.zeros(40, dtype=wp.int32)])
        grid = wp.zeros((20, 30), dtype=wp.int32)
        wp.launch(count_2, dim=(20, 30, 3), inputs=[grid])
    np.testing.assert_array_equal(counts.numpy(), np.full(40, 50))
    np.testing.assert_array_equal(grid.numpy(), np.full((20, 30), 3))
