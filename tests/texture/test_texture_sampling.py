"""texture_sample against the numpy reference (reference.py): every dimension, channel count, texel type,
filter and address mode, normalized and texel coordinates, at texel centres, edges and far outside [0, 1];
mip levels and lods; textures as struct fields and array elements; tex.width in kernels."""

import numpy as np
import pytest

import brickwork as wp

from . import reference as R

rng = np.random.default_rng(11)


@wp.kernel
def _s1(t: wp.Texture1D, c: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i][0], dtype=wp.vec4f)


@wp.kernel
def _s2(t: wp.Texture2D, c: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, wp.vec2f(c[i][0], c[i][1]), dtype=wp.vec4f)


@wp.kernel
def _s3(t: wp.Texture3D, c: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i], dtype=wp.vec4f)


KERNELS = {1: _s1, 2: _s2, 3: _s3}
CLASSES = {1: wp.Texture1D, 2: wp.Texture2D, 3: wp.Texture3D}


def _data(shape, channels, dtype):
    full = shape + ((channels,) if channels > 1 else ())
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(full) * 2).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), full, endpoint=True).astype(dtype)


def _coords(n, extents, normalized):
    c = rng.uniform(-2.5, 3.5, (n, 3)).astype(np.float32)
    c[: n // 2] = np.round(c[: n // 2] * 8) / 8  # texel centres and edges
    if not normalized:
        c *= np.array(list(extents) + [1] * (3 - len(extents)), np.float32)
    return c


def _check(ndim, data, channels, linear, modes, normalized):
    tex = CLASSES[ndim](data, filter_mode=int(linear), address_mode=modes, normalized_coords=normalized)
    extents = data.shape[:ndim][::-1]
    c = _coords(48, extents, normalized)
    out = wp.zeros(len(c), dtype=wp.vec4)
    wp.launch(KERNELS[ndim], dim=len(c), inputs=[tex, wp.array(c, dtype=wp.vec3)], outputs=[out])
    texels = R.decode(data).reshape(data.shape[:ndim] + (channels,))
    expected = [R.sample([texels], c[i], linear, modes, normalized, 4) for i in range(len(c))]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("channels", [1, 2, 4])
@pytest.mark.parametrize("linear", [False, True])
def test_float_textures_sample_as_the_reference_in_every_address_mode(ndim, channels, linear):
    for mode in range(4):
        for normalized in (True, False):
            shape = tuple(int(n) for n in rng.integers(1, 6, ndim))
            _check(ndim, _data(shape, channels, np.float32), channels, linear, (mode,) * 3, normalized)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int8, np.int16, np.float16, np.int32, np.uint32])
def test_each_texel_type_decodes_as_warp_normalizes_it(dtype):
    for ndim in (1, 2, 3):
        linear = dtype not in (np.int32, np.uint32)
        shape = tuple(int(n) for n in rng.integers(2, 5, ndim))
        _check(ndim, _data(shape, 2, dtype), 2, linear, (R.WRAP, R.MIRROR, R.BORDER), True)


def test_per_axis_address_modes_mix():
    data = _data((4, 5, 3), 1, np.float32)
    for modes in ((R.WRAP, R.CLAMP, R.MIRROR), (R.BORDER, R.WRAP, R.CLAMP), (R.MIRROR, R.BORDER, R.WRAP)):
        _check(3, data, 1, True, modes, True)
    tex = wp.Texture3D(data, address_mode_u=wp.TextureAddressMode.WRAP, address_mode_w=wp.TextureAddressMode.BORDER)
    assert (tex.address_mode_u, tex.address_mode_v, tex.address_mode_w) == (0, 1, 3)


def test_border_reads_zero_and_clamp_the_edge_far_outside():
    data = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    c = wp.array(np.array([[-40.0, 0.25, 0], [0.25, 99.0, 0]], np.float32), dtype=wp.vec3)
    out = wp.zeros(2, dtype=wp.vec4)
    wp.launch(_s2, dim=2, inputs=[wp.Texture2D(data, address_mode=wp.TextureAddressMode.BORDER), c], outputs=[out])
    np.testing.assert_array_equal(out.numpy(), 0.0)
    wp.launch(_s2, dim=2, inputs=[wp.Texture2D(data, filter_mode=0), c], outputs=[out])
    np.testing.assert_array_equal(out.numpy()[:, 0], [1.0, 3.0])


@wp.kernel
def _lod(t: wp.Texture2D, uv: wp.vec2f, lods: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, uv, dtype=float, lod=lods[i])


