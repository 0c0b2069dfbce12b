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
