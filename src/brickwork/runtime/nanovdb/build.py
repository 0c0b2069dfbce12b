"""Build NanoVDB grid buffers from voxel or tile coordinates, vectorised with numpy.

The node order and every header field follow Warp 1.19's host builder so that a buffer built here
for Warp's input is Warp's buffer byte for byte: upper nodes sorted by their origin (signed
coordinates, x then y then z), lower nodes and leaves sorted by (parent, offset in the parent),
breadth first; checksum disabled (all ones); flags HasBBox | IsBreadthFirst (no min/max, average
or standard deviation: Warp fills none, so the stat fields stay zero); bounding boxes tight on the
active voxels at every level; the tree's tile counts equal its node counts (Warp's convention;
NanoVDB's builder counts active tiles there, none here). Values are stored as given.
"""

from __future__ import annotations

import struct

import numpy as np

from . import layout as L

_OFFSET = 1 << 31  # Warp and NanoVDB order upper nodes by coordinate + 2^31 (signed order)
_INVALID_MIN = (2**31 - 1,) * 3
_INVALID_MAX = (-(2**31),) * 3
_DBL_MAX = float(np.finfo(np.float64).max)


def _grid_type_code(grid_type) -> int:
    if isinstance(grid_type, str):
        try:
            return L.GRID_TYPE_BY_NAME[grid_type]
        except KeyError:
            raise ValueError(f"grid_type {grid_type!r} is not one of {sorted(L.GRID_TYPE_BY_NAME)}") from None
    return L.value_type(grid_type).code


def _coords(coords) -> np.ndarray:
    c = np.asarray(coords)
    if c.ndim != 2 or c.shape[1] != 3:
        raise ValueError(f"coords must be an (n, 3) array of integer voxel coordinates, got shape {c.shape}")
    if c.size and not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"coords must hold integers (index space), got dtype {c.dtype}")
    c = c.astype(np.int64)
    if c.size and (c.min() < -(2**31) or c.max() >= 2**31):
        raise ValueError("coords must fit in int32")
    return c


def _matrix(transform, translation):
    m = np.asarray(transform, dtype=np.float64)
    if m.shape != (3, 3):
        raise ValueError(f"transform must be a 3x3 matrix, got shape {m.shape}")
    t = np.asarray(translation, dtype=np.float64)
    if t.shape != (3,):
        raise ValueError(f"translation must have 3 components, got shape {t.shape}")
    if not (np.isfinite(m).all() and np.isfinite(t).all()):
        raise ValueError("transform and translation must be finite")
    return [[float(x) for x in row] for row in m], [float(x) for x in t]


def _inverse(m):
    """3x3 inverse by the adjugate in double, the operations in Warp's order (its map is bit-equal)."""
    a, b, c = m
    det = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0])
    if det == 0.0:
        raise ValueError("transform is singular (determinant 0): the world->index map needs its inverse")
    inv = [
        [b[1] * c[2] - b[2] * c[1], a[2] * c[1] - a[1] * c[2], a[1] * b[2] - a[2] * b[1]],
        [b[2] * c[0] - b[0] * c[2], a[0] * c[2] - a[2] * c[0], a[2] * b[0] - a[0] * b[2]],
        [b[0] * c[1] - b[1] * c[0], a[1] * c[0] - a[0] * c[1], a[0] * b[1] - a[1] * b[0]],
    ]
    r = 1.0 / det
    return [[x * r for x in row] for row in inv]


def _apply(m, t, p):
    return [m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + t[i] for i in range(3)]


def _encode_map(m, t) -> bytes:
    inv = _inverse(m)
    flat, iflat = [x for row in m for x in row], [x for row in inv for x in row]
    return struct.pack("<9f9f3ff9d9d3dd", *flat, *iflat, *t, 1.0, *flat, *iflat, *t, 1.0)


