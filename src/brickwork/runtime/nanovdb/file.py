"""NanoVDB files (.nvdb): read and write grids, uncompressed or with zip (zlib) or blosc chunks.

A file is one or more segments. A segment is a 16-byte header (magic, version, grid count,
codec), then per grid a 176-byte metadata record and its NUL-terminated name, then the grids'
data in the same order: raw for codec 0, otherwise per grid a sequence of chunks, each an int64
byte count and the compressed bytes, until the grid's size is restored. Warp's own writer records
a compressed grid's ``fileSize`` without the chunk's 8-byte count; NanoVDB counts it. The reader
follows the chunks rather than ``fileSize``, so both read. A buffer that starts with a grid's magic
rather than a file's is taken as raw grids back to back (as ``Volume.array()`` holds them).
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass

import numpy as np

from . import layout as L
from .read import FormatError, GridInfo, UnsupportedGridError, as_bytes, parse_grid, split_grids, validate_grid

CODECS = {"none": 0, "zip": 1, "blosc": 2}
FILE_HEADER = struct.Struct("<QIHH")
FILE_METADATA = struct.Struct("<QQQQII6d6i3dI4I3IHHI")  # 176 bytes
FILE_VERSION = L.make_version()


@dataclass(frozen=True)
class FileGrid:
    """One grid of a file: its buffer (validated), header fields and the file's record of it."""

    buffer: np.ndarray
    info: GridInfo
    name: str
    codec: str

    def __array__(self, dtype=None, copy=None):
        """The grid buffer, so that numpy functions take a FileGrid as its bytes."""
        return self.buffer if dtype is None else self.buffer.astype(dtype, copy=False)


def name_key(name: str) -> int:
    """NanoVDB's 64-bit hash of a grid name, stored in the file so that readers find grids by name."""
    h = 0
    for c in name.encode("utf-8"):
        h = ((h * 67) + c + (h >> 56)) & 0xFFFFFFFFFFFFFFFF
    return h


def _blosc():
    try:
        import blosc  # noqa: PLC0415 - optional dependency, only for the blosc codec
    except ImportError as err:
        raise RuntimeError(
            f"the blosc codec needs the Python module 'blosc', which could not be imported: {err}"
        ) from err
    return blosc


def _fail(problem: str):
    raise FormatError(f"invalid NanoVDB file: {problem}")


def _read_all(file_or_buffer) -> np.ndarray:
    if isinstance(file_or_buffer, (str, os.PathLike)):
        with open(file_or_buffer, "rb") as f:
            return as_bytes(f.read())
    read = getattr(file_or_buffer, "read", None)
    return as_bytes(read() if read is not None else file_or_buffer)


def _is_file_header(data: np.ndarray, pos: int) -> bool:
    if data.size - pos < FILE_HEADER.size:
        return False
    magic, version, count, codec = FILE_HEADER.unpack_from(data, pos)
    if magic == L.MAGIC_FILE:
        return True
    # NanoVDB0 starts both old files and old grids: a file has its version right after the magic
    return magic == L.MAGIC_NUMBER and version >> 21 == L.VERSION_MAJOR and count > 0 and codec in CODECS.values()


def read_nvdb(file_or_buffer, *, validate: bool = True) -> list[FileGrid]:
    """The grids of a .nvdb file (path, file object or bytes), each validated; or of raw grid buffers.

    Raises FormatError (a ValueError) naming what is malformed (magic, version, codec, sizes, truncation, and any
    grid :func:`~brickwork.runtime.nanovdb.read.validate_grid` refuses); RuntimeError when a blosc
    file is read without the ``blosc`` module. With ``validate=False`` each grid's header alone is
    read (:func:`~brickwork.runtime.nanovdb.read.parse_grid`), for a caller that validates the grids
    itself (``wp.Volume`` checks every grid before it reports the first problem, as Warp, and takes
    grid types this package does not walk).
    """
    data = _read_all(file_or_buffer)
    unsupported = []  # a malformed later grid is reported before an unsupported earlier one, as Warp does
    if data.size >= 8 and struct.unpack_from("<Q", data, 0)[0] in L.MAGICS_GRID and not _is_file_header(data, 0):
        grids = []
        for buf in split_grids(data):
            info = _check(buf, validate, unsupported, aligned=False)
            grids.append(FileGrid(np.array(buf), info, info.name, "none"))
    else:
        grids, pos = [], 0
        while pos < data.size:
            if not _is_file_header(data, pos):
                if not grids:
                    magic = hex(struct.unpack_from("<Q", data, pos)[0]) if data.size - pos >= 8 else "missing"
                    _fail(f"no file header: magic {magic} is not NanoVDB's, or the version is not {L.VERSION_MAJOR}.x")
                break  # trailing bytes after the last segment
            pos = _read_segment(data, pos, grids, validate, unsupported)
    if unsupported:
        raise unsupported[0]
    return grids


def _check(raw: np.ndarray, validate: bool, unsupported: list, aligned: bool) -> GridInfo:
    if not validate:
        return parse_grid(raw)
    try:
        return validate_grid(raw, require_aligned_size=aligned)
    except UnsupportedGridError as err:
        unsupported.append(err)
        return parse_grid(raw)


