"""read_nvdb / write_nvdb: round trips per codec, raw grid buffers, Warp's writer and files, bad files."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from brickwork.runtime.nanovdb import layout as L
from brickwork.runtime.nanovdb.build import build_grid, build_index_grid
from brickwork.runtime.nanovdb.file import FILE_HEADER, FILE_METADATA, name_key, read_nvdb, write_nvdb
from brickwork.runtime.nanovdb.read import UnsupportedGridError

EXPECTED = json.loads((Path(__file__).parent / "nanovdb_warp_expectations.json").read_text())["warp_assets"]
WARP = Path("/tmp/warpenv/lib/python3.11/site-packages/warp")

try:
    import blosc  # noqa: F401

    HAVE_BLOSC = True
except ImportError:
    HAVE_BLOSC = False


def _grids():
    a = build_grid(
        [[1, 2, 3], [100, -50, 7], [1, 2, 4]],
        [1.5, 2.5, -1.0],
        grid_type="float",
        background=0.0,
        transform=np.eye(3) * 0.5,
        name="density",
    )
    b = build_grid(
        [[0, 0, 0]], [[1, 2, 3]], grid_type="Vec3d", background=(0, 0, 0), transform=np.eye(3), name="velocity"
    )
    c = build_index_grid([[0, 0, 0], [9, 9, 9], [-4000, 3, 3]], transform=np.eye(3), name="")
    return [a, b, c]


@pytest.mark.parametrize(
    "codec", ["none", "zip", pytest.param("blosc", marks=pytest.mark.skipif(not HAVE_BLOSC, reason="no blosc"))]
)
def test_round_trip(tmp_path, codec):
    grids = _grids()
    path = tmp_path / f"g_{codec}.nvdb"
    write_nvdb(path, grids, codec=codec)
    back = read_nvdb(path)
    assert [g.name for g in back] == ["density", "velocity", ""]
    assert all(g.codec == codec for g in back)
    for got, want in zip(back, grids, strict=True):
        assert got.buffer.dtype == np.uint8 and np.array_equal(got.buffer, want)
        assert np.array_equal(np.ascontiguousarray(got, dtype=np.uint8), want)  # a FileGrid reads as its buffer
    # the same from a file object and from bytes
    data = path.read_bytes()
    assert [np.array_equal(g.buffer, w) for g, w in zip(read_nvdb(io.BytesIO(data)), grids)] == [True] * 3
    assert len(read_nvdb(data)) == 3


def test_file_layout_fields(tmp_path):
    grids = _grids()
    out = io.BytesIO()
    write_nvdb(out, grids[0], codec="zip")
    data = out.getvalue()
    magic, version, count, codec = FILE_HEADER.unpack_from(data, 0)
    assert (magic, version >> 21, count, codec) == (L.MAGIC_FILE, 32, 1, 1)
    meta = FILE_METADATA.unpack_from(data, 16)
    assert meta[0] == grids[0].size and meta[2] == name_key("density") and meta[3] == 3
    assert meta[4:6] == (L.GRID_TYPE_FLOAT, 0) and meta[21] == len("density") + 1
    assert meta[12:18] == (1, -50, 3, 100, 2, 7) and meta[22:26] == (2, 2, 2, 1)
    start = 16 + FILE_METADATA.size + 8
    assert data[16 + FILE_METADATA.size : start] == b"density\0"
    chunk = struct.unpack_from("<q", data, start)[0]
    assert meta[1] == chunk + 8 == len(data) - start  # NanoVDB counts the chunk's size field in fileSize
    assert zlib.decompress(data[start + 8 :]) == grids[0].tobytes()


def test_name_key_is_nanovdbs_hash():
    # the keys NanoVDB wrote into Warp's test_index_grid.nvdb and rocks.nvdb
    assert name_key("grid-0") == 0x20EBA0EDE5 and name_key("surface") == 0x99B6446AED5 and name_key("") == 0


def test_raw_grid_buffers():
    grids = _grids()
    back = read_nvdb(grids[1])
    assert len(back) == 1 and np.array_equal(back[0].buffer, grids[1]) and back[0].name == "velocity"
    both = np.concatenate(grids[:2])
    struct.pack_into("<I", both, L.GRID_OFF_GRID_COUNT, 2)  # as Volume.array() holds the grids of a file
    back = read_nvdb(both.tobytes())
    assert [g.name for g in back] == ["density", "velocity"]
    assert np.array_equal(back[1].buffer, grids[1])


def _warp_style(grids, codec):
    """A file as Warp 1.19's Volume.save_to_nvdb writes it: old magic, fileSize without the chunk count."""
    head = struct.pack("<QIHH", L.MAGIC_NUMBER, L.make_version(32, 3, 3), len(grids), codec)
    metas, payload = b"", b""
    for g in grids:
        data = g.tobytes() if codec == 0 else zlib.compress(g.tobytes())
        meta = bytearray(FILE_METADATA.size)
        struct.pack_into("<QQ", meta, 0, g.size, len(data))
        struct.pack_into("<I", meta, 136, 1)
        metas += bytes(meta) + b"\0"
        payload += data if codec == 0 else struct.pack("<Q", len(data)) + data
    return head + metas + payload


