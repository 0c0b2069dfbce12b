"""The lbvh tree in one launch on one thread (runtime/bvh_linear.py) is ``bvh_lbvh``'s tree of many launches
(``bvh.linear_tree``, itself checked against a numpy radix tree in test_bvh_lbvh.py), node for node, with the item
boxes (a mesh's: numpy's min and max over each triangle's corners) and the node bounds of numpy's minimum and
maximum, bit for bit; a CPU tree of at most ``bvh.LINEAR_MAX`` items takes it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.runtime import bvh, bvh_linear

from .test_bvh_sah import _data

special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-45])


def _boxes(kind: str, seed: int, n: int, specials: list) -> tuple:
    rng = np.random.default_rng(seed)
    lo, hi = _data(kind, rng, n)
    lo.reshape(-1)[rng.integers(0, 3 * n, len(specials))] = specials
    return lo, hi


def _assert_built_is(built, tree, lo, hi) -> None:
    np.testing.assert_array_equal(built.first, tree.lo_i)
    np.testing.assert_array_equal(built.last, tree.hi_i)
    np.testing.assert_array_equal(built.parents, tree.parents)
    np.testing.assert_array_equal(built.order, tree.order)
    assert built.ranges == tree._ranges and len(built.ranges) - 1 == tree.max_depth
    np.testing.assert_array_equal(built.item_lowers.view(np.uint32), lo.view(np.uint32))
    np.testing.assert_array_equal(built.item_uppers.view(np.uint32), hi.view(np.uint32))
    want_lo, want_hi = tree.bounds(lo, hi)
    np.testing.assert_array_equal(built.node_lowers[:, :3].view(np.uint32), want_lo.view(np.uint32))
    np.testing.assert_array_equal(built.node_uppers[:, :3].view(np.uint32), want_hi.view(np.uint32))
    np.testing.assert_array_equal(built.node_lowers[:, 3].view(np.int32), tree.lo_i)
    np.testing.assert_array_equal(built.node_uppers[:, 3].view(np.int32), tree.hi_i)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), leaf_size=st.integers(1, 5),
       kind=st.sampled_from(["uniform", "clustered", "skewed", "ties"]), specials=st.lists(special, max_size=8))
def test_the_one_launch_lbvh_is_the_many_launch_tree_node_for_node(seed, n, leaf_size, kind, specials):
    lo, hi = _boxes(kind, seed, n, specials)
    _assert_built_is(bvh_linear.build(n, leaf_size, lo, hi), bvh.linear_tree(lo, hi, leaf_size), lo, hi)


@pytest.mark.parametrize("n, leaf_size", [(5000, 1), (5000, 4), (3000, 2**31)])
def test_a_larger_tree_with_equal_codes_is_the_same(n, leaf_size):
    rng = np.random.default_rng(n)
    lo = np.round(rng.random((n, 3), dtype=np.float32) * 50) / 50  # many equal codes: split by position
    hi = lo + np.float32(0.001)
    _assert_built_is(bvh_linear.build(n, leaf_size, lo, hi), bvh.linear_tree(lo, hi, leaf_size), lo, hi)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), leaf_size=st.integers(1, 4),
       specials=st.lists(special, max_size=4))
def test_a_meshs_triangles_give_the_tree_of_their_boxes(seed, n, leaf_size, specials):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(n + 2, 3)).astype(np.float32)
    pts.reshape(-1)[rng.integers(0, pts.size, len(specials))] = specials
    tris = rng.integers(0, n + 2, (n, 3)).astype(np.int32)
    built = bvh_linear.build(n, leaf_size, points=wp.array(pts, dtype=wp.vec3),
                             indices=wp.array(tris.reshape(-1), dtype=wp.int32))
    lo, hi = pts[tris].min(axis=1), pts[tris].max(axis=1)
    _assert_built_is(built, bvh.linear_tree(lo, hi, leaf_size), lo, hi)


@pytest.mark.parametrize("linear_max", [0, 10**6])
def test_a_cpu_lbvh_of_at_most_linear_max_items_is_built_in_one_launch(linear_max, monkeypatch):
    lo, hi = _data("uniform", np.random.default_rng(1), 700)
    monkeypatch.setattr(bvh, "LINEAR_MAX", linear_max)
    launched = []
    real = bvh_linear.launch_on_cpu
    monkeypatch.setattr(bvh_linear, "launch_on_cpu", lambda kernel, *args: launched.append(kernel) or real(kernel,
                                                                                                              *args))
    tree = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="lbvh", leaf_size=2)
    assert launched == ([bvh_linear._build] if linear_max else [])
    want = bvh.linear_tree(lo, hi, 2)
    np.testing.assert_array_equal(tree._tree.order, want.order)
    np.testing.assert_array_equal(tree._tree.lo_i, want.lo_i)
    want_lo, want_hi = want.bounds(lo, hi)
    np.testing.assert_array_equal(tree._storage.tables["node_lowers"][:, :3], want_lo)
    np.testing.assert_array_equal(tree._storage.tables["node_uppers"][:, :3], want_hi)
