"""The compiled refit of CPU trees (runtime/bvh_refit.py) against the numpy bounds that device trees use
(``Tree.bounds``): NaN boxes, ties, leaf sizes, moved boxes; the node tables' child columns untouched."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp


def _tables(bvh):
    t = bvh._storage.tables
    return t["node_lowers"], t["node_uppers"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), leaf_size=st.integers(1, 5),
       nans=st.integers(0, 3), ties=st.booleans())
def test_a_refit_gives_the_bounds_of_a_new_build_over_the_moved_boxes(seed, n, leaf_size, nans, ties):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-5, 5, (n, 3)).astype(np.float32)
    if ties:
        lo = np.round(lo)  # equal bounds, and zeros of both signs below
        lo[rng.random((n, 3)) < 0.2] = -0.0
    hi = lo + rng.uniform(0, 1, (n, 3)).astype(np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers, leaf_size=leaf_size)
    node_lo, node_hi = _tables(bvh)
    children = (node_lo[:, 3].view(np.int32).copy(), node_hi[:, 3].view(np.int32).copy())
    moved_lo = lo + rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    moved_lo.reshape(-1)[rng.integers(0, 3 * n, nans)] = np.nan
    moved_hi = moved_lo + 0.5
    lowers.assign(moved_lo)
    uppers.assign(moved_hi)
    bvh.refit()
    want_lo, want_hi = bvh._tree.bounds(moved_lo, moved_hi)
    np.testing.assert_array_equal(node_lo[:, :3], want_lo)  # NaN where numpy has NaN
    np.testing.assert_array_equal(node_hi[:, :3], want_hi)
    np.testing.assert_array_equal(node_lo[:, 3].view(np.int32), children[0])
    np.testing.assert_array_equal(node_hi[:, 3].view(np.int32), children[1])
    np.testing.assert_array_equal(bvh._storage.tables["item_lowers"], moved_lo)


@wp.kernel
def overlaps(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, found: wp.array(dtype=int)):
    index = 0
    query = wp.bvh_query_aabb(bvh, lower, upper)
    while wp.bvh_query_next(query, index):
        found[index] = 1


def test_queries_after_a_refit_find_the_moved_boxes_and_a_tree_of_no_boxes_finds_none():
    lo = np.array([[0, 0, 0], [5, 5, 5], [9, 9, 9]], np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers)
    lowers.assign(lo[::-1].copy())
    uppers.assign(lo[::-1] + 1)
    bvh.refit()
    found = wp.zeros(3, dtype=int)
    wp.launch(overlaps, 1, inputs=[bvh.id, wp.vec3(8.5, 8.5, 8.5), wp.vec3(9.5, 9.5, 9.5), found])
    np.testing.assert_array_equal(found.numpy(), [1, 0, 0])  # box 0 moved to (9, 9, 9)
    empty = wp.Bvh(wp.zeros(0, dtype=wp.vec3), wp.zeros(0, dtype=wp.vec3))  # as Warp: a tree of no boxes
    empty.refit()
    none = wp.zeros(1, dtype=int)
    wp.launch(overlaps, 1, inputs=[empty.id, wp.vec3(-1e9, -1e9, -1e9), wp.vec3(1e9, 1e9, 1e9), none])
    assert empty._storage.descriptor["num_items"] == 0 and none.numpy()[0] == 0
