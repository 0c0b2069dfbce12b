"""tile_fft and tile_ifft on rows whose length is a power of two (the radix-2 butterflies): numpy's
unnormalized transforms, in float64 and float32, and their gradients (the adjoint of the transform)."""

import numpy as np
import pytest

import brickwork as wp


def _complex(a):
    return a[..., 0] + 1j * a[..., 1]


def _pairs(z):
    return np.stack([z.real, z.imag], -1)


def _fft_kernel(rows, n, dtype, inverse):
    @wp.kernel
    def transform(x: wp.array2d(dtype=dtype), y: wp.array2d(dtype=dtype)):
        t = wp.tile_load(x, shape=(rows, n))
        if wp.static(inverse):
            wp.tile_ifft(t)
        else:
            wp.tile_fft(t)
        wp.tile_store(y, t)

    return transform


@pytest.mark.parametrize("n", [1, 2, 8, 64, 512])
@pytest.mark.parametrize("inverse", [False, True])
def test_power_of_two_rows_are_numpys_transform_in_float64(n, inverse):
    rng = np.random.default_rng(n)
    z = rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n))
    x = wp.array(_pairs(z), dtype=wp.vec2d)
    y = wp.zeros((2, n), dtype=wp.vec2d)
    wp.launch_tiled(_fft_kernel(2, n, wp.vec2d, inverse), dim=1, inputs=[x, y], block_dim=8)
    expected = n * np.fft.ifft(z, axis=-1) if inverse else np.fft.fft(z, axis=-1)
    np.testing.assert_allclose(_complex(y.numpy()), expected, atol=1e-12 * n)
    np.testing.assert_array_equal(_complex(x.numpy()), z)  # the input array is only read


def test_float32_rows_agree_with_numpy_to_float32_rounding():
    rng = np.random.default_rng(5)
    z = (rng.standard_normal((1, 256)) + 1j * rng.standard_normal((1, 256))).astype(np.complex64)
    x = wp.array(_pairs(z).astype(np.float32), dtype=wp.vec2f)
    y = wp.zeros((1, 256), dtype=wp.vec2f)
    wp.launch_tiled(_fft_kernel(1, 256, wp.vec2f, False), dim=1, inputs=[x, y], block_dim=8)
    expected = np.fft.fft(z.astype(np.complex128), axis=-1)
    # log2(256) = 8 passes of float32 rounding: far below the O(N) error of a direct sum
    np.testing.assert_allclose(_complex(y.numpy()), expected, atol=2e-5 * np.abs(expected).max())


@pytest.mark.parametrize("inverse", [False, True])
def test_gradient_is_the_adjoint_transform(inverse):
    n = 16
    rng = np.random.default_rng(11)
    z = rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n))
    g = rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n))
    x = wp.array(_pairs(z), dtype=wp.vec2d, requires_grad=True)
    y = wp.zeros((2, n), dtype=wp.vec2d, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(_fft_kernel(2, n, wp.vec2d, inverse), dim=1, inputs=[x, y], block_dim=8)
    tape.backward(grads={y: wp.array(_pairs(g), dtype=wp.vec2d)})
    # y = F x with F the (unnormalized) transform matrix: the gradient of sum(Re(conj(g) y)) is conj(F)^T g
    adjoint = np.fft.fft(g, axis=-1) if inverse else n * np.fft.ifft(g, axis=-1)
    np.testing.assert_allclose(_complex(x.grad.numpy()), adjoint, atol=1e-11)
