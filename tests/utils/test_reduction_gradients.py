"""``array_sum`` and ``array_inner`` under a ``wp.Tape`` (``runtime/reduction_gradients.py``): gradients of the
summed elements, against numpy, for scalars and vectors, all elements, ``value_count`` and ``axis``."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.utils import array_inner, array_sum


@wp.kernel
def _square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def _weighted(x: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, w[i, j] * x[i, j])


def test_a_loss_summed_by_array_sum_differentiates():
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_square, 3, inputs=[x, y])
        array_sum(y, out=loss)
    assert loss.numpy()[0] == 14.0
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])  # d sum(x^2)/dx
    assert not y.grad.numpy().any()  # consumed by the square's backward: it stored y


def test_value_count_sums_and_differentiates_the_first_elements_only():
    v = wp.array(np.arange(12.0).reshape(4, 3), dtype=wp.vec3d, requires_grad=True)
    total = wp.zeros(1, dtype=wp.vec3d, requires_grad=True)
    with wp.Tape() as tape:
        array_sum(v, out=total, value_count=3)
    tape.backward(grads={total: wp.array([[1.0, 10.0, 100.0]], dtype=wp.vec3d)})
    np.testing.assert_array_equal(v.grad.numpy(), [[1, 10, 100]] * 3 + [[0, 0, 0]])
    assert not total.grad.numpy().any()  # the reduction overwrote total: its gradient is consumed


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_an_axis_sum_returns_an_array_with_a_gradient(axis):
    rng = np.random.default_rng(1)
    xs, ws = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x = wp.array(xs, dtype=wp.float64, requires_grad=True)
    shape = (1, 4) if axis == 0 else (3, 1)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        s = array_sum(x, axis=axis)
        assert s.requires_grad and s.shape == shape
        wp.launch(_weighted, shape, inputs=[s, wp.array(ws[: shape[0], : shape[1]], dtype=wp.float64), loss])
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(ws[: shape[0], : shape[1]], (3, 4)))


def test_array_inner_passes_each_factor_the_other():
    rng = np.random.default_rng(2)
    an, bn = rng.standard_normal((5, 2)), rng.standard_normal((5, 2))
    a = wp.array(an, dtype=wp.vec2d, requires_grad=True)
    b = wp.array(bn, dtype=wp.vec2d, requires_grad=True)
    d = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        array_inner(a, b, out=d, count=4)
    assert d.numpy()[0] == pytest.approx((an[:4] * bn[:4]).sum())
    tape.backward(d)
    np.testing.assert_allclose(a.grad.numpy(), np.vstack([bn[:4], [[0.0, 0.0]]]))
    np.testing.assert_allclose(b.grad.numpy(), np.vstack([an[:4], [[0.0, 0.0]]]))
    x = wp.array(an[:, 0], dtype=wp.float64, requires_grad=True)
    self_inner = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        array_inner(x, x, out=self_inner)  # one array twice: both parts add up
    tape.backward(self_inner)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * an[:, 0])


def test_nothing_recorded_for_host_results_constants_or_outside_a_tape():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        assert array_sum(x) == 3.0  # a host value: a constant for the tape
        assert array_sum(wp.array([1.0, 2.0], dtype=float), axis=0).requires_grad is False
        array_sum(x, out=wp.zeros(1, dtype=float))  # an output without a gradient
    assert tape.launches == []
    out = wp.zeros(1, dtype=float, requires_grad=True)
    array_sum(x, out=out)  # no tape
    assert out.numpy()[0] == 3.0 and not x.grad.numpy().any()


def test_a_retained_output_gradient_is_kept():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True, retain_grad=True)
    with wp.Tape() as tape:
        array_sum(x, out=out)
    tape.backward(out)
    assert x.grad.numpy().tolist() == [1.0, 1.0] and out.grad.numpy().tolist() == [1.0]
