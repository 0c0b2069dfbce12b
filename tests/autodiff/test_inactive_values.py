"""Values no differentiable input reaches (a table of constants, random draws, loop counters as floats) have no
adjoint in the backward kernel, and a loop that assigns nothing else is replayed, not recorded or reversed;
a tile a loop writes and never reads is not stored again by the replays of its reversed iterations. Gradients
against exact values and central finite differences (float64)."""

import numpy as np

import brickwork as wp
from brickwork import pipeline

N = 8


@wp.kernel
def table_kernel(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    table = wp.tile_zeros(shape=N, dtype=wp.float64)
    for k in range(N):  # no parameter reaches the table
        table[k] = wp.cos(wp.float64(k) * wp.float64(0.3)) + wp.float64(0.5)
    v = x[i]
    acc = wp.float64(0.0)
    for k in range(N):
        acc = acc + table[k] * v
        v = v * table[(k + 3) % N]
    y[i] = acc


@wp.kernel
def noise_kernel(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), noise: wp.array(dtype=wp.float64)):
    i = wp.tid()
    state = wp.rand_init(11, i)
    s = wp.float64(0.0)
    for _k in range(5):  # random draws: replayed (the same values), never reversed
        s = s + wp.float64(wp.randf(state))
    noise[i] = s
    y[i] = x[i] * x[i] * s


@wp.kernel
def ping_pong(x: wp.array2d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(x[i], shape=N)
    b = wp.tile_zeros(shape=N, dtype=wp.float64)
    for _step in range(3):
        for k in range(N):  # writes b, reads a only
            b[k] = a[k] * a[(k + 1) % N] + wp.float64(0.25)
        for k in range(N):  # writes a, reads b only
            a[k] = wp.sin(b[k]) + b[(k + 3) % N]
    wp.tile_store(y[i], a)


@wp.kernel
def refill_kernel(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    t = wp.tile_zeros(shape=4, dtype=wp.float64)
    acc = wp.float64(0.0)
    for r in range(3):
        for k in range(4):  # writes t, which this loop never reads: the enclosing loop's reads see its values
            t[k] = x[r * 4 + k] * wp.float64(r + 1)
        for k in range(4):
            acc = acc + t[k] * t[(k + 1) % 4]
    for k in range(4):  # the last iteration's value stays
        t[0] = x[k]
    y[0] = acc + t[0] * t[0]


def _launch(kernel, x, outputs, dim):
    xs = wp.array(x, dtype=wp.float64, requires_grad=True)
    ys = [wp.zeros(shape, dtype=wp.float64, requires_grad=True) for shape in outputs]
    with wp.Tape() as tape:
        wp.launch(kernel, dim=dim, inputs=[xs, *ys])
    tape.backward(grads={ys[0]: wp.ones_like(ys[0])})
    return [y.numpy() for y in ys], xs.grad.numpy()


def _finite_differences(kernel, x, outputs, dim, h=1e-6):
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        grad[k] = (_launch(kernel, up, outputs, dim)[0][0].sum() - _launch(kernel, down, outputs, dim)[0][0].sum()) / (2 * h)
    return grad


def _adjoint_source(kernel, arrays):
    return pipeline.generate(kernel, arrays, kernel.key, mode="release:adjoint")[0]


def test_a_table_of_constants_gives_the_exact_gradient_without_an_adjoint():
    x = np.linspace(0.1, 0.9, 6)
    (y,), grad = _launch(table_kernel, x, [(6,)], 6)
    table = np.cos(np.arange(N) * 0.3) + 0.5
    factor = sum(table[k] * np.prod([table[(j + 3) % N] for j in range(k)]) for k in range(N))
    np.testing.assert_allclose(y, factor * x, rtol=1e-14)
    np.testing.assert_allclose(grad, np.full(6, factor), rtol=1e-14)
    text = _adjoint_source(table_kernel, [wp.array(dtype=wp.float64)] * 2)
    # the table's loop runs once (unrolled or not), in the forward replay: no reversed iterations replay it,
    # and the derivative of cos (-sin) is not there
    assert text.count("bw::cos(") in (1, N)
    assert "bw::sin(" not in text


def test_random_draws_are_replayed_with_the_forward_values():
    x = np.linspace(-1.0, 1.0, 5)
    (y, noise), grad = _launch(noise_kernel, x, [(5,), (5,)], 5)
    assert np.all(noise > 0) and len(set(noise)) == 5
    np.testing.assert_allclose(y, x * x * noise, rtol=1e-15)
    np.testing.assert_allclose(grad, 2 * x * noise, rtol=1e-15)


def test_buffers_written_in_turn_match_finite_differences():
    x = np.random.default_rng(5).uniform(0.1, 0.6, (2, N))
    _, grad = _launch(ping_pong, x, [(2, N)], 2)
    np.testing.assert_allclose(grad, _finite_differences(ping_pong, x, [(2, N)], 2), rtol=1e-6, atol=1e-8)


def test_a_tile_written_by_an_inner_loop_it_never_reads():
    x = np.random.default_rng(6).uniform(0.5, 1.5, 12)
    (y,), grad = _launch(refill_kernel, x, [(1,)], 1)
    expected_y, expected = x[3] ** 2, np.zeros(12)
    expected[3] = 2 * x[3]
    for r in range(3):
        t = x[r * 4:(r + 1) * 4] * (r + 1)
        expected_y += np.sum(t * np.roll(t, -1))
        for k in range(4):
            expected[r * 4 + k] += (r + 1) * (t[(k + 1) % 4] + t[(k - 1) % 4])
    np.testing.assert_allclose(y, [expected_y], rtol=1e-14)
    np.testing.assert_allclose(grad, expected, rtol=1e-14)

