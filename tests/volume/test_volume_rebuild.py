"""Rebuildable volumes and point masks: capacities (defaults, Warp's errors), rebuilds in place (same id
and size, kernels see the new topology), status flags and the empty grid past the capacity, masks, and a
rebuild on a CUDA device with the fake driver."""

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp


@wp.kernel
def _probe(vid: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int)):
    t = wp.tid()
    out[t] = wp.volume_lookup_index(vid, ijk[t][0], ijk[t][1], ijk[t][2])
    if t == 0:
        out[ijk.shape[0]] = wp.volume_voxel_count(vid)


def _probe_volume(v, points):
    out = wp.zeros(len(points) + 1, dtype=int, device=v.device)
    wp.launch(_probe, dim=len(points), inputs=[v.id, wp.array(np.asarray(points, np.int32), dtype=wp.vec3i,
                                                                 device=v.device), out], device=v.device)
    return out.numpy()


def test_a_voxel_volume_rebuilds_in_place_and_kernels_see_the_new_voxels():
    status = wp.zeros(1, dtype=wp.uint32)
    v = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, max_active_voxels=4,
                                     max_leaf_nodes=4, status=status)
    assert v.is_rebuildable and v.get_rebuild_info() == wp.Volume.RebuildInfo("voxels", 4, 4, 4, 4)
    assert v.get_voxel_count() == 4 and v.get_active_stats() == wp.Volume.ActiveStats(1, 1, 1, 1)
    vid, size = v.id, v.get_grid_info().size_in_bytes
    mask = wp.array([1, 0, 1, 1], dtype=wp.int32)
    assert v.rebuild(wp.array([[1, 2, 3], [4, 5, 6], [300, 0, 0], [1, 2, 3]], dtype=wp.int32), status=status,
                     point_mask=mask) is status
    assert int(status.numpy()[0]) == wp.Volume.REBUILD_SUCCESS
    assert v.id == vid and v.get_grid_info().size_in_bytes == size
    assert v.get_active_stats() == wp.Volume.ActiveStats(2, 2, 2, 1)
    # (1, 2, 3) and (300, 0, 0) are voxels 0 and 1, (4, 5, 6) was masked, (0, 0, 0) is gone
    np.testing.assert_array_equal(_probe_volume(v, [[1, 2, 3], [300, 0, 0], [4, 5, 6], [0, 0, 0]]), [0, 1, -1, -1, 2])


def test_past_the_capacity_the_status_says_which_level_and_nothing_changes():
    status = wp.zeros(1, dtype=wp.uint32)
    v = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, rebuildable=True,
                                     status=status)  # defaults: the point count at every level
    assert v.get_rebuild_info() == wp.Volume.RebuildInfo("voxels", 1, 1, 1, 1)
    before = v.array().numpy().copy()
    v.rebuild(wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.int32), status=status)
    assert int(status.numpy()[0]) == wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED  # (Warp 1.19's flags)
    assert v.get_active_stats() == wp.Volume.ActiveStats(1, 1, 1, 1)
    np.testing.assert_array_equal(v.array().numpy(), before)
    np.testing.assert_array_equal(_probe_volume(v, [[0, 0, 0]]), [0, 1])
    v.rebuild(wp.array([[9, 9, 9], [1, 2, 3]], dtype=wp.int32), status=status)  # two leaves, two voxels
    assert int(status.numpy()[0]) == wp.Volume.REBUILD_LEAF_CAPACITY_EXCEEDED | \
        wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED
    # an allocation past its capacity makes an empty grid
    t = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0], [8, 0, 0], [4096, 0, 0]], dtype=wp.int32), voxel_size=1.0,
                                    bg_value=2.0, max_tiles=2, status=status)  # three tiles: 1536 voxels
    assert int(status.numpy()[0]) == wp.Volume.REBUILD_LEAF_CAPACITY_EXCEEDED | \
        wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED
    assert t.get_active_stats() == wp.Volume.ActiveStats(0, 0, 0, 0) and t.get_voxel_count() == 1024


@wp.kernel
def _fill(vid: wp.uint64, value: wp.vec3):
    wp.volume_store(vid, 1, 1, 1, value)


@wp.kernel
def _read(vid: wp.uint64, out: wp.array(dtype=wp.vec3)):
    out[0] = wp.volume_lookup(vid, 1, 1, 1, dtype=wp.vec3)
    out[1] = wp.volume_lookup(vid, 20, 1, 1, dtype=wp.vec3)


