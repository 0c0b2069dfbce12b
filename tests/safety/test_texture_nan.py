"""A NaN texture coordinate reads what Warp 1.19's CPU sampler reads: the clamps of the texel position kept the
NaN, so CLAMP and BORDER gave NaN with LINEAR filtering and the first texel with CLOSEST (its index converted
from a NaN double, which C++ leaves undefined), where Warp reads the last texel (CLAMP) or zero (BORDER)
(attacker probe; the values below are Warp 1.19's, CPU)."""

import numpy as np
import pytest

import brickwork as wp

NAN, INF = float("nan"), float("inf")
COORDS = wp.array(np.array([0.5, NAN, INF, -INF, 1e30, -0.0], np.float32))


@wp.kernel
def sample(texture: wp.Texture1D, x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(texture, x[i], dtype=float)


@pytest.mark.parametrize("address, filtering, expected", [
    ("CLAMP", "CLOSEST", [3.0, 4.0, 4.0, 1.0, 4.0, 1.0]),
    ("CLAMP", "LINEAR", [2.5, 4.0, 4.0, 1.0, 4.0, 1.0]),
    ("BORDER", "CLOSEST", [3.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    ("BORDER", "LINEAR", [2.5, 0.0, 0.0, 0.0, 0.0, 0.5]),
    ("WRAP", "CLOSEST", [3.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
    ("MIRROR", "LINEAR", [2.5, NAN, NAN, NAN, 1.0, 1.0]),
])
def test_a_nan_or_infinite_coordinate_reads_as_in_warp(address, filtering, expected):
    texture = wp.Texture1D(np.array([1.0, 2.0, 3.0, 4.0], np.float32), normalized_coords=True,
                           address_mode=getattr(wp.TextureAddressMode, address),
                           filter_mode=getattr(wp.TextureFilterMode, filtering))
    out = wp.full(len(expected), -7.0, dtype=float)
    wp.launch(sample, len(expected), inputs=[texture, COORDS, out])
    np.testing.assert_array_equal(out.numpy(), np.array(expected, np.float32))
