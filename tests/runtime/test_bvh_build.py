"""The compiled item order of a tree (runtime/bvh_build.py) against a numpy median split, node by node, for any
thread count: ties by item index, NaN centres last, -0 as 0, infinite extents."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime import bvh_build
from brickwork.runtime.bvh import Tree


def parallel_builds():
    """A tree's level-by-level launches may run on several threads for any number of items (by default one
    thread below ``bvh_build.PARALLEL_MIN``)."""
    return mock.patch.object(bvh_build, "PARALLEL_MIN", 0)


def _numpy_order(centers: np.ndarray, leaf_size: int, groups: np.ndarray | None = None) -> np.ndarray:
    """Each node of more than leaf_size items of one group sorted by (centre, item) along the longest axis of
    its centres' extent (numpy's argmax: the first NaN, else the first largest), its lower half the first
    child; a node of several groups sorted by (group, centre's x, item) and split between two halves of its
    groups."""
    c = bvh_build.centers32(centers)
    n = len(c)
    ids = np.unique(np.zeros(n, np.int32) if groups is None else groups)
    rank = np.searchsorted(ids, np.zeros(n, np.int32) if groups is None else groups)
    order = np.lexsort((np.arange(n), rank))
    nodes = [(0, n, 0, len(ids))]
    while nodes:
        children = []
        for s, e, ga, gb in nodes:
            items = order[s:e]
            if gb - ga > 1:
                order[s:e] = items[np.lexsort((items, c[items, 0], rank[items]))]
                gm = ga + (gb - ga) // 2
                mid = s + int((rank[items] < gm).sum())
                children += [(s, mid, ga, gm), (mid, e, gm, gb)]
            elif e - s > leaf_size:
                with np.errstate(invalid="ignore", over="ignore"):
                    extent = c[items].max(axis=0) - c[items].min(axis=0)
                order[s:e] = items[np.lexsort((items, c[items, int(np.argmax(extent))]))]
                mid = s + (e - s) // 2
                children += [(s, mid, ga, gb), (mid, e, ga, gb)]
        nodes = children
    return order


def _subtree_items(tree: Tree, node: int) -> list:
    if tree.lo_i[node] < 0:
        return sorted(tree.order[-(tree.lo_i[node] + 1):tree.hi_i[node]])
    return sorted(_subtree_items(tree, tree.lo_i[node]) + _subtree_items(tree, tree.hi_i[node]))


special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-45])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 400), leaf_size=st.integers(1, 5),
       threads=st.integers(1, 5), ties=st.booleans(), specials=st.lists(special, max_size=8))
def test_the_compiled_order_is_numpys_median_split_for_any_thread_count(seed, n, leaf_size, threads, ties,
                                                                         specials):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-5, 5, (n, 3))
    if ties:
        centers = np.round(centers)  # equal centres, split by item index
    if n:
        centers.reshape(-1)[rng.integers(0, 3 * n, len(specials))] = specials
    with config.override(num_threads=threads, parallel_threshold=1), parallel_builds():  # even for few items
        tree = Tree(centers, leaf_size)
    np.testing.assert_array_equal(tree.order, _numpy_order(centers, leaf_size))
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.sum() == n and (n == 0 or sizes.max() <= leaf_size)


def test_a_large_tree_on_two_threads_is_the_one_thread_tree_and_numpys():
    rng = np.random.default_rng(7)
    centers = rng.random((20_000, 3)).astype(np.float32)
    centers[::5, 1] = 0.5  # ties along one axis
    with config.override(num_threads=2), parallel_builds():
        two = Tree(centers, 2).order
    with config.override(num_threads=1):
        one = Tree(centers, 2).order
    np.testing.assert_array_equal(two, one)
    np.testing.assert_array_equal(two, _numpy_order(centers, 2))


def test_a_rebuild_queries_the_moved_boxes():
    lo = np.array([[0, 0, 0], [5, 5, 5], [9, 9, 9], [2, 7, 1]], np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers, constructor="median")
    moved = lo[[3, 2, 1, 0]].copy()
    lowers.assign(moved)
    uppers.assign(moved + 1)
    bvh.rebuild()
    np.testing.assert_array_equal(bvh._tree.order, _numpy_order((moved + moved + 1) * 0.5, 1))
    node_lo = bvh._storage.tables["node_lowers"]
    np.testing.assert_array_equal(node_lo[0, :3], moved.min(axis=0))  # the root's bounds after the build


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 200), leaf_size=st.integers(1, 4),
       threads=st.integers(1, 3), group_ids=st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=9))
def test_a_grouped_tree_is_numpys_and_each_group_is_the_subtree_of_its_root(seed, n, leaf_size, threads,
                                                                            group_ids):
    rng = np.random.default_rng(seed)
    centers = np.round(rng.uniform(-5, 5, (n, 3)), 1)
    groups = rng.choice(np.array(group_ids, np.int32), n).astype(np.int32)
    with config.override(num_threads=threads, parallel_threshold=1), parallel_builds():
        tree = Tree(centers, leaf_size, groups)
    np.testing.assert_array_equal(tree.order, _numpy_order(centers, leaf_size, groups))
    np.testing.assert_array_equal(tree.group_ids, np.unique(groups))
    for group, root in zip(tree.group_ids, tree.group_roots):
        assert _subtree_items(tree, root) == list(np.flatnonzero(groups == group))
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.sum() == n and (n == 0 or sizes.max() <= leaf_size)
