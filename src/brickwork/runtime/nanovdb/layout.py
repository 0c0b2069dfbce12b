"""NanoVDB's memory layout: magic numbers, type codes, byte offsets and node sizes.

A NanoVDB grid is one buffer: the grid header (672 bytes), the tree header (64 bytes), the root
(its fixed part, then one tile per upper node), then the upper (32^3), lower (16^3) and leaf (8^3)
nodes, each array contiguous and breadth first. Offsets in the tree header are relative to the tree;
a root tile's child offset is relative to the root; an internal node's child offset is relative to
that node. The numbers here follow NanoVDB 32.x (ABI major 32), as PNanoVDB.h states them; the
per-type offsets are derived from the value's size and alignment by the rules NanoVDB uses (a
table of them is checked against PNanoVDB.h's in the tests).

Everything is a plain ``int`` so that C++ can be printed from :func:`constants_for_cpp`.
"""

from __future__ import annotations

from dataclasses import dataclass

# -- magic numbers and version -------------------------------------------------------------------
MAGIC_NUMBER = 0x304244566F6E614E  # "NanoVDB0": old grids and files use it for both
MAGIC_GRID = 0x314244566F6E614E  # "NanoVDB1": a grid buffer
MAGIC_FILE = 0x324244566F6E614E  # "NanoVDB2": a file (segment) header
MAGICS_GRID = (MAGIC_NUMBER, MAGIC_GRID)
MAGICS_FILE = (MAGIC_NUMBER, MAGIC_FILE)

VERSION_MAJOR = 32
VERSION_MINOR = 8
VERSION_PATCH = 0


def make_version(major: int = VERSION_MAJOR, minor: int = VERSION_MINOR, patch: int = VERSION_PATCH) -> int:
    """The packed version word: 11 bits major, 11 bits minor, 10 bits patch."""
    return (major << 21) | (minor << 10) | patch


def split_version(word: int) -> tuple[int, int, int]:
    """(major, minor, patch) of a packed version word."""
    return word >> 21, (word >> 10) & 0x7FF, word & 0x3FF


VERSION = make_version()

# -- grid types, classes, flags ------------------------------------------------------------------
GRID_TYPE_UNKNOWN = 0
GRID_TYPE_FLOAT = 1
GRID_TYPE_DOUBLE = 2
GRID_TYPE_INT16 = 3
GRID_TYPE_INT32 = 4
GRID_TYPE_INT64 = 5
GRID_TYPE_VEC3F = 6
GRID_TYPE_VEC3D = 7
GRID_TYPE_MASK = 8
GRID_TYPE_HALF = 9
GRID_TYPE_UINT32 = 10
GRID_TYPE_BOOLEAN = 11
GRID_TYPE_RGBA8 = 12
GRID_TYPE_FP4 = 13
GRID_TYPE_FP8 = 14
GRID_TYPE_FP16 = 15
GRID_TYPE_FPN = 16
GRID_TYPE_VEC4F = 17
GRID_TYPE_VEC4D = 18
GRID_TYPE_INDEX = 19
GRID_TYPE_ONINDEX = 20
GRID_TYPE_INDEXMASK = 21
GRID_TYPE_ONINDEXMASK = 22
GRID_TYPE_POINTINDEX = 23
GRID_TYPE_VEC3U8 = 24
GRID_TYPE_VEC3U16 = 25
GRID_TYPE_UINT8 = 26
GRID_TYPE_END = 27

GRID_CLASS_UNKNOWN = 0
GRID_CLASS_LEVEL_SET = 1
GRID_CLASS_FOG_VOLUME = 2
GRID_CLASS_STAGGERED = 3
GRID_CLASS_POINT_INDEX = 4
GRID_CLASS_POINT_DATA = 5
GRID_CLASS_TOPOLOGY = 6
GRID_CLASS_VOXEL_VOLUME = 7
GRID_CLASS_INDEX_GRID = 8
GRID_CLASS_TENSOR_GRID = 9
GRID_CLASS_END = 10

GRID_FLAGS_HAS_LONG_GRID_NAME = 1 << 0
GRID_FLAGS_HAS_BBOX = 1 << 1
GRID_FLAGS_HAS_MIN_MAX = 1 << 2
GRID_FLAGS_HAS_AVERAGE = 1 << 3
GRID_FLAGS_HAS_STD_DEVIATION = 1 << 4
GRID_FLAGS_IS_BREADTH_FIRST = 1 << 5

