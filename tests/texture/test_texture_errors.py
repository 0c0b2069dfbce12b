"""Every texture error a user can cause: its type and its message (Warp's words), and nothing changed."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError, KernelUnsupportedTypeError
from brickwork.runtime.texture_data import TextureError, TextureStateError

Z2 = np.zeros((2, 3), np.float32)


@pytest.mark.parametrize("kwargs, message", [
    ({"data": np.zeros((2, 3), np.float64)}, "Unsupported texture dtype: float64"),
    ({"data": np.zeros((2, 3, 3), np.float32)}, "Texture num_channels must be 1, 2, or 4"),
    ({"data": np.zeros(3, np.float32)}, "2D texture data must be 2D or 3D array"),
    ({"data": Z2, "width": 4}, "Specified texture width does not match data width"),
    ({"data": Z2, "num_channels": 2}, r"Specified texture channels do not match data channels \(expected 2, got 1\)"),
    ({"data": Z2, "dtype": wp.uint8}, "Specified texture dtype does not match data dtype"),
    ({"width": 0, "height": 2, "num_channels": 1, "dtype": float}, "Texture width must be a positive integer"),
    ({"width": 2, "height": -1, "num_channels": 1, "dtype": float}, "Texture height must be a positive integer"),
    ({"width": 4.5, "height": 2, "num_channels": 1, "dtype": float}, "Texture width must be a positive integer"),
    ({"width": 4, "height": 2.0, "num_channels": 1, "dtype": float}, "Texture height must be a positive integer"),
    ({"width": 4, "height": 2, "num_channels": 2.0, "dtype": float}, "Texture num_channels must be 1, 2, or 4"),
    ({"width": True, "height": 2, "num_channels": 1, "dtype": float}, "Texture width must be a positive integer"),
    ({"width": 2, "height": 2, "num_channels": 1, "dtype": wp.float64}, "Unsupported texture dtype"),
    ({"data": Z2, "filter_mode": 2}, "Invalid texture filter mode: 2"),
    ({"data": Z2, "mip_filter_mode": "linear"}, "Invalid texture mip filter mode"),
    ({"data": Z2, "address_mode": 4}, "Invalid texture address mode for axis 0: 4"),
    ({"data": Z2, "address_mode": (1, -1)}, "Invalid texture address mode for axis 1: -1"),
    ({"data": Z2, "address_mode_v": "wrap"}, "Invalid texture address mode for axis 1: wrap"),
    ({"data": Z2, "num_mip_levels": 3}, r"num_mip_levels \(3\) exceeds the maximum for base dimensions \(3, 2\) \(2\)"),
    ({"data": Z2, "num_mip_levels": -1}, "num_mip_levels must be >= 0"),
    ({"width": 4, "height": 4, "num_channels": 1, "dtype": float, "num_mip_levels": 2},
     "Mipmapped textures require data to be provided at construction"),
    ({"data": Z2.astype(np.int32), "filter_mode": 1}, "32-bit integer textures require filter_mode=TextureFilterMode.CLOSEST"),
    ({"data": np.zeros((4, 4), np.uint32), "num_mip_levels": 2, "mip_filter_mode": 1},
     "32-bit integer mipmapped textures require mip_filter_mode=TextureFilterMode.CLOSEST"),
    ({"data": [[1.0]]}, "Data must be a Warp array or NumPy array"),
    ({"data": Z2, "cuda_array": 1234}, "do not wrap CUDA arrays"),
])
def test_construction_is_refused_with_warps_words(kwargs, message):
    with pytest.raises(TextureError, match=message) as e:
        wp.Texture2D(**kwargs)
    assert isinstance(e.value, ValueError)


def test_copies_check_shape_type_and_contiguity_and_change_nothing():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    tex = wp.Texture2D(data)
    for src, message in ((np.zeros((2, 4), np.float32),
                          r"Incompatible array shape for copy: texture shape=\(2, 3\), source shape=\(2, 4\)"),
                         (np.zeros((2, 3), np.int32), "Incompatible array data type for copy: texture dtype=float32, "
                                                      "source dtype=int32"),
                         (wp.Texture2D(np.zeros((2, 4), np.float32)),
                          r"Incompatible texture shapes for copy: destination shape=\(2, 3\), source shape=\(2, 4\)"),
                         (wp.Texture2D(np.zeros((2, 3), np.uint8)), "Incompatible texture data types for copy"),
                         (wp.zeros((3, 4), dtype=float)[:, ::2].transpose(), "Source array must be contiguous"),
                         ([1, 2], "Expected contiguous array or Texture, got <class 'list'>")):
        with pytest.raises(TextureError, match=message):
            tex.copy_from(src)
    dst = np.full((2, 4), 5.0, np.float32)
    with pytest.raises(TextureError, match=r"texture shape=\(2, 3\), destination shape=\(2, 4\)"):
        tex.copy_to(dst)
    assert (dst == 5.0).all()
    out = np.zeros((2, 3), np.float32)
    tex.copy_to(out)
    np.testing.assert_array_equal(out, data)


def test_mipmapped_textures_refuse_copies_and_cpu_textures_have_no_cuda_handles():
    tex = wp.Texture2D(np.zeros((4, 4), np.float32), num_mip_levels=2)
    with pytest.raises(TextureStateError, match="copy_from is not supported for mipmapped textures"):
        tex.copy_from(np.ones((4, 4), np.float32))
    with pytest.raises(TextureStateError, match="copy_to is not supported for mipmapped textures"):
        tex.copy_to(np.ones((4, 4), np.float32))
    for name in ("cuda_array", "cuda_texture", "cuda_surface"):
        with pytest.raises(TextureStateError, match=f"{name} is only supported for CUDA textures"):
            getattr(tex, name)
    empty = wp.Texture2D()
    with pytest.raises(TextureStateError, match="never initialized"):
        empty.__ctype__()
    wp.Texture1D.__new__(wp.Texture1D).__del__()  # an instance never initialized is released quietly


@wp.kernel
def _k1(t: wp.Texture1D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, 0.5, dtype=wp.vec3f)[0]


@wp.kernel
def _k2(t: wp.Texture1D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, 0.5)


@wp.kernel
def _k3(t: wp.Texture2D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, 0.5, dtype=float)


@wp.kernel
def _k4(t: wp.uint64, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, 0.5, dtype=float)


@wp.kernel
def _k5(t: wp.Texture2D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, wp.vec3f(0.5, 0.5, 0.5), dtype=float)


@wp.kernel
def _k6(t: wp.Texture1D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(t, 0.5, dtype=float, bias=1.0)


@pytest.mark.parametrize("kernel, tex, error, message", [
    (_k1, wp.Texture1D, KernelUnsupportedTypeError, "unsupported texture type `vec3f`. Supported types: float, vec2f"),
    (_k2, wp.Texture1D, KernelTypeError, "texture_sample\\(\\) needs dtype="),
    (_k3, wp.Texture2D, KernelTypeError, "takes a vec2f or 2 coordinates"),
    (_k4, None, KernelTypeError, "the first argument must be a wp.Texture1D, wp.Texture2D or wp.Texture3D, got uint64"),
    (_k5, wp.Texture2D, KernelTypeError, "needs a Texture2D, vec2f or 2 float32 coordinates"),
    (_k6, wp.Texture1D, KernelTypeError, "unknown argument 'bias'"),
])
def test_kernels_calling_texture_sample_wrongly_are_refused(kernel, tex, error, message):
    arg = tex(np.zeros(4, np.float32) if tex is wp.Texture1D else np.zeros((2, 2), np.float32)) if tex else 0
    out = wp.zeros(1, dtype=float)
    with pytest.raises(error, match=message):
        wp.launch(kernel, dim=1, inputs=[arg, out])
