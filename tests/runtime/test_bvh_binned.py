"""The SAH tree of one group (runtime/bvh_binned.py: binned along the longest axis, partitioned in place, in one
launch): against a numpy build of the same rule node by node (NaN and infinite bounds, ties, leaf sizes, depth
budgets), its SAH cost against the three-axis tree's (``bvh.Tree``, still the grouped tree's), and ``shape_tree``
taking it for every SAH tree without groups, whatever the number of threads."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime import bvh, bvh_binned, bvh_sah

from .test_bvh_sah import _area, _data, sah_cost, skewed_mesh

special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-45])


def _centres(lo, hi):
    with np.errstate(invalid="ignore", over="ignore"):
        return ((lo.astype(np.float64) + hi) * 0.5).astype(np.float32)


def _choose(c, lo, hi, budget):
    """The first bin of the second child and each item's bin, or None (the rule of bvh_binned's docstring)."""
    count = len(c)
    with np.errstate(invalid="ignore", over="ignore"):
        low = np.where(np.isnan(c), np.inf, c).min(axis=0).astype(np.float32)
        high = np.where(np.isnan(c), -np.inf, c).max(axis=0).astype(np.float32)
        extent = high - low
    axis, best_extent = -1, np.float32(0)
    for a in range(3):
        if np.isfinite(extent[a]) and extent[a] > best_extent:
            axis, best_extent = a, extent[a]
    if axis < 0:
        return None
    nb = min(count, bvh_binned.BINS)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scale = np.float32(nb) / best_extent
        if not np.isfinite(scale):
            return None
        x = (c[:, axis] - low[axis]) * scale
    top = nb - 1
    bins = np.full(count, top)
    below_top = x < top
    bins[below_top] = np.maximum(x[below_top].astype(np.int64), 0)
    box_lo, box_hi = np.full((nb, 3), np.inf, np.float32), np.full((nb, 3), -np.inf, np.float32)
    for k in range(count):  # NaN bounds leave a bin's box as it was
        b = bins[k]
        box_lo[b] = np.where(lo[k] < box_lo[b], lo[k], box_lo[b])
        box_hi[b] = np.where(hi[k] > box_hi[b], hi[k], box_hi[b])
    counts = np.bincount(bins, minlength=nb)
    best, split = 1e300, None
    with np.errstate(invalid="ignore", over="ignore"):
        for b in range(top, 0, -1):  # ties: the first boundary
            before, above = counts[:b].sum(), counts[b:].sum()
            if 0 < above <= budget and 0 < before <= budget:
                cost = (_area(box_lo[:b].min(axis=0), box_hi[:b].max(axis=0)) * float(before)
                        + _area(box_lo[b:].min(axis=0), box_hi[b:].max(axis=0)) * float(above))
                if cost <= best:
                    best, split = cost, b
    return None if split is None else (split, bins)


def _numpy_binned(lo, hi, leaf_size):
    """The item order, and each node's (first, last) as the kernels write them, level by level."""
    n = len(lo)
    order, c = np.arange(n), _centres(lo, hi)
    first, last, level, begin, end = [0], [n], 0, 0, 1
    while begin < end:
        budget = min(leaf_size * 2 ** max(bvh_sah.MAX_DEPTH - 1 - level, 0), 2**31 - 1)
        for node in range(begin, end):
            s, e = first[node], last[node]
            if e - s <= leaf_size:
                first[node] = -(s + 1)
                continue
            items = order[s:e]
            found = _choose(c[items], lo[items], hi[items], budget)
            mid = s + (e - s) // 2
            if found is not None:  # the kernel's in-place partition, swap for swap
                split, bins = found
                i, j = 0, len(items) - 1
                while i <= j:
                    if bins[i] < split:
                        i += 1
                    else:
                        items[[i, j]], bins[[i, j]] = items[[j, i]], bins[[j, i]]
                        j -= 1
                order[s:e], mid = items, s + i
            first[node], last[node] = len(first), len(first) + 1
            first += [s, mid]
            last += [mid, e]
        level, begin, end = level + 1, end, len(first)
    return order, np.array(first), np.array(last)


def _boxes(kind, seed, n, specials):
    rng = np.random.default_rng(seed)
    lo, hi = _data(kind, rng, n)
    if n:
        lo.reshape(-1)[rng.integers(0, 3 * n, len(specials))] = specials
    return lo, hi


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), leaf_size=st.integers(1, 4),
       kind=st.sampled_from(["uniform", "clustered", "skewed", "ties"]), specials=st.lists(special, max_size=6))
def test_the_binned_tree_is_numpys_node_for_node(seed, n, leaf_size, kind, specials):
    lo, hi = _boxes(kind, seed, n, specials)
    if n <= leaf_size:
        return
    first, last, parents, order, ranges = bvh_binned.shape(lo, hi, leaf_size)
    want_order, want_first, want_last = _numpy_binned(lo, hi, leaf_size)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(first, want_first)
    np.testing.assert_array_equal(last, want_last)
    tree = bvh.Tree.from_levels(first, last, parents, order, len(ranges) - 1, ranges)
    assert tree.max_depth <= bvh_sah.MAX_DEPTH
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.sum() == n and sizes.max() <= leaf_size
    inner = np.flatnonzero(tree.lo_i >= 0)
    np.testing.assert_array_equal(tree.parents[tree.lo_i[inner]], inner)
    np.testing.assert_array_equal(tree.hi_i[inner], tree.lo_i[inner] + 1)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), leaf_size=st.integers(1, 4),
       kind=st.sampled_from(["uniform", "ties"]), specials=st.lists(special, max_size=6), mesh=st.booleans())
