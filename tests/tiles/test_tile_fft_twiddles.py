"""tile_fft's twiddle factors: a table of the compiled unit, computed once when it is loaded (not per tile),
holding cos and sin of ``m 2 pi / n`` in float64 rounded to the element type; fft and ifft of one size in one
kernel use tables of their own signs; the transforms stay numpy's, on the CPU and the GPU emulation."""

import math

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline

pytestmark = pytest.mark.compiles_for_cuda


def _pairs(z):
    return np.stack([z.real, z.imag], -1)


def _complex(a):
    return a[..., 0] + 1j * a[..., 1]


def _kernel(n, vec, inverse):
    @wp.kernel
    def transform(x: wp.array2d(dtype=vec), y: wp.array2d(dtype=vec)):
        i = wp.tid()
        t = wp.tile_load(x, shape=(1, n), offset=(i, 0))
        if wp.static(inverse):
            wp.tile_ifft(t)
        else:
            wp.tile_fft(t)
        wp.tile_store(y, t, offset=(i, 0))

    return transform


def _twiddles(n, scalar, sign):
    step = 2.0 * math.pi / n
    return np.array([[math.cos(m * step), sign * math.sin(m * step)] for m in range(n)]).astype(scalar)


@pytest.mark.parametrize("n", [2, 8, 64, 3, 12])
@pytest.mark.parametrize("vec, scalar", [(wp.vec2f, np.float32), (wp.vec2d, np.float64)])
@pytest.mark.parametrize("inverse", [False, True])
def test_an_impulse_gives_the_float64_twiddles_rounded_to_the_element_type(n, vec, scalar, inverse):
    # the transform of e_1 is w^k: each butterfly multiplies one twiddle by 1 and adds zeros (exact), the
    # direct sum adds w^k to zeros, so the output is the table itself (radix-2: its second half negated)
    x = np.zeros((2, n, 2), scalar)
    x[:, 1, 0] = 1.0
    y = wp.zeros((2, n), dtype=vec)
    wp.launch_tiled(_kernel(n, vec, inverse), dim=2, inputs=[wp.array(x, dtype=vec), y], block_dim=8)
    expected = _twiddles(n, scalar, 1 if inverse else -1)
    if n & (n - 1) == 0:  # w^(k + n/2) = -w^k: the table holds the first half only
        expected = np.concatenate([expected[:n // 2], -expected[:n // 2]])
    # the C library's cos and sin (Python's math here); a compiler may fold a constant call correctly rounded
    np.testing.assert_array_max_ulp(y.numpy()[0], expected, maxulp=1)
    np.testing.assert_array_equal(y.numpy()[1], y.numpy()[0])


def test_the_twiddles_are_a_table_of_the_unit_not_computed_per_tile():
    array = wp.array2d(dtype=wp.vec2f)
    for inverse, sign in ((False, -1), (True, 1)):
        text = pipeline.generate(_kernel(512, wp.vec2f, inverse), [array, array], "transform")[0]
        assert "bw::cos(" not in text and "bw::sin(" not in text
        # 256 twiddles (the butterflies read m < n/2) of the 512-point transform of this sign
        assert f"bw::fft_twiddle<bw::vec<2, float>, int32_t(256), int32_t(512), int32_t({sign})>(" in text
        assert '#include "brickwork_tile_fft.h"' in text
    text = pipeline.generate(_kernel(12, wp.vec2d, False), [wp.array2d(dtype=wp.vec2d)] * 2, "transform")[0]
    assert "bw::fft_twiddle<bw::vec<2, double>, int32_t(12), int32_t(12), int32_t(-1)>(" in text  # the direct sum


@wp.kernel
def round_trip(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d), f: wp.array2d(dtype=wp.vec2d)):
    i = wp.tid()
    t = wp.tile_load(x, shape=(1, 16), offset=(i, 0))
    wp.tile_fft(t)
    wp.tile_store(f, t, offset=(i, 0))
    wp.tile_ifft(t)
    wp.tile_store(y, t, offset=(i, 0))


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_fft_then_ifft_in_one_kernel_use_tables_of_their_own_signs(target):
    rng = np.random.default_rng(4)
    z = rng.standard_normal((3, 16)) + 1j * rng.standard_normal((3, 16))
    x = wp.array(_pairs(z), dtype=wp.vec2d)
    y, f = wp.zeros((3, 16), dtype=wp.vec2d), wp.zeros((3, 16), dtype=wp.vec2d)
    with config.override(target=target):
        wp.launch_tiled(round_trip, dim=3, inputs=[x, y, f], block_dim=8)
    np.testing.assert_allclose(_complex(f.numpy()), np.fft.fft(z, axis=-1), atol=1e-12)
    np.testing.assert_allclose(_complex(y.numpy()), 16 * z, atol=1e-12)


@pytest.mark.parametrize("n", [512, 100])
def test_float64_rows_stay_within_the_transforms_rounding_bound(n):
    # float64 rows against numpy's transform: the radix-2 form's error grows as log2(n), the direct sum's as n
    rng = np.random.default_rng(n)
    z = rng.standard_normal((4, n)) + 1j * rng.standard_normal((4, n))
    y = wp.zeros((4, n), dtype=wp.vec2d)
    wp.launch_tiled(_kernel(n, wp.vec2d, False), dim=4, inputs=[wp.array(_pairs(z), dtype=wp.vec2d), y],
                    block_dim=8)
    expected = np.fft.fft(z, axis=-1)
    bound = (math.log2(n) if n & (n - 1) == 0 else n) * 4 * np.finfo(np.float64).eps
    assert np.abs(_complex(y.numpy()) - expected).max() <= bound * np.abs(z).sum(axis=-1).max()
