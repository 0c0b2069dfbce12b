"""Read and validate NanoVDB grid buffers on the host.

:func:`validate_grid` is the gate in front of the kernels: after it returns, every node array lies
inside the grid, every child offset names the start of a node of the next level, the node counts
agree with the child masks, an index grid's value offsets stay below its value count, and the blind
data lies inside the grid. Kernels then follow offsets without checks. It never writes to the
buffer. :func:`parse_grid` reads the header fields only (cheap, no tree walk).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ...errors import BrickworkError
from . import layout as L


@dataclass(frozen=True)
class BlindData:
    """One blind data entry (Warp's feature arrays): its data's absolute byte offset and shape."""

    name: str
    offset: int
    value_count: int
    value_size: int
    semantic: int
    data_class: int
    data_type: int


@dataclass(frozen=True)
class GridInfo:
    """The header fields of one grid; byte offsets are from the start of the grid."""

    grid_type: int
    grid_class: int
    name: str
    flags: int
    version: tuple
    checksum: int
    grid_index: int
    grid_count: int
    grid_size: int
    voxel_size: tuple
    transform: tuple  # 3x3 index->world (the map's double matrix), rows
    inverse: tuple  # 3x3 world->index
    translation: tuple
    world_bbox: tuple  # (min xyz, max xyz)
    index_bbox: tuple  # the root's (min ijk, max ijk), inclusive
    leaf_count: int
    lower_count: int
    upper_count: int
    tile_counts: tuple  # (leaf level, lower level, upper level), as stored
    root_tile_count: int
    active_voxel_count: int
    value_count: int  # index grids: values addressed (voxels + 1 for the background); else 0
    tree_offset: int
    root_offset: int
    upper_offset: int
    lower_offset: int
    leaf_offset: int
    blind_metadata_offset: int
    blind_metadata_count: int
    blind_data: tuple = ()

    @property
    def type_name(self) -> str:
        """The grid type's name ("float", "Vec3f", "OnIndex", ...) or "type <code>" if unsupported."""
        vt = L.VALUE_TYPES.get(self.grid_type)
        return vt.name if vt else f"type {self.grid_type}"


def as_bytes(buffer) -> np.ndarray:
    """A read-only uint8 view of a contiguous buffer (bytes, bytearray, numpy array)."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"a NanoVDB grid must be a bytes-like buffer, got {type(buffer).__name__}") from None
    if not view.c_contiguous:
        raise ValueError("a NanoVDB grid buffer must be contiguous")
    arr = np.frombuffer(view.cast("B"), np.uint8)
    arr.flags.writeable = False
    return arr


class FormatError(BrickworkError, ValueError):
    """A malformed NanoVDB grid or file (the message names the field)."""


class UnsupportedGridError(FormatError):
    """A well-formed grid of a layout brickwork does not read (nodes not breadth first)."""


def _fail(problem: str):
    raise FormatError(f"invalid NanoVDB grid: {problem}")


def _name(raw: bytes, what: str) -> str:
    end = raw.find(b"\0")
    if end < 0:
        _fail(f"{what} is not NUL-terminated within {len(raw)} bytes")
    return raw[:end].decode("utf-8", "replace")


def parse_grid(buffer) -> GridInfo:
    """The header fields of the grid at the start of `buffer` (magic and sizes checked, no tree walk)."""
    b = as_bytes(buffer)
    if b.size < L.GRID_SIZE + L.TREE_SIZE:
        _fail(f"buffer of {b.size} bytes is shorter than the grid and tree headers ({L.GRID_SIZE + L.TREE_SIZE})")
    raw = b[: L.GRID_SIZE + L.TREE_SIZE].tobytes()  # the headers only, not the whole buffer
    magic, checksum, version, flags, index, count, size = struct.unpack_from("<QQIIIIQ", raw, 0)
    if magic not in L.MAGICS_GRID:
        _fail(f"magic 0x{magic:016x} is not a grid's (NanoVDB0 or NanoVDB1)")
    if L.split_version(version)[0] != L.VERSION_MAJOR:
        _fail(f"version {'.'.join(map(str, L.split_version(version)))}: major {L.VERSION_MAJOR} is supported")
    if not L.GRID_SIZE + L.TREE_SIZE <= size <= b.size:
        _fail(f"grid_size {size} is outside [{L.GRID_SIZE + L.TREE_SIZE}, {b.size}] (the buffer's size)")
    name = _name(raw[L.GRID_OFF_GRID_NAME : L.GRID_OFF_GRID_NAME + L.GRID_NAME_SIZE], "grid_name")
    m = struct.unpack_from("<9d9d3d", raw, L.GRID_OFF_MAP + L.MAP_OFF_MATD)
    world = struct.unpack_from("<6d", raw, L.GRID_OFF_WORLD_BBOX)
    voxel = struct.unpack_from("<3d", raw, L.GRID_OFF_VOXEL_SIZE)
    gclass, gtype, meta_off, meta_count = struct.unpack_from("<IIqI", raw, L.GRID_OFF_GRID_CLASS)
    value_count = struct.unpack_from("<Q", raw, L.GRID_OFF_DATA1)[0] if gtype in L.INDEX_GRID_TYPES else 0
    t = L.GRID_SIZE
    offs = struct.unpack_from("<4Q", raw, t)
    counts = struct.unpack_from("<3I3IQ", raw, t + L.TREE_OFF_NODE_COUNT_LEAF)
    root = t + offs[3]
    root_fields = (0,) * 7
    if root + L.ROOT_BASE_SIZE <= size:
        root_fields = struct.unpack_from("<3i3iI", b, root)
    return GridInfo(
        grid_type=gtype,
        grid_class=gclass,
        name=name,
        flags=flags,
        version=L.split_version(version),
        checksum=checksum,
        grid_index=index,
        grid_count=count,
        grid_size=size,
        voxel_size=voxel,
        transform=(m[0:3], m[3:6], m[6:9]),
        inverse=(m[9:12], m[12:15], m[15:18]),
        translation=m[18:21],
        world_bbox=(world[:3], world[3:]),
        index_bbox=(root_fields[:3], root_fields[3:6]),
        leaf_count=counts[0],
        lower_count=counts[1],
        upper_count=counts[2],
        tile_counts=counts[3:6],
        root_tile_count=root_fields[6],
        active_voxel_count=counts[6],
        value_count=value_count,
        tree_offset=t,
        root_offset=root,
        upper_offset=t + offs[2],
        lower_offset=t + offs[1],
        leaf_offset=t + offs[0],
        blind_metadata_offset=meta_off,
        blind_metadata_count=meta_count,
    )


def _column(b: np.ndarray, start: int, count: int, stride: int, off: int, dtype: str, width: int = 1) -> np.ndarray:
    """`width` values of `dtype` at byte `off` of each of `count` records of `stride` bytes from `start`."""
    itemsize = np.dtype(dtype).itemsize
    out = (
        np.ndarray((count, width), dtype, b, start + off, (stride, itemsize)) if count else np.zeros((0, width), dtype)
    )
    return out.copy()


def _set_bits(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, bit index) of every set bit of (rows, words) uint64 masks, rows then bits ascending."""
    row, word = np.nonzero(words)
    if not row.size:
        return row, row
    bits = np.unpackbits(words[row, word].astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    k, bit = np.nonzero(bits)
    return row[k], word[k] * 64 + bit


def _check_children(what, b, level, child_starts, mask_off, table_count, table_off, stride):
    """Every child-mask bit's table entry names a node of the child array; returns the child indices."""
    parents, count, size = level
    if not count:  # an empty level's offset may be anything: it is never followed
        return np.zeros(0, np.int64)
    masks = _column(b, parents, count, size, mask_off, "<u8", table_count // 64)
    node, slot = _set_bits(masks)
    if node.size and child_starts.size < 2:
        _fail(f"{what} nodes have child bits but the child level's node count is 0")
    entries = parents + node * size + table_off + slot * stride
    every_byte = np.ndarray((b.size - 7,), "<i8", b, 0, (1,))  # an int64 starting at each byte
    offsets = every_byte[entries] if node.size else np.zeros(0, np.int64)
    return _child_index(what, offsets + parents + node * size, child_starts)


def _child_index(what, absolute, starts):
    """Indices of the nodes that start at bytes `absolute`; `starts` lists the node starts, then the end."""
    count = starts.size - 1
    outside = (absolute < starts[0]) | (absolute >= starts[-1])
    if outside.any():
        _fail(f"a {what} child offset points outside the child node array (byte {int(absolute[outside][0])})")
    index = np.searchsorted(starts, absolute, side="right") - 1
    inside = starts[index] != absolute
    if inside.any():
        _fail(f"a {what} child offset is misaligned: byte {int(absolute[inside][0])} is inside a node")
    if index.size != count:
        _fail(f"{what} children: {index.size} referenced but the tree holds {count} nodes (the masks disagree)")
    if np.unique(index).size != index.size:
        _fail(f"{what} children: a node is referenced twice")
    return index


def _fpn_leaf_starts(b: np.ndarray, start: int, count: int, size: int) -> np.ndarray:
    """Starts of FpN leaves (each 96 bytes + 64 per code bit, the bits in its flags), then their end."""
    if start + count * L.fp_leaf_size(1) > size:
        _fail(f"{count} FpN leaves from byte {start} cannot fit before grid_size {size}")
    starts = np.empty(count + 1, np.int64)
    pos = start
    flags = b[start + L.LEAF_OFF_BBOX_DIF_AND_FLAGS + 3 :]  # the flags byte of the leaf at `start`, onwards
    for i in range(count):
        starts[i] = pos
        if pos + L.FP_LEAF_OFF_TABLE > size:
            _fail(f"FpN leaf {i} at byte {pos} extends past grid_size {size}")
        log2 = int(flags[pos - start]) >> 5
        if log2 > L.FPN_MAX_LOG2_BITS:
            _fail(f"FpN leaf {i} declares {1 << log2}-bit codes (at most {1 << L.FPN_MAX_LOG2_BITS})")
        pos += L.fp_leaf_size(1 << log2)
        if pos > size:
            _fail(f"FpN leaf {i} ({1 << log2}-bit codes) at byte {int(starts[i])} extends past grid_size {size}")
    starts[count] = pos
    return starts


def leaf_starts(buffer, info: GridInfo | None = None) -> np.ndarray:
    """Byte offsets of the leaves in the grid (FpN leaves vary in size), then the end of the last."""
    b = as_bytes(buffer)
    info = info or parse_grid(b)
    nl = L.node_layout(info.grid_type)
    if L.value_type(info.grid_type).quantized_bits == 0:
        return _fpn_leaf_starts(b, info.leaf_offset, info.leaf_count, info.grid_size)
    return info.leaf_offset + np.arange(info.leaf_count + 1, dtype=np.int64) * nl.leaf_size


def validate_grid(buffer, *, require_aligned_size: bool = False) -> GridInfo:
    """Check everything a kernel will trust in the grid at the start of `buffer`; its :class:`GridInfo`.

    Raises :class:`FormatError` (a ValueError) naming the first problem (truncation, magic, version,
    type, sizes, offsets, child references, counts against masks, index ranges, blind data); a
    structurally sound grid whose nodes are not breadth first raises :class:`UnsupportedGridError`
    (a FormatError) after every other check. The buffer is not changed.
    """
    b = as_bytes(buffer)
    info = parse_grid(b)
    if info.grid_type not in L.VALUE_TYPES:
        _fail(f"grid_type {info.grid_type} is not supported ({', '.join(t.name for t in L.VALUE_TYPES.values())})")
    if require_aligned_size and info.grid_size % L.NODE_ALIGN:
        _fail(f"grid_size {info.grid_size} is not a multiple of {L.NODE_ALIGN}")
    nl = L.node_layout(info.grid_type)
    size = info.grid_size
    root_end = info.root_offset + nl.root_size
    if info.root_offset % L.NODE_ALIGN or root_end > size:
        _fail(f"the root (byte {info.root_offset}) is misaligned or extends past grid_size {size}")
    tiles_end = root_end + info.root_tile_count * nl.root_tile_size
    if tiles_end > size:
        _fail(f"the root's {info.root_tile_count} tiles extend past grid_size {size}")
    end = tiles_end
    starts = {}
    levels = (
        ("upper", info.upper_offset, info.upper_count, nl.upper_size),
        ("lower", info.lower_offset, info.lower_count, nl.lower_size),
        ("leaf", info.leaf_offset, info.leaf_count, nl.leaf_size),
    )
    for what, start, count, node_size in levels:
        starts[what] = np.zeros(1, np.int64)
        if not count:
            continue  # an empty level's offset is never followed
        if start % L.NODE_ALIGN:
            _fail(f"the {what} node array (byte {start}) is not {L.NODE_ALIGN}-byte aligned")
        if start < end:
            _fail(f"the {what} node array (byte {start}) overlaps the nodes before it (which end at byte {end})")
        if what == "leaf" and L.value_type(info.grid_type).quantized_bits == 0:
            starts[what] = _fpn_leaf_starts(b, start, count, size)
        else:
            if start + count * node_size > size:
                _fail(f"{count} {what} nodes of {node_size} bytes from byte {start} extend past grid_size {size}")
            starts[what] = start + np.arange(count + 1, dtype=np.int64) * node_size
        end = int(starts[what][-1])
    blind = _check_blind_data(b, info, end)

    tiles = info.root_offset + nl.root_size
    child = _column(b, tiles, info.root_tile_count, nl.root_tile_size, L.ROOT_TILE_OFF_CHILD, "<i8")[:, 0]
    linked = child != 0
    if linked.any() and not info.upper_count:
        _fail("root tiles have children but upper_count is 0")
    _child_index("root", child[linked] + info.root_offset, starts["upper"])
    upper = (info.upper_offset, info.upper_count, nl.upper_size)
    lower = (info.lower_offset, info.lower_count, nl.lower_size)
    _check_children(
        "upper", b, upper, starts["lower"], L.UPPER_OFF_CHILD_MASK, L.UPPER_TABLE_COUNT, nl.upper_off_table,
        nl.table_stride,
    )  # fmt: skip
    _check_children(
        "lower", b, lower, starts["leaf"], L.LOWER_OFF_CHILD_MASK, L.LOWER_TABLE_COUNT, nl.lower_off_table,
        nl.table_stride,
    )  # fmt: skip
    if info.grid_type in L.INDEX_GRID_TYPES:
        _check_index_leaves(b, info, nl)
    if not info.flags & L.GRID_FLAGS_IS_BREADTH_FIRST:
        raise UnsupportedGridError(
            "unsupported NanoVDB grid: flags lack IsBreadthFirst (only breadth-first node arrays are supported)"
        )
    return _replace_blind(info, blind)


def _replace_blind(info: GridInfo, blind: tuple) -> GridInfo:
    fields = dict(info.__dict__)
    fields["blind_data"] = blind
    return GridInfo(**fields)


def _check_blind_data(b: np.ndarray, info: GridInfo, nodes_end: int) -> tuple:
    off, count, size = info.blind_metadata_offset, info.blind_metadata_count, info.grid_size
    if off == 0 and count == 0:
        return ()  # older grids leave the unused offset at 0
    if off < nodes_end or off > size or off % 8:
        _fail(f"blind_metadata_offset {off} is outside [{nodes_end}, {size}] (after the nodes) or misaligned")
    if off + count * L.GRIDBLINDMETADATA_SIZE > size:
        _fail(f"blind_metadata_count {count} entries from byte {off} extend past grid_size {size}")
    out = []
    for i in range(count):
        entry = off + i * L.GRIDBLINDMETADATA_SIZE
        data_off, n, value_size, semantic, data_class, data_type = struct.unpack_from("<qQIIII", b, entry)
        start = entry + data_off
        if not 0 <= start <= size or n * value_size > size - start:
            _fail(f"blind data {i}: {n} values of {value_size} bytes at byte {start} fall outside the grid")
        name = _name(bytes(b[entry + 32 : entry + 32 + L.GRID_NAME_SIZE]), f"blind data {i}'s name")
        out.append(BlindData(name, start, n, value_size, semantic, data_class, data_type))
    return tuple(out)


def _check_index_leaves(b: np.ndarray, info: GridInfo, nl: L.NodeLayout) -> None:
    n = info.leaf_count
    first = _column(b, info.leaf_offset, n, nl.leaf_size, L.INDEX_LEAF_OFF_OFFSET, "<u8")[:, 0]
    masks = _column(b, info.leaf_offset, n, nl.leaf_size, L.LEAF_OFF_VALUE_MASK, "<u8", 8)
    if info.grid_type == L.GRID_TYPE_ONINDEX:
        popc = np.unpackbits(masks.view(np.uint8), axis=1).reshape(n, 8, 64).sum(2).astype(np.uint64)
        prefix = _column(b, info.leaf_offset, n, nl.leaf_size, L.INDEX_LEAF_OFF_PREFIX, "<u8")[:, 0]
        running = np.cumsum(popc, axis=1, dtype=np.uint64)[:, :7]
        packed = np.bitwise_or.reduce(running << (np.arange(7, dtype=np.uint64) * np.uint64(9)), axis=1)
        if (packed != prefix).any():
            _fail(f"OnIndex leaf {int(np.flatnonzero(packed != prefix)[0])}: prefix sums disagree with its value mask")
        used = popc.sum(1)
    else:
        used = np.full(n, L.LEAF_TABLE_COUNT, np.uint64)
    last = first.astype(object) + used.astype(object) if n else []
    if n and max(last) > info.value_count:
        _fail(f"index leaves address values up to {max(last)} past the grid's value count {info.value_count}")


def _leaf_column(b: np.ndarray, info: GridInfo, off: int, dtype: str, width: int = 1) -> np.ndarray:
    """`width` values of `dtype` at byte `off` of every leaf (FpN leaves located one by one)."""
    if L.value_type(info.grid_type).quantized_bits != 0:
        return _column(b, info.leaf_offset, info.leaf_count, L.node_layout(info.grid_type).leaf_size, off, dtype, width)
    starts = leaf_starts(b, info)[:-1]
    itemsize = np.dtype(dtype).itemsize
    idx = starts[:, None] + off + np.arange(width * itemsize)
    return b[idx].reshape(-1).view(dtype).reshape(starts.size, width)


def leaf_origins(buffer, info: GridInfo | None = None) -> np.ndarray:
    """(leaf_count, 3) int32 origins of the leaves (their first voxel), in the grid's order."""
    b = as_bytes(buffer)
    info = info or parse_grid(b)
    return _leaf_column(b, info, L.LEAF_OFF_BBOX_MIN, "<i4", 3) & ~7


def _active(b, info):
    leaf, bit = _set_bits(_leaf_column(b, info, L.LEAF_OFF_VALUE_MASK, "<u8", 8))
    return leaf, bit


def active_voxels(buffer, info: GridInfo | None = None) -> np.ndarray:
    """(n, 3) int32 index coordinates of the active voxels: leaves in order, voxels by bit (x-major)."""
    b = as_bytes(buffer)
    info = info or parse_grid(b)
    leaf, bit = _active(b, info)
    offset = np.stack([bit >> 6, (bit >> 3) & 7, bit & 7], 1).astype(np.int32)
    return leaf_origins(b, info)[leaf] + offset


def active_values(buffer, info: GridInfo | None = None) -> np.ndarray:
    """The active voxels' values in :func:`active_voxels`' order: (n,) or (n, k) of the grid's dtype.

    For an index grid, each voxel's index into the external value array (uint64); for a quantized
    (Fp4/8/16/N) grid, code * quantum + minimum in float32 as PNanoVDB decodes it.
    """
    b = as_bytes(buffer)
    info = info or parse_grid(b)
    vt, nl = L.value_type(info.grid_type), L.node_layout(info.grid_type)
    leaf, bit = _active(b, info)
    if vt.is_index:
        first = _leaf_column(b, info, L.INDEX_LEAF_OFF_OFFSET, "<u8")[:, 0]
        if info.grid_type == L.GRID_TYPE_INDEX:
            return first[leaf] + bit.astype(np.uint64)
        rank = np.arange(leaf.size) - np.searchsorted(leaf, leaf)  # position among the leaf's active voxels
        return first[leaf] + rank.astype(np.uint64)
    if vt.quantized_bits is not None:
        return _fp_values(b, info, leaf, bit)
    dtype = np.dtype(vt.dtype).newbyteorder("<")
    addr = info.leaf_offset + leaf * nl.leaf_size + nl.leaf_off_table + bit * vt.value_bytes
    idx = addr[:, None] + np.arange(vt.value_bytes)
    out = b[idx].reshape(-1).view(dtype).reshape(leaf.size, vt.components)
    return out[:, 0].copy() if vt.components == 1 else out.copy()


def _fp_values(b: np.ndarray, info: GridInfo, leaf: np.ndarray, bit: np.ndarray) -> np.ndarray:
    vt = L.value_type(info.grid_type)
    starts = leaf_starts(b, info)[:-1]
    minimum = _leaf_column(b, info, L.FP_LEAF_OFF_MINIMUM, "<f4")[:, 0]
    quantum = _leaf_column(b, info, L.FP_LEAF_OFF_QUANTUM, "<f4")[:, 0]
    if vt.quantized_bits:
        bits = np.full(starts.size, vt.quantized_bits, np.int64)
    else:
        bits = 1 << (_leaf_column(b, info, L.LEAF_OFF_BBOX_DIF_AND_FLAGS + 3, "u1")[:, 0].astype(np.int64) >> 5)
    nb = bits[leaf]
    first = bit * nb  # the code's first bit in the leaf's little-endian bit stream
    word = np.ndarray((b.size - 3,), "<u4", b, 0, (1,))[starts[leaf] + L.FP_LEAF_OFF_TABLE + (first >> 5) * 4]
    code = (word.astype(np.int64) >> (first & 31)) & ((1 << nb) - 1)
    return (code.astype(np.float32) * quantum[leaf] + minimum[leaf]).astype(np.float32)


def split_grids(buffer) -> list[np.ndarray]:
    """The grids of a buffer that holds one or more back to back (as ``Volume.array()`` holds a file's).

    Each grid's ``grid_size`` leads to the next; bytes after the last that do not start a grid are
    refused. The headers' grid_index/grid_count are not relied on (a grid copied out of a file keeps them).
    """
    b = as_bytes(buffer)
    out, start = [], 0
    while start < b.size:
        info = parse_grid(b[start:])
        out.append(b[start : start + info.grid_size])
        start += info.grid_size
    return out
