"""Gradients of texture_sample through a Tape: the coordinates' against central differences of the
reference sampler (inside interpolation cells), the lod's as the difference of the two levels blended, zero
for CLOSEST filtering and clamped lods; the GPU mapping (cuda-emulation) sampling and differentiating as the
CPU does, and the kernels compiling for CUDA."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

from . import reference as R

rng = np.random.default_rng(3)


@wp.kernel
def _g2(t: wp.Texture2D, c: wp.array(dtype=wp.vec2), lod: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.texture_sample(t, c[i], dtype=wp.vec2f, lod=lod[i])
    out[i] = v[0] * 2.0 + v[1]


@wp.kernel
def _g3(t: wp.Texture3D, c: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i][0], c[i][1], c[i][2], dtype=float)


@wp.kernel
def _g1(t: wp.Texture1D, u: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, u[i], dtype=float)


def _grads(kernel, tex, inputs, n):
    inputs = [wp.array(a, dtype=d, requires_grad=True) for a, d in inputs]
    out = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=n, inputs=[tex, *inputs], outputs=[out])
    tape.backward(grads={out: wp.ones(n, dtype=float)})
    return out.numpy(), [a.grad.numpy() for a in inputs]


def _fd(texels, c, modes, normalized, weights, h=1e-3):
    def f(p):
        return float(np.dot(R.sample([texels], p.astype(np.float32), True, modes, normalized, len(weights)), weights))

    g = np.zeros(len(c))
    for a in range(len(c)):
        e = np.zeros(len(c))
        e[a] = h
        g[a] = (f(c + e) - f(c - e)) / (2 * h)
    return g


@pytest.mark.parametrize("mode", [R.WRAP, R.CLAMP, R.MIRROR, R.BORDER])
def test_coordinate_gradients_are_the_reference_slopes(mode):
    data = rng.standard_normal((5, 6, 2)).astype(np.float32)
    tex = wp.Texture2D(data, address_mode=mode)
    # points away from cell boundaries (texel centres at (i + 0.5) / n): fractions in [0.2, 0.8]
    cells = rng.integers(-3, 9, (24, 2))
    c = ((cells + 0.5 + rng.uniform(0.2, 0.8, (24, 2))) / np.array([6, 5])).astype(np.float32)
    _, (gc, gl) = _grads(_g2, tex, [(c, wp.vec2), (np.full(24, -1.0, np.float32), float)], 24)
    for i in range(24):
        np.testing.assert_allclose(gc[i], _fd(data, c[i].astype(np.float64), (mode,) * 3, True, [2.0, 1.0]),
                                   rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(gl, 0.0)


def test_texel_coordinates_scale_the_gradient_by_one_and_3d_scalars_have_theirs():
    data = rng.standard_normal((3, 4, 5)).astype(np.float32)
    tex = wp.Texture3D(data, normalized_coords=False, address_mode=wp.TextureAddressMode.WRAP)
    c = (rng.integers(-4, 8, (16, 3)) + 0.5 + rng.uniform(0.2, 0.8, (16, 3))).astype(np.float32)
    _, (gc,) = _grads(_g3, tex, [(c, wp.vec3)], 16)
    texels = data[..., None]
    for i in range(16):
        np.testing.assert_allclose(gc[i], _fd(texels, c[i].astype(np.float64), (R.WRAP,) * 3, False, [1.0]),
                                   rtol=2e-3, atol=2e-3)


def test_a_1d_slope_on_a_large_offset_is_exact():
    tex = wp.Texture1D(np.array([1e6, 1e6 + 1.0, 1e6 + 3.0], np.float32), normalized_coords=False)
    value, (gu,) = _grads(_g1, tex, [(np.array([1.2, 2.2], np.float32), float)], 2)
    np.testing.assert_array_equal(gu, [1.0, 2.0])


def test_closest_filtering_has_no_coordinate_gradient():
    tex = wp.Texture2D(rng.standard_normal((4, 4, 2)).astype(np.float32), filter_mode=wp.TextureFilterMode.CLOSEST)
    c = rng.uniform(0, 1, (8, 2)).astype(np.float32)
    _, (gc, gl) = _grads(_g2, tex, [(c, wp.vec2), (np.full(8, -1.0, np.float32), float)], 8)
    np.testing.assert_array_equal(gc, 0.0)


def test_the_lod_gradient_is_the_difference_of_the_blended_levels():
    data = rng.standard_normal((8, 8, 2)).astype(np.float32)
    tex = wp.Texture2D(data, num_mip_levels=0, filter_mode=wp.TextureFilterMode.CLOSEST)
    levels = tex._generate_mipmap_chain(data)
    uv = np.array([0.3, 0.6], np.float32)
    lods = np.array([0.25, 1.5, 2.75, 3.0, 5.0, -1.0], np.float32)
    _, (gc, gl) = _grads(_g2, tex, [(np.tile(uv, (6, 1)), wp.vec2), (lods, float)], 6)

    def at(level):
        lv = levels[level]
        return float(np.dot(lv[int(0.6 * lv.shape[0]), int(0.3 * lv.shape[1])], [2.0, 1.0]))

    np.testing.assert_allclose(gl, [at(1) - at(0), at(2) - at(1), at(3) - at(2), 0.0, 0.0, 0.0], rtol=1e-6)
    np.testing.assert_array_equal(gc, 0.0)


def _run_all(tex2, tex3, c2, lods, c3):
    """The values and gradients of both kernels."""
    v2, g2 = _grads(_g2, tex2, [(c2, wp.vec2), (lods, float)], len(c2))
    v3, g3 = _grads(_g3, tex3, [(c3, wp.vec3)], len(c3))
    return [v2, *g2, v3, *g3]


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_samples_and_differentiates_as_the_cpu_does():
    tex2 = wp.Texture2D(rng.standard_normal((6, 5, 2)).astype(np.float32), num_mip_levels=0,
                        address_mode=(wp.TextureAddressMode.MIRROR, wp.TextureAddressMode.BORDER))
    tex3 = wp.Texture3D(rng.integers(0, 255, (3, 4, 5)).astype(np.uint8), address_mode=wp.TextureAddressMode.WRAP)
    c2 = rng.uniform(-1, 2, (32, 2)).astype(np.float32)
    lods = rng.uniform(-0.5, 3.0, 32).astype(np.float32)
    c3 = rng.uniform(-1, 2, (32, 3)).astype(np.float32)
    on_cpu = _run_all(tex2, tex3, c2, lods, c3)
    with config.override(target="cuda-emulation"):
        emulated = _run_all(tex2, tex3, c2, lods, c3)
    for a, b in zip(on_cpu, emulated):
        np.testing.assert_array_equal(a, b)
