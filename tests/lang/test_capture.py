"""Graph capture on the CPU: recorded launches replay with their bound arguments."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def axpy(y: wp.array(dtype=Any), x: wp.array(dtype=Any), a: Any):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_capture_records_then_replays():
    x = wp.array(np.arange(5), dtype=wp.float32)
    y = wp.zeros(5, dtype=wp.float32)
    wp.capture_begin()
    assert wp.is_capturing()
    wp.launch(axpy, dim=5, inputs=[y, x, wp.float32(2)])
    wp.launch(axpy, dim=5, inputs=[y, x, wp.float32(1)])
    graph = wp.capture_end()
    assert not wp.is_capturing() and len(graph) == 2
    np.testing.assert_array_equal(y.numpy(), 0)  # recorded, not run
    for _ in range(3):
        wp.capture_launch(graph)
    np.testing.assert_array_equal(y.numpy(), 9 * np.arange(5))


def test_new_instances_compile_before_recording():
    wp.overload(axpy, [wp.array(dtype=wp.float16), wp.array(dtype=wp.float16), wp.float16])
    x64 = wp.array([1.0, 2.0], dtype=wp.float64)
    y64 = wp.zeros(2, dtype=wp.float64)
    wp.capture_begin()
    try:
        wp.launch(axpy, dim=2, inputs=[y64, x64, wp.float64(3)])  # a new instance, built now
    finally:
        graph = wp.capture_end()
    wp.capture_launch(graph)
    np.testing.assert_array_equal(y64.numpy(), [3.0, 6.0])
    inst = axpy.instances[(wp.array(dtype=wp.float16), wp.array(dtype=wp.float16), wp.float16)]
    assert inst.loaded  # pending instances were built at capture_begin


def test_capture_misuse():
    with pytest.raises(wp.CaptureError, match="without capture_begin"):
        wp.capture_end()
    wp.capture_begin()
    try:
        with pytest.raises(wp.CaptureError, match="already active"):
            wp.capture_begin()
    finally:
        wp.capture_end()


def test_scoped_capture_records_the_block_and_keeps_the_graph():
    x = wp.array(np.arange(4), dtype=wp.float64)
    y = wp.zeros(4, dtype=wp.float64)
    with wp.ScopedCapture() as capture:
        assert wp.is_capturing() and capture.graph is None
        wp.launch(axpy, dim=4, inputs=[y, x, wp.float64(3)])
    assert not wp.is_capturing() and len(capture.graph) == 1
    np.testing.assert_array_equal(y.numpy(), 0)  # recorded, not run
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(y.numpy(), 6 * np.arange(4))


def test_an_exception_in_a_scoped_capture_ends_it_and_propagates():
    y = wp.zeros(2, dtype=wp.float64)
    with pytest.raises(ZeroDivisionError):
        with wp.ScopedCapture() as capture:
            wp.launch(axpy, dim=2, inputs=[y, y, wp.float64(1)])
            1 / 0  # noqa: B018 - the error inside the block
    assert not wp.is_capturing() and capture.graph is None
    np.testing.assert_array_equal(y.numpy(), 0)
    with pytest.raises(wp.CaptureError, match="already active"):
        with wp.ScopedCapture():
            wp.capture_begin()
    assert not wp.is_capturing()


@wp.kernel
def add_one(x: wp.array(dtype=wp.float64)):
    x[wp.tid()] += wp.float64(1.0)


@wp.kernel
def scale_by(x: wp.array(dtype=wp.float64), s: wp.float64):
    x[wp.tid()] *= s


@wp.kernel
def count_down(n: wp.array(dtype=wp.int32), steps: wp.array(dtype=wp.int32)):
    n[0] = n[0] - 1
    steps[0] += 1


def test_capture_if_runs_now_outside_a_capture_and_chooses_at_each_replay_inside_one():
    x, cond = wp.zeros(3, dtype=wp.float64), wp.array([1], dtype=wp.int32)

    def plus(x):
        wp.launch(add_one, dim=3, inputs=[x])

    def times(x, s=10.0):
        wp.launch(scale_by, dim=3, inputs=[x, wp.float64(s)])

    wp.capture_if(cond, on_true=plus, on_false=times, x=x)  # no capture: runs now
    assert x.numpy().tolist() == [1, 1, 1]
    with wp.ScopedCapture() as capture:
        wp.capture_if(cond, on_true=plus, on_false=times, x=x)
    assert x.numpy().tolist() == [1, 1, 1]  # recorded, not run
    wp.capture_launch(capture.graph)
    cond.numpy()[0] = 0  # the condition is read at every replay
    wp.capture_launch(capture.graph)
    assert x.numpy().tolist() == [20, 20, 20]
    with wp.ScopedCapture() as other:  # a captured Graph as a branch, and a branch that is absent
        wp.capture_if(cond, on_true=None, on_false=capture.graph)
    wp.capture_launch(other.graph)
    assert x.numpy().tolist() == [200, 200, 200]


def test_capture_while_loops_until_the_body_clears_the_condition():
    n, steps = wp.array([3], dtype=wp.int32), wp.zeros(1, dtype=wp.int32)

    def body(n, steps):
        wp.launch(count_down, dim=1, inputs=[n, steps])

    wp.capture_while(n, body, n=n, steps=steps)
    assert n.numpy()[0] == 0 and steps.numpy()[0] == 3
    with wp.ScopedCapture() as capture:
        wp.capture_while(n, body, n=n, steps=steps)
    assert steps.numpy()[0] == 3  # recorded, not run (the condition is 0 now: nothing would run anyway)
    for start in (2, 5):
        n.numpy()[0] = start
        wp.capture_launch(capture.graph)
    assert n.numpy()[0] == 0 and steps.numpy()[0] == 3 + 2 + 5


def test_capture_if_and_while_refuse_bad_arguments_and_change_nothing():
    x = wp.zeros(2, dtype=wp.float64)
    for bad in (wp.array([1.0]), [1], wp.zeros(0, dtype=wp.int32)):
        with pytest.raises(TypeError, match=r"capture_if: condition must be a wp.array of integers"):
            wp.capture_if(bad, on_true=lambda: wp.launch(add_one, dim=2, inputs=[x]))
    with pytest.raises(TypeError, match="on_false must be a function or a captured Graph, got int"):
        wp.capture_if(wp.array([1], dtype=wp.int32), on_false=3)
    with pytest.raises(TypeError, match="while_body must be a function or a captured Graph, got None"):
        wp.capture_while(wp.array([1], dtype=wp.int32), None)
    assert x.numpy().tolist() == [0, 0] and not wp.is_capturing()
    with pytest.raises(wp.CaptureError, match="already active"):  # a branch may not start a capture of its own
        with wp.ScopedCapture():
            wp.capture_if(wp.array([1], dtype=wp.int32), on_true=wp.capture_begin)
    assert not wp.is_capturing()
