"""A median tree of one group shaped in one launch (runtime/bvh_whole.py) is the level-by-level tree (``bvh.Tree``,
itself checked against numpy in test_bvh_build.py), node for node; the item lists' one-launch sort is numpy's
stable argsort; ``shape_tree`` takes the one-launch form on one thread or for trees of at most
``bvh_build.PARALLEL_MIN`` items, and the level-by-level one otherwise."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime import bvh, bvh_build, bvh_refit, bvh_whole, mesh_winding

special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-45])


def _boxes(seed: int, n: int, ties: bool, specials: list) -> tuple:
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-5, 5, (n, 3))
    if ties:
        lo = np.round(lo)  # equal centres, split by item index
    if n:
        lo.reshape(-1)[rng.integers(0, 3 * n, len(specials))] = specials
    lo = lo.astype(np.float32)
    hi = lo + rng.uniform(0, 0.5, (n, 3)).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        return lo, hi, (lo.astype(np.float64) + hi) * 0.5


def _whole(centers, leaf_size: int) -> bvh.Tree:
    first, last, parents, order, ranges = bvh_whole.shape(bvh_build.ItemLists(centers), leaf_size)
    return bvh.Tree.from_levels(first, last, parents, order, len(ranges) - 1, ranges)


def _assert_same_tree(a: bvh.Tree, b: bvh.Tree) -> None:
    assert a.num_nodes == b.num_nodes and a.max_depth == b.max_depth
    for name in ("lo_i", "hi_i", "parents", "order", "leaves", "leaf_starts"):
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)
    assert len(a.levels) == len(b.levels)
    for (ids_a, split_a), (ids_b, split_b) in zip(a.levels, b.levels):
        np.testing.assert_array_equal(ids_a, ids_b)
        np.testing.assert_array_equal(split_a, split_b)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), leaf_size=st.integers(1, 5), ties=st.booleans(),
       specials=st.lists(special, max_size=8))
def test_the_one_launch_tree_is_the_level_by_level_tree(seed, n, leaf_size, ties, specials):
    _, _, centers = _boxes(seed, n, ties, specials)
    if n <= leaf_size:
        return
    _assert_same_tree(_whole(centers, leaf_size), bvh.Tree(centers, leaf_size))


def test_a_large_tree_is_the_same_in_one_launch():
    rng = np.random.default_rng(3)
    n = 40_000
    lo = rng.random((n, 3), dtype=np.float32)
    lo[::7, 0] = 0.5  # ties along one axis
    hi = lo + rng.random((n, 3), dtype=np.float32) * np.float32(0.01)
    centers = (lo.astype(np.float64) + hi) * 0.5
    _assert_same_tree(_whole(centers, 2), bvh.Tree(centers, 2))


def test_the_one_launch_sort_is_numpys_stable_argsort_of_the_keys():
    rng = np.random.default_rng(2)
    for n in (1, 2, 255, 257, 5000):
        c = rng.normal(size=(n, 3))
        c[::3] = np.round(c[::3])  # ties
        c[::11, 1], c[::13, 2], c[::17, 0], c[::19, 0] = np.nan, -0.0, np.inf, -np.inf
        _, keys, lists = bvh_build.ItemLists(c).lists()
        for a in range(3):
            np.testing.assert_array_equal(lists[a], np.argsort(keys[a].view(np.uint32), kind="stable"))


def _shaped_by(n: int, threads: int, parallel_min: int) -> tuple:
    """Which form ``shape_tree`` took for the median tree of ``n`` random boxes, and the tree."""
    lo, hi, centers = _boxes(9, n, False, [])
    with config.override(num_threads=threads, parallel_threshold=1, adaptive_threads=False), \
            mock.patch.object(bvh_build, "PARALLEL_MIN", parallel_min), \
            mock.patch.object(bvh_whole, "shape", wraps=bvh_whole.shape) as one_launch:
        tree = bvh.shape_tree(centers, 1, None, None)  # a SAH tree without groups is bvh_binned's, in one launch
    return one_launch.called, tree


def test_shape_tree_builds_in_one_launch_on_one_thread_or_below_parallel_min():
    assert _shaped_by(500, 1, 100)[0]  # one thread: always
    assert _shaped_by(500, 2, 500)[0]  # two threads, at most PARALLEL_MIN items
    by_levels, tree = _shaped_by(500, 2, 499)  # more: each level's nodes on the threads
    assert not by_levels
    _assert_same_tree(tree, _shaped_by(500, 1, 499)[1])


def test_a_grouped_tree_and_a_tree_of_one_leaf_are_built_level_by_level():
    lo, hi, centers = _boxes(4, 40, False, [])
    with mock.patch.object(bvh_whole, "shape") as one_launch:
        grouped = bvh.shape_tree(centers, 1, np.arange(40, dtype=np.int32) % 3, (lo, hi))
        leaf = bvh.shape_tree(centers, 40, None, (lo, hi))
    assert not one_launch.called
    assert len(grouped.group_ids) == 3 and leaf.num_nodes == 1


@pytest.mark.parametrize("constructor", ["sah", "median"])
def test_a_bvh_built_in_one_launch_finds_what_brute_force_finds(constructor):
    lo, hi, _ = _boxes(11, 3000, True, [])
    tree = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor=constructor)
    q_lo = np.array([[-1, -2, 0], [2, 2, 2], [-6, -6, -6]], np.float32)
    q_hi = q_lo + np.array([[1.5, 1, 2], [0.5, 0.5, 0.5], [12, 12, 12]], np.float32)
    found = _query_boxes(tree.id, q_lo, q_hi, len(lo))
    for k in range(len(q_lo)):
        expected = np.all((lo <= q_hi[k]) & (hi >= q_lo[k]), axis=1)
        np.testing.assert_array_equal(found[k], expected)


@wp.kernel
def _query(bvh_id: wp.uint64, q_lo: wp.array(dtype=wp.vec3), q_hi: wp.array(dtype=wp.vec3),
           hits: wp.array2d(dtype=wp.int32)):
    k = wp.tid()
    query = wp.bvh_query_aabb(bvh_id, q_lo[k], q_hi[k])
    item = wp.int32(0)
    while wp.bvh_query_next(query, item):
        hits[k, item] = 1


def _query_boxes(bvh_id, q_lo, q_hi, n: int) -> np.ndarray:
    hits = wp.zeros((len(q_lo), n), dtype=wp.int32)
    wp.launch(_query, len(q_lo), [bvh_id, wp.array(q_lo, dtype=wp.vec3), wp.array(q_hi, dtype=wp.vec3), hits])
    return hits.numpy().astype(bool)


def test_over_parallel_min_a_mesh_builds_on_two_threads_to_the_same_tables(monkeypatch):
    # with PARALLEL_MIN 0 every launch of the build may run on two threads (the three lists' sort, the triangle
    # boxes, the refit's and the moments' leaves, the tree level by level): the same tables, bit for bit
    rng = np.random.default_rng(6)
    pts = rng.normal(size=(300, 3)).astype(np.float32)
    tris = rng.integers(0, 300, (700, 3)).astype(np.int32)

    def tables():
        mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32),
                       support_winding_number=True)
        return {name: np.asarray(t).copy() for name, t in mesh._storage.tables.items()}

    serial = tables()
    with config.override(num_threads=2, parallel_threshold=1):
        monkeypatch.setattr(bvh_build, "PARALLEL_MIN", 0)
        monkeypatch.setattr(bvh_refit, "ONE_LAUNCH", 0)
        monkeypatch.setattr(bvh_refit, "MESH_ONE_LAUNCH", 0)
        monkeypatch.setattr(mesh_winding, "ONE_LAUNCH", 0)
        parallel = tables()
        _, keys, lists = bvh_build.ItemLists(pts.astype(np.float64)).lists()  # the sort on three threads
    assert serial.keys() == parallel.keys()
    for name in serial:
        np.testing.assert_array_equal(serial[name].view(np.uint8), parallel[name].view(np.uint8), err_msg=name)
    for a in range(3):
        np.testing.assert_array_equal(lists[a], np.argsort(keys[a].view(np.uint32), kind="stable"))