def test_the_builds_tables_are_the_numpy_bounds_bit_for_bit(seed, n, leaf_size, kind, specials, mesh):
    # the build writes the item boxes (a mesh's: numpy's min and max over each triangle's corners) and the node
    # bounds (numpy's minimum/maximum over each node's items, NaN wins) in its launch; the fourth word of each node
    # is its first (last)
    lo, hi = _boxes(kind, seed, n, specials)
    if n <= leaf_size:
        return
    if mesh:  # n triangles over corner points lo, hi and their mean
        rng = np.random.default_rng(seed)
        pts = np.concatenate([lo, hi, (lo + hi) * np.float32(0.5)])
        tris = rng.integers(0, len(pts), (n, 3)).astype(np.int32)
        built = bvh_binned.build(n, leaf_size, points=wp.array(pts, dtype=wp.vec3),
                                 indices=wp.array(tris.reshape(-1), dtype=wp.int32))
        lo, hi = pts[tris].min(axis=1), pts[tris].max(axis=1)
    else:
        built = bvh_binned.build(n, leaf_size, lo, hi)
    np.testing.assert_array_equal(built.item_lowers.view(np.uint32), lo.view(np.uint32))
    np.testing.assert_array_equal(built.item_uppers.view(np.uint32), hi.view(np.uint32))
    np.testing.assert_array_equal(built.order, bvh_binned.shape(lo, hi, leaf_size)[3])
    tree = bvh.Tree.from_levels(built.first, built.last, built.parents, built.order, 0, built.ranges)
    want_lo, want_hi = tree.bounds(lo, hi)
    np.testing.assert_array_equal(built.node_lowers[:, :3].view(np.uint32), want_lo.view(np.uint32))
    np.testing.assert_array_equal(built.node_uppers[:, :3].view(np.uint32), want_hi.view(np.uint32))
    np.testing.assert_array_equal(built.node_lowers[:, 3].view(np.int32), built.first)
    np.testing.assert_array_equal(built.node_uppers[:, 3].view(np.int32), built.last)


@pytest.mark.parametrize("kind", ["uniform", "clustered", "skewed"])
def test_the_binned_tree_costs_about_what_the_three_axis_tree_costs(kind):
    lo, hi = _data(kind, np.random.default_rng(3), 5000)
    centres = _centres(lo, hi).astype(np.float64)
    three_axes = sah_cost(bvh.Tree(centres, 1, None, (lo, hi)), lo, hi)
    binned = sah_cost(bvh.shape_tree(centres, 1, None, (lo, hi)), lo, hi)
    assert binned < 1.1 * three_axes, (binned, three_axes)


def test_a_skewed_mesh_costs_about_what_the_three_axis_tree_costs():
    pts, tris = skewed_mesh()
    corners = pts[tris]
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    three_axes = sah_cost(bvh.Tree(_centres(lo, hi).astype(np.float64), 1, None, (lo, hi)), lo, hi)
    assert sah_cost(mesh._tree, lo, hi) < 1.1 * three_axes


@pytest.mark.parametrize("threads", [1, 2])
def test_shape_tree_builds_every_sah_tree_without_groups_binned(threads, monkeypatch):
    lo, hi = _data("uniform", np.random.default_rng(8), 3000)
    centres = _centres(lo, hi).astype(np.float64)
    monkeypatch.setattr(bvh.bvh_build, "PARALLEL_MIN", 100)  # the three-axis tree would be built level by level
    with config.override(num_threads=threads):
        tree = bvh.shape_tree(centres, 2, None, (lo, hi))
    np.testing.assert_array_equal(tree.order, _numpy_binned(lo, hi, 2)[0])


@pytest.mark.parametrize("build", [bvh_binned.build, "linear"])
def test_a_build_on_the_scratch_tables_of_the_last_build_of_its_size_gives_its_own_tree(monkeypatch, build):
    """A build of at most ``KEEP_ITEMS`` items leaves its scratch tables to the next of its size: a build over
    other boxes there gives the tables it gives on new ones, and the first build's tree is unchanged (a copy)."""
    from brickwork.runtime import bvh_linear

    build = bvh_linear.build if build == "linear" else build
    rng = np.random.default_rng(5)
    boxes = [rng.uniform(-5, 5, (300, 3)).astype(np.float32) for _ in range(2)]
    first = build(300, 2, boxes[0], boxes[0] + 1)
    kept = [t.copy() for _, t in sorted((name, v[0]) for name, v in first.tables.items())]
    assert bvh_binned._KEPT  # left for the next build of 300 items
    second = build(300, 2, boxes[1], boxes[1] + 1)
    monkeypatch.setattr(bvh_binned, "_KEPT", {})
    fresh = build(300, 2, boxes[1], boxes[1] + 1)  # on new tables
    for name in fresh.tables:
        np.testing.assert_array_equal(second.tables[name][0].view(np.uint8), fresh.tables[name][0].view(np.uint8))
    for want, (_, got) in zip(kept, sorted((name, v[0]) for name, v in first.tables.items())):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert second.ranges == fresh.ranges
    monkeypatch.setattr(bvh_binned, "KEEP_ITEMS", 100)
    monkeypatch.setattr(bvh_binned, "_KEPT", {})
    build(300, 2, boxes[0], boxes[0] + 1)
    assert bvh_binned._KEPT == {}  # more than KEEP_ITEMS items: nothing kept