@pytest.mark.parametrize("codec", [0, 1])
def test_reads_warps_writer(codec):
    grids = _grids()
    back = read_nvdb(_warp_style(grids, codec))
    assert all(np.array_equal(g.buffer, w) for g, w in zip(back, grids, strict=True))


def test_several_segments():
    grids = _grids()
    one, two = io.BytesIO(), io.BytesIO()
    write_nvdb(one, grids[:1])
    write_nvdb(two, grids[1:], codec="zip")
    back = read_nvdb(one.getvalue() + two.getvalue())
    assert [g.codec for g in back] == ["none", "zip", "zip"]
    assert all(np.array_equal(g.buffer, w) for g, w in zip(back, grids, strict=True))


@pytest.mark.skipif(HAVE_BLOSC, reason="blosc is installed")
def test_blosc_missing_names_module(tmp_path):
    with pytest.raises(RuntimeError, match="needs the Python module 'blosc'"):
        write_nvdb(tmp_path / "x.nvdb", _grids()[0], codec="blosc")
    assert not (tmp_path / "x.nvdb").exists()
    data = bytearray(_warp_style(_grids()[:1], 1))
    struct.pack_into("<H", data, 14, 2)  # the same chunks, declared blosc
    with pytest.raises(RuntimeError, match="needs the Python module 'blosc'"):
        read_nvdb(bytes(data))


def _bad(name):
    grids = _grids()
    out = io.BytesIO()
    write_nvdb(out, grids[:1], codec="zip" if "zip" in name else "none")
    data = bytearray(out.getvalue())
    meta_end = 16 + FILE_METADATA.size + len("density") + 1
    if name == "magic":
        data[:8] = b"NotNano!"
        return data, "no file header: magic 0x"
    if name == "version":
        struct.pack_into("<I", data, 8, L.make_version(31, 0, 0))
        return data, "version 31.0.0: major 32 is supported"
    if name == "codec":
        struct.pack_into("<H", data, 14, 7)
        return data, "codec 7 is not none"
    if name == "truncated_metadata":
        return data[:100], "truncated in the metadata of grid 0"
    if name == "name":
        data[meta_end - 1] = ord("x")
        return data, "name .* not NUL-terminated"
    if name == "truncated_grid":
        return data[:-10], "grid 0 .* is truncated"
    if name == "zip_truncated":
        return data[:-10], "chunk of .* runs past the file's end"
    if name == "zip_corrupt":
        data[meta_end + 8 : meta_end + 12] = b"\xff\xff\xff\xff"
        return data, "zip chunk does not decompress"
    if name == "zip_size":
        struct.pack_into("<Q", data, 16, grids[0].size - 32)
        return data, "decompresses to .* bytes, its metadata says"
    if name == "bad_grid":
        struct.pack_into("<Q", data, meta_end + L.GRID_SIZE + L.TREE_OFF_NODE_OFFSET_ROOT, 10**9)
        return data, "invalid NanoVDB grid: the root"
    raise AssertionError(name)


@pytest.mark.parametrize(
    "name",
    "magic version codec truncated_metadata name truncated_grid zip_truncated zip_corrupt zip_size bad_grid".split(),
)
def test_malformed_file_refused(name):
    data, message = _bad(name)
    before = bytes(data)
    with pytest.raises(ValueError, match=message):
        read_nvdb(bytes(data))
    assert bytes(data) == before


