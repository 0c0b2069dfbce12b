"""Checking and loading grid buffers for ``wp.Volume``, and the grids' feature arrays (NanoVDB blind data).

Every buffer a volume is made from passes the format module's ``validate_grid`` first (every offset a
kernel follows is then inside the grid; quantized grids load, and kernels read them as holding no
values). Its problems raise ``VolumeError`` (a ``RuntimeError``) worded as Warp's, followed by the
format module's description of the problem.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import numpy as np

from ..errors import BrickworkError
from .nanovdb import layout as L
from .nanovdb.file import CODECS, read_nvdb, write_nvdb
from .nanovdb.read import FormatError, GridInfo, UnsupportedGridError, parse_grid, validate_grid

#: NanoVDB's names of its grid types by code (GridType), as Warp reports a feature array's type.
TYPE_NAMES = ("?", "float", "double", "int16", "int32", "int64", "Vec3f", "Vec3d", "Mask", "Half", "uint32",
              "bool", "RGBA8", "Float4", "Float8", "Float16", "FloatN", "Vec4f", "Vec4d", "Index", "OnIndex",
              "IndexMask", "OnIndexMask", "PointIndex", "Vec3u8", "Vec3u16", "uint8")


class VolumeError(BrickworkError, RuntimeError):
    """A grid buffer that is not a valid NanoVDB grid, or a volume used in a way it does not allow (the
    message says which). A ``RuntimeError``, as Warp raises."""


class FeatureArrayInfo(NamedTuple):
    """One feature array (NanoVDB blind data) of a grid, as Warp's ``Volume.FeatureArrayInfo``."""

    name: str  #: the array's name
    ptr: int  #: the address of its first value, on the volume's device
    value_size: int  #: bytes per value
    value_count: int  #: number of values
    type_str: str  #: NanoVDB's name of the value type ("?" when unknown)


def _detail(err: Exception) -> str:
    text = str(err)
    for prefix in ("invalid NanoVDB grid: ", "invalid NanoVDB file: "):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def check_volume_buffer(host: np.ndarray) -> GridInfo:
    """``Volume(data)``'s check of the first grid of ``host`` (VolumeError with Warp's words)."""
    try:
        return validate_grid(host)
    except FormatError as err:
        raise VolumeError(f"Failed to create volume from input array: {_detail(err)}") from None


def read_grids(file_or_buffer) -> list[np.ndarray]:
    """The grid buffers of a NanoVDB file (or of raw grids back to back), each checked. As Warp, every grid
    is checked before a problem is reported, and an invalid grid outranks an unsupported layout."""
    data = file_or_buffer.read() if hasattr(file_or_buffer, "read") else file_or_buffer
    try:
        return [g.buffer for g in read_nvdb(data)]
    except UnsupportedGridError as err:
        raise VolumeError(f"Unsupported NanoVDB tree layout: {_detail(err)}") from None
    except FormatError as err:
        detail = _detail(err)
        if "no file header" in detail:
            raise VolumeError(f"NanoVDB signature not found ({detail})") from None
        if str(err).startswith("invalid NanoVDB grid"):
            raise VolumeError(f"Invalid NanoVDB grid structure: {detail}") from None
        raise VolumeError(f"Invalid NanoVDB file: {detail}") from None


def grid_span(host: np.ndarray, info: GridInfo) -> int:
    """The bytes of ``host`` its grids take: this grid and the ones after it that its header counts
    (a file's grids are loaded as one buffer, as Warp)."""
    end, index = info.grid_size, info.grid_index
    while index + 1 < info.grid_count and end + L.GRID_SIZE + L.TREE_SIZE <= host.size:
        try:
            nxt = parse_grid(host[end:])
        except FormatError:
            break
        end, index = end + nxt.grid_size, index + 1
    return end


def save(host: np.ndarray, info: GridInfo, path, codec: str) -> None:
    """Write the grids of a volume's buffer to a .nvdb file (Warp's ``save_to_nvdb``)."""
    if codec not in CODECS:
        raise VolumeError(f"Unsupported codec requested: {codec} (one of {', '.join(CODECS)})")
    if info.grid_index > 0:
        raise VolumeError("Saving of aliased Volumes is not supported. Use `save_to_nvdb` on the original "
                          "volume, before any `load_next_grid` calls.")
    try:
        write_nvdb(path, np.ascontiguousarray(host[:grid_span(host, info)]), codec=codec)
    except FormatError as err:
        raise VolumeError(f"cannot save the volume: {_detail(err)}") from None


def feature_info(info: GridInfo, base_ptr: int, index: int) -> FeatureArrayInfo:
    """Feature array ``index`` of a grid whose buffer starts at ``base_ptr``."""
    count = len(info.blind_data)
    if not isinstance(index, (int, np.integer)) or isinstance(index, bool) or not 0 <= index < count:
        raise VolumeError(f"Invalid feature array: index {index!r} is not in [0, {count}) (the grid has {count} "
                          f"feature arrays)")
    b = info.blind_data[index]
    type_str = TYPE_NAMES[b.data_type] if 0 <= b.data_type < len(TYPE_NAMES) else "?"
    return FeatureArrayInfo(b.name, base_ptr + b.offset, b.value_size, b.value_count, type_str)


def view(buf, offset: int, count: int, dtype, keep):
    """``count`` elements of ``dtype`` at byte ``offset`` of the volume buffer ``buf``, viewing its memory
    (nothing copied) and keeping ``keep`` (the volume) alive: on the CPU an array over the address, on a CUDA
    device a view of ``buf``'s own allocation (CUDA arrays view no other device addresses)."""
    from ..types.arrays import array

    if buf.device.is_cpu:
        return array(ptr=int(buf.ptr) + offset, dtype=dtype, shape=count, device=buf.device,
                     deleter=lambda ptr, capacity, keep=keep: None)
    from ..types.device_array import DeviceArray

    out = object.__new__(DeviceArray)
    out._allocate(dtype, (count,), buf.device, buf._alloc, buf._offset + offset)  # the allocation stays alive
    return out


def header_size_at(ptr: int, device) -> int:
    """The grid size recorded in the header of the grid at address ``ptr`` on ``device``."""
    from ..types.arrays import array
    from ..types.scalars import uint8

    head = array(ptr=ptr, dtype=uint8, shape=L.GRID_OFF_GRID_SIZE + 8, device=device).numpy()
    magic, size = struct.unpack_from("<Q", head, 0)[0], struct.unpack_from("<Q", head, L.GRID_OFF_GRID_SIZE)[0]
    if magic not in L.MAGICS_GRID:
        raise VolumeError(f"Invalid grid buffer: no NanoVDB grid at address 0x{ptr:x} (magic 0x{magic:016x})")
    return int(size)
