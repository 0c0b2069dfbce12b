"""Volumes on a CUDA device with the fake driver (device memory is host memory there, launches are recorded):
the grid is built on the host and copied to the device once, its id is the device address, a launch passes
it; introspection, saving, aliasing and feature arrays work from the device buffer."""

import struct

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed
from tests.volume.test_volume_load import _with_feature

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.runtime.nanovdb import layout as L
from brickwork.runtime.nanovdb.build import build_grid, build_index_grid

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


def _device_bytes(fake, ptr, n):
    base = max(b for b in fake.memory if b <= ptr)
    return bytes(fake.memory[base][ptr - base:ptr - base + n])


@wp.kernel
def _sample(vid: wp.uint64, out: wp.array(dtype=float)):
    out[wp.tid()] = wp.volume_sample_f(vid, wp.vec3(1.5, 2.0, 3.0), wp.Volume.LINEAR)


@needs_nvrtc
def test_a_volume_on_a_cuda_device_is_its_grid_in_device_memory_and_a_launch_passes_its_id(tmp_path):
    data = np.arange(8 * 8 * 8, dtype=np.float32).reshape(8, 8, 8)
    host = wp.Volume.load_from_numpy(data, bg_value=-1.0)
    with installed(FakeDriver()) as fake:
        v = wp.Volume.load_from_numpy(data, bg_value=-1.0, device="cuda:0")
        grid = host.array().numpy()
        assert v.device == wp.get_device("cuda:0") and v.id == v.array().ptr
        assert _device_bytes(fake, v.id, grid.size) == grid.tobytes()
        assert v.get_grid_info() [:5] == host.get_grid_info()[:5] and v.get_tiles().device == v.device
        np.testing.assert_array_equal(v.get_voxels().numpy(), host.get_voxels().numpy())
        out = wp.zeros(4, dtype=float, device="cuda:0")
        wp.launch(_sample, dim=4, inputs=[v.id, out], device="cuda:0")
        params = fake.launches[-1][4]
        assert struct.pack("<Q", v.id) in params
        v.save_to_nvdb(tmp_path / "d.nvdb", codec="zip")  # from the device buffer
        back = wp.Volume.load_from_nvdb(open(tmp_path / "d.nvdb", "rb"))
        np.testing.assert_array_equal(back.array().numpy(), grid)


def test_device_aliasing_and_feature_arrays_read_device_memory():
    a = build_grid([[1, 2, 3]], [2.5], grid_type="float", background=0.0, transform=np.eye(3), name="a")
    b = build_index_grid([[0, 0, 0], [4, 4, 4]], transform=np.eye(3), name="b")
    for i, g in enumerate((a, b)):
        struct.pack_into("<II", g, L.GRID_OFF_GRID_INDEX, i, 2)
    with installed(FakeDriver()):
        v = wp.Volume(wp.array(np.concatenate([a, b]), dtype=wp.uint8, device="cuda:0"))
        w = v.load_next_grid()
        assert w.id == v.id + a.size and w.device == v.device and w.get_grid_info().name == "b"
        np.testing.assert_array_equal(w.array().numpy(), b)
        with pytest.raises(RuntimeError, match="load_from_address on cuda:0: .*Volume\\(array, copy=False\\)"):
            wp.Volume.load_from_address(v.id + 8, device="cuda:0")
        payload = np.arange(5, dtype=np.float32)
        f = wp.Volume(wp.array(_with_feature(a.copy(), payload.tobytes(), b"w", 4, L.GRID_TYPE_FLOAT), dtype=wp.uint8,
                               device="cuda:0"))
        feature = f.feature_array(0)
        assert feature.device == f.device and feature.ptr == f.get_feature_array_info(0).ptr
        np.testing.assert_array_equal(feature.numpy(), payload)
