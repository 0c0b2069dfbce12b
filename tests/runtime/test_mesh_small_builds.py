"""Small meshes on the CPU build and refit in few launches: the triangles' boxes by a kernel (numpy's min and max
over the corners, bit for bit), the refit (with the triangles' boxes) and the winding-number moments of a tree of
at most ``ONE_LAUNCH`` leaves in one launch each (the same records as the two-launch form, bit for bit), and the
tree build's per-level launches over tables wrapped once."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.runtime import bvh_refit, mesh_winding
from brickwork.runtime import launch as launch_module

from .test_mesh_winding import torus_mesh


def _tables(mesh) -> dict:
    return {name: np.asarray(t).copy() for name, t in mesh._storage.tables.items()}


def _build_and_refit(pts, tris, **kw) -> list:
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32), support_winding_number=True, **kw)
    states = [_tables(mesh)]
    points.assign(pts * np.float32(1.25) + np.float32(0.01) * np.sin(7 * pts))
    mesh.refit()
    states.append(_tables(mesh))
    mesh.points = wp.array(pts[:, ::-1].copy(), dtype=wp.vec3)  # every triangle mirrored
    states.append(_tables(mesh))
    return states


def _assert_same_bits(a: dict, b: dict):
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name].view(np.uint8), b[name].view(np.uint8), err_msg=name)


@pytest.mark.parametrize("constructor", ["sah", "median", "lbvh"])
@pytest.mark.parametrize("leaf_size", [1, 3])
def test_one_launch_gives_the_bounds_and_moments_of_the_two_launch_form(constructor, leaf_size, monkeypatch):
    pts, tris = torus_mesh()
    kw = {"bvh_constructor": constructor, "bvh_leaf_size": leaf_size}
    one = _build_and_refit(pts, tris, **kw)
    monkeypatch.setattr(mesh_winding, "ONE_LAUNCH", 0)
    monkeypatch.setattr(bvh_refit, "ONE_LAUNCH", 0)
    monkeypatch.setattr(bvh_refit, "MESH_ONE_LAUNCH", 0)
    two = _build_and_refit(pts, tris, **kw)
    for a, b in zip(one, two):
        _assert_same_bits(a, b)


def test_the_triangle_boxes_are_numpys_min_and_max_over_the_corners():
    rng = np.random.default_rng(4)
    pts = rng.normal(size=(60, 3)).astype(np.float32)
    pts[:8] = 0.0
    pts[4:8] = -0.0  # signed zeros tie: the fold keeps numpy's choice
    pts[10, 1] = np.nan  # a NaN corner makes its triangles' bounds NaN
    tris = rng.integers(0, 60, (200, 3)).astype(np.int32)
    tris[:20] = rng.integers(0, 8, (20, 3))
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    corners = pts[tris]
    for name, want in (("item_lowers", corners.min(axis=1)), ("item_uppers", corners.max(axis=1))):
        got = np.asarray(mesh._storage.tables[name])
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    moved = pts * np.float32(2)
    mesh.points = wp.array(moved, dtype=wp.vec3)
    np.testing.assert_array_equal(np.asarray(mesh._storage.tables["item_lowers"]).view(np.uint32),
                                  moved[tris].min(axis=1).view(np.uint32))


def test_a_small_meshs_refit_is_two_launches(monkeypatch):
    pts, tris = torus_mesh()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32),
                   support_winding_number=True)
    names = []
    real = launch_module.launch

    def counting(kernel, *args, **kwargs):
        names.append(kernel.key)
        return real(kernel, *args, **kwargs)

    monkeypatch.setattr(launch_module, "launch", counting)
    mesh.refit()
    # the indices' check, the triangles' boxes and the tree's bounds in one; the moments
    assert names == ["_mesh", "_whole"], names


@pytest.mark.parametrize("constructor", ["sah", "median", "lbvh"])
@pytest.mark.parametrize("nan", [False, True])
def test_a_refit_gives_numpys_bounds_bit_for_bit_with_signed_zeros_and_nans(constructor, nan):
    # the refit folds by `a < b`'s select unless a point is NaN, then by numpy's rule: the same bits either way
    rng = np.random.default_rng(5)
    pts = rng.normal(size=(300, 3)).astype(np.float32)
    tris = rng.integers(0, 300, (500, 3)).astype(np.int32)
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32), bvh_constructor=constructor)
    moved = np.round(pts * np.float32(2))  # ties between corners and between boxes
    moved[rng.random(moved.shape) < 0.3] = -0.0  # zeros of both signs tie: numpy keeps the second
    if nan:
        moved[[7, 150], [1, 2]] = np.nan
    points.assign(moved)
    mesh.refit()
    corners = moved[tris]
    want = mesh._tree.bounds(corners.min(axis=1), corners.max(axis=1))
    tables = mesh._storage.tables
    for got, expected in zip((tables["node_lowers"], tables["node_uppers"]), want):
        np.testing.assert_array_equal(np.asarray(got)[:, :3].view(np.uint32), expected.view(np.uint32))
    assert np.isnan(np.asarray(tables["node_lowers"])[0, :3]).any() == nan  # the root holds every triangle