# -- the grid header (672 bytes) -----------------------------------------------------------------
GRID_SIZE = 672
GRID_OFF_MAGIC = 0
GRID_OFF_CHECKSUM = 8
GRID_OFF_VERSION = 16
GRID_OFF_FLAGS = 20
GRID_OFF_GRID_INDEX = 24
GRID_OFF_GRID_COUNT = 28
GRID_OFF_GRID_SIZE = 32
GRID_OFF_GRID_NAME = 40
GRID_NAME_SIZE = 256
GRID_OFF_MAP = 296
GRID_OFF_WORLD_BBOX = 560
GRID_OFF_VOXEL_SIZE = 608
GRID_OFF_GRID_CLASS = 632
GRID_OFF_GRID_TYPE = 636
GRID_OFF_BLIND_METADATA_OFFSET = 640
GRID_OFF_BLIND_METADATA_COUNT = 648
GRID_OFF_DATA0 = 652  # uint32, unused by value grids
GRID_OFF_DATA1 = 656  # uint64: an index grid's value count (active voxels + 1 for the background)
GRID_OFF_DATA2 = 664  # uint64

# the index->world map inside the grid header (relative to GRID_OFF_MAP)
MAP_SIZE = 264
MAP_OFF_MATF = 0
MAP_OFF_INVMATF = 36
MAP_OFF_VECF = 72
MAP_OFF_TAPERF = 84
MAP_OFF_MATD = 88
MAP_OFF_INVMATD = 160
MAP_OFF_VECD = 232
MAP_OFF_TAPERD = 256

GRIDBLINDMETADATA_SIZE = 288

# -- the tree header (64 bytes, right after the grid) --------------------------------------------
TREE_SIZE = 64
TREE_OFF_NODE_OFFSET_LEAF = 0
TREE_OFF_NODE_OFFSET_LOWER = 8
TREE_OFF_NODE_OFFSET_UPPER = 16
TREE_OFF_NODE_OFFSET_ROOT = 24
TREE_OFF_NODE_COUNT_LEAF = 32
TREE_OFF_NODE_COUNT_LOWER = 36
TREE_OFF_NODE_COUNT_UPPER = 40
TREE_OFF_TILE_COUNT_LEAF = 44
TREE_OFF_TILE_COUNT_LOWER = 48
TREE_OFF_TILE_COUNT_UPPER = 52
TREE_OFF_VOXEL_COUNT = 56

# -- root, root tiles, internal nodes, leaves ----------------------------------------------------
ROOT_BASE_SIZE = 28
ROOT_OFF_BBOX_MIN = 0
ROOT_OFF_BBOX_MAX = 12
ROOT_OFF_TABLE_SIZE = 24

ROOT_TILE_BASE_SIZE = 20
ROOT_TILE_OFF_KEY = 0
ROOT_TILE_OFF_CHILD = 8
ROOT_TILE_OFF_STATE = 16

UPPER_LOG2DIM = 5  # 32^3 children, each a lower node spanning 128^3 voxels
UPPER_TABLE_COUNT = 32768
UPPER_BASE_SIZE = 8224
UPPER_OFF_BBOX_MIN = 0
UPPER_OFF_BBOX_MAX = 12
UPPER_OFF_FLAGS = 24
UPPER_OFF_VALUE_MASK = 32
UPPER_OFF_CHILD_MASK = 4128
UPPER_MASK_BYTES = 4096

LOWER_LOG2DIM = 4  # 16^3 children, each a leaf spanning 8^3 voxels
LOWER_TABLE_COUNT = 4096
LOWER_BASE_SIZE = 1056
LOWER_OFF_BBOX_MIN = 0
LOWER_OFF_BBOX_MAX = 12
LOWER_OFF_FLAGS = 24
LOWER_OFF_VALUE_MASK = 32
LOWER_OFF_CHILD_MASK = 544
LOWER_MASK_BYTES = 512

LEAF_LOG2DIM = 3
LEAF_TABLE_COUNT = 512
LEAF_BASE_SIZE = 80
LEAF_OFF_BBOX_MIN = 0
LEAF_OFF_BBOX_DIF_AND_FLAGS = 12
LEAF_OFF_VALUE_MASK = 16
LEAF_MASK_BYTES = 64
LEAF_FLAG_HAS_BBOX = 2  # bit 1 of the leaf's flags byte (bits 24..31 of bbox_dif_and_flags)

# voxels spanned by one node of each level, per axis
LEAF_DIM = 8
LOWER_DIM = 128
UPPER_DIM = 4096