def _background_bytes(vt: L.ValueType, background) -> bytes:
    bg = np.asarray(background, dtype=np.float64 if vt.dtype.startswith("float") else None)
    if bg.size != vt.components:
        raise ValueError(f"background of a {vt.name} grid needs {vt.components} component(s), got {bg.size}")
    return np.asarray(bg, dtype=vt.dtype).reshape(-1).tobytes()


def _values(vt: L.ValueType, values, n: int) -> np.ndarray:
    v = np.asarray(values)
    if v.shape[:1] != (n,) or v.size != n * vt.components:
        raise ValueError(
            f"values must have {n} rows of {vt.components} component(s) for a {vt.name} grid, got {v.shape}"
        )
    return np.ascontiguousarray(v.reshape(n, vt.components), dtype=vt.dtype)


def _put(region: np.ndarray, off: int, arr, dtype) -> None:
    """Write one row of `arr` (any trailing shape) at byte `off` of each row of a 2-D uint8 region."""
    b = np.ascontiguousarray(arr, dtype=dtype).view(np.uint8).reshape(region.shape[0], -1)
    region[:, off : off + b.shape[1]] = b


def _group_starts(sorted_keys: np.ndarray) -> np.ndarray:
    if not sorted_keys.size:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])


def _masks(word_count: int, node_count: int, node_of: np.ndarray, bit: np.ndarray) -> np.ndarray:
    """(node_count, word_count) uint64 masks with `bit` set in node `node_of` (pairs sorted, unique)."""
    words = np.zeros(node_count * word_count, np.uint64)
    if node_of.size:
        index = node_of * word_count + (bit >> 6)
        starts = _group_starts(index)
        ones = np.left_shift(np.uint64(1), (bit & 63).astype(np.uint64))
        words[index[starts]] = np.add.reduceat(ones, starts)  # bits are distinct: the sum is the union
    return words.reshape(node_count, word_count)


def _reduce_bbox(lo: np.ndarray, hi: np.ndarray, starts: np.ndarray):
    return np.minimum.reduceat(lo, starts, axis=0), np.maximum.reduceat(hi, starts, axis=0)


