"""Volumes from buffers, files and addresses: every grid checked first (Warp's exception type and words,
then the problem), a file's grids in one buffer walked by load_next_grid, save_to_nvdb round trips,
load_from_address aliasing, feature arrays (NanoVDB blind data)."""

import io
import struct
import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.runtime.nanovdb import layout as L
from brickwork.runtime.nanovdb.build import build_grid, build_index_grid
from brickwork.runtime.nanovdb.file import write_nvdb

try:
    import blosc  # noqa: F401

    CODECS = ["none", "zip", "blosc"]
except ImportError:
    CODECS = ["none", "zip"]


def _float_grid(name="density"):
    return build_grid([[1, 2, 3], [40, -9, 7]], [1.5, -2.0], grid_type="float", background=0.0,
                      transform=np.eye(3) * 0.5, name=name)


def _with_feature(grid: np.ndarray, payload: bytes, name: bytes, value_size: int, data_type: int) -> np.ndarray:
    """``grid`` with one blind data entry (its 288-byte record, then the payload) appended."""
    size = grid.size
    record = bytearray(L.GRIDBLINDMETADATA_SIZE)
    struct.pack_into("<qQIIII", record, 0, L.GRIDBLINDMETADATA_SIZE, len(payload) // value_size, value_size, 0, 0,
                     data_type)
    record[32:32 + len(name)] = name
    tail = bytes(record) + payload
    tail += b"\0" * (-len(tail) % 32)
    out = np.concatenate([grid, np.frombuffer(tail, np.uint8)])
    struct.pack_into("<Q", out, L.GRID_OFF_GRID_SIZE, out.size)
    struct.pack_into("<qI", out, L.GRID_OFF_BLIND_METADATA_OFFSET, size, 1)
    return out


def _two_grids():
    a, b = _float_grid("a"), build_index_grid([[0, 0, 0], [1, 0, 0], [9, 9, 9]], transform=np.eye(3), name="b")
    for i, g in enumerate((a, b)):
        struct.pack_into("<II", g, L.GRID_OFF_GRID_INDEX, i, 2)
    return a, b


@pytest.mark.parametrize("case, message", [
    ("zeros", "magic 0x0+ is not a grid's"),
    ("grid_size_past_buffer", "grid_size .* is outside"),
    ("unterminated_name", "grid_name is not NUL-terminated"),
    ("root_past_grid", "the root"),
])
def test_a_bad_buffer_is_refused_naming_the_problem_and_left_unchanged(case, message):
    g = _float_grid()
    if case == "zeros":
        g[:] = 0
    elif case == "grid_size_past_buffer":
        struct.pack_into("<Q", g, L.GRID_OFF_GRID_SIZE, g.size + 1)
    elif case == "unterminated_name":
        g[L.GRID_OFF_GRID_NAME:L.GRID_OFF_GRID_NAME + L.GRID_NAME_SIZE] = ord("A")
    else:
        struct.pack_into("<Q", g, L.GRID_SIZE + L.TREE_OFF_NODE_OFFSET_ROOT, 10**6)
    before = g.copy()
    data = wp.array(g, dtype=wp.uint8)
    with pytest.raises(RuntimeError, match=f"Failed to create volume from input array: {message}"):
        wp.Volume(data)
    np.testing.assert_array_equal(data.numpy(), before)


def test_a_bad_file_is_refused_with_warps_words():
    good, out = _float_grid(), io.BytesIO()
    bad = good.copy()
    struct.pack_into("<Q", bad, L.GRID_SIZE + L.TREE_OFF_NODE_OFFSET_ROOT, 10**6)
    write_nvdb(out, [good], codec="none")
    data = bytearray(out.getvalue())
    data[-good.size:] = bad.tobytes()
    with pytest.raises(RuntimeError, match="Invalid NanoVDB grid structure: .*root"):
        wp.Volume.load_from_nvdb(bytes(data))
    depth_first = good.copy()
    struct.pack_into("<I", depth_first, L.GRID_OFF_FLAGS, 0)
    data[-good.size:] = depth_first.tobytes()
    with pytest.raises(RuntimeError, match="Unsupported NanoVDB tree layout"):
        wp.Volume.load_from_nvdb(io.BytesIO(bytes(data)))
    with pytest.raises(RuntimeError, match="NanoVDB signature not found"):
        wp.Volume.load_from_nvdb(b"NotNanoVDB file!" + bytes(100))


