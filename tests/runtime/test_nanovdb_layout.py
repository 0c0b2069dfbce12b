"""NanoVDB layout constants: the per-type offsets against PNanoVDB.h's table and fixed values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from brickwork.runtime.nanovdb import layout as L

PNANOVDB_H = Path("/tmp/warpenv/lib/python3.11/site-packages/warp/native/nanovdb/PNanoVDB.h")

# (root_size, root_tile_size, upper_size, lower_size, leaf_off_table, leaf_size) per type
EXPECTED_SIZES = {
    L.GRID_TYPE_FLOAT: (64, 32, 270400, 33856, 96, 2144),
    L.GRID_TYPE_DOUBLE: (96, 32, 270400, 33856, 128, 4224),
    L.GRID_TYPE_INT32: (64, 32, 270400, 33856, 96, 2144),
    L.GRID_TYPE_INT64: (96, 32, 270400, 33856, 128, 4224),
    L.GRID_TYPE_UINT32: (64, 32, 270400, 33856, 96, 2144),
    L.GRID_TYPE_VEC3F: (96, 32, 532544, 66624, 128, 6272),
    L.GRID_TYPE_VEC3D: (128, 64, 794720, 99424, 160, 12448),
    L.GRID_TYPE_VEC4F: (96, 64, 532576, 66656, 128, 8320),
    L.GRID_TYPE_VEC4D: (160, 64, 1056896, 132224, 160, 16544),
    L.GRID_TYPE_INDEX: (96, 32, 270400, 33856, 80, 96),
    L.GRID_TYPE_ONINDEX: (96, 32, 270400, 33856, 80, 96),
}


@pytest.mark.parametrize("code", sorted(EXPECTED_SIZES))
def test_sizes(code):
    n = L.node_layout(code)
    assert (n.root_size, n.root_tile_size, n.upper_size, n.lower_size, n.leaf_off_table, n.leaf_size) == (
        EXPECTED_SIZES[code]
    )
    # every node size keeps the next node 32-byte aligned
    assert n.root_size % 32 == n.upper_size % 32 == n.lower_size % 32 == n.leaf_size % 32 == 0


@pytest.mark.skipif(not PNANOVDB_H.exists(), reason="Warp's PNanoVDB.h is not installed")
def test_offsets_match_pnanovdb_table():
    text = PNANOVDB_H.read_text()
    start = text.index("pnanovdb_grid_type_constants[PNANOVDB_GRID_TYPE_END] =")
    rows = re.findall(r"\{([0-9, ]+)\}", text[start : start + 8000])[: L.GRID_TYPE_END]
    for code in L.VALUE_TYPES:
        want = [int(x) for x in rows[code].split(",")]
        assert list(L.node_layout(code).__dict__.values()) == want, L.VALUE_TYPES[code].name
    for name, value in re.findall(r"#define PNANOVDB_(\w+) (\d+)\b", text):
        if name.startswith(("GRID_OFF", "TREE_OFF", "ROOT_", "UPPER_", "LOWER_", "LEAF_OFF", "MAP_OFF", "GRID_TYPE_")):
            if name in L.constants_for_cpp():
                assert L.constants_for_cpp()[name] == int(value), name


def test_version_and_magic():
    assert L.make_version(32, 8, 0) == (32 << 21) | (8 << 10)
    assert L.split_version(L.make_version(32, 6, 1)) == (32, 6, 1)
    assert L.MAGIC_GRID.to_bytes(8, "little") == b"NanoVDB1"
    assert L.MAGIC_FILE.to_bytes(8, "little") == b"NanoVDB2"
    assert L.MAGIC_NUMBER.to_bytes(8, "little") == b"NanoVDB0"


def test_root_key():
    assert L.root_key(0, 0, 0) == 0
    assert L.root_key(4096, 0, 0) == 1 << 42
    assert L.root_key(0, 4095, 8191) == 1
    # negative coordinates wrap as uint32, as PNanoVDB's pnanovdb_coord_to_key does
    assert L.root_key(-1, 0, 0) == ((0xFFFFFFFF >> 12) << 42)


def test_unsupported_type_names_code():
    with pytest.raises(ValueError, match="grid_type 9 is not supported"):
        L.node_layout(L.GRID_TYPE_HALF)


def test_constants_for_cpp():
    c = L.constants_for_cpp()
    assert c["GRID_SIZE"] == 672 and c["TREE_OFF_VOXEL_COUNT"] == 56
    assert c["FLOAT_LEAF_OFF_TABLE"] == 96 and c["VEC3F_UPPER_SIZE"] == 532544
    assert c["ONINDEX_LEAF_SIZE"] == 96 and c["INDEX_LEAF_OFF_PREFIX"] == 88
    assert all(type(v) is int for v in c.values())