def _read_segment(data: np.ndarray, pos: int, grids: list, validate: bool, unsupported: list) -> int:
    _, version, count, codec = FILE_HEADER.unpack_from(data, pos)
    if L.split_version(version)[0] != L.VERSION_MAJOR:
        _fail(f"version {'.'.join(map(str, L.split_version(version)))}: major {L.VERSION_MAJOR} is supported")
    codec_name = {v: k for k, v in CODECS.items()}.get(codec)
    if codec_name is None:
        _fail(f"codec {codec} is not none (0), zip (1) or blosc (2)")
    pos += FILE_HEADER.size
    metas = []
    for i in range(count):
        if pos + FILE_METADATA.size > data.size:
            _fail(f"truncated in the metadata of grid {i}")
        meta = FILE_METADATA.unpack_from(data, pos)
        name_size = meta[21]
        pos += FILE_METADATA.size
        if name_size < 1 or pos + name_size > data.size or data[pos + name_size - 1] != 0:
            _fail(f"grid {i}'s name ({name_size} bytes) is truncated or not NUL-terminated")
        metas.append((meta[0], bytes(data[pos : pos + name_size - 1]).decode("utf-8", "replace")))
        pos += name_size
    for i, (grid_size, name) in enumerate(metas):
        if codec == 0:
            if pos + grid_size > data.size:
                _fail(f"grid {i} ({grid_size} bytes) is truncated")
            raw = np.array(data[pos : pos + grid_size])
            pos += grid_size
        else:
            raw, pos = _decompress(data, pos, grid_size, codec_name, i)
        info = _check(raw, validate, unsupported, aligned=True)
        grids.append(FileGrid(raw, info, name, codec_name))
    return pos


def _decompress(data: np.ndarray, pos: int, grid_size: int, codec: str, i: int):
    out, done = [], 0
    decompress = zlib.decompress if codec == "zip" else _blosc().decompress
    while done < grid_size:
        if pos + 8 > data.size:
            _fail(f"grid {i}'s compressed data is truncated")
        n = struct.unpack_from("<q", data, pos)[0]
        if not 0 < n <= data.size - pos - 8:
            _fail(f"grid {i}'s chunk of {n} bytes at byte {pos} runs past the file's end")
        try:
            chunk = decompress(data[pos + 8 : pos + 8 + n].tobytes())
        except Exception as err:  # zlib.error, blosc's errors: the file is corrupt
            _fail(f"grid {i}'s {codec} chunk does not decompress: {err}")
        pos += 8 + n
        out.append(chunk)
        done += len(chunk)
    if done != grid_size:
        _fail(f"grid {i} decompresses to {done} bytes, its metadata says {grid_size}")
    return np.frombuffer(b"".join(out), np.uint8).copy(), pos


def _metadata(buf: np.ndarray, info: GridInfo, stored: int, codec: int) -> bytes:
    nl_counts = (info.leaf_count, info.lower_count, info.upper_count, 1)
    return FILE_METADATA.pack(
        info.grid_size,
        stored,
        name_key(info.name),
        info.active_voxel_count,
        info.grid_type,
        info.grid_class,
        *info.world_bbox[0],
        *info.world_bbox[1],
        *info.index_bbox[0],
        *info.index_bbox[1],
        *info.voxel_size,
        len(info.name.encode("utf-8")) + 1,
        *nl_counts,
        *info.tile_counts,
        codec,
        0,
        FILE_VERSION,
    )


def write_nvdb(path_or_file, buffers, codec: str = "none") -> None:
    """Write grid buffers (one, a list, or one buffer of several grids) as one .nvdb segment.

    - codec: "none", "zip" (zlib, one chunk per grid) or "blosc" (needs the ``blosc`` module:
      RuntimeError naming it otherwise).

    Each grid is validated first (ValueError); nothing is written if one is refused.
    """
    if codec not in CODECS:
        raise ValueError(f"codec {codec!r} is not one of {sorted(CODECS)}")
    compress = {"none": None, "zip": zlib.compress, "blosc": None if codec != "blosc" else _blosc().compress}[codec]
    if isinstance(buffers, (list, tuple)):
        grids = [g for b in buffers for g in split_grids(b)]
    else:
        grids = split_grids(buffers)
    infos = [validate_grid(g) for g in grids]
    payloads = []
    for g in grids:
        raw = g.tobytes()
        payloads.append(raw if compress is None else _chunk(compress(raw)))
    parts = [FILE_HEADER.pack(L.MAGIC_FILE, FILE_VERSION, len(grids), CODECS[codec])]
    for g, info, payload in zip(grids, infos, payloads, strict=True):
        parts.append(_metadata(g, info, len(payload), CODECS[codec]))
        parts.append(info.name.encode("utf-8") + b"\0")
    parts.extend(payloads)
    blob = b"".join(parts)
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "wb") as f:
            f.write(blob)
    else:
        path_or_file.write(blob)


def _chunk(compressed: bytes) -> bytes:
    return struct.pack("<q", len(compressed)) + compressed