def test_mip_levels_are_box_filtered_and_lods_blend_them():
    data = np.arange(64, dtype=np.float32).reshape(8, 8)
    tex = wp.Texture2D(data, num_mip_levels=0, filter_mode=wp.TextureFilterMode.CLOSEST)
    assert tex.num_mip_levels == 4 and tex.is_mipmapped
    levels = [data]
    for _ in range(3):
        a = levels[-1]
        levels.append((a[0::2, 0::2] + a[0::2, 1::2] + a[1::2, 0::2] + a[1::2, 1::2]) / 4)
    chain = tex._generate_mipmap_chain(data)
    for got, want in zip(chain, levels):
        np.testing.assert_array_equal(got, want)
    lods = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 9.0, 0.5, 1.25], np.float32)
    out = wp.zeros(len(lods), dtype=float)
    wp.launch(_lod, dim=len(lods), inputs=[tex, wp.vec2f(0.3, 0.6), wp.array(lods)], outputs=[out])
    at = [lv[int(0.6 * lv.shape[0]), int(0.3 * lv.shape[1])] for lv in levels]
    expected = [at[0], at[0], at[1], at[2], at[3], at[3], at[0] * 0.5 + at[1] * 0.5, at[1] * 0.75 + at[2] * 0.25]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_integer_mip_levels_round_to_nearest_even():
    tex = wp.Texture1D(np.array([0, 1, 2, 5], np.uint8), num_mip_levels=3)
    assert [lv.tolist() for lv in tex._generate_mipmap_chain(np.array([0, 1, 2, 5], np.uint8))] == [[0, 1, 2, 5],
                                                                                                  [0, 4], [2]]


@wp.struct
class _Holder:
    tex: wp.Texture2D
    scale: float


@wp.kernel
def _from_struct(s: _Holder, arr: wp.array(dtype=wp.Texture2D), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(s.tex, 0.5, 0.5, dtype=float) * s.scale + wp.texture_sample(arr[i], wp.vec2f(0.5, 0.5),
                                                                                          dtype=float)
    out[i + 2] = float(arr[i].width * 100 + arr[i].height)


def test_textures_as_struct_fields_and_array_elements():
    a = wp.Texture2D(np.full((2, 3), 2.0, np.float32))
    b = wp.Texture2D(np.full((5, 4), 7.0, np.float32))
    s = _Holder()
    assert s.tex.id == 0  # a struct's texture field starts empty
    s.tex, s.scale = a, 10.0
    out = wp.zeros(4, dtype=float)
    wp.launch(_from_struct, dim=2, inputs=[s, wp.array([a, b], dtype=wp.Texture2D)], outputs=[out])
    np.testing.assert_array_equal(out.numpy(), [22.0, 27.0, 302.0, 405.0])


def test_elements_of_an_array_of_textures_are_the_textures():
    a = wp.Texture2D(np.full((2, 3), 2.0, np.float32))
    b = wp.Texture2D(np.full((5, 4), 7.0, np.float32))
    arr = wp.array([a, b, wp.Texture2D()], dtype=wp.Texture2D)
    first, second, empty = arr.list()
    assert first is a and second is b and arr[1] is b
    assert empty.id == 0 and empty.device is None  # a null texture, as the record is
    out = np.zeros((5, 4), np.float32)
    second.copy_to(out)  # a whole texture: its data and device, not a descriptor alone
    np.testing.assert_array_equal(out, np.full((5, 4), 7.0))


def test_an_element_of_an_array_whose_texture_was_freed_says_so():
    arr = wp.array([wp.Texture1D(np.ones(4, np.float32))], dtype=wp.Texture1D)  # the texture is gone at once
    with pytest.raises(RuntimeError, match=r"an element of this array of Texture1D describes a texture that no "
                                           r"longer exists .*keep a reference to each texture"):
        arr.list()
    assert arr.numpy()["width"].tolist() == [4]  # the records themselves are still there


@wp.kernel
def _empty(s: _Holder, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(s.tex, wp.vec2f(0.5, 0.5), dtype=float) + 1.0


def test_an_empty_texture_field_samples_zero():
    out = wp.zeros(1, dtype=float)
    wp.launch(_empty, dim=1, inputs=[_Holder()], outputs=[out])
    assert out.numpy()[0] == 1.0


def test_properties_copies_and_descriptor():
    data = rng.random((3, 4, 2)).astype(np.float32)
    tex = wp.Texture2D(data, address_mode=(wp.TextureAddressMode.WRAP, wp.TextureAddressMode.BORDER))
    assert (tex.width, tex.height, tex.depth, tex.num_channels, tex.ndim) == (4, 3, 1, 2, 2)
    assert tex.dtype is wp.float32 and tex.filter_mode == wp.TextureFilterMode.LINEAR and tex.normalized_coords
    out = np.zeros_like(data)
    tex.copy_to(out)
    np.testing.assert_array_equal(out, data)
    other = wp.Texture2D(np.zeros_like(data))
    other.copy_from(tex)
    dst = wp.zeros((3, 4), dtype=wp.vec2)
    other.copy_to(dst)
    np.testing.assert_array_equal(dst.numpy(), data)
    c = tex.__ctype__()
    assert (c.width, c.height, c.num_channels, c.address_mode_u, c.address_mode_v, c.use_normalized_coords) == \
        (4, 3, 2, 0, 3, 1)
    assert wp.Texture1D(width=4, num_channels=1, dtype=int).dtype is wp.int32
