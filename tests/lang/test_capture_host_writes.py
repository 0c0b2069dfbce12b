"""Array writes from the host during a graph capture are recorded and run at each replay, in order with
the launches (Warp's memset and memcpy nodes): ``zero_``, ``fill_``, ``assign``, item assignment,
``wp.copy``, arrays allocated by ``wp.zeros``/``wp.full`` inside the capture, and ``Tape.zero``."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def sum_into(a: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, a[i])


@wp.kernel
def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


@wp.kernel
def descend(x: wp.array(dtype=float), g: wp.array(dtype=float), rate: float):
    i = wp.tid()
    x[i] = x[i] - rate * g[i]


def test_zero_fill_and_copy_are_replayed_in_order_with_the_launches():
    a, b, c = wp.zeros(4, dtype=float), wp.zeros(4, dtype=float), wp.zeros(4, dtype=float)
    wp.launch(add_one, 4, inputs=[a])
    with wp.ScopedCapture() as capture:
        a.zero_()
        wp.launch(add_one, 4, inputs=[a])
        b.fill_(5.0)
        wp.launch(add_one, 4, inputs=[b])
        wp.copy(c, a, dest_offset=1, count=2)
        total = wp.zeros(1, dtype=float)  # allocated in the capture: zeroed now and at each replay
        wp.launch(sum_into, 4, inputs=[b, total])
    # recorded, not run: a keeps its value from before the capture
    np.testing.assert_array_equal(a.numpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0, 0])
    np.testing.assert_array_equal(c.numpy(), [0, 0, 0, 0])
    np.testing.assert_array_equal(total.numpy(), [0])
    for _ in range(3):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), [1, 1, 1, 1])  # zeroed before each add
    np.testing.assert_array_equal(b.numpy(), [6, 6, 6, 6])
    np.testing.assert_array_equal(c.numpy(), [0, 1, 1, 0])
    np.testing.assert_array_equal(total.numpy(), [24])  # not 72: the capture's zeros repeat


def test_assign_and_item_assignment_take_host_data_at_the_call_and_arrays_at_replay():
    x = wp.array([1.0, 2.0, 3.0], dtype=float)
    src = wp.array([4.0, 5.0, 6.0], dtype=float)
    host = np.array([7.0, 8.0, 9.0], dtype=np.float32)
    with wp.ScopedCapture() as capture:
        x.assign(host)
        x[0] = 10.0
    host[:] = -1  # the recorded copy of host data is unaffected
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(x.numpy(), [10, 8, 9])
    with wp.ScopedCapture() as capture:
        x.assign(src)
        x[2] = src[0]
        x[1:2] = src[1:2]
    src.fill_(0.5)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(x.numpy(), [0.5, 0.5, 4.0])  # item values are taken at the call


def test_bad_writes_are_refused_at_the_call_and_record_nothing():
    x = wp.array([1.0, 2.0, 3.0], dtype=float)
    ints = wp.zeros(3, dtype=wp.int32)
    with wp.ScopedCapture() as capture:
        with pytest.raises(ValueError, match=r"shape \(2,\) to an array of shape \(3,\)"):
            x.assign(np.array([1.0, 2.0]))
        with pytest.raises(ValueError, match=r"broadcast input array from shape \(3,\) into shape \(2,\)"):
            x[0:2] = np.array([1.0, 2.0, 3.0])
        with pytest.raises(TypeError, match="destination dtype=float32, source dtype=int32"):
            wp.copy(x, ints)
        with pytest.raises(TypeError):
            x.fill_("text")
    assert len(capture.graph) == 0
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])


def test_indexed_array_writes_are_recorded():
    data = wp.zeros(5, dtype=float)
    picked = data[wp.array([0, 3], dtype=wp.int32)]
    with wp.ScopedCapture() as capture:
        picked.fill_(2.0)
        wp.launch(add_one, 5, inputs=[data])
    np.testing.assert_array_equal(data.numpy(), 0)
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(data.numpy(), [3, 2, 2, 3, 2])


def test_a_graph_launched_during_a_capture_is_recorded_into_it():
    a = wp.zeros(2, dtype=float)
    with wp.ScopedCapture() as inner:
        wp.launch(add_one, 2, inputs=[a])
    with wp.ScopedCapture() as outer:
        a.zero_()
        wp.capture_launch(inner.graph)
        wp.capture_launch(inner.graph)
    np.testing.assert_array_equal(a.numpy(), 0)  # nothing ran while capturing
    wp.capture_launch(outer.graph)
    wp.capture_launch(outer.graph)
    np.testing.assert_array_equal(a.numpy(), [2, 2])


def test_a_captured_gradient_step_with_tape_zero_matches_the_eager_loop():
    def step(x, loss, tape):
        loss.zero_()
        with tape:
            wp.launch(square_sum, 3, inputs=[x], outputs=[loss])
        tape.backward(loss)
        wp.launch(descend, 3, inputs=[x, x.grad, 0.1])
        tape.zero()

    start = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    x_eager = wp.array(start, dtype=float, requires_grad=True)
    loss_eager = wp.zeros(1, dtype=float, requires_grad=True)
    for _ in range(4):
        step(x_eager, loss_eager, wp.Tape())
    x = wp.array(start, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with wp.ScopedCapture() as capture:
        step(x, loss, tape)
    np.testing.assert_array_equal(x.numpy(), start)
    for _ in range(4):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(x.numpy(), x_eager.numpy())
    np.testing.assert_allclose(x.numpy(), start * 0.8 ** 4, rtol=1e-6)
    np.testing.assert_array_equal(x.grad.numpy(), 0)  # tape.zero() ran last in each replay
    np.testing.assert_array_equal(loss.numpy(), loss_eager.numpy())
