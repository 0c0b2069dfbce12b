"""Coordinates a volume cannot hold are refused with a ValueError naming them: NaN or infinite corners,
translations and points, corners past int32's index space (the cast to int32 wrapped them into a volume of
other tiles, with only numpy's RuntimeWarning), and a transform that is not finite and invertible."""

import numpy as np
import pytest

import brickwork as wp


@pytest.mark.parametrize("lo, hi, kwargs, message", [
    ((0, 0, 0), (np.nan, 1, 1), {}, r"max must be 3 finite numbers, got \(nan, 1, 1\)"),
    ((0, 0, np.inf), (1, 1, 1), {}, r"min must be 3 finite numbers"),
    ((0, 0), (1, 1, 1), {}, r"min must be 3 finite numbers, got \(0, 0\)"),
    ((0, 0, 0), (3e9, 1, 1), {}, r"max \[3000000000.0, 1.0, 1.0\] is outside the index space a volume can hold"),
    ((-1e10, 0, 0), (0, 0, 0), {}, r"min \[-10000000000.0, 0.0, 0.0\] is outside the index space"),
    ((0, 0, 0), (1, 1, 1), {"points_in_world_space": True, "translation": (np.nan, 0, 0)},
     r"translation must be 3 finite numbers"),
    ((0, 0, 0), (1e30, 1, 1), {"points_in_world_space": True}, r"max \[1e\+30, 1.0, 1.0\] is outside the index"),
])
def test_allocate_refuses_corners_a_volume_cannot_hold(lo, hi, kwargs, message):
    with pytest.raises(ValueError, match=message):
        wp.Volume.allocate(lo, hi, 1.0, **kwargs)


def test_allocate_of_a_good_box_still_covers_its_tiles():
    v = wp.Volume.allocate((0, 0, 0), (15, 7, 7), 1.0, bg_value=2.0)
    assert v.get_tile_count() == 2 and v.get_voxel_count() == 2 * 512
    assert wp.Volume.allocate((20, 20, 20), (0, 0, 0), 1.0).get_tile_count() == 0  # an empty box: no tiles


@pytest.mark.parametrize("make", ["tiles", "voxels"])
def test_nan_points_are_refused_by_index(make):
    points = wp.array(np.array([[0.5, 0.5, 0.5], [np.nan, 0.0, 0.0]], dtype=np.float32), dtype=wp.vec3)
    build = wp.Volume.allocate_by_tiles if make == "tiles" else wp.Volume.allocate_by_voxels
    what = "tile_points" if make == "tiles" else "voxel_points"
    with pytest.raises(ValueError, match=rf"{what}\[1\] = \[nan, 0.0, 0.0\] is not a finite point"):
        build(points, voxel_size=1.0)


@pytest.mark.parametrize("transform", [np.zeros((3, 3)), np.diag([1.0, np.nan, 1.0]), np.diag([1.0, 1.0, 1e-320])])
def test_a_transform_that_is_not_finite_and_invertible_is_refused(transform):
    points = wp.array(np.array([[0.5, 0.5, 0.5]], dtype=np.float32), dtype=wp.vec3)
    with pytest.raises(ValueError, match="transform must be a finite, invertible 3x3 matrix"):
        wp.Volume.allocate_by_tiles(points, transform=transform)
