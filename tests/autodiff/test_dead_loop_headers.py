"""A loop's temporaries (locals each iteration assigns before reading them, unread after the loop) are not saved
per iteration by the backward kernel; the locals an iteration reads from the one before, or the code after the
loop reads, still are. Gradients against numpy's exact values."""

import re

import numpy as np

import brickwork as wp
from brickwork import pipeline

K = 4


@wp.kernel
def temporaries_kernel(a: wp.array(dtype=wp.float64), s: wp.array(dtype=wp.float64)):
    i = wp.tid()
    acc = wp.float64(0.0)
    for k in range(K):
        x = a[i * K + k]
        y = x * x + wp.sin(x)
        acc = acc + y * wp.float64(k + 1)
    s[i] = acc


@wp.kernel
def carried_kernel(a: wp.array(dtype=wp.float64), s: wp.array(dtype=wp.float64)):
    i = wp.tid()
    acc = wp.float64(0.0)
    prev = wp.float64(1.0)
    x = wp.float64(0.0)
    for k in range(K):
        x = a[i * K + k]
        acc = acc + x * prev  # prev: the iteration before's x
        prev = x
        if x > wp.float64(0.5):
            y = x * x
        acc = acc + y  # y: this iteration's, or an earlier one's where the branch did not run
    s[i] = acc + x * x  # x after the loop: the last iteration's


@wp.kernel
def nested_kernel(a: wp.array(dtype=wp.float64), s: wp.array(dtype=wp.float64)):
    i = wp.tid()
    acc = wp.float64(0.0)
    for r in range(3):
        for k in range(K):
            t = a[i * K + k] * wp.float64(r + 1)  # private to the inner iteration, in both loops
            acc = acc + t * t
    s[i] = acc


def _gradient(kernel, a):
    x = wp.array(a, dtype=wp.float64, requires_grad=True)
    s = wp.zeros(len(a) // K, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(kernel, dim=len(a) // K, inputs=[x, s])
    tape.backward(grads={s: wp.ones_like(s)})
    return s.numpy(), x.grad.numpy()


def _a():
    return np.random.default_rng(3).uniform(0.1, 0.9, 3 * K)


def test_temporaries_of_an_iteration_give_the_exact_gradient():
    a = _a()
    s, da = _gradient(temporaries_kernel, a)
    w = np.tile(np.arange(1, K + 1), 3)
    np.testing.assert_allclose(s, ((a * a + np.sin(a)) * w).reshape(3, K).sum(1), rtol=1e-14)
    np.testing.assert_allclose(da, (2 * a + np.cos(a)) * w, rtol=1e-14)


def test_the_backward_kernel_saves_only_the_carried_sum():
    array = wp.array(dtype=wp.float64)
    text, _ = pipeline.generate(temporaries_kernel, [array, array], "temporaries_kernel", mode="release:adjoint")
    # acc per iteration (x and y are made again by each replayed iteration), then the trip count
    assert text.count("bw_tape.pop<double>()") == 1
    pushed = set(re.findall(r"bw_tape\.push\(v_+([a-z]+)_", text))
    assert pushed == {"acc", "ad"}  # acc__L..., _ad_n...


def test_values_carried_between_iterations_and_read_after_the_loop_keep_their_gradient():
    a = _a()
    s, da = _gradient(carried_kernel, a)
    expected_s, expected_da = np.zeros(3), np.zeros_like(a)
    for row in range(3):
        x = a[row * K:(row + 1) * K]
        acc, grad, prev, y, y_from = 0.0, np.zeros(K), 1.0, 0.0, None
        for k in range(K):
            acc += x[k] * prev
            grad[k] += prev
            if k:
                grad[k - 1] += x[k]
            prev = x[k]
            if x[k] > 0.5:
                y, y_from = x[k] * x[k], k
            acc += y
            if y_from is not None:
                grad[y_from] += 2 * x[y_from]
        expected_s[row] = acc + x[-1] ** 2
        grad[-1] += 2 * x[-1]
        expected_da[row * K:(row + 1) * K] = grad
    np.testing.assert_allclose(s, expected_s, rtol=1e-14)
    np.testing.assert_allclose(da, expected_da, rtol=1e-14)


def test_a_temporary_of_an_inner_loop_inside_an_outer_one():
    a = _a()
    s, da = _gradient(nested_kernel, a)
    np.testing.assert_allclose(s, 14 * (a * a).reshape(3, K).sum(1), rtol=1e-14)
    np.testing.assert_allclose(da, 28 * a, rtol=1e-14)
    array = wp.array(dtype=wp.float64)
    text, _ = pipeline.generate(nested_kernel, [array, array], "nested_kernel", mode="release:adjoint")
    assert "bw_tape.pop<double>()" in text  # acc: carried by both loops
    assert text.count("bw_tape.pop<double>()") == 2
