"""The reverse of a store clears the stored element's adjoint (as Warp): the value it overwrote, and
whatever computed that value, had no effect on the result. Values checked against the derivative by
hand and against Warp 1.19's results for the same programs."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline


@wp.kernel
def scale_into(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = x[i] * s


@wp.kernel
def store_twice(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * 2.0
    y[i] = x[i] * 5.0


@wp.kernel
def total(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, y[wp.tid()])


@wp.kernel
def smooth(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        out[i] = u[i - 1] + wp.float64(2.0) * u[i] + u[i + 1]


@wp.kernel
def fill_from(v: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = v[i] * v[i]


@wp.kernel
def sum64(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    wp.atomic_add(loss, 0, y[wp.tid()])


def _ones(n, dtype=float):
    return wp.array(np.ones(n), dtype=dtype, requires_grad=True)


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_second_store_in_one_kernel_hides_the_first(target):
    """y = 5 x after y = 2 x: d sum(y) / dx is 5 (Warp: 5), not 7."""
    with config.override(target=target):
        x, y, loss = _ones(3), wp.zeros(3, requires_grad=True), wp.zeros(1, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(store_twice, 3, inputs=[x, y])
            wp.launch(total, 3, inputs=[y, loss])
        tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), 5.0)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_launch_that_overwrites_an_array_takes_its_gradient(target):
    """y = 2 x, then y = 2 x2: the loss does not depend on x (Warp: x.grad 0, x2.grad 2)."""
    with config.override(target=target):
        x, x2 = _ones(3), _ones(3)
        y, loss = wp.zeros(3, requires_grad=True), wp.zeros(1, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(scale_into, 3, inputs=[x, y, 2.0])
            wp.launch(scale_into, 3, inputs=[x2, y, 2.0])
            wp.launch(total, 3, inputs=[y, loss])
        tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)
    np.testing.assert_array_equal(x2.grad.numpy(), 2.0)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)


def test_a_gather_form_backward_clears_after_its_gather():
    """A stencil whose backward runs in gather form on the CPU (each point reads its neighbours' output
    adjoints) clears them after the gather: the interior of ``out`` came from ``smooth`` (its earlier
    writer ``fill_from`` gets no gradient there), its two ends from ``fill_from`` alone."""
    inst = smooth.get_instance(smooth.concrete_types())
    text, _ = pipeline.generate(inst.kernel, inst.arg_types, inst.label, mode="release:adjoint")
    assert "body_gather" in text and "body_clear<UNIT>(" in text
    n = 40
    rng = np.random.default_rng(4)
    un, vn = rng.standard_normal(n), rng.standard_normal(n)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    out, loss = wp.zeros(n, dtype=wp.float64, requires_grad=True), wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(fill_from, n, inputs=[v, out])
        wp.launch(smooth, n, inputs=[u, out])
        wp.launch(sum64, n, inputs=[out, loss])
    tape.backward(loss)
    assert loss.numpy()[0] == pytest.approx(vn[0] ** 2 + vn[-1] ** 2 + sum(un[i - 1] + 2 * un[i] + un[i + 1]
                                                                         for i in range(1, n - 1)))
    want_u = np.zeros(n)
    for i in range(1, n - 1):
        want_u[i - 1:i + 2] += (1.0, 2.0, 1.0)
    np.testing.assert_allclose(u.grad.numpy(), want_u, rtol=1e-12, atol=1e-12)
    want_v = np.zeros(n)
    want_v[[0, -1]] = 2 * vn[[0, -1]]
    np.testing.assert_allclose(v.grad.numpy(), want_v, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out.grad.numpy(), 0.0)


def test_an_explicit_backward_launch_clears_only_the_argument_s_own_gradient():
    """As Warp's adjoint of a store: an adjoint array the caller owns is read and left as it was; the
    argument's own ``.grad`` is cleared where the kernel stored, unless the array retains its gradient."""
    x = wp.array(np.arange(3.0), dtype=float, requires_grad=True)
    mine = wp.array(np.full(3, 4.0), dtype=float)
    y = wp.zeros(3, requires_grad=True)
    wp.launch(scale_into, 3, inputs=[x, y, 3.0], adj_inputs=[x.grad, mine, 0.0], adjoint=True)
    np.testing.assert_array_equal(x.grad.numpy(), 12.0)
    np.testing.assert_array_equal(mine.numpy(), 4.0)  # the caller's: kept
    y.grad.assign(np.full(3, 2.0))
    wp.launch(scale_into, 3, inputs=[x, y, 3.0], adj_inputs=[x.grad, y.grad, 0.0], adjoint=True)
    np.testing.assert_array_equal(x.grad.numpy(), 18.0)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)  # y's own: cleared
    y.grad.assign(np.full(3, 2.0))
    y.retain_grad = True
    wp.launch(scale_into, 3, inputs=[x, y, 3.0], adj_inputs=[x.grad, y.grad, 0.0], adjoint=True)
    np.testing.assert_array_equal(x.grad.numpy(), 24.0)
    np.testing.assert_array_equal(y.grad.numpy(), 2.0)  # retained


def test_a_retained_gradient_survives_the_tape():
    x = _ones(3)
    y = wp.zeros(3, requires_grad=True)
    y.retain_grad = True
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(scale_into, 3, inputs=[x, y, 2.0])
        wp.launch(total, 3, inputs=[y, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), 2.0)
    np.testing.assert_array_equal(y.grad.numpy(), 1.0)


@wp.kernel
def update_through_inline_slices(components: wp.array(dtype=wp.vec3), source: wp.array(dtype=float), start: int,
                                 stop: int, step: int):
    i = wp.tid()
    components[start:stop:step][i].x = source[i]  # a store: the slot's old value had no effect
    components[start:stop:step][i][1] += source[i]  # an update: the slot's adjoint passes through


@pytest.mark.parametrize("start, stop, step, selected", [(0, 4, 2, [0, 2]), (3, -5, -2, [3, 1])])
def test_component_updates_through_an_inline_slice(start, stop, step, selected):
    """``a[lo:hi:step][i].x += v`` differentiates as ``a[i].x += v`` does (as in Warp): the slice made twice in
    place is one place, whose update needs nothing it overwrites."""
    components = wp.full(4, wp.vec3(7.0), dtype=wp.vec3, requires_grad=True)
    source = wp.array([3.0, 5.0], dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(update_through_inline_slices, dim=2, inputs=[components, source, start, stop, step])
    expected = np.full((4, 3), 7.0)
    expected[selected, 0] = [3.0, 5.0]
    expected[selected, 1] = [10.0, 12.0]
    np.testing.assert_array_equal(components.numpy(), expected)
    tape.backward(grads={components: wp.full(4, wp.vec3(1.0), dtype=wp.vec3)})
    grad = np.ones((4, 3))
    grad[selected, 0] = 0.0
    np.testing.assert_array_equal(components.grad.numpy(), grad)
    np.testing.assert_array_equal(source.grad.numpy(), [2.0, 2.0])  # once through the store, once the update
    np.testing.assert_array_equal(components.numpy(), expected)  # the backward pass changes no value
