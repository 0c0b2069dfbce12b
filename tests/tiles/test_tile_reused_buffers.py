"""Gradients of tile code that overwrites tile buffers in a loop (two buffers written in turn, as a stencil's or
an FFT's passes do): against finite differences of a float64 numpy model of the kernel, and the backward kernel
copies a buffer that an element loop only reads once at that loop's start (not once per element)."""

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline

N = 16  # elements per tile
STEPS = 3


@wp.kernel
def ping_pong_kernel(x: wp.array2d(dtype=wp.float64), y: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    a = wp.tile_load(x[i], shape=N)
    b = wp.tile_zeros(shape=N, dtype=wp.float64)
    for _step in range(STEPS):
        for k in range(N):  # reads a, which the next loop overwrites
            b[k] = wp.float64(0.5) * a[k] + wp.float64(0.25) * a[(k + 1) % N] * a[(k + N - 1) % N]
        for k in range(N):  # reads b, which the next step's first loop overwrites
            a[k] = wp.sin(b[k]) + b[(k + 3) % N]
    wp.tile_store(y[i], a)


def ping_pong_numpy(x: np.ndarray) -> np.ndarray:
    a = x.copy()
    for _ in range(STEPS):
        b = 0.5 * a + 0.25 * np.roll(a, -1, axis=-1) * np.roll(a, 1, axis=-1)
        a = np.sin(b) + np.roll(b, -3, axis=-1)
    return a


def _gradient(x: np.ndarray, seed: np.ndarray, target: str) -> tuple[np.ndarray, np.ndarray]:
    with config.override(target=target):
        xa = wp.array(x, dtype=wp.float64, requires_grad=True)
        ya = wp.zeros(x.shape, dtype=wp.float64, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch_tiled(ping_pong_kernel, dim=x.shape[0], inputs=[xa, ya], block_dim=32)
        tape.backward(grads={ya: wp.array(seed, dtype=wp.float64)})
        return ya.numpy(), xa.grad.numpy()


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_buffers_overwritten_in_turn_give_the_finite_difference_gradient(target):
    rng = np.random.default_rng(7)
    x, seed = rng.uniform(0.2, 0.8, (2, N)), rng.uniform(-1.0, 1.0, (2, N))
    y, dx = _gradient(x, seed, target)
    np.testing.assert_allclose(y, ping_pong_numpy(x), rtol=1e-12)
    h = 1e-6  # central differences of the float64 model: error of order h^2
    expected = np.zeros_like(x)
    for r in range(x.shape[0]):
        for m in range(N):
            up, down = x.copy(), x.copy()
            up[r, m] += h
            down[r, m] -= h
            expected[r, m] = ((ping_pong_numpy(up) - ping_pong_numpy(down)) * seed).sum() / (2 * h)
    np.testing.assert_allclose(dx, expected, rtol=1e-7, atol=1e-9)


def test_an_element_loop_that_only_reads_a_buffer_copies_it_once():
    array = wp.array2d(dtype=wp.float64)
    text, _ = pipeline.generate(ping_pong_kernel, [array, array], "ping_pong_kernel", mode="release:adjoint")
    tile_pops = re.findall(r"bw_tape\.pop<bw::fixedarray_t<double, 16>>", text)
    # a and b, saved once per step by the step loop; the element loops save none (each would save a tile per
    # element: N times the tile's size per step)
    assert len(tile_pops) == 2
