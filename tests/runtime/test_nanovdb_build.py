"""build_grid / build_index_grid: Warp 1.19's buffers byte for byte, hand-checked fields, bad input."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from brickwork.runtime.nanovdb import layout as L
from brickwork.runtime.nanovdb.build import build_dense_grid, build_grid, build_index_grid, count_nodes
from brickwork.runtime.nanovdb.read import active_values, active_voxels, validate_grid

EXPECTED = json.loads((Path(__file__).parent / "nanovdb_warp_expectations.json").read_text())["cases"]


def points(n, lo, hi, seed):
    """Deterministic scattered points (the formula of scratch/s31/v1/make_expectations.py)."""
    i = np.arange(n, dtype=np.int64)
    span = hi - lo
    cols = [(i * 7919 + seed) % span, (i * 104729 + 3 * seed) % span, (i * 1299709 + 7 * seed) % span]
    return np.stack(cols, 1).astype(np.int32) + lo


def check(buf, name):
    want = EXPECTED[name]
    assert buf.dtype == np.uint8 and buf.size == want["size"]
    assert list(struct.unpack_from("<3I", buf, L.GRID_SIZE + L.TREE_OFF_NODE_COUNT_LEAF)) == want["leaf_lower_upper"]
    assert struct.unpack_from("<Q", buf, L.GRID_SIZE + L.TREE_OFF_VOXEL_COUNT)[0] == want["voxel_count"]
    assert hashlib.sha256(buf.tobytes()).hexdigest() == want["sha256"]


BACKGROUNDS = {
    "float": 0.5,
    "double": 1.25,
    "int32": 7,
    "int64": -3,
    "uint32": 9,
    "Vec3f": (1, 2, 3),
    "Vec3d": (1, 2, 3),
    "Vec4f": (1, 2, 3, 4),
    "Vec4d": (1, 2, 3, 4),
}


@pytest.mark.parametrize("grid_type", sorted(BACKGROUNDS))
def test_tiles_match_warp(grid_type):
    buf = build_grid(
        points(300, -700, 700, 1),
        grid_type=grid_type,
        background=BACKGROUNDS[grid_type],
        transform=np.diag([0.25] * 3),
        translation=(1.0, -2.0, 0.5),
        tiles=True,
    )
    check(buf, "tiles_" + grid_type)


def test_general_transform_matches_warp():
    t = np.array([[0.5, 0.125, 0.0], [0.0, 0.75, 0.25], [0.375, 0.0, 1.5]])
    translation = np.float32([0.1, 0.2, 0.3])  # Warp keeps the map's translation in float32
    buf = build_grid(
        points(300, -700, 700, 1), grid_type="float", background=1.0, transform=t, translation=translation, tiles=True
    )
    check(buf, "tiles_transform")


def test_index_grids_match_warp():
    check(build_index_grid(points(300, -700, 700, 1), transform=np.diag([0.5] * 3), tiles=True), "tiles_index")
    vox = points(5000, -50, 50, 2)
    check(build_index_grid(vox, transform=np.diag([0.5] * 3), translation=(0, 1, 0)), "voxels_onindex")


def _dense():
    i = np.arange(10 * 7 * 13, dtype=np.float32).reshape(10, 7, 13)
    return np.sin(i) * 3.0


def _padded_voxels(shape):
    padded = tuple(-(-s // 8) * 8 for s in shape)
    ijk = np.stack(np.meshgrid(*[np.arange(s) for s in padded], indexing="ij"), -1).reshape(-1, 3)
    return padded, ijk


def test_load_from_numpy_equivalent_matches_warp():
    dense = _dense()
    padded, ijk = _padded_voxels(dense.shape)
    vals = np.full(padded, -1.0, np.float32)
    vals[:10, :7, :13] = dense
    buf = build_grid(
        ijk,
        vals.reshape(-1),
        grid_type="float",
        background=-1.0,
        transform=np.diag([0.5] * 3),
        translation=(-1.0, 0.0, 2.0),
    )
    check(buf, "numpy_float")
    dense_v = np.stack([dense, -dense, dense * 2], -1)
    vals = np.zeros((*padded, 3), np.float32)
    vals[..., 2] = 1.0
    vals[:10, :7, :13] = dense_v
    buf = build_grid(ijk, vals.reshape(-1, 3), grid_type="Vec3f", background=(0, 0, 1), transform=np.diag([2.0] * 3))
    check(buf, "numpy_vec3f")


def test_dense_builder_makes_warps_numpy_grids():
    # build_dense_grid (load_from_numpy's) copies the block tile by tile: the same bytes as the per-voxel build
    dense = _dense()
    padded, _ = _padded_voxels(dense.shape)
    vals = np.full(padded, -1.0, np.float32)
    vals[:10, :7, :13] = dense
    block = vals.copy()
    check(build_dense_grid(vals, grid_type="float", background=-1.0, transform=np.diag([0.5] * 3),
                           translation=(-1.0, 0.0, 2.0)), "numpy_float")
    assert np.array_equal(vals, block)  # the input is not changed
    vals = np.zeros((*padded, 3), np.float32)
    vals[..., 2] = 1.0
    vals[:10, :7, :13] = np.stack([dense, -dense, dense * 2], -1)
    check(build_dense_grid(vals, grid_type="Vec3f", background=(0, 0, 1), transform=np.diag([2.0] * 3)),
          "numpy_vec3f")


@pytest.mark.parametrize("shape", [(8, 8, 12), (8, 8), (16, 8, 8, 2)])
def test_dense_builder_needs_whole_tiles(shape):
    with pytest.raises(ValueError, match="multiples of 8 for a float grid"):
        build_dense_grid(np.zeros(shape, np.float32), grid_type="float", background=0.0, transform=np.eye(3))


def test_upper_nodes_far_apart():
    # upper nodes spread over the whole int32 range are numbered by rank, not by their place in a box
    far = np.array([[2**31 - 1, -7, 2**30], [-(2**31), 0, 5], [5, -(2**31), 2**31 - 1], [0, 0, 0], [-(2**31), 0, 6]])
    buf = build_grid(far, np.arange(5, dtype=np.float32), grid_type="float", background=-1.0, transform=np.eye(3))
    info = validate_grid(buf)
    assert (info.leaf_count, info.lower_count, info.upper_count) == (4, 4, 4)
    got = {tuple(v): float(x) for v, x in zip(active_voxels(buf, info).tolist(), active_values(buf, info))}
    assert got == {tuple(v): float(i) for i, v in enumerate(far.tolist())}
    uppers = [tuple(v) for v in (active_voxels(buf, info) >> 12).tolist()]  # in signed coordinate order
    assert uppers == sorted(uppers)


FEW = np.array([[0, 0, 0], [100, 5, 9], [5000, 0, 0]], np.int32)


def test_capacity_matches_warps_rebuildable_volumes():
    kw = {"grid_type": "float", "background": 1.5, "transform": np.diag([0.5] * 3), "tiles": True}
    check(build_grid(FEW, capacity=(10, 6, 4), **kw), "capacity_tiles")
    check(build_grid(FEW[:1] * 0, capacity=(10, 6, 4), **kw), "capacity_rebuilt")
    check(build_grid(FEW[:0], capacity=(2, 6, 4), **kw), "capacity_exceeded")  # Warp's empty fallback
    check(build_index_grid(FEW, transform=np.diag([0.5] * 3), capacity=(10, 6, 4)), "capacity_voxels")
    assert count_nodes(FEW, tiles=True) == (3, 2, 2, 1536) and count_nodes(FEW) == (3, 2, 2, 3)
    with pytest.raises(ValueError, match="capacity: 3 leaf nodes needed, 2 reserved"):
        build_grid(FEW, capacity=(2, 6, 4), **kw)
    with pytest.raises(ValueError, match="capacity: 2 upper nodes needed, 1 reserved"):
        build_index_grid(FEW, transform=np.eye(3), capacity=(10, 6, 1))
    with pytest.raises(ValueError, match="capacity must be three node counts"):
        build_grid(FEW, capacity=(10, 6), **kw)


def test_one_voxel_fields():
    buf = build_grid([[-5, 9, 4100]], [2.5], grid_type="float", background=0.0, transform=np.eye(3), name="one")
    nl = L.node_layout(L.GRID_TYPE_FLOAT)
    assert struct.unpack_from("<Q", buf, 0)[0] == L.MAGIC_GRID
    assert bytes(buf[40:44]) == b"one\0"
    assert struct.unpack_from("<II", buf, L.GRID_OFF_GRID_CLASS) == (L.GRID_CLASS_UNKNOWN, L.GRID_TYPE_FLOAT)
    assert struct.unpack_from("<6d", buf, L.GRID_OFF_WORLD_BBOX) == (-5, 9, 4100, -4, 10, 4101)
    tree = L.GRID_SIZE
    off_leaf, off_lower, off_upper, off_root = struct.unpack_from("<4Q", buf, tree)
    assert struct.unpack_from("<3I", buf, tree + 32) == (1, 1, 1)
    root = tree + off_root
    assert struct.unpack_from("<3i3iI", buf, root) == (-5, 9, 4100, -5, 9, 4100, 1)
    key, child = struct.unpack_from("<Qq", buf, root + nl.root_size)
    assert key == L.root_key(-5, 9, 4100) and root + child == tree + off_upper
    leaf = tree + off_leaf
    assert struct.unpack_from("<3iI", buf, leaf) == (-5, 9, 4100, 2 << 24)
    bit = ((-5 & 7) << 6) | ((9 & 7) << 3) | (4100 & 7)
    mask = np.frombuffer(buf[leaf + 16 : leaf + 80].tobytes(), "<u8")
    assert [int(w) for w in mask] == [1 << (bit % 64) if w == bit // 64 else 0 for w in range(8)]
    assert struct.unpack_from("<f", buf, leaf + nl.leaf_off_table + 4 * bit)[0] == 2.5
    assert buf.size == tree + off_leaf + nl.leaf_size


def test_repeats_last_value_wins():
    buf = build_grid(
        [[1, 2, 3], [1, 2, 3], [0, 0, 0]], [1, 2, 3], grid_type="int32", background=-1, transform=np.eye(3)
    )
    nl = L.node_layout(L.GRID_TYPE_INT32)
    leaf = L.GRID_SIZE + struct.unpack_from("<Q", buf, L.GRID_SIZE)[0]
    table = np.frombuffer(buf[leaf + nl.leaf_off_table : leaf + nl.leaf_size].tobytes(), "<i4")
    assert table[(1 << 6) | (2 << 3) | 3] == 2 and table[0] == 3
    assert (np.delete(table, [0, (1 << 6) | (2 << 3) | 3]) == -1).all()
    assert struct.unpack_from("<Q", buf, L.GRID_SIZE + L.TREE_OFF_VOXEL_COUNT)[0] == 2


def test_empty_grid():
    buf = build_grid(np.zeros((0, 3), np.int32), grid_type="float", background=0.0, transform=np.eye(3))
    nl = L.node_layout(L.GRID_TYPE_FLOAT)
    assert buf.size == L.GRID_SIZE + L.TREE_SIZE + nl.root_size
    assert struct.unpack_from("<3I", buf, L.GRID_SIZE + 32) == (0, 0, 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"coords": [[1, 2]]}, "coords must be an \\(n, 3\\) array"),
        ({"coords": [[1.5, 2, 3]]}, "coords must hold integers"),
        ({"coords": [[2**31, 0, 0]]}, "coords must fit in int32"),
        ({"grid_type": "half"}, "grid_type 'half' is not one of"),
        ({"grid_type": 9}, "grid_type 9 is not supported"),
        ({"grid_type": "FpN"}, "quantized leaves\\) can be read and validated but not built"),
        ({"grid_type": "OnIndex"}, "use build_index_grid"),
        ({"background": (1, 2)}, "background of a float grid needs 1 component"),
        ({"values": [1.0, 2.0]}, "values must have 1 rows"),
        ({"transform": np.eye(2)}, "transform must be a 3x3 matrix"),
        ({"transform": np.zeros((3, 3))}, "transform is singular"),
        ({"transform": np.diag([1, np.nan, 1])}, "must be finite"),
        ({"translation": (1, 2)}, "translation must have 3 components"),
        ({"name": "x" * 256}, "name must be under 256"),
        ({"tiles": True, "values": [1.0]}, "values must be None with tiles=True"),
    ],
)
def test_bad_input(kwargs, message):
    args = {"coords": [[0, 0, 0]], "values": None, "grid_type": "float", "background": 0.0, "transform": np.eye(3)}
    args.update(kwargs)
    coords = args.pop("coords")
    with pytest.raises(ValueError, match=message):
        build_grid(coords, **args)


def test_inputs_untouched():
    c = np.array([[3, 2, 1], [3, 2, 1]], np.int32)
    v = np.array([1.0, 2.0], np.float32)
    c0, v0 = c.copy(), v.copy()
    build_grid(c, v, grid_type="float", background=0.0, transform=np.eye(3))
    assert (c == c0).all() and (v == v0).all()
