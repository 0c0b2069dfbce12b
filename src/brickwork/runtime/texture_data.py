"""The storage of a texture (``runtime/texture.py``): dtype codes, the shapes data arrays give, the mip chain,
and the one buffer holding the descriptor ``include/brickwork_texture.h`` reads followed by every level's texels.

The descriptor's address is the texture's ``id``. It is built on the host with the buffer's own address and
copied into the buffer with the texels, so a CUDA texture's descriptor and data live in device memory and
kernels there read them as the CPU's do (software sampling from global memory, no texture units).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import BrickworkError
from ..types.arrays import type_name
from ..types.composite import is_vector_type
from ..types.scalars import float16, float32, int8, int16, int32, uint8, uint16, uint32

#: Warp's limit on mip levels.
MAX_MIP_LEVELS = 16

#: The dtype codes of the descriptor (Warp's ``WP_TEXTURE_DTYPE_*`` numbering, kept for the metadata bits).
DTYPE_CODES = {uint8: 0, uint16: 1, float32: 2, int8: 3, int16: 4, float16: 5, uint32: 6, int32: 7}
SUPPORTED = "uint8, uint16, uint32, int8, int16, int32, float16, float32"

#: ``bw::texture_data`` (include/brickwork_texture.h): the header, per-level extents, per-level addresses.
DESCRIPTOR = np.dtype([("ndim", "<i4"), ("num_levels", "<i4"), ("num_channels", "<i4"), ("dtype", "<i4"),
                       ("filter_mode", "<i4"), ("mip_filter_mode", "<i4"), ("normalized", "<i4"), ("pad0", "<i4"),
                       ("address", "<i4", 3), ("pad1", "<i4"),
                       ("width", "<i4", MAX_MIP_LEVELS), ("height", "<i4", MAX_MIP_LEVELS),
                       ("depth", "<i4", MAX_MIP_LEVELS), ("level", "<u8", MAX_MIP_LEVELS)])
assert DESCRIPTOR.itemsize == 368


class TextureError(BrickworkError, ValueError):
    """A texture's data, shape, dtype, modes or mip levels refused, or a copy between incompatible shapes or
    types (the message says which, in Warp's words). A ``ValueError``, as Warp raises."""


class TextureStateError(BrickworkError, RuntimeError):
    """An operation the texture does not support: copies of a mipmapped texture, CUDA-only handles of a CPU
    texture. A ``RuntimeError``, as Warp raises."""


def canonical_dtype(dtype):
    """``float`` -> float32, ``int`` -> int32, a supported scalar type as it is; else TextureError."""
    if dtype is float:
        return float32
    if dtype is int:
        return int32
    if dtype in DTYPE_CODES:
        return dtype
    raise TextureError(f"Unsupported texture dtype: {type_name(dtype) if dtype is not None else None}. "
                       f"Supported: {SUPPORTED}")


def shape_of(data, ndim: int) -> tuple:
    """``(width, height, depth, channels, dtype)`` of a data array for a texture of ``ndim`` dimensions: the
    last axis is the channels when the array has one more axis than the texture, or a vector dtype's length."""
    dtype = data.dtype
    scalar = dtype._dtype if is_vector_type(dtype) else dtype
    if scalar not in DTYPE_CODES:
        raise TextureError(f"Unsupported texture dtype: {type_name(scalar)}. Supported: {SUPPORTED}")
    shape = tuple(int(n) for n in data.shape)
    if is_vector_type(dtype):
        if len(shape) != ndim:
            raise TextureError(f"{ndim}D texture data with vector dtype must be a {ndim}D wp.array")
        channels = dtype._length
    elif len(shape) == ndim:
        channels = 1
    elif len(shape) == ndim + 1:
        channels = shape[-1]
        shape = shape[:-1]
    else:
        raise TextureError(f"{ndim}D texture data must be {ndim}D or {ndim + 1}D array")
    extents = tuple(reversed(shape)) + (1,) * (3 - ndim)  # numpy order is (depth, height, width)
    return (*extents, channels, scalar)


def mip_shapes(base: tuple, ndim: int, levels: int) -> list:
    """The ``(width, height, depth)`` of each level: ``levels`` of them (0: the full chain down to 1), each
    half the one before rounded down (at least 1); axes past ``ndim`` are 1."""
    if levels < 0:
        raise TextureError("num_mip_levels must be >= 0")
    full = int(math.floor(math.log2(max(max(base[:ndim]), 1)))) + 1
    if levels == 0:
        levels = full
    elif levels > full:
        raise TextureError(f"num_mip_levels ({levels}) exceeds the maximum for base dimensions {base[:ndim]} "
                           f"({full})")
    if levels > MAX_MIP_LEVELS:
        raise TextureError(f"num_mip_levels ({levels}) exceeds the maximum supported mip levels ({MAX_MIP_LEVELS})")
    out, dims = [], list(base)
    for _ in range(levels):
        out.append(tuple(dims[a] if a < ndim else 1 for a in range(3)))
        dims = [max(1, d // 2) for d in dims]
    return out


def mip_chain(base: np.ndarray, ndim: int, shapes: list) -> list:
    """The levels below ``base`` (numpy layout, channels last), each from the one above by averaging pairs of
    neighbours along each axis that halves (the last of an odd extent is paired with itself), in float64;
    integer data rounded to nearest and clipped to its type's range, as Warp's."""
    info = np.iinfo(base.dtype) if np.issubdtype(base.dtype, np.integer) else None
    levels = [base]
    for level in range(1, len(shapes)):
        current = levels[-1]
        for axis_extent, new_extent, axis in zip(shapes[level - 1], shapes[level], (ndim - 1, ndim - 2, ndim - 3)):
            if axis < 0 or axis_extent == new_extent:
                continue
            f = current.astype(np.float64, copy=False)
            even = np.take(f, np.arange(new_extent) * 2, axis=axis)
            odd = np.take(f, np.minimum(np.arange(new_extent) * 2 + 1, axis_extent - 1), axis=axis)
            current = (even + odd) * 0.5
        if info is not None:
            current = np.clip(np.rint(current), info.min, info.max)
        levels.append(np.ascontiguousarray(current.astype(base.dtype, copy=False)))
    return levels


def layout(shapes: list, channels: int, itemsize: int) -> tuple:
    """Byte offsets of each level after the descriptor (16-byte aligned), and the buffer's total size."""
    offsets, at = [], DESCRIPTOR.itemsize
    for w, h, d in shapes:
        offsets.append(at)
        at += -(-(w * h * d * channels * itemsize) // 16) * 16
    return offsets, max(at, DESCRIPTOR.itemsize)


def descriptor_bytes(base_address: int, ndim: int, shapes: list, offsets: list, channels: int, dtype_code: int,
                     filter_mode: int, mip_filter_mode: int, normalized: bool, address: tuple) -> np.ndarray:
    """The descriptor of a texture whose buffer starts at ``base_address``, as bytes."""
    d = np.zeros(1, dtype=DESCRIPTOR)
    d["ndim"], d["num_levels"], d["num_channels"], d["dtype"] = ndim, len(shapes), channels, dtype_code
    d["filter_mode"], d["mip_filter_mode"], d["normalized"] = filter_mode, mip_filter_mode, int(normalized)
    d["address"][0] = address
    for level, ((w, h, depth), offset) in enumerate(zip(shapes, offsets)):
        d["width"][0, level], d["height"][0, level], d["depth"][0, level] = w, h, depth
        d["level"][0, level] = base_address + offset
    return d.view(np.uint8)