@pytest.mark.parametrize("codec", ["none", "zip"])
def test_read_without_validation_reads_headers_only(codec):
    # a grid validate_grid refuses (its root past the grid) still reads with validate=False, for a
    # caller that validates the grids itself (wp.Volume reports problems in Warp's order)
    grids = _grids()
    bad = grids[0].copy()
    struct.pack_into("<Q", bad, L.GRID_SIZE + L.TREE_OFF_NODE_OFFSET_ROOT, 10**9)
    out = io.BytesIO()
    write_nvdb(out, grids[1:2], codec=codec)
    raw = bad.tobytes() + grids[2].tobytes()
    with pytest.raises(ValueError, match="invalid NanoVDB grid: the root"):
        read_nvdb(raw)
    back = read_nvdb(raw, validate=False)
    assert [np.array_equal(g.buffer, w) for g, w in zip(back, [bad, grids[2]], strict=True)] == [True, True]
    assert back[0].info.root_offset == L.GRID_SIZE + 10**9 and back[1].info.grid_type == L.GRID_TYPE_ONINDEX
    (velocity,) = read_nvdb(out.getvalue(), validate=False)
    assert velocity.name == "velocity" and np.array_equal(velocity.buffer, grids[1])


def test_write_refuses_bad_input(tmp_path):
    with pytest.raises(ValueError, match="codec 'lz4' is not one of"):
        write_nvdb(tmp_path / "x.nvdb", _grids()[0], codec="lz4")
    bad = _grids()[0].copy()
    bad[:8] = 0
    with pytest.raises(ValueError, match="magic"):
        write_nvdb(tmp_path / "y.nvdb", [_grids()[1], bad])
    assert not (tmp_path / "x.nvdb").exists() and not (tmp_path / "y.nvdb").exists()


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_warp_assets(rel):
    path = WARP / rel
    if not path.exists():
        pytest.skip(f"Warp's {rel} is not installed")
    grids = read_nvdb(path)
    joined = np.concatenate([g.buffer for g in grids])  # Warp's Volume.array() holds the file's grids back to back
    assert joined.size == EXPECTED[rel]["size"]
    assert hashlib.sha256(joined.tobytes()).hexdigest() == EXPECTED[rel]["sha256"]
    # and written back by us, each codec reads to the same grids
    for codec in ("none", "zip"):
        out = io.BytesIO()
        write_nvdb(out, [g.buffer for g in grids], codec=codec)
        again = read_nvdb(out.getvalue())
        assert [g.name for g in again] == [g.name for g in grids]
        assert all(np.array_equal(a.buffer, g.buffer) for a, g in zip(again, grids, strict=True))


def test_invalid_later_grid_outranks_unsupported_earlier():
    grids = _grids()
    first, second = grids[0].copy(), grids[1].copy()
    struct.pack_into("<I", first, L.GRID_OFF_FLAGS, L.GRID_FLAGS_HAS_BBOX)  # sound, but not breadth first
    with pytest.raises(UnsupportedGridError, match="IsBreadthFirst"):
        read_nvdb(_warp_style([first, grids[1]], 0))
    struct.pack_into("<Q", second, L.GRID_SIZE + L.TREE_OFF_NODE_OFFSET_ROOT, second.size)
    with pytest.raises(ValueError, match="the root") as err:
        read_nvdb(_warp_style([first, second], 0))
    assert not isinstance(err.value, UnsupportedGridError)
    # validate=False reads the headers only (wp.Volume validates the grids itself)
    assert [g.info.grid_type for g in read_nvdb(_warp_style([first, second], 0), validate=False)] == [1, 7]


class FakeBlosc:
    """Stands in for the blosc module (zlib underneath): the blosc code path's chunking, not blosc itself."""

    @staticmethod
    def compress(data):
        return b"B" + zlib.compress(bytes(data))

    @staticmethod
    def decompress(data):
        assert data[:1] == b"B"
        return zlib.decompress(data[1:])


def test_blosc_path_with_a_stand_in(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "blosc", FakeBlosc)
    grids = _grids()
    write_nvdb(tmp_path / "b.nvdb", grids, codec="blosc")
    data = (tmp_path / "b.nvdb").read_bytes()
    assert FILE_HEADER.unpack_from(data, 0)[3] == 2
    back = read_nvdb(data)
    assert [g.codec for g in back] == ["blosc"] * 3
    assert all(np.array_equal(g.buffer, w) for g, w in zip(back, grids, strict=True))
