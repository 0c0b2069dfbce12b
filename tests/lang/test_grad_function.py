"""``wp.grad(f)`` in kernels: the gradient of a builtin or a straight-line ``@func`` at given arguments."""

import numpy as np
import pytest

import brickwork as wp


@wp.func
def square(x: float):
    return x * x


@wp.func
def energy(x: float, y: float):
    r2 = x * x + y * y
    s = wp.sin(x) * square(y)  # nested @func calls are expanded too
    return 0.5 * r2 + s


@wp.func
def half_norm_sq(v: wp.vec3):
    return 0.5 * wp.dot(v, v)


@wp.kernel
def gradients(x: wp.array(dtype=float), y: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
              out: wp.array2d(dtype=float), gv: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    g = wp.grad(square)
    out[i, 0] = g(x[i])
    a, b = wp.grad(wp.atan2)(y[i], x[i])
    out[i, 1] = a
    out[i, 2] = b
    ex, ey = wp.grad(energy)(x[i], y[i])
    out[i, 3] = ex
    out[i, 4] = ey
    out[i, 5] = wp.grad(wp.sqrt)(x[i])
    gv[i] = wp.grad(half_norm_sq)(v[i])


def test_gradients_of_builtins_and_functions_match_their_derivatives():
    xs = np.array([0.5, 1.0, 2.0, 3.0], dtype=np.float32)
    ys = np.array([1.0, -0.5, 0.25, 2.0], dtype=np.float32)
    vs = np.arange(12, dtype=np.float32).reshape(4, 3)
    out, gv = wp.zeros((4, 6), dtype=float), wp.zeros(4, dtype=wp.vec3)
    wp.launch(gradients, 4, inputs=[wp.array(xs), wp.array(ys), wp.array(vs, dtype=wp.vec3), out, gv])
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    expect = np.stack([2 * x, x / (x * x + y * y), -y / (x * x + y * y), x + np.cos(x) * y * y,
                       y + 2 * np.sin(x) * y, 0.5 / np.sqrt(x)], axis=1)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-5)
    np.testing.assert_allclose(gv.numpy(), vs)


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += wp.grad(wp.sqrt)(x) * adj_ret


@wp.kernel
def roots(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = safe_sqrt(x[i])


def test_grad_inside_a_custom_gradient():
    x = wp.array([0.0, 1.0, 4.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(roots, 3, inputs=[x, y])
    tape.backward(grads={y: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.5, 0.25])


@wp.func
def branchy(x: float):
    if x > 0.0:
        return x
    return -x


@wp.func
def pair(x: float):
    return wp.vec2(x, x)


def test_grad_errors():
    @wp.kernel
    def not_straight(out: wp.array(dtype=float)):
        out[0] = wp.grad(branchy)(1.0)

    @wp.kernel
    def not_scalar(out: wp.array(dtype=float)):
        out[0] = wp.grad(pair)(1.0)[0]

    @wp.kernel
    def rebound(out: wp.array(dtype=float)):
        g = wp.grad(square)
        g = 1.0
        out[0] = g

    out = wp.zeros(1)
    with pytest.raises(wp.KernelTypeError, match="is not straight-line code"):
        wp.launch(not_straight, 1, inputs=[out])
    with pytest.raises(wp.KernelTypeError, match="must return one floating-point scalar, it returns vec2f"):
        wp.launch(not_scalar, 1, inputs=[out])
    with pytest.raises(wp.KernelTypeError, match="Cannot reassign local 'g'.*wp.grad"):
        wp.launch(rebound, 1, inputs=[out])
    assert out.numpy().tolist() == [0.0]
    with pytest.raises(RuntimeError, match="can be called in kernels and @wp.func functions only"):
        wp.grad(square)(1.0)
    with pytest.raises(TypeError, match="takes a builtin or a @wp.func function"):
        wp.grad(np.sin)