class _Topology:
    """The sorted, merged voxels of a grid and its nodes: keys, origins, parents, bounding boxes.

    With ``tiles`` every leaf is whole (``full``): the per-voxel tables (``voxel_keys``, ``leaf_of_voxel``,
    ``voxel_offset``, ``source``) are left out, as each leaf holds its 512 voxels in order. ``source`` (where
    each voxel's value is in the input) is made only ``with_source`` (a sort without it is faster).
    """

    def __init__(self, c: np.ndarray, tiles: bool, with_source: bool = True):
        # the key of a voxel: its upper node's number (below), then its offsets in the upper node (15 bits),
        # the lower node (12) and the leaf (9); the offsets from the coordinates as int32 columns (c fits)
        x, y, z = (np.ascontiguousarray(c[:, a], dtype=np.int32) for a in range(3))
        u = [(a >> 12) + (1 << 19) for a in (x, y, z)]  # (c + 2^31) >> 12: the upper node's coordinates
        # each voxel's upper node as a number in the nodes' order: its place in a box of the upper nodes'
        # coordinates when that box is small (no sort), else its rank among the distinct nodes
        lo = np.array([a.min() for a in u], np.int64) if x.size else np.zeros(3, np.int64)
        span = np.array([a.max() for a in u], np.int64) - lo + 1 if x.size else np.ones(3, np.int64)
        if int(np.prod(span)) < 1 << 27:
            uid = ((u[0] - lo[0]) * span[1] + (u[1] - lo[1])) * span[2] + (u[2] - lo[2])
            key_of_uid = None
        else:
            u = [a.astype(np.int64) for a in u]
            key_of_uid, uid = np.unique((u[0] << 42) | (u[1] << 21) | u[2], return_inverse=True)
        vkey = uid.reshape(-1).astype(np.int64)
        for a in (x, y, z):  # the upper node's 32^3 children
            vkey <<= 5
            vkey |= (a >> 7) & 31
        vkey <<= 21
        rest = np.zeros(x.size, np.int32)
        for a in (x, y, z):  # the lower node's 16^3 children
            rest <<= 4
            rest |= (a >> 3) & 15
        for a in (x, y, z):  # the leaf's 8^3 voxels
            rest <<= 3
            rest |= a & 7
        vkey |= rest
        self.full = tiles
        self.source = None
        if tiles:
            self.leaf_keys = np.unique(vkey >> 9)
            self.voxel_count = 512 * self.leaf_keys.size
        else:
            order = np.argsort(vkey, kind="stable") if with_source else None
            sk = vkey[order] if with_source else np.sort(vkey, kind="stable")  # timsort: fast on sorted runs
            last = np.r_[sk[1:] != sk[:-1], True] if sk.size else np.zeros(0, bool)
            vkey = sk[last]
            if with_source:
                self.source = order[last]  # a repeated voxel keeps its last value
            self.voxel_keys = vkey
            self.voxel_count = vkey.size
            self.leaf_starts = _group_starts(vkey >> 9)
            self.leaf_keys = vkey[self.leaf_starts] >> 9
            self.leaf_of_voxel = (np.cumsum(np.r_[True, (vkey >> 9)[1:] != (vkey >> 9)[:-1]]) - 1 if vkey.size
                                  else vkey)
        self.lower_starts = _group_starts(self.leaf_keys >> 12)
        self.lower_keys = self.leaf_keys[self.lower_starts] >> 12
        self.upper_starts = _group_starts(self.lower_keys >> 15)
        self.lower_of_leaf = np.repeat(
            np.arange(self.lower_starts.size), np.diff(np.r_[self.lower_starts, self.leaf_keys.size])
        )
        self.upper_of_lower = np.repeat(
            np.arange(self.upper_starts.size), np.diff(np.r_[self.upper_starts, self.lower_keys.size])
        )
        uid = self.lower_keys[self.upper_starts] >> 15  # the distinct upper nodes' numbers, in order
        if key_of_uid is None:
            plane = span[1] * span[2]
            ux, uy, uz = uid // plane + lo[0], (uid // span[2]) % span[1] + lo[1], uid % span[2] + lo[2]
            self.upper_keys = (ux << 42) | (uy << 21) | uz
        else:
            self.upper_keys = key_of_uid[uid]

        uk = self.upper_keys
        mask21 = (1 << 21) - 1
        self.upper_origin = (np.stack([(uk >> 42) & mask21, (uk >> 21) & mask21, uk & mask21], 1) << 12) - _OFFSET
        lo = self.lower_keys & 32767
        self.lower_origin = self.upper_origin[self.upper_of_lower] + (
            np.stack([(lo >> 10) & 31, (lo >> 5) & 31, lo & 31], 1) << 7
        )
        le = self.leaf_keys & 4095
        self.leaf_origin = self.lower_origin[self.lower_of_leaf] + (
            np.stack([(le >> 8) & 15, (le >> 4) & 15, le & 15], 1) << 3
        )
        if self.voxel_count:
            if tiles:  # a whole leaf's box
                self.leaf_min, self.leaf_max = self.leaf_origin, self.leaf_origin + 7
            else:
                vo = vkey & 511
                self.voxel_offset = vo
                # within a leaf the voxels are sorted by offset, x first: x's extremes are the first and last
                # voxel's; y and z are reduced as small integers
                ends = np.r_[self.leaf_starts[1:], vo.size] - 1
                yz = np.stack([(vo >> 3) & 7, vo & 7], 1).astype(np.int8)
                ymin, ymax = _reduce_bbox(yz, yz, self.leaf_starts)
                self.leaf_min = self.leaf_origin + np.c_[vo[self.leaf_starts] >> 6, ymin]
                self.leaf_max = self.leaf_origin + np.c_[vo[ends] >> 6, ymax]
            self.lower_min, self.lower_max = _reduce_bbox(self.leaf_min, self.leaf_max, self.lower_starts)
            self.upper_min, self.upper_max = _reduce_bbox(self.lower_min, self.lower_max, self.upper_starts)
            self.root_min, self.root_max = self.upper_min.min(0), self.upper_max.max(0)
        else:
            self.leaf_min = self.leaf_max = self.lower_min = self.lower_max = np.zeros((0, 3), np.int64)
            self.upper_min = self.upper_max = self.leaf_min
            self.root_min, self.root_max = np.array(_INVALID_MIN), np.array(_INVALID_MAX)


