"""The value an atomic returns, under a Tape: the backward pass replays the forward code, and by then the
array holds the value after every thread's update, not the one this thread's atomic returned. A kernel
that computes with that value (or indexes with it) is refused when it is differentiated, naming the line,
instead of getting wrong gradients; one that only stores it, or calls it as a statement, differentiates."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def scaled_by_old(a: wp.array(dtype=float), x: wp.array(dtype=float), o: wp.array(dtype=float)):
    i = wp.tid()
    old = wp.atomic_add(a, i, 1.0)
    o[i] = old * x[i]


@wp.kernel
def compact(x: wp.array(dtype=float), count: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] > 0.5:
        slot = wp.atomic_add(count, 0, 1)
        out[slot] = x[i] * x[i]


@wp.kernel
def stored_old(a: wp.array(dtype=float), x: wp.array(dtype=float), o: wp.array(dtype=float)):
    i = wp.tid()
    o[i] = wp.atomic_min(a, i, x[i])


@pytest.mark.parametrize("kernel", [scaled_by_old, compact])
def test_a_kernel_computing_with_an_atomic_result_is_refused_when_differentiated(kernel):
    x = wp.array([1.5, 0.25, 2.0], dtype=float, requires_grad=True)
    first = wp.array([1.0, 2.0, 3.0], dtype=float) if kernel is scaled_by_old else wp.zeros(1, dtype=int)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, 3, inputs=[first, x] if kernel is scaled_by_old else [x, first], outputs=[out])
    with pytest.raises(wp.KernelNotDifferentiableError, match="uses the value atomic_add returns at .*test_atomic"):
        tape.backward(grads={out: wp.ones_like(out)})
    assert not x.grad.numpy().any()  # nothing ran


def test_an_atomic_result_only_stored_still_differentiates():
    a = wp.array([1.0, 5.0], dtype=float, requires_grad=True)
    x = wp.array([3.0, 2.0], dtype=float, requires_grad=True)
    o = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(stored_old, 2, inputs=[a, x], outputs=[o])
    a.grad.fill_(1.0)
    tape.backward()
    assert o.numpy().tolist() == [1.0, 5.0]
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0])  # where x won the min (x[1] = 2 < 5), as Warp


@wp.kernel
def set_scaled(z: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = z[i] * wp.float64(3.0)


@wp.kernel
def exchange_square(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_exch(y, i, x[i] * x[i])


@wp.kernel
def sum_squares(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


def test_atomic_exch_overwrites_for_the_gradient_as_a_store_does():
    """y = 3 z, then atomic_exch(y, i, x^2): loss = sum y^2 depends on x only; z's value was overwritten."""
    x = wp.array([1.0, 2.0], dtype=wp.float64, requires_grad=True)
    z = wp.array([5.0, 7.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(set_scaled, 2, inputs=[z, y])
        wp.launch(exchange_square, 2, inputs=[x, y])
        wp.launch(sum_squares, 2, inputs=[y, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), 4.0 * x.numpy() ** 3)  # d (x^2)^2 / dx
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 0.0])