def test_a_files_grids_share_one_buffer_and_load_next_grid_walks_them(tmp_path):
    a, b = _two_grids()
    write_nvdb(tmp_path / "two.nvdb", [a, b], codec="zip")
    with open(tmp_path / "two.nvdb", "rb") as f:
        v = wp.Volume.load_from_nvdb(f)
    np.testing.assert_array_equal(v.array().numpy(), np.concatenate([a, b]))
    info = v.get_grid_info()
    assert (info.name, info.grid_index, info.grid_count, info.type_str) == ("a", 0, 2, "float")
    w = v.load_next_grid()
    assert w.id == v.id + a.size and w.get_grid_info()[:5] == ("b", b.size, 1, 2, "OnIndex")
    assert w.is_index and w.get_voxel_count() == 3 and w.load_next_grid() is None
    with pytest.raises(RuntimeError, match="already been created for this grid"):
        v.load_next_grid()  # w aliases that grid
    with pytest.raises(RuntimeError, match="Saving of aliased Volumes is not supported"):
        w.save_to_nvdb(tmp_path / "no.nvdb")
    assert not (tmp_path / "no.nvdb").exists()
    del w
    assert v.load_next_grid().get_grid_info().name == "b"  # the alias is gone: allowed again


@pytest.mark.parametrize("codec", CODECS)
def test_save_to_nvdb_round_trips_every_grid(tmp_path, codec):
    a, b = _two_grids()
    v = wp.Volume(wp.array(np.concatenate([a, b]), dtype=wp.uint8))
    assert v.save_to_nvdb(tmp_path / "x.nvdb", codec=codec) == tmp_path / "x.nvdb"
    back = wp.Volume.load_from_nvdb(open(tmp_path / "x.nvdb", "rb").read())
    np.testing.assert_array_equal(back.array().numpy(), np.concatenate([a, b]))
    with pytest.raises(RuntimeError, match="Unsupported codec requested: lz4"):
        v.save_to_nvdb(tmp_path / "y.nvdb", codec="lz4")
    assert not (tmp_path / "y.nvdb").exists()


@wp.kernel
def _lookup(vid: wp.uint64, out: wp.array(dtype=float)):
    out[0] = wp.volume_lookup_f(vid, 1, 2, 3)
    out[1] = wp.volume_lookup_f(vid, 40, -9, 7)


def test_load_from_address_aliases_memory_it_does_not_own():
    keep = wp.array(_float_grid(), dtype=wp.uint8)
    v = wp.Volume.load_from_address(keep.ptr)  # the size from the grid's header
    assert v.id == keep.ptr and v.array().shape[0] == keep.shape[0]
    out = wp.zeros(2, dtype=float)
    wp.launch(_lookup, dim=1, inputs=[v.id, out])
    np.testing.assert_array_equal(out.numpy(), [1.5, -2.0])
    with pytest.raises(RuntimeError, match="already been created for this grid"):
        wp.Volume.load_from_address(keep.ptr)
    with pytest.raises(RuntimeError, match="Invalid grid buffer pointer"):
        wp.Volume.load_from_address(0)