def test_a_tile_volume_keeps_its_type_and_background_through_a_rebuild():
    background = [1.0, 2.0, 3.0]
    v = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, bg_value=background,
                                    rebuildable=True, max_tiles=3)
    background[0] = 10.0  # the volume took the values
    wp.launch(_fill, dim=1, inputs=[v.id, wp.vec3(7.0, 7.0, 7.0)])
    v.rebuild(wp.array([[0, 0, 0], [16, 0, 0]], dtype=wp.int32))
    out = wp.zeros(2, dtype=wp.vec3)
    wp.launch(_read, dim=1, inputs=[v.id, out])
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3], [1, 2, 3]])  # stored values start at the background
    assert v.dtype is wp.vec3 and v.get_tile_count() == 3
    assert sorted(v.get_tiles().numpy().tolist()) == [[0, 0, 0], [16, 0, 0]]


def test_point_masks_of_exact_volumes_skip_points():
    pts = wp.array([[0, 0, 0], [8, 0, 0], [16, 0, 0]], dtype=wp.int32)
    t = wp.Volume.allocate_by_tiles(pts, voxel_size=1.0, bg_value=None, point_mask=wp.array([1, 0, 1], dtype=int))
    assert sorted(t.get_tiles().numpy().tolist()) == [[0, 0, 0], [16, 0, 0]] and not t.is_rebuildable
    none = wp.Volume.allocate_by_voxels(pts, voxel_size=1.0, point_mask=wp.zeros(3, dtype=int))
    assert none.get_voxel_count() == 0 and none.get_voxels().shape[0] == 0
    assert none.get_rebuild_info() == wp.Volume.RebuildInfo(None, 0, 0, 0, 0)


@pytest.mark.parametrize("call, error, message", [
    (lambda p: wp.Volume.allocate_by_voxels(p, voxel_size=1.0, max_active_voxels=0), ValueError,
     "max_active_voxels must be positive, got 0"),
    (lambda p: wp.Volume.allocate_by_tiles(p, voxel_size=1.0, max_tiles=2**32), ValueError,
     "max_tiles must fit in uint32"),
    (lambda p: wp.Volume.allocate_by_tiles(p, voxel_size=1.0, max_upper_nodes="x"), TypeError,
     "max_upper_nodes must be an integer"),
    (lambda p: wp.Volume.allocate_by_voxels(p, voxel_size=1.0, rebuildable=True, status=wp.zeros(1, dtype=int)),
     RuntimeError, "status must be a Warp array with dtype uint32"),
    (lambda p: wp.Volume.allocate_by_voxels(p, voxel_size=1.0, point_mask=wp.zeros(1, dtype=int)), RuntimeError,
     "point_mask must have at least 2 entries"),
    (lambda p: wp.Volume.allocate_by_voxels(p, voxel_size=1.0, point_mask=wp.zeros(2, dtype=float)), RuntimeError,
     "point_mask must be a contiguous 1D Warp array with dtype int32"),
    (lambda p: wp.Volume.allocate_by_voxels(p, voxel_size=1.0).rebuild(p), RuntimeError, "Volume is not rebuildable"),
])
def test_bad_capacities_statuses_and_masks_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call(wp.array([[0, 0, 0], [1, 1, 1]], dtype=wp.int32))


def test_a_refused_rebuild_changes_nothing():
    v = wp.Volume.allocate_by_voxels(wp.array([[3, 3, 3]], dtype=wp.int32), voxel_size=1.0, max_active_voxels=2)
    before = v.array().numpy().copy()
    with pytest.raises(RuntimeError, match="point_mask must have at least 1 entries"):
        v.rebuild(wp.array([[1, 1, 1]], dtype=wp.int32), point_mask=wp.zeros(0, dtype=int))
    np.testing.assert_array_equal(v.array().numpy(), before)


def test_a_rebuild_on_a_cuda_device_writes_the_device_buffer_in_place():
    with installed(FakeDriver()):
        status = wp.zeros(1, dtype=wp.uint32, device="cuda:0")
        v = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32, device="cuda:0"), voxel_size=1.0,
                                         device="cuda:0", max_active_voxels=3, status=status)
        vid = v.id
        v.rebuild(wp.array([[5, 5, 5], [9, 0, 0]], dtype=wp.int32, device="cuda:0"), status=status)
        assert v.id == vid and int(status.numpy()[0]) == wp.Volume.REBUILD_SUCCESS
        assert sorted(v.get_voxels().numpy().tolist()) == [[5, 5, 5], [9, 0, 0]]
        assert v.array().numpy().tobytes() == v._host.tobytes()  # the device buffer holds the new grid
