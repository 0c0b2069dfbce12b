"""Volume construction and introspection: allocate/allocate_by_tiles/allocate_by_voxels, the tiles and voxels
they hold, index grids with values in arrays, voxel-size errors (Warp's types and words)."""

import numpy as np
import pytest

import brickwork as wp


def test_allocate_covers_the_box_with_whole_tiles_of_the_background_type():
    v = wp.Volume.allocate(min=[-11, -11, -11], max=[11, 11, 11], voxel_size=0.1, bg_value=1.5)
    assert v.get_grid_info().type_str == "float" and v.dtype is wp.float32
    tiles = v.get_tiles().numpy()
    assert len(tiles) == 64 and tiles.min() == -16 and tiles.max() == 8
    assert v.get_voxel_count() == 64 * 512 and v.get_voxels().numpy().shape == (64 * 512, 3)
    assert v.get_voxel_size() == pytest.approx((0.1, 0.1, 0.1))
    d = wp.Volume.allocate_by_tiles(wp.array(np.array([[0, 0, 0], [9, 1, 1]], np.int32)), voxel_size=1.0,
                                    bg_value=wp.vec4d(1.0, 2.0, 3.0, 4.0))
    assert d.get_grid_info().type_str == "Vec4d" and sorted(d.get_tiles().numpy().tolist()) == [[0, 0, 0], [8, 0, 0]]


@wp.kernel
def _index_sample(vid: wp.uint64, data: wp.array(dtype=float), out: wp.array(dtype=float), idx: wp.array(dtype=int)):
    out[0] = wp.volume_sample_index(vid, wp.vec3(0.5, 0.0, 0.0), wp.Volume.LINEAR, data, -1.0)
    g = wp.vec3(0.0)
    out[1] = wp.volume_sample_grad_index(vid, wp.vec3(0.25, 0.0, 0.0), wp.Volume.LINEAR, data, -1.0, g)
    out[2] = g[0]
    idx[0] = wp.volume_lookup_index(vid, 1, 0, 0)
    idx[1] = wp.volume_lookup_index(vid, 2, 0, 0)
    idx[2] = wp.volume_voxel_count(vid)


def test_an_index_grid_of_voxels_samples_values_kept_in_an_array():
    v = wp.Volume.allocate_by_voxels(wp.array(np.array([[0, 0, 0], [1, 0, 0]], np.int32), dtype=wp.vec3i),
                                     voxel_size=1.0)
    assert v.is_index and v.get_voxel_count() == 2
    np.testing.assert_array_equal(v.get_voxels().numpy(), [[0, 0, 0], [1, 0, 0]])
    data = wp.array(np.array([0.0, 10.0], np.float32))
    out, idx = wp.zeros(3, dtype=float), wp.zeros(3, dtype=int)
    wp.launch(_index_sample, dim=1, inputs=[v.id, data, out, idx])
    # (0.5, 0, 0): half of voxel 1, the rest voxels without data (the background -1) weighted 0 along y, z
    np.testing.assert_allclose(out.numpy(), [5.0, 2.5, 10.0])
    np.testing.assert_array_equal(idx.numpy(), [1, -1, 2])


@pytest.mark.parametrize("size, error", [(0.0, ValueError), (-0.1, ValueError), ((0.1, -0.2, 0.3), ValueError),
                                         (float("inf"), ValueError), ((0.1, 0.2), ValueError), (None, TypeError),
                                         ("0.5", TypeError)])
def test_bad_voxel_sizes_are_refused_with_warps_error_types(size, error):
    with pytest.raises(error, match="voxel_size"):
        wp.Volume.load_from_numpy(np.zeros((2, 2, 2), np.float32), (0, 0, 0), voxel_size=size, bg_value=0.0)


def test_a_buffer_that_is_not_a_grid_is_refused():
    with pytest.raises(RuntimeError, match="Failed to create volume from input array: magic 0x0+ is not a grid"):
        wp.Volume(wp.zeros(1000, dtype=wp.uint8))
    with pytest.raises(RuntimeError, match="uint8"):
        wp.Volume(wp.zeros(10, dtype=float))


def test_tiles_and_voxels_go_into_an_out_array_of_either_form():
    v = wp.Volume.allocate_by_voxels(wp.array(np.array([[0, 0, 0], [9, 0, 0]], np.int32)), voxel_size=1.0)
    rows = wp.full((3, 3), -9, dtype=wp.int32)
    assert v.get_voxels(out=rows) is rows
    np.testing.assert_array_equal(rows.numpy(), [[0, 0, 0], [9, 0, 0], [-9, -9, -9]])  # the rest left alone
    vecs = wp.zeros(2, dtype=wp.vec3i)
    np.testing.assert_array_equal(v.get_tiles(out=vecs).numpy(), [[0, 0, 0], [8, 0, 0]])
    with pytest.raises(RuntimeError, match="'out' array must an array with at least 2 rows on device cpu"):
        v.get_voxels(out=wp.zeros((1, 3), dtype=wp.int32))
    with pytest.raises(RuntimeError, match="'out' must be a contiguous 1D array with type vec3i or a 2D array"):
        v.get_voxels(out=wp.zeros((2, 3), dtype=float))
    np.testing.assert_array_equal(rows.numpy()[2], [-9, -9, -9])


def test_built_volumes_keep_the_header_a_full_check_reads():
    # the builders' volumes read their header only (their trees are trusted): the same GridInfo as Volume(array)
    from brickwork.runtime import volume_load

    pts = wp.array(np.array([[0, 0, 0], [100, -5, 9], [-5000, 0, 3]], np.int32), dtype=wp.vec3i)
    volumes = [wp.Volume.load_from_numpy(np.ones((9, 3, 17), np.float32), bg_value=2.0),
               wp.Volume.allocate_by_tiles(pts, voxel_size=0.5, bg_value=wp.vec3(1.0, 2.0, 3.0)),
               wp.Volume.allocate_by_voxels(pts, voxel_size=2.0, rebuildable=True),
               wp.Volume.allocate((0, 0, 0), (20, 3, 4), voxel_size=1.0, bg_value=None)]
    def same(a, b):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))

    for v in volumes:
        assert same(v.get_grid_info(), wp.Volume(v.array()).get_grid_info())
        full = volume_load.check_volume_buffer(v.array().numpy())
        assert same(list(vars(v._info).values()), list(vars(full).values()))