def test_feature_arrays_view_the_blind_data():
    payload = np.arange(6, dtype=np.uint64)
    g = _with_feature(build_index_grid([[0, 0, 0]], transform=np.eye(3)), payload.tobytes(), b"ids", 8, 0)
    data = wp.array(g, dtype=wp.uint8)
    v = wp.Volume(data, copy=False)
    assert v.get_feature_array_count() == 1
    info = v.get_feature_array_info(0)
    assert (info.name, info.value_size, info.value_count, info.type_str) == ("ids", 8, 6, "?")
    np.testing.assert_array_equal(v.feature_array(0, dtype=wp.uint64).numpy(), payload)
    assert v.feature_array(0).dtype is wp.uint8 and v.feature_array(0).shape == (48,)  # unknown type: bytes
    with pytest.raises(RuntimeError, match="Cannot cast feature data of size 8 to array dtype"):
        v.feature_array(0, dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="Invalid feature array: index 1"):
        v.get_feature_array_info(1)
    # the metadata was taken when the volume was made: a later change of the aliased buffer does not reach it
    changed = g.copy()
    changed[g.size - 288 - 64 + 32] = ord("X")
    data.assign(changed)
    assert v.get_feature_array_info(0) == info
    floats = _with_feature(_float_grid(), np.ones(4, np.float32).tobytes(), b"w", 4, L.GRID_TYPE_FLOAT)
    f = wp.Volume(wp.array(floats, dtype=wp.uint8))
    assert f.feature_array(0).dtype is wp.float32 and f.feature_array(0).numpy().tolist() == [1.0] * 4
    assert wp.Volume(wp.array(_float_grid(), dtype=wp.uint8)).get_feature_array_count() == 0


def test_a_feature_range_outside_the_grid_is_refused():
    g = _with_feature(build_index_grid([[0, 0, 0]], transform=np.eye(3)), bytes(16), b"x", 8, 0)
    meta = struct.unpack_from("<q", g, L.GRID_OFF_BLIND_METADATA_OFFSET)[0]
    struct.pack_into("<Q", g, meta + 8, 10**6)
    with pytest.raises(RuntimeError, match="Failed to create volume from input array: blind data 0"):
        wp.Volume(wp.array(g, dtype=wp.uint8))


def test_del_of_a_volume_never_initialised_is_harmless():
    v = wp.Volume.__new__(wp.Volume)
    v.__del__()
    assert v.id == 0


def test_a_volume_without_a_grid_refuses_with_runtime_errors():
    v = wp.Volume.__new__(wp.Volume)
    with pytest.raises(RuntimeError, match="Invalid feature array: the volume holds no grid"):
        v.get_feature_array_info(0)
    for call in (v.get_grid_info, v.get_tiles, v.get_voxel_count, v.get_active_stats):
        with pytest.raises(RuntimeError, match="Invalid Volume: it holds no grid"):
            call()
    assert wp.Volume._decode_nvdb_name(b"abc\0def") == "abc"
    with pytest.raises(RuntimeError, match="Invalid NanoVDB name"):
        wp.Volume._decode_nvdb_name(b"A" * 256)
    assert repr(v) == "Volume(no grid)"


def test_load_from_numpy_warns_when_an_int_background_truncates_float_values():
    """An int ``bg_value`` makes an int32 volume (Warp's rule): float data with fractions is truncated, so it
    warns, naming the float background to pass; integral float data and int data load without a word."""
    data = np.array([0.25, 1.75, -2.5, 3.0]).reshape(2, 2, 1)
    with pytest.warns(UserWarning, match=r"bg_value=0 \(an int\) makes an int32 volume, so the array's float64 "
                                         r"values are truncated to integers: pass bg_value=0.0 for a float32"):
        volume = wp.Volume.load_from_numpy(data, bg_value=0)
    assert volume.dtype is wp.int32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert wp.Volume.load_from_numpy(np.trunc(data), bg_value=0).dtype is wp.int32
        assert wp.Volume.load_from_numpy(data.astype(np.int64), bg_value=-1).dtype is wp.int32
        floats = wp.Volume.load_from_numpy(data, bg_value=0.0)
    assert floats.dtype is wp.float32

    @wp.kernel
    def read(vid: wp.uint64, out: wp.array(dtype=float)):
        out[0] = wp.volume_lookup_f(vid, 1, 0, 0)

    out = wp.zeros(1, dtype=float)
    wp.launch(read, 1, inputs=[floats.id, out])
    assert out.numpy()[0] == -2.5
