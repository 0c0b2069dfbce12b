"""parse_grid / validate_grid / active voxels: built grids read back, Warp's order, malformed buffers."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brickwork.runtime.nanovdb import layout as L
from brickwork.runtime.nanovdb.build import build_grid, build_index_grid
from brickwork.runtime.nanovdb.read import (
    FormatError,
    UnsupportedGridError,
    active_values,
    active_voxels,
    leaf_origins,
    parse_grid,
    split_grids,
    validate_grid,
)

EXPECTED = json.loads((Path(__file__).parent / "nanovdb_warp_expectations.json").read_text())["cases"]
T = L.GRID_SIZE  # the tree header's offset


def points(n, lo, hi, seed):
    i = np.arange(n, dtype=np.int64)
    span = hi - lo
    cols = [(i * 7919 + seed) % span, (i * 104729 + 3 * seed) % span, (i * 1299709 + 7 * seed) % span]
    return np.stack(cols, 1).astype(np.int32) + lo


def test_parse_fields():
    m = np.array([[0.5, 0.0, 0.0], [0.0, 0.25, 0.0], [0.0, 0.0, 2.0]])
    buf = build_grid(
        [[-9, 0, 5000], [3, 3, 3]],
        [1.0, 2.0],
        grid_type="double",
        background=-1.0,
        transform=m,
        translation=(1, 2, 3),
        name="rho",
    )
    info = validate_grid(buf)
    assert (info.grid_type, info.type_name, info.grid_class, info.name) == (L.GRID_TYPE_DOUBLE, "double", 0, "rho")
    assert info.version == (32, 8, 0) and info.checksum == 2**64 - 1 and (info.grid_index, info.grid_count) == (0, 1)
    assert info.grid_size == buf.size and info.voxel_size == (0.5, 0.25, 2.0)
    assert info.transform == ((0.5, 0, 0), (0, 0.25, 0), (0, 0, 2.0)) and info.inverse == (
        (2.0, 0, 0),
        (0, 4.0, 0),
        (0, 0, 0.5),
    )
    assert info.translation == (1, 2, 3)
    assert info.index_bbox == ((-9, 0, 3), (3, 3, 5000))
    assert info.world_bbox == ((1 - 4.5, 2, 3 + 6), (1 + 2, 2 + 1, 3 + 10002))
    assert (info.leaf_count, info.lower_count, info.upper_count, info.root_tile_count) == (2, 2, 2, 2)
    assert info.active_voxel_count == 2 and info.value_count == 0 and info.blind_data == ()
    assert (
        info.tree_offset == T < info.root_offset < info.upper_offset < info.lower_offset < info.leaf_offset < buf.size
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(*[st.integers(-3000, 3000)] * 3), min_size=1, max_size=300),
    st.sampled_from(["float", "double", "int32", "int64", "uint32", "Vec3f", "Vec3d", "Vec4f", "Vec4d"]),
    st.integers(0, 2**31 - 1),
)
def test_every_voxel_active_with_its_value(coords, grid_type, seed):
    c = np.array(coords, np.int32)
    vt = L.value_type(L.GRID_TYPE_BY_NAME[grid_type])
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 1000, size=(c.shape[0], vt.components)).astype(vt.dtype)
    buf = build_grid(
        c,
        values if vt.components > 1 else values[:, 0],
        grid_type=grid_type,
        background=[5] * vt.components,
        transform=np.eye(3),
    )
    info = validate_grid(buf)
    last = {tuple(p): v for p, v in zip(c.tolist(), values.tolist())}  # repeats: the last value wins
    vox, vals = active_voxels(buf), active_values(buf).reshape(len(last), -1)
    assert sorted(map(tuple, vox.tolist())) == sorted(last)
    assert all(list(v) == last[tuple(p)] for p, v in zip(vox.tolist(), vals.tolist()))
    assert info.active_voxel_count == len(last)
    assert info.index_bbox == (tuple(c.min(0).tolist()), tuple(c.max(0).tolist()))
    assert info.leaf_count == len({tuple(p) for p in (c >> 3).tolist()})
    assert info.lower_count == len({tuple(p) for p in (c >> 7).tolist()})
    assert info.upper_count == len({tuple(p) for p in (c >> 12).tolist()})
    assert sorted(map(tuple, leaf_origins(buf).tolist())) == sorted({tuple(p) for p in (c & ~7).tolist()})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(*[st.integers(-200, 200)] * 3), min_size=1, max_size=400), st.booleans())
def test_index_grids_number_their_voxels(coords, tiles):
    c = np.array(coords, np.int32)
    buf = build_index_grid(c, transform=np.eye(3), tiles=tiles)
    info = validate_grid(buf)
    vox, idx = active_voxels(buf), active_values(buf)
    if tiles:
        assert info.grid_type == L.GRID_TYPE_INDEX and info.active_voxel_count == 512 * info.leaf_count
        assert len(vox) == 512 * len({tuple(p) for p in (c >> 3).tolist()})
    else:
        assert info.grid_type == L.GRID_TYPE_ONINDEX
        assert sorted(map(tuple, vox.tolist())) == sorted(set(map(tuple, c.tolist())))
    assert (idx == np.arange(1, len(vox) + 1)).all() and info.value_count == len(vox) + 1


def test_voxel_and_tile_order_match_warp():
    buf = build_index_grid(points(5000, -50, 50, 2), transform=np.diag([0.5] * 3), translation=(0, 1, 0))
    want = EXPECTED["voxels_onindex"]
    for got, name in ((active_voxels(buf), "get_voxels"), (leaf_origins(buf), "get_tiles")):
        got = np.ascontiguousarray(got, "<i4")
        assert list(got.shape) == want[name]["shape"]
        assert hashlib.sha256(got.tobytes()).hexdigest() == want[name]["sha256"]


def test_split_grids():
    a = build_grid([[0, 0, 0]], grid_type="float", background=0.0, transform=np.eye(3))
    b = build_index_grid([[9, 9, 9]], transform=np.eye(3))
    both = np.concatenate([a, b])
    struct.pack_into("<I", both, L.GRID_OFF_GRID_COUNT, 2)
    parts = split_grids(both)
    assert [p.size for p in parts] == [a.size, b.size] and (parts[1] == b).all()
    with pytest.raises(ValueError, match="magic 0x0000000000000000"):
        split_grids(np.concatenate([both, np.zeros(800, np.uint8)]))  # trailing bytes that are no grid


# -- malformed buffers: each a mutation of a valid grid, the error naming the field --------------
def _valid(kind="float"):
    c = points(40, -300, 300, 5)
    if kind == "onindex":
        return build_index_grid(c, transform=np.eye(3))
    if kind == "index":
        return build_index_grid(c, transform=np.eye(3), tiles=True)
    return build_grid(c, np.arange(40.0), grid_type="float", background=0.0, transform=np.eye(3))


def _u64(buf, off):
    return struct.unpack_from("<Q", buf, off)[0]


def _first_child_entry(buf, level):
    """Byte offset of the first child offset field of the root ("root"), upper or lower level."""
    info = parse_grid(buf)
    nl = L.node_layout(info.grid_type)
    if level == "root":
        return info.root_offset + nl.root_size + L.ROOT_TILE_OFF_CHILD
    node, mask, table, nbytes = (
        (info.upper_offset, L.UPPER_OFF_CHILD_MASK, nl.upper_off_table, L.UPPER_MASK_BYTES)
        if level == "upper"
        else (info.lower_offset, L.LOWER_OFF_CHILD_MASK, nl.lower_off_table, L.LOWER_MASK_BYTES)
    )
    words = np.frombuffer(buf[node + mask : node + mask + nbytes].tobytes(), "<u8")
    w = int(np.flatnonzero(words)[0])
    bit = w * 64 + (int(words[w]) & -int(words[w])).bit_length() - 1
    return node + table + bit * nl.table_stride


def _mutate(buf, fmt, off, value):
    struct.pack_into(fmt, buf, off, value)


def _case(name):
    """(buffer, message) for one malformed case."""
    buf = _valid("onindex" if name.startswith("onindex") else "index" if name.startswith("index") else "float")
    info = parse_grid(buf)
    size = info.grid_size
    if name == "truncated":
        return buf[:700], "shorter than the grid and tree headers"
    if name == "magic":
        _mutate(buf, "<Q", 0, 0x1234)
        return buf, "magic 0x0000000000001234"
    if name == "version":
        _mutate(buf, "<I", L.GRID_OFF_VERSION, L.make_version(31, 0, 0))
        return buf, "version 31.0.0"
    if name == "grid_size_small":
        _mutate(buf, "<Q", L.GRID_OFF_GRID_SIZE, 0)
        return buf, "grid_size 0 is outside"
    if name == "grid_size_past":
        _mutate(buf, "<Q", L.GRID_OFF_GRID_SIZE, size + 1)
        return buf, f"grid_size {size + 1} is outside"
    if name == "grid_type":
        _mutate(buf, "<I", L.GRID_OFF_GRID_TYPE, 0)
        return buf, "grid_type 0 is not supported"
    if name == "name":
        buf[L.GRID_OFF_GRID_NAME : L.GRID_OFF_GRID_NAME + 256] = ord("A")
        return buf, "grid_name is not NUL-terminated"
    if name == "root_offset":
        _mutate(buf, "<Q", T + L.TREE_OFF_NODE_OFFSET_ROOT, size)
        return buf, "the root .* extends past grid_size"
    if name == "tile_count":
        _mutate(buf, "<I", info.root_offset + L.ROOT_OFF_TABLE_SIZE, 0xFFFFFFFF)
        return buf, "the root's 4294967295 tiles extend past"
    for level, field in (("leaf", 0), ("lower", 8), ("upper", 16)):
        if name == f"{level}_offset":
            _mutate(buf, "<Q", T + field, size - T)
            return buf, f"{level} nodes .* extend past grid_size"
        if name == f"{level}_misaligned":
            _mutate(buf, "<Q", T + field, _u64(buf, T + field) + 8)
            return buf, f"the {level} node array .* is not 32-byte aligned"
    for level, field in (("leaf", 32), ("lower", 36), ("upper", 40)):
        if name == f"{level}_count":
            _mutate(buf, "<I", T + field, 0xFFFFFFFF)
            return buf, f"4294967295 {level} nodes"
    if name == "overlap":
        nl = L.node_layout(info.grid_type)
        _mutate(buf, "<Q", T + L.TREE_OFF_NODE_OFFSET_LOWER, info.lower_offset - T - 32)
        return buf, "the lower node array .* overlaps the nodes before it"
    for level in ("root", "upper", "lower"):
        entry = _first_child_entry(buf, level)
        valid = struct.unpack_from("<q", buf, entry)[0]
        if name == f"{level}_child_outside":
            _mutate(buf, "<q", entry, size)
            return buf, f"a {level} child offset points outside"
        if name == f"{level}_child_inside_node":
            _mutate(buf, "<q", entry, valid + 32)
            return buf, f"a {level} child offset is misaligned"
    if name == "mask_count":  # a lower node loses a child bit: the leaf count no longer matches
        off = info.lower_offset + L.LOWER_OFF_CHILD_MASK
        words = np.frombuffer(buf[off : off + 512].tobytes(), "<u8").copy()
        w = int(np.flatnonzero(words)[0])
        words[w] &= words[w] - np.uint64(1)
        buf[off : off + 512] = words.view(np.uint8)
        return buf, "lower children: .* referenced but the tree holds .* \\(the masks disagree\\)"
    if name == "duplicate_child":
        nl = L.node_layout(info.grid_type)
        second = info.root_offset + nl.root_size + nl.root_tile_size + L.ROOT_TILE_OFF_CHILD
        _mutate(buf, "<q", second, struct.unpack_from("<q", buf, _first_child_entry(buf, "root"))[0])
        return buf, "root children: a node is referenced twice"
    if name == "empty_child_level":
        _mutate(buf, "<I", T + L.TREE_OFF_NODE_COUNT_LEAF, 0)
        return buf, "lower nodes have child bits but the child level's node count is 0"
    if name == "blind_offset":
        _mutate(buf, "<q", L.GRID_OFF_BLIND_METADATA_OFFSET, 64)
        return buf, "blind_metadata_offset 64 is outside"
    if name == "blind_count":
        _mutate(buf, "<I", L.GRID_OFF_BLIND_METADATA_COUNT, 0xFFFFFFFF)
        return buf, "blind_metadata_count 4294967295 entries"
    if name == "onindex_prefix":
        nl = L.node_layout(info.grid_type)
        _mutate(buf, "<Q", info.leaf_offset + nl.leaf_size + L.INDEX_LEAF_OFF_PREFIX, 12345)
        return buf, "OnIndex leaf 1: prefix sums disagree"
    if name == "onindex_value_count":
        _mutate(buf, "<Q", L.GRID_OFF_DATA1, info.value_count - 1)
        return buf, "past the grid's value count"
    if name == "index_value_count":
        _mutate(buf, "<Q", L.GRID_OFF_DATA1, 100)
        return buf, "index leaves address values up to .* past the grid's value count 100"
    raise AssertionError(name)


CASES = (
    "truncated magic version grid_size_small grid_size_past grid_type name root_offset tile_count "
    "leaf_offset lower_offset upper_offset leaf_misaligned lower_misaligned upper_misaligned leaf_count lower_count "
    "upper_count overlap root_child_outside root_child_inside_node upper_child_outside upper_child_inside_node "
    "lower_child_outside lower_child_inside_node mask_count duplicate_child empty_child_level blind_offset blind_count "
    "onindex_prefix onindex_value_count index_value_count"
).split()


@pytest.mark.parametrize("name", CASES)
def test_malformed_buffer_refused(name):
    buf, message = _case(name)
    before = buf.copy()
    with pytest.raises(ValueError, match=message):
        validate_grid(buf)
    assert (buf == before).all()


def test_valid_grids_pass():
    for kind in ("float", "onindex", "index"):
        validate_grid(_valid(kind))


def test_not_a_buffer():
    with pytest.raises(TypeError, match="bytes-like buffer, got int"):
        parse_grid(5)
    with pytest.raises(ValueError, match="must be contiguous"):
        parse_grid(np.zeros(2000, np.uint8)[::2])


# -- quantized (Fp4/Fp8/Fp16/FpN) grids: read and validated, made here from a float grid ---------
def quantize(float_grid: np.ndarray, grid_type: int, bits_per_leaf) -> tuple[np.ndarray, list]:
    """The float grid with its leaves re-encoded as Fp* (NanoVDB's layout); also each leaf's float32 decode."""
    info = validate_grid(float_grid)
    fl = L.node_layout(L.GRID_TYPE_FLOAT)
    head = bytearray(float_grid[: info.leaf_offset].tobytes())  # root, upper and lower nodes: as a float grid's
    leaves, decoded = [], []
    for i in range(info.leaf_count):
        old = float_grid[info.leaf_offset + i * fl.leaf_size :][: fl.leaf_size]
        values = np.frombuffer(old[fl.leaf_off_table :].tobytes(), "<f4")
        bits = bits_per_leaf[i]
        lo, hi = np.float32(values.min()), np.float32(values.max())
        quantum = np.float32((hi - lo) / np.float32(2**bits - 1)) if hi > lo else np.float32(1.0)
        codes = np.clip(np.rint((values - lo) / quantum), 0, 2**bits - 1).astype(np.int64)
        stream = ((codes[:, None] >> np.arange(bits)) & 1).astype(np.uint8).reshape(-1)
        leaf = bytearray(L.fp_leaf_size(bits))
        leaf[:80] = old[:80].tobytes()
        if grid_type == L.GRID_TYPE_FPN:
            leaf[15] = (leaf[15] & 0x1F) | ((bits.bit_length() - 1) << 5)
        struct.pack_into("<ff", leaf, L.FP_LEAF_OFF_MINIMUM, lo, quantum)
        leaf[L.FP_LEAF_OFF_TABLE :] = np.packbits(stream, bitorder="little").tobytes()
        leaves.append(bytes(leaf))
        decoded.append(codes.astype(np.float32) * quantum + lo)
    starts = info.leaf_offset + np.r_[0, np.cumsum([len(x) for x in leaves])]
    out = np.frombuffer(bytes(head) + b"".join(leaves), np.uint8).copy()
    for n in range(info.lower_count):  # lower nodes point at the moved leaves
        node = info.lower_offset + n * fl.lower_size
        words = np.frombuffer(out[node + L.LOWER_OFF_CHILD_MASK :][: L.LOWER_MASK_BYTES].tobytes(), "<u8")
        for w in np.flatnonzero(words):
            for b in range(64):
                if int(words[w]) >> b & 1:
                    entry = node + fl.lower_off_table + (w * 64 + b) * 8
                    old = node + struct.unpack_from("<q", out, entry)[0]
                    struct.pack_into("<q", out, entry, int(starts[(old - info.leaf_offset) // fl.leaf_size]) - node)
    struct.pack_into("<Q", out, L.GRID_OFF_GRID_SIZE, out.size)
    struct.pack_into("<I", out, L.GRID_OFF_GRID_TYPE, grid_type)
    struct.pack_into("<q", out, L.GRID_OFF_BLIND_METADATA_OFFSET, out.size)
    return out, decoded


def _float_grid():
    c = np.concatenate([points(30, -100, 100, 3), points(10, 5000, 5100, 4)])
    return build_grid(c, np.linspace(-3, 7, 40), grid_type="float", background=0.0, transform=np.eye(3))


@pytest.mark.parametrize(
    ("grid_type", "bits"), [(L.GRID_TYPE_FP4, 4), (L.GRID_TYPE_FP8, 8), (L.GRID_TYPE_FP16, 16), (L.GRID_TYPE_FPN, None)]
)
def test_quantized_grids(grid_type, bits):
    grid = _float_grid()
    n = parse_grid(grid).leaf_count
    per_leaf = [bits] * n if bits else [(1, 2, 4, 8, 16)[i % 5] for i in range(n)]
    fp, decoded = quantize(grid, grid_type, per_leaf)
    info = validate_grid(fp)
    assert info.type_name == L.VALUE_TYPES[grid_type].name and info.leaf_count == n
    assert (active_voxels(fp) == active_voxels(grid)).all() and (leaf_origins(fp) == leaf_origins(grid)).all()
    vox = active_voxels(grid)
    origins = leaf_origins(grid)
    leaf = np.array([int(np.flatnonzero((origins == (v & ~7)).all(1))[0]) for v in vox])
    bit = ((vox[:, 0] & 7) << 6) | ((vox[:, 1] & 7) << 3) | (vox[:, 2] & 7)
    want = np.array([decoded[i][b] for i, b in zip(leaf, bit)], np.float32)
    assert np.array_equal(active_values(fp), want)
    if bits == 16:  # 16-bit codes: within half a quantum of the float values
        assert np.allclose(active_values(fp), active_values(grid), atol=1e-3)


def test_fpn_leaf_errors():
    grid = _float_grid()
    n = parse_grid(grid).leaf_count
    fp, _ = quantize(grid, L.GRID_TYPE_FPN, [2] * n)
    info = parse_grid(fp)
    bad = fp.copy()
    bad[info.leaf_offset + 15] = (7 << 5) | (bad[info.leaf_offset + 15] & 0x1F)
    with pytest.raises(ValueError, match="FpN leaf 0 declares 128-bit codes"):
        validate_grid(bad)
    truncated = fp[: fp.size - 64].copy()
    struct.pack_into("<Q", truncated, L.GRID_OFF_GRID_SIZE, truncated.size)
    struct.pack_into("<q", truncated, L.GRID_OFF_BLIND_METADATA_OFFSET, truncated.size)
    with pytest.raises(ValueError, match=f"FpN leaf {n - 1} .* extends past grid_size"):
        validate_grid(truncated)


def test_unsupported_layout_after_structure():
    buf = _valid()
    struct.pack_into("<I", buf, L.GRID_OFF_FLAGS, L.GRID_FLAGS_HAS_BBOX)  # not breadth first, otherwise sound
    with pytest.raises(UnsupportedGridError, match="IsBreadthFirst"):
        validate_grid(buf)
    struct.pack_into("<Q", buf, T + L.TREE_OFF_NODE_OFFSET_ROOT, buf.size)  # and malformed: that comes first
    with pytest.raises(ValueError, match="the root") as err:
        validate_grid(buf)
    assert not isinstance(err.value, UnsupportedGridError)


def test_random_corruption_raises_only_format_error():
    """Overwrite structural words of valid grids at random: validation passes or raises FormatError, nothing else."""
    rng = np.random.default_rng(11)
    grids = [_valid("float"), _valid("onindex"), _valid("index")]
    spots = []
    for g in grids:
        info = parse_grid(g)
        nl = L.node_layout(info.grid_type)
        s = list(range(0, L.GRID_SIZE + L.TREE_SIZE, 4))
        s += list(
            range(info.root_offset, info.root_offset + nl.root_size + info.root_tile_count * nl.root_tile_size, 4)
        )
        for k in range(info.lower_count):
            node = info.lower_offset + k * nl.lower_size
            s += [node + L.LOWER_OFF_CHILD_MASK + 8 * w for w in range(64)]
            s += [node + nl.lower_off_table + 8 * t for t in range(0, 4096, 31)]
        s += [info.leaf_offset + k * nl.leaf_size + o for k in range(info.leaf_count) for o in range(0, 96, 8)]
        spots.append([p for p in s if p + 8 <= g.size])
    refused = 0
    for it in range(400):
        g = grids[it % 3].copy()
        pos = int(rng.choice(spots[it % 3]))
        old = struct.unpack_from("<Q", g, pos)[0]
        new = [
            0,
            1,
            32,
            2**31,
            2**63 - 1,
            2**64 - 1,
            int(rng.integers(0, 2**62)),
            (old + 32) % 2**64,
            (old - 32) % 2**64,
        ]
        struct.pack_into("<Q", g, pos, new[int(rng.integers(len(new)))])
        try:
            validate_grid(g)
            active_voxels(g)
            active_values(g)
        except FormatError:
            refused += 1
    assert 50 < refused < 400
