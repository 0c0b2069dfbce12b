"""Gradients through control flow, functions, structs, atomics and stores, against exact derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


def _grad(kernel, dim, inputs, loss, wrt):
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim, inputs=inputs)
    tape.backward(loss)
    return [a.grad.numpy().copy() for a in wrt]


@wp.kernel
def power_loop(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    p = wp.float64(1.0)
    for _ in range(n):
        p = p * x[i]
    wp.atomic_add(out, 0, p)


@pytest.mark.parametrize("n", [0, 1, 3, 7, 40])
def test_dynamic_loop_carries_values(n):
    xn = np.linspace(0.5, 1.2, 5)
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    (g,) = _grad(power_loop, 5, [x, n, out], out, [x])
    np.testing.assert_allclose(out.numpy()[0], np.sum(xn ** n))
    np.testing.assert_allclose(g, n * xn ** (n - 1) if n else 0 * xn, rtol=1e-12)


@wp.kernel
def newton_sqrt(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y = x[i]
    it = 0
    while it < 100:
        it += 1
        y_new = wp.float64(0.5) * (y + x[i] / y)
        if wp.abs(y_new - y) < wp.float64(1e-14):
            y = y_new
            break
        y = y_new
    out[i] = y


def test_while_with_break_differentiates_the_iteration():
    xn = np.array([0.5, 2.0, 9.0, 30.0])
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(4, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(newton_sqrt, 4, inputs=[x, out])
    tape.backward(grads={out: wp.array(np.ones(4), dtype=wp.float64)})
    np.testing.assert_allclose(out.numpy(), np.sqrt(xn), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 0.5 / np.sqrt(xn), rtol=1e-8)


@wp.func
def piecewise(x: wp.float64):
    if x < wp.float64(0.0):
        return x * x
    if x < wp.float64(1.0):
        return wp.float64(2.0) * x
    return wp.sin(x)


@wp.kernel
def call_piecewise(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if x[i] > wp.float64(5.0):
        return
    out[i] = piecewise(x[i]) * wp.float64(3.0)


def test_early_returns_in_functions_and_kernels():
    xn = np.array([-1.5, -0.2, 0.3, 0.9, 1.5, 4.0, 6.0])
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(7, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(call_piecewise, 7, inputs=[x, out])
    tape.backward(grads={out: wp.array(np.ones(7), dtype=wp.float64)})
    d = np.where(xn < 0, 2 * xn, np.where(xn < 1, 2.0, np.cos(xn))) * 3.0
    d[xn > 5] = 0.0
    np.testing.assert_allclose(x.grad.numpy(), d, rtol=1e-12)


@wp.kernel
def skip_odd(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    s = wp.float64(0.0)
    for j in range(x.shape[0]):
        if j % 2 == 1:
            continue
        s += x[j] * x[j]
        if j >= 6:
            break
    out[0] = s


def test_continue_and_break_in_for():
    xn = np.arange(1.0, 11.0)
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    (g,) = _grad(skip_odd, 1, [x, out], out, [x])
    expected = np.zeros(10)
    expected[[0, 2, 4, 6]] = 2 * xn[[0, 2, 4, 6]]
    np.testing.assert_allclose(g, expected)


@wp.struct
class Particle:
    pos: wp.vec3d
    mass: wp.float64


@wp.kernel
def energy(p: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q = Particle()
    q.pos = p[i]
    q.mass = m[i]
    v = q.pos
    v[2] = v[2] * wp.float64(2.0)
    wp.atomic_add(out, 0, q.mass * wp.dot(v, v))


def test_struct_locals_and_component_stores():
    pn = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]])
    mn = np.array([2.0, 3.0])
    p = wp.array(pn, dtype=wp.vec3d, requires_grad=True)
    m = wp.array(mn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    gp, gm = _grad(energy, 2, [p, m, out], out, [p, m])
    scale = np.array([1.0, 1.0, 4.0])
    np.testing.assert_allclose(gp, 2 * mn[:, None] * pn * scale)
    np.testing.assert_allclose(gm, (pn * pn * scale).sum(axis=1))


@wp.kernel
def stores(x: wp.array2d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    row = x[i]
    y[i, j] = wp.float64(3.0) * row[j] + x[i, j] * x[i, j]


def test_array_stores_2d_and_row_views():
    xn = np.arange(6.0).reshape(2, 3)
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    y = wp.zeros((2, 3), dtype=wp.float64, requires_grad=True)
    gy = np.arange(1.0, 7.0).reshape(2, 3)
    tape = wp.Tape()
    with tape:
        wp.launch(stores, (2, 3), inputs=[x, y])
    tape.backward(grads={y: wp.array(gy, dtype=wp.float64)})
    np.testing.assert_allclose(x.grad.numpy(), gy * (3.0 + 2 * xn))


@wp.kernel
def sliced_reads(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    window = x[i][1:3]  # a slice of a row view: its reads send their gradients to x
    y[i] = 2.0 * window[1] + window[0] * window[0]


def test_slices_of_arrays_follow_their_array():
    xn = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    x = wp.array(xn, dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sliced_reads, 2, inputs=[x, y])
    tape.backward(grads={y: wp.array([1.0, 10.0], dtype=float)})
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0, 2.0], [0.0, 80.0, 20.0]])


@wp.kernel
def atomics(x: wp.array(dtype=wp.float64), lo: wp.array(dtype=wp.float64), total: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_min(lo, 0, x[i])
    wp.atomic_sub(total, 0, wp.float64(2.0) * x[i])


def test_atomic_min_and_sub_adjoints():
    xn = np.array([3.0, -2.0, 5.0])
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    lo = wp.array([100.0], dtype=wp.float64, requires_grad=True)
    total = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(atomics, 3, inputs=[x, lo, total])
    tape.backward(grads={lo: wp.array([1.0], dtype=wp.float64), total: wp.array([10.0], dtype=wp.float64)})
    np.testing.assert_allclose(x.grad.numpy(), [-20.0, 1.0 - 20.0, -20.0])


@wp.kernel
def ternary(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = x[i] * x[i] if x[i] > wp.float64(0.0) else wp.float64(-4.0) * x[i]


def test_conditional_expression():
    xn = np.array([-1.0, 2.0])
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(ternary, 2, inputs=[x, out])
    tape.backward(grads={out: wp.array([1.0, 1.0], dtype=wp.float64)})
    np.testing.assert_allclose(x.grad.numpy(), [-4.0, 4.0])


@wp.kernel
def generic_square(x: wp.array(dtype=wp.Any), out: wp.array(dtype=wp.Any)):
    i = wp.tid()
    out[i] = x[i] * x[i]


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.vec2d])
def test_generic_kernels_differentiate_per_instance(dtype):
    xn = np.arange(1.0, 5.0).reshape((2, 2) if dtype is wp.vec2d else (4,))
    x = wp.array(xn, dtype=dtype, requires_grad=True)
    out = wp.zeros(x.shape, dtype=dtype, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(generic_square if dtype is not wp.vec2d else cw_square, x.shape[0], inputs=[x, out])
    tape.backward(grads={out: wp.array(np.ones_like(xn), dtype=dtype)})
    np.testing.assert_allclose(x.grad.numpy(), 2 * xn, rtol=1e-6)


@wp.kernel
def cw_square(x: wp.array(dtype=wp.Any), out: wp.array(dtype=wp.Any)):
    i = wp.tid()
    out[i] = wp.cw_mul(x[i], x[i])


@wp.kernel
def chain_a(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.exp(x[i])


@wp.kernel
def chain_b(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


def test_two_launches_chain_through_intermediate_gradients():
    xn = np.array([0.1, -0.3, 0.7])
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(chain_a, 3, inputs=[x, y])
        wp.launch(chain_b, 3, inputs=[y, loss])
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * xn))
    # y's gradient reached x; the reverse of chain_a's store then cleared it, as Warp does (an element
    # written again before would get no gradient: the stored value replaced it)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)


@wp.kernel
def laplacian(u: wp.array3d(dtype=wp.float64), out: wp.array3d(dtype=wp.float64)):
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1]
                        + u[i, j, k + 1] - wp.float64(6.0) * u[i, j, k])


@wp.kernel
def wide_stencil(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i >= 2 and i < u.shape[0] - 2:
        out[i] = u[i - 2] * u[i + 1] + wp.float64(3.0) * u[i + 2]


def _threads(monkeypatch):
    from brickwork import config

    monkeypatch.setattr(config, "num_threads", 2)
    monkeypatch.setattr(config, "parallel_threshold", 1)


def test_stencil_adjoint_without_atomics_matches_the_transposed_stencil(monkeypatch):
    """Scatters within a few rows of tid(0) are plain adds, the rows phased so threads never meet."""
    _threads(monkeypatch)
    rng = np.random.default_rng(1)
    un, gn = rng.standard_normal((37, 9, 8)), rng.standard_normal((37, 9, 8))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(un.shape, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(laplacian, un.shape, inputs=[u, out])
    tape.backward(grads={out: wp.array(gn, dtype=wp.float64)})
    g = np.zeros_like(gn)
    g[1:-1, 1:-1, 1:-1] = gn[1:-1, 1:-1, 1:-1]
    expected = -6.0 * g
    for axis in range(3):
        expected += np.roll(g, 1, axis) + np.roll(g, -1, axis)
    np.testing.assert_allclose(u.grad.numpy(), expected, atol=1e-12)
    from brickwork.passes.adjoint import adjoint_kernel
    from brickwork.pipeline import type_instance

    fn, _ = type_instance(laplacian, laplacian.concrete_types(), "laplacian")
    assert adjoint_kernel(fn).scatter_radius == 1
    from brickwork import ir

    assert "atomic_add" not in ir.format_function(adjoint_kernel(fn))


def test_wide_stencil_adjoint(monkeypatch):
    _threads(monkeypatch)
    un = np.linspace(-1.0, 2.0, 101)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(101, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(wide_stencil, 101, inputs=[u, out])
    tape.backward(grads={out: wp.array(np.ones(101), dtype=wp.float64)})
    expected = np.zeros(101)
    for i in range(2, 99):
        expected[i - 2] += un[i + 1]
        expected[i + 1] += un[i - 2]
        expected[i + 2] += 3.0
    np.testing.assert_allclose(u.grad.numpy(), expected, atol=1e-12)


@wp.func
def poly(x: wp.Any, c: wp.Any):
    return x * c * c


@wp.func
def weight(x: wp.float64):
    return wp.float64(2.0) * x


@wp.func
def weight(x: wp.vec2d):  # noqa: F811 - an overload by parameter type, Warp's way
    return wp.vec2d(x[0] * x[1], x[1])


@wp.kernel
def overloads_and_generics(s: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec2d),
                           out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = weight(poly(s[i], s[i]))           # the float64 instances
    b = weight(poly(v[i], s[i]))           # the vec2d ones
    out[i] = a + b[0] + wp.float64(3.0) * b[1]


def test_generic_and_overloaded_functions_differentiate_per_instance():
    sn, vn = np.array([0.5, -1.5]), np.array([[0.3, 1.2], [-0.7, 0.4]])
    s = wp.array(sn, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.vec2d, requires_grad=True)
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(overloads_and_generics, 2, inputs=[s, v, out])
    tape.backward(grads={out: wp.array([1.0, 1.0], dtype=wp.float64)})
    x, y = vn[:, 0], vn[:, 1]
    c = sn
    np.testing.assert_allclose(out.numpy(), 2 * c ** 3 + x * y * c ** 4 + 3 * y * c ** 2, rtol=1e-14)
    np.testing.assert_allclose(s.grad.numpy(), 6 * c ** 2 + 4 * x * y * c ** 3 + 6 * y * c, rtol=1e-14)
    np.testing.assert_allclose(v.grad.numpy()[:, 0], y * c ** 4, rtol=1e-14)
    np.testing.assert_allclose(v.grad.numpy()[:, 1], x * c ** 4 + 3 * c ** 2, rtol=1e-14)


@wp.kernel
def vector_atomic_max(x: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    wp.atomic_max(out, 0, x[i])


@wp.kernel
def matrix_atomic_min(x: wp.array(dtype=wp.mat22d), out: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    wp.atomic_min(out, 0, x[i])


def test_atomic_min_max_of_composites_send_each_component_to_its_winner():
    """As Warp: component c of the result's adjoint goes to the value whose component c won."""
    xn = np.array([[1.0, 5.0, 2.0], [3.0, 4.0, 2.5], [0.5, 6.0, 1.0]])
    x = wp.array(xn, dtype=wp.vec3d, requires_grad=True)
    out = wp.array(np.full((1, 3), -10.0), dtype=wp.vec3d, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(vector_atomic_max, 3, inputs=[x, out])
    tape.backward(grads={out: wp.array([[1.0, 2.0, 3.0]], dtype=wp.vec3d)})
    np.testing.assert_array_equal(out.numpy(), [[3.0, 6.0, 2.5]])
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, 0.0], [1.0, 0.0, 3.0], [0.0, 2.0, 0.0]])

    mn = np.array([[[1.0, 5.0], [2.0, 0.0]], [[3.0, 4.0], [-1.0, 7.0]]])
    m = wp.array(mn, dtype=wp.mat22d, requires_grad=True)
    res = wp.array(np.full((1, 2, 2), 10.0), dtype=wp.mat22d, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(matrix_atomic_min, 2, inputs=[m, res])
    tape.backward(grads={res: wp.array([[[1.0, 2.0], [3.0, 4.0]]], dtype=wp.mat22d)})
    np.testing.assert_array_equal(res.numpy(), [[[1.0, 4.0], [-1.0, 0.0]]])
    np.testing.assert_array_equal(m.grad.numpy(), [[[1.0, 0.0], [0.0, 4.0]], [[0.0, 2.0], [3.0, 0.0]]])


@wp.kernel
def random_weights(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    """A loop drawing random numbers, one of them by a statement whose value is dropped."""
    i = wp.tid()
    state = wp.rand_init(7, i)
    acc = wp.float64(0.0)
    for _ in range(n):
        wp.randf(state)  # skips a draw
        acc += wp.float64(wp.randf(state)) * x[i] * x[i]
    out[i] = acc


def test_random_draws_in_a_loop_are_replayed_by_the_backward_kernel():
    """The reverse sweep replays each iteration from the state saved for it: before, it advanced the state the
    forward loop had left (other draws, a wrong gradient)."""
    xn = np.linspace(0.5, 1.5, 6)
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(6, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(random_weights, 6, inputs=[x, 5, out])
    tape.backward(grads={out: wp.ones(6, dtype=wp.float64)})
    g = x.grad.numpy()
    weights = out.numpy() / xn**2  # the sum of the draws of each thread
    np.testing.assert_allclose(g, 2 * xn * weights, rtol=1e-12)