def _capacity(topo: _Topology, capacity) -> tuple[int, int, int]:
    counts = (topo.leaf_keys.size, topo.lower_keys.size, topo.upper_keys.size)
    if capacity is None:
        return counts
    cap = tuple(int(x) for x in capacity)
    if len(cap) != 3 or min(cap) < 0:
        raise ValueError(f"capacity must be three node counts (leaf, lower, upper) >= 0, got {capacity!r}")
    for level, need, have in zip(("leaf", "lower", "upper"), counts, cap, strict=True):
        if need > have:
            raise ValueError(f"capacity: {need} {level} nodes needed, {have} reserved")
    return cap


def _write_grid(
    topo: _Topology, code: int, bg: bytes | None, values, m, t, name: str, onindex_counts, capacity=None
) -> np.ndarray:
    vt, nl = L.value_type(code), L.node_layout(code)
    n_upper, n_lower, n_leaf = topo.upper_keys.size, topo.lower_keys.size, topo.leaf_keys.size
    cap_leaf, cap_lower, cap_upper = _capacity(topo, capacity)
    tree = L.GRID_SIZE
    root = tree + L.TREE_SIZE
    upper = root + nl.root_size + cap_upper * nl.root_tile_size  # room for the reserved nodes, as Warp's
    lower = upper + cap_upper * nl.upper_size  # rebuildable grids: the counts say how many are used
    leaf = lower + cap_lower * nl.lower_size
    total = leaf + cap_leaf * nl.leaf_size
    buf = np.empty(total, np.uint8)
    # every byte zeroed but the used nodes', which start as a copy of one node of background values: each
    # page is touched once, in order (np.zeros defers that to scattered first writes)
    buf[:upper].fill(0)
    fill_bg = bg is not None and any(bg)
    for start, size, used, cap, off_table, count, stride, with_bg in (
        (upper, nl.upper_size, n_upper, cap_upper, nl.upper_off_table, L.UPPER_TABLE_COUNT, nl.table_stride, fill_bg),
        (lower, nl.lower_size, n_lower, cap_lower, nl.lower_off_table, L.LOWER_TABLE_COUNT, nl.table_stride, fill_bg),
        (leaf, nl.leaf_size, n_leaf, cap_leaf, nl.leaf_off_table, L.LEAF_TABLE_COUNT, vt.value_bytes,
         fill_bg and not (topo.full and values is not None)),  # a dense block's values replace them all
    ):
        nodes = buf[start : start + cap * size].reshape(cap, size)
        blank = np.zeros(size, np.uint8)
        if with_bg:
            blank[off_table : off_table + count * stride].reshape(count, stride)[:, : len(bg)] = np.frombuffer(
                bg, np.uint8)
        nodes[:used] = blank
        nodes[used:] = 0
    raw = memoryview(buf).cast("B")
    voxel_count = int(topo.voxel_count)

    encoded = name.encode("utf-8")
    if len(encoded) >= L.GRID_NAME_SIZE or b"\0" in encoded:
        raise ValueError(f"name must be under {L.GRID_NAME_SIZE} UTF-8 bytes without NUL, got {len(encoded)} bytes")
    struct.pack_into(
        "<QQIIIIQ",
        raw,
        0,
        L.MAGIC_GRID,
        2**64 - 1,
        L.VERSION,
        L.GRID_FLAGS_HAS_BBOX | L.GRID_FLAGS_IS_BREADTH_FIRST,
        0,
        1,
        total,
    )
    raw[L.GRID_OFF_GRID_NAME : L.GRID_OFF_GRID_NAME + len(encoded)] = encoded
    raw[L.GRID_OFF_MAP : L.GRID_OFF_MAP + L.MAP_SIZE] = _encode_map(m, t)
    if n_upper:
        lo = [float(x) for x in topo.root_min]
        hi = [float(x) + 1.0 for x in topo.root_max]
        corners = [_apply(m, t, (x, y, z)) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        world = [min(p[i] for p in corners) for i in range(3)] + [max(p[i] for p in corners) for i in range(3)]
    else:
        world = [_DBL_MAX] * 3 + [-_DBL_MAX] * 3  # NanoVDB's empty box
    one, zero = _apply(m, t, (1.0, 1.0, 1.0)), _apply(m, t, (0.0, 0.0, 0.0))
    struct.pack_into(
        "<6d3dIIqI",
        raw,
        L.GRID_OFF_WORLD_BBOX,
        *world,
        *[one[i] - zero[i] for i in range(3)],
        L.GRID_CLASS_INDEX_GRID if vt.is_index else L.GRID_CLASS_UNKNOWN,
        code,
        total,
        0,
    )
    struct.pack_into("<Q", raw, L.GRID_OFF_DATA1, voxel_count + 1 if vt.is_index else 0)

    counts = (n_leaf, n_lower, n_upper)
    struct.pack_into(
        "<4Q3I3IQ", raw, tree, leaf - tree, lower - tree, upper - tree, root - tree, *counts, *counts, voxel_count
    )

    struct.pack_into("<3i3iI", raw, root, *topo.root_min.tolist(), *topo.root_max.tolist(), n_upper)
    if bg is not None:
        raw[root + nl.root_off_background : root + nl.root_off_background + len(bg)] = bg

    if n_upper:
        tiles = buf[root + nl.root_size :][: n_upper * nl.root_tile_size].reshape(n_upper, nl.root_tile_size)
        o = topo.upper_origin & 0xFFFFFFFF  # PNanoVDB's key: the coordinates as uint32, no offset
        _put(tiles, L.ROOT_TILE_OFF_KEY, (o[:, 2] >> 12) | ((o[:, 1] >> 12) << 21) | ((o[:, 0] >> 12) << 42), "<u8")
        _put(tiles, L.ROOT_TILE_OFF_CHILD, upper - root + np.arange(n_upper) * nl.upper_size, "<i8")
    levels = (
        (upper, nl.upper_size, n_upper, L.UPPER_TABLE_COUNT, L.UPPER_OFF_CHILD_MASK, nl.upper_off_table,
         topo.upper_min, topo.upper_max, topo.upper_of_lower, topo.lower_keys & 32767, lower, nl.lower_size),
        (lower, nl.lower_size, n_lower, L.LOWER_TABLE_COUNT, L.LOWER_OFF_CHILD_MASK, nl.lower_off_table,
         topo.lower_min, topo.lower_max, topo.lower_of_leaf, topo.leaf_keys & 4095, leaf, nl.leaf_size),
    )  # fmt: skip
    for start, size, count, table_count, child_mask, off_table, bmin, bmax, parent, slot, child0, csize in levels:
        if not count:
            continue
        nodes = buf[start : start + count * size].reshape(count, size)
        _put(nodes, 0, np.c_[bmin, bmax], "<i4")
        _put(nodes, child_mask, _masks(table_count // 64, count, parent, slot), "<u8")
        table = nodes[:, off_table:].reshape(count, table_count, nl.table_stride)
        child_off = child0 + np.arange(parent.size, dtype=np.int64) * csize - (start + parent * size)
        table[parent, slot, :8] = child_off.astype("<i8").view(np.uint8).reshape(-1, 8)

    if n_leaf:
        nodes = buf[leaf : leaf + n_leaf * nl.leaf_size].reshape(n_leaf, nl.leaf_size)
        dif = topo.leaf_max - topo.leaf_min
        flags = dif[:, 0] | (dif[:, 1] << 8) | (dif[:, 2] << 16) | (L.LEAF_FLAG_HAS_BBOX << 24)
        _put(nodes, L.LEAF_OFF_BBOX_MIN, topo.leaf_min, "<i4")
        _put(nodes, L.LEAF_OFF_BBOX_DIF_AND_FLAGS, flags, "<u4")
        if topo.full:
            masks = np.full((n_leaf, 8), np.uint64(2**64 - 1))
        else:
            masks = _masks(8, n_leaf, topo.leaf_of_voxel, topo.voxel_offset)
        _put(nodes, L.LEAF_OFF_VALUE_MASK, masks, "<u8")
        if vt.is_index:
            _put(nodes, L.INDEX_LEAF_OFF_OFFSET, onindex_counts[0], "<u8")
            _put(nodes, L.INDEX_LEAF_OFF_PREFIX, onindex_counts[1](masks), "<u8")
        else:
            # typed views of the leaves' value tables: whole values move, not bytes
            dtype = np.dtype(vt.dtype).newbyteorder("<")
            shape, strides = (n_leaf, L.LEAF_TABLE_COUNT, vt.components), (nl.leaf_size, vt.value_bytes, dtype.itemsize)
            table = np.ndarray(shape, dtype, buf, leaf + nl.leaf_off_table, strides)
            if topo.full and values is not None:  # (n_leaf, 512, components): every voxel's value
                table[:] = values
            elif values is not None:  # over the background
                table[topo.leaf_of_voxel, topo.voxel_offset] = values
    return buf


def build_grid(
    coords,
    values=None,
    *,
    grid_type,
    background,
    transform,
    translation=(0.0, 0.0, 0.0),
    name: str = "",
    tiles: bool = False,
    capacity=None,
) -> np.ndarray:
    """A NanoVDB value grid (uint8 buffer) whose active voxels are `coords`, holding `values`.

    - coords: (n, 3) integer index-space coordinates. Repeats are merged; the last value wins. With
      ``tiles=True`` each coordinate activates the whole 8^3 leaf that contains it (as Warp's
      ``allocate_by_tiles``), every voxel holding the background.
    - values: (n,) or (n, k) values, cast to the grid's dtype; None stores the background.
    - grid_type: a code of ``layout.VALUE_TYPES`` or its name ("float", "Vec3f", ...).
    - background: the value of inactive voxels (k components for vector grids).
    - transform, translation: the index->world map, world = transform @ ijk + translation
      (float64; Warp rounds both to float32 first).
    - name: the grid's name (under 256 bytes).
    - capacity: (leaf, lower, upper) node counts to reserve room for (Warp's rebuildable volumes:
      the node arrays are laid out for the capacity, the tree's counts say how many are used);
      ValueError naming the level if the voxels need more. See :func:`count_nodes`.

    Raises ValueError naming the bad argument.
    """
    code = _grid_type_code(grid_type)
    vt = L.value_type(code)
    if vt.is_index:
        raise ValueError(f"grid_type {vt.name} is an index grid: use build_index_grid")
    if vt.quantized_bits is not None:
        raise ValueError(f"grid_type {vt.name} (quantized leaves) can be read and validated but not built")
    c = _coords(coords)
    m, t = _matrix(transform, translation)
    bg = _background_bytes(vt, background)
    if tiles and values is not None:
        raise ValueError("values must be None with tiles=True (a tile's voxels hold the background)")
    vals = None if values is None else _values(vt, values, c.shape[0])
    topo = _Topology(c, tiles, vals is not None)
    if vals is not None:
        vals = vals[topo.source]
    return _write_grid(topo, code, bg, vals, m, t, name, None, capacity)


def build_dense_grid(values, *, grid_type, background, transform, translation=(0.0, 0.0, 0.0)) -> np.ndarray:
    """The grid :func:`build_grid` makes of every voxel of a dense block, faster: `values` is (X, Y, Z) or
    (X, Y, Z, k) with X, Y, Z multiples of 8, voxel (i, j, k) at index (i, j, k). The leaves are the
    block's 8^3 tiles, whole, their values copied tile by tile (no per-voxel sort).
    """
    code = _grid_type_code(grid_type)
    vt = L.value_type(code)
    v = np.asarray(values)
    shape = v.shape[:3]
    if v.ndim < 3 or any(n % 8 for n in shape) or v.size != np.prod(shape) * vt.components:
        raise ValueError(f"values must be an (X, Y, Z{', ' + str(vt.components) if vt.components > 1 else ''}) "
                         f"block with X, Y, Z multiples of 8 for a {vt.name} grid, got shape {v.shape}")
    m, t = _matrix(transform, translation)
    bg = _background_bytes(vt, background)
    nt = [n // 8 for n in shape]
    origins = np.stack(np.meshgrid(*(np.arange(n, dtype=np.int64) * 8 for n in nt), indexing="ij"), -1)
    topo = _Topology(origins.reshape(-1, 3), True)
    # the block's tiles as rows of 512 voxels (x-major within a tile, as a leaf's table), in the leaves' order
    blocks = v.reshape(nt[0], 8, nt[1], 8, nt[2], 8, vt.components).transpose(0, 2, 4, 1, 3, 5, 6)
    blocks = blocks.reshape(-1, 512, vt.components)
    o = topo.leaf_origin >> 3
    leaf_values = blocks[(o[:, 0] * nt[1] + o[:, 1]) * nt[2] + o[:, 2]] if topo.leaf_keys.size else None
    return _write_grid(topo, code, bg, leaf_values, m, t, "", None)


def build_index_grid(
    coords, *, transform, translation=(0.0, 0.0, 0.0), name: str = "", tiles: bool = False, capacity=None
) -> np.ndarray:
    """A NanoVDB index grid: each active voxel holds the position of its value in an external array.

    With ``tiles=True`` (Warp's ``allocate_by_tiles(bg_value=None)``) the grid is an ``Index`` grid
    of whole leaves: leaf n's voxels take values 1 + 512 n ... in bit order, 0 being the background.
    Otherwise (Warp's ``allocate_by_voxels``) it is an ``OnIndex`` grid: the active voxels are
    numbered 1, 2, ... in the grid's order (leaves breadth first, voxels x-major within a leaf).
    The value count (stored at byte 656 of the grid) is the voxel count + 1. `capacity` as for
    :func:`build_grid`.
    """
    c = _coords(coords)
    m, t = _matrix(transform, translation)
    topo = _Topology(c, tiles, False)
    n_leaf = topo.leaf_keys.size
    if tiles:
        counts = (1 + 512 * np.arange(n_leaf, dtype=np.uint64), lambda masks: np.zeros(n_leaf, np.uint64))
        code = L.GRID_TYPE_INDEX
    else:
        per_leaf = np.diff(np.r_[topo.leaf_starts, topo.voxel_count]).astype(np.uint64)
        first = 1 + np.r_[np.uint64(0), np.cumsum(per_leaf)[:-1]].astype(np.uint64)
        counts = (first, _prefix_sums)
        code = L.GRID_TYPE_ONINDEX
    return _write_grid(topo, code, None, None, m, t, name, counts, capacity)


def count_nodes(coords, *, tiles: bool = False) -> tuple[int, int, int, int]:
    """(leaf, lower, upper, active voxel) counts of the grid `coords` would make (for capacities)."""
    topo = _Topology(_coords(coords), tiles, False)
    return topo.leaf_keys.size, topo.lower_keys.size, topo.upper_keys.size, topo.voxel_count


def _popcount(words: np.ndarray) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8).reshape(*words.shape, 8), axis=-1).sum(-1).astype(np.uint64)


def _prefix_sums(masks: np.ndarray) -> np.ndarray:
    """OnIndex leaves' packed 9-bit running counts of active voxels in mask words 0..k (k = 0..6)."""
    running = np.cumsum(_popcount(masks), axis=1, dtype=np.uint64)[:, :7]
    return np.bitwise_or.reduce(running << (np.arange(7, dtype=np.uint64) * np.uint64(9)), axis=1)