NODE_ALIGN = 32  # every node and the root are 32-byte aligned

LEAF_TYPE_DEFAULT = 0
LEAF_TYPE_LITE = 1
LEAF_TYPE_FP = 2
LEAF_TYPE_INDEX = 3
LEAF_TYPE_INDEXMASK = 4
LEAF_TYPE_POINTINDEX = 5


# -- per grid type: value sizes and the offsets that depend on them ------------------------------
@dataclass(frozen=True)
class ValueType:
    """What one grid type stores: its numpy dtype, components, and the strides NanoVDB uses.

    - ``value_bytes``: bytes of one leaf value (0 for index grids, whose leaves hold offsets).
    - ``stat_bytes``: bytes of a min/max (the value type; uint64 for index grids).
    - ``align``: alignment of the value type (its scalar's size).
    - ``stat2_bytes``: bytes of an average/standard deviation (float or double).
    - ``table_bytes``: bytes of one internal node's table entry (a value or a child offset).
    """

    name: str
    code: int
    dtype: str  # numpy scalar dtype ("" for index grids)
    components: int
    value_bytes: int
    stat_bytes: int
    align: int
    stat2_bytes: int
    table_bytes: int
    is_index: bool = False
    quantized_bits: int | None = None  # Fp4/Fp8/Fp16 leaves: bits per code; FpN: 0 (per leaf, in its flags)


VALUE_TYPES = {
    t.code: t
    for t in (
        ValueType("float", GRID_TYPE_FLOAT, "float32", 1, 4, 4, 4, 4, 8),
        ValueType("double", GRID_TYPE_DOUBLE, "float64", 1, 8, 8, 8, 8, 8),
        ValueType("int32", GRID_TYPE_INT32, "int32", 1, 4, 4, 4, 4, 8),
        ValueType("int64", GRID_TYPE_INT64, "int64", 1, 8, 8, 8, 8, 8),
        ValueType("uint32", GRID_TYPE_UINT32, "uint32", 1, 4, 4, 4, 4, 8),
        ValueType("Vec3f", GRID_TYPE_VEC3F, "float32", 3, 12, 12, 4, 4, 16),
        ValueType("Vec3d", GRID_TYPE_VEC3D, "float64", 3, 24, 24, 8, 8, 24),
        ValueType("Vec4f", GRID_TYPE_VEC4F, "float32", 4, 16, 16, 4, 4, 16),
        ValueType("Vec4d", GRID_TYPE_VEC4D, "float64", 4, 32, 32, 8, 8, 32),
        ValueType("Index", GRID_TYPE_INDEX, "", 0, 0, 8, 8, 8, 8, is_index=True),
        ValueType("OnIndex", GRID_TYPE_ONINDEX, "", 0, 0, 8, 8, 8, 8, is_index=True),
        # quantized float leaves (read and validated, not built): code * quantum + minimum
        ValueType("Fp4", GRID_TYPE_FP4, "float32", 1, 0, 4, 4, 4, 8, quantized_bits=4),
        ValueType("Fp8", GRID_TYPE_FP8, "float32", 1, 0, 4, 4, 4, 8, quantized_bits=8),
        ValueType("Fp16", GRID_TYPE_FP16, "float32", 1, 0, 4, 4, 4, 8, quantized_bits=16),
        ValueType("FpN", GRID_TYPE_FPN, "float32", 1, 0, 4, 4, 4, 8, quantized_bits=0),
    )
}
GRID_TYPE_BY_NAME = {t.name: t.code for t in VALUE_TYPES.values()}
INDEX_GRID_TYPES = (GRID_TYPE_INDEX, GRID_TYPE_ONINDEX)
# an index grid leaf: bbox, flags, mask, then uint64 offset of its first value and uint64 prefix sums
INDEX_LEAF_OFF_OFFSET = 80
INDEX_LEAF_OFF_PREFIX = 88
INDEX_LEAF_SIZE = 96
# a quantized (Fp*) leaf: float minimum and quantum, four uint16 stats, then the packed codes
FP_LEAF_OFF_MINIMUM = 80
FP_LEAF_OFF_QUANTUM = 84
FP_LEAF_OFF_TABLE = 96
FPN_MAX_LOG2_BITS = 4  # an FpN leaf's codes have 1 << (flags >> 5) bits: 1, 2, 4, 8 or 16


def fp_leaf_size(bits: int) -> int:
    """Bytes of a quantized leaf whose 512 codes have `bits` bits each."""
    return FP_LEAF_OFF_TABLE + LEAF_TABLE_COUNT * bits // 8


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


