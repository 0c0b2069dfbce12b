"""Trees built with ``groups`` (wp.Bvh, wp.Mesh): each group's items form a subtree whose root
``bvh_get_group_root``/``mesh_get_group_root`` give, so a query from it finds that group's items only; Warp's
errors for bad groups, which change nothing."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.runtime.bvh import BvhError
from brickwork.runtime.mesh import MeshError


@wp.kernel
def _boxes_of_group(bvh: wp.uint64, groups: wp.array(dtype=int), roots: wp.array(dtype=int),
                    hits: wp.array2d(dtype=int)):
    t = wp.tid()
    root = wp.bvh_get_group_root(bvh, groups[t])
    roots[t] = root
    for item in wp.bvh_query_aabb(bvh, wp.vec3(-100.0), wp.vec3(100.0), root):
        hits[t, item] += 1


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda)])
def test_a_query_from_a_group_root_finds_that_group_and_an_unknown_group_the_whole_tree(target):
    rng = np.random.default_rng(2)
    lo = rng.uniform(0, 4, (80, 3)).astype(np.float32)
    groups = rng.choice(np.array([-7, 0, 3, 2**31 - 1], np.int32), 80)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 0.5, dtype=wp.vec3),
                 groups=wp.array(groups, dtype=wp.int32), leaf_size=2)
    asked = np.array([-7, 0, 3, 2**31 - 1, 5], np.int32)
    roots, hits = wp.zeros(5, dtype=int), wp.zeros((5, 80), dtype=int)
    with config.override(target=target):
        wp.launch(_boxes_of_group, 5, [bvh.id, wp.array(asked, dtype=int), roots, hits])
    h = hits.numpy()
    for row, group in enumerate(asked[:4]):
        np.testing.assert_array_equal(h[row], (groups == group).astype(int))
    np.testing.assert_array_equal(h[4], 1)  # group 5 is not in the tree: -1, the whole tree
    assert roots.numpy()[4] == -1 and (roots.numpy()[:4] > 0).all()


def test_a_rebuild_keeps_the_groups_and_a_refit_the_subtrees():
    lo = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], np.float32)
    lowers = wp.array(lo, dtype=wp.vec3)
    uppers = wp.array(lo + 0.5, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers, groups=wp.array(np.array([1, 0, 1, 0], np.int32), dtype=wp.int32))
    lowers.assign(lo[::-1].copy())
    uppers.assign(lo[::-1] + 0.5)
    for update in (bvh.refit, bvh.rebuild):
        update()
        roots, hits = wp.zeros(2, dtype=int), wp.zeros((2, 4), dtype=int)
        wp.launch(_boxes_of_group, 2, [bvh.id, wp.array(np.array([0, 1], np.int32), dtype=int), roots, hits])
        np.testing.assert_array_equal(hits.numpy(), [[0, 1, 0, 1], [1, 0, 1, 0]])


@wp.kernel
def _rays_of_group(mesh: wp.uint64, group: int, hit: wp.array(dtype=int), count: wp.array(dtype=int)):
    root = wp.mesh_get_group_root(mesh, group)
    start = wp.vec3(0.25, 0.25, 5.0)
    down = wp.vec3(0.0, 0.0, -1.0)
    q = wp.mesh_query_ray(mesh, start, down, 100.0, root)
    hit[0] = q.face
    count[0] = wp.mesh_query_ray_count_intersections(mesh, start, down, root)
    face = 0
    t = 0.0
    u = 0.0
    v = 0.0
    sign = 0.0
    n = wp.vec3()
    if wp.mesh_query_ray(mesh, start, down, 100.0, t, u, v, sign, n, face, root):
        hit[1] = face


def test_a_grouped_mesh_casts_rays_against_one_group():
    """Three stacked triangles, z = 2 (group 4), 1 (group 9), 0 (group 4)."""
    points = np.array([[0, 0, z] for z in (2, 1, 0) for _ in range(3)], np.float32)
    points[1::3, 0] = 1
    points[2::3, 1] = 1
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(np.arange(9, dtype=np.int32),
                   dtype=wp.int32), groups=wp.array(np.array([4, 9, 4], np.int32), dtype=wp.int32))
    for group, first, crossed in ((4, 0, 2), (9, 1, 1), (1, 0, 3)):
        hit, count = wp.zeros(2, dtype=int), wp.zeros(1, dtype=int)
        wp.launch(_rays_of_group, 1, [mesh.id, group, hit, count])
        np.testing.assert_array_equal(hit.numpy(), [first, first])
        assert count.numpy()[0] == crossed


def test_bad_groups_are_refused_with_warps_messages():
    lo = wp.zeros(3, dtype=wp.vec3)
    hi = wp.ones(3, dtype=wp.vec3)
    cases = [(wp.zeros(3, dtype=wp.float32), "groups should be a contiguous array of type wp.int32"),
             (wp.zeros(2, dtype=wp.int32), "groups must have the same length as lowers/uppers, got 2 for 3"),
             (wp.zeros(6, dtype=wp.int32)[::2], "groups should be a contiguous array of type wp.int32")]
    for groups, words in cases:
        with pytest.raises(BvhError, match=words):
            wp.Bvh(lo, hi, groups=groups)
    with pytest.raises(RuntimeError, match="Grouped BVHs are not supported by the cuBQL constructor"):
        wp.Bvh(lo, hi, constructor="cubql", groups=wp.zeros(3, dtype=wp.int32))
    points = wp.zeros(3, dtype=wp.vec3)
    indices = wp.array(np.arange(3, dtype=np.int32), dtype=wp.int32)
    with pytest.raises(MeshError, match=r"groups must have the same length as indices / 3, got 3 for 1"):
        wp.Mesh(points=points, indices=indices, groups=wp.zeros(3, dtype=wp.int32))
    np.testing.assert_array_equal(points.numpy(), 0)  # nothing changed