@dataclass(frozen=True)
class NodeLayout:
    """Byte offsets within the root, a root tile and each node for one grid type (PNanoVDB's names)."""

    root_off_background: int
    root_off_min: int
    root_off_max: int
    root_off_ave: int
    root_off_stddev: int
    root_size: int
    value_stride_bits: int
    table_stride: int
    root_tile_off_value: int
    root_tile_size: int
    upper_off_min: int
    upper_off_max: int
    upper_off_ave: int
    upper_off_stddev: int
    upper_off_table: int
    upper_size: int
    lower_off_min: int
    lower_off_max: int
    lower_off_ave: int
    lower_off_stddev: int
    lower_off_table: int
    lower_size: int
    leaf_off_min: int
    leaf_off_max: int
    leaf_off_ave: int
    leaf_off_stddev: int
    leaf_off_table: int
    leaf_size: int


def _stats(start: int, vt: ValueType) -> tuple[int, int, int, int, int]:
    """min, max, average, std-dev and the 32-aligned end of the stats that follow a node's header."""
    mn = _align(start, vt.align)
    mx = mn + vt.stat_bytes
    ave = _align(mx + vt.stat_bytes, vt.stat2_bytes)
    std = ave + vt.stat2_bytes
    return mn, mx, ave, std, _align(std + vt.stat2_bytes, NODE_ALIGN)


def node_layout(grid_type: int) -> NodeLayout:
    """The offsets of :class:`NodeLayout` for a supported grid type (ValueError otherwise)."""
    vt = value_type(grid_type)
    background = _align(ROOT_BASE_SIZE, vt.align)
    r = (background,) + _stats(background + vt.stat_bytes, vt)
    tile_value = _align(ROOT_TILE_BASE_SIZE, vt.align)
    u = _stats(UPPER_BASE_SIZE, vt)
    lo = _stats(LOWER_BASE_SIZE, vt)
    if vt.is_index:  # no stats in index leaves: the offset and prefix sums follow the mask
        lf = (LEAF_BASE_SIZE,) * 5 + (INDEX_LEAF_SIZE,)
    elif vt.quantized_bits is not None:  # uint16 stats after minimum and quantum; FpN's size is per leaf
        lf = (88, 90, 92, 94, FP_LEAF_OFF_TABLE, fp_leaf_size(vt.quantized_bits))
    else:
        s = _stats(LEAF_BASE_SIZE, vt)
        lf = s + (s[4] + LEAF_TABLE_COUNT * vt.value_bytes,)
    return NodeLayout(
        *r,
        vt.value_bytes * 8,  # 0 for quantized leaves, as PNanoVDB's table has it
        vt.table_bytes,
        tile_value,
        _align(tile_value + vt.stat_bytes, NODE_ALIGN),
        *u,
        u[4] + UPPER_TABLE_COUNT * vt.table_bytes,
        *lo,
        lo[4] + LOWER_TABLE_COUNT * vt.table_bytes,
        *lf,
    )


def value_type(grid_type: int) -> ValueType:
    """The :class:`ValueType` of a grid type code; ValueError naming the code if unsupported."""
    try:
        return VALUE_TYPES[int(grid_type)]
    except KeyError:
        raise ValueError(
            f"grid_type {grid_type} is not supported (supported: "
            + ", ".join(f"{t.name}={c}" for c, t in VALUE_TYPES.items())
            + ")"
        ) from None


def root_key(i: int, j: int, k: int) -> int:
    """The root table's key of the upper node holding voxel (i, j, k) (coordinates as uint32 >> 12)."""
    m = 0xFFFFFFFF
    return ((k & m) >> 12) | (((j & m) >> 12) << 21) | (((i & m) >> 12) << 42)


def constants_for_cpp() -> dict[str, int]:
    """name -> int of every constant above, spelled as PNanoVDB's macros (``PNANOVDB_`` + name).

    Per-type offsets come as ``<TYPE>_<FIELD>``, e.g. ``FLOAT_LEAF_OFF_TABLE`` or
    ``VEC3F_UPPER_SIZE``, for each type of :data:`VALUE_TYPES`.
    """
    out = {
        name: value
        for name, value in globals().items()
        if name.isupper() and isinstance(value, int) and not isinstance(value, bool)
    }
    for code, vt in VALUE_TYPES.items():
        for field, value in node_layout(code).__dict__.items():
            out[f"{vt.name.upper()}_{field.upper()}"] = value
    return out
