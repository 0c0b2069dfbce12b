"""SAH trees (wp.Bvh(constructor="sah"), wp.Mesh(bvh_constructor="sah"), the CPU default): the compiled build
against a numpy binned SAH node by node (ties, NaN centres, depth budgets, groups, any thread count), queries against brute force on random, clustered and skewed data, the SAH cost against the
median tree's, the depth on adversarial data, and which constructor each call builds with."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime import bvh_sah
from brickwork.runtime.bvh import BvhError, Tree, shape_tree

from .test_bvh_build import _numpy_order, parallel_builds
from .test_bvh_mesh import _hits, _np_ray, _np_sphere, closest_on_triangles, moller_trumbore, ray_queries
from .test_mesh_query_forms import _capsule_hits, _grown_box_meets_segment

BINS, MAX_DEPTH = bvh_sah.BINS, bvh_sah.MAX_DEPTH


# -- a numpy binned SAH ---------------------------------------------------------------------------------
def _centers(lo, hi):
    return ((lo.astype(np.float64) + hi) * 0.5).astype(np.float32) + np.float32(0)


def _area(lo, hi):
    d = hi.astype(np.float64) - lo.astype(np.float64)
    return d[..., 0] * d[..., 1] + d[..., 1] * d[..., 2] + d[..., 2] * d[..., 0]


def _sah_split(items, c, lo, hi, budget):
    """The cheapest boundary between bins of the centres (between items for at most BINS items) along any axis
    whose larger side holds at most budget items (cost, then axis, then boundary), as (axis, boundary, items
    sorted along the axis), or None."""
    n = len(items)
    if n <= 2 or np.isnan(c[items]).any():
        return None
    best = None
    for a in range(3):
        srt = items[np.lexsort((items, c[items, a]))]
        ca = c[srt, a]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # infinite centres: inf - inf
            extent = np.float32(ca[-1] - ca[0])
            scale = np.float32(BINS) / extent
        if not (extent > 0 and np.isfinite(extent) and np.isfinite(scale)):
            continue
        bins = np.minimum(((ca - ca[0]) * scale).astype(np.int64), BINS - 1) if n > BINS else np.arange(n)
        before_lo, before_hi = np.minimum.accumulate(lo[srt]), np.maximum.accumulate(hi[srt])
        after_lo = np.minimum.accumulate(lo[srt][::-1])[::-1]
        after_hi = np.maximum.accumulate(hi[srt][::-1])[::-1]
        for p in np.flatnonzero(bins[1:] != bins[:-1]) + 1:
            with np.errstate(invalid="ignore", over="ignore"):
                cost = _area(before_lo[p - 1], before_hi[p - 1]) * p + _area(after_lo[p], after_hi[p]) * (n - p)
            if cost <= 1e300 and max(p, n - p) <= budget and (best is None or (cost, a, p) < best[:3]):
                best = (cost, a, p, srt)
    return None if best is None else best[1:]


def _numpy_sah(lo, hi, leaf_size, groups=None):
    """The item order and the (start, end, is_leaf) ranges of the nodes of a SAH tree over lo/hi, built node by
    node."""
    c = _centers(lo, hi)
    n = len(c)
    ids = np.unique(np.zeros(n, np.int32) if groups is None else groups)
    rank = np.searchsorted(ids, np.zeros(n, np.int32) if groups is None else groups)
    order = np.lexsort((np.arange(n), rank))
    nodes, ranges, depth = [(0, n, 0, len(ids), 0)], set(), 0
    while nodes:
        children = []
        for s, e, ga, gb, d in nodes:
            items = order[s:e]
            depth = max(depth, d)
            if gb - ga > 1:
                order[s:e] = items[np.lexsort((items, c[items, 0], rank[items]))]
                gm = ga + (gb - ga) // 2
                mid = s + int((rank[items] < gm).sum())
                children += [(s, mid, ga, gm, 0), (mid, e, gm, gb, 0)]
            elif e - s > leaf_size:
                split = _sah_split(items, c, lo, hi, leaf_size * 2 ** max(MAX_DEPTH - 1 - d, 0))
                if split is None:
                    with np.errstate(invalid="ignore", over="ignore"):
                        extent = c[items].max(axis=0) - c[items].min(axis=0)
                    order[s:e] = items[np.lexsort((items, c[items, int(np.argmax(extent))]))]
                    mid = s + (e - s) // 2
                else:
                    order[s:e], mid = split[2], s + split[1]
                children += [(s, mid, ga, gb, d + 1), (mid, e, ga, gb, d + 1)]
            ranges.add((s, e, not (gb - ga > 1 or e - s > leaf_size)))
        nodes = children
    return order, ranges, depth


def _ranges(tree: Tree) -> set:
    start, end = np.zeros(tree.num_nodes, np.int64), np.zeros(tree.num_nodes, np.int64)
    for node in range(tree.num_nodes - 1, -1, -1):  # children after their parents
        if tree.lo_i[node] < 0:
            start[node], end[node] = -(tree.lo_i[node] + 1), tree.hi_i[node]
        else:
            start[node], end[node] = start[tree.lo_i[node]], end[tree.hi_i[node]]
    return {(int(s), int(e), bool(leaf)) for s, e, leaf in zip(start, end, tree.lo_i < 0)}


def _sah_tree(lo, hi, leaf_size=1, groups=None):
    return Tree(_centers(lo, hi).astype(np.float64), leaf_size, groups, (lo, hi))


def _data(kind, rng, n):
    """Boxes (float32 lowers, uppers) of a kind: uniform, clustered, skewed sizes, equal centres."""
    if kind == "clustered":
        centres = rng.normal(size=(4, 3)) * 10
        lo = centres[rng.integers(0, 4, n)] + rng.normal(size=(n, 3)) * 0.2
        size = rng.random((n, 3)) * 0.1
    elif kind == "skewed":  # sizes over six orders of magnitude, a few huge boxes among tiny ones
        lo = rng.random((n, 3)) * 10
        size = 10.0 ** rng.uniform(-4, 1, (n, 1)) * rng.random((n, 3))
    elif kind == "ties":
        lo = np.round(rng.random((n, 3)) * 3)
        size = np.round(rng.random((n, 3)))
    else:
        lo = rng.random((n, 3)) * 5
        size = rng.random((n, 3)) * 0.5
    return lo.astype(np.float32), (lo + size).astype(np.float32)


special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-45])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), leaf_size=st.integers(1, 4),
       threads=st.integers(1, 3), kind=st.sampled_from(["uniform", "clustered", "skewed", "ties"]),
       specials=st.lists(special, max_size=6))
def test_the_compiled_sah_tree_is_numpys_binned_sah_for_any_thread_count(seed, n, leaf_size, threads, kind,
                                                                          specials):
    rng = np.random.default_rng(seed)
    lo, hi = _data(kind, rng, n)
    if n:
        lo.reshape(-1)[rng.integers(0, 3 * n, len(specials))] = specials
    with config.override(num_threads=threads, parallel_threshold=1), parallel_builds():
        tree = _sah_tree(lo, hi, leaf_size)
    order, ranges, depth = _numpy_sah(lo, hi, leaf_size)
    np.testing.assert_array_equal(tree.order, order)
    assert _ranges(tree) == ranges
    assert tree.max_depth == depth <= MAX_DEPTH
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.sum() == n and (n == 0 or sizes.max() <= leaf_size)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 200), leaf_size=st.integers(1, 3),
       threads=st.integers(1, 3), group_ids=st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=9))
def test_a_grouped_sah_tree_is_numpys_and_each_group_is_the_subtree_of_its_root(seed, n, leaf_size, threads,
                                                                                group_ids):
    rng = np.random.default_rng(seed)
    lo, hi = _data("skewed", rng, n)
    groups = rng.choice(np.array(group_ids, np.int32), n).astype(np.int32)
    with config.override(num_threads=threads, parallel_threshold=1), parallel_builds():
        tree = _sah_tree(lo, hi, leaf_size, groups)
    order, ranges, _ = _numpy_sah(lo, hi, leaf_size, groups)
    np.testing.assert_array_equal(tree.order, order)
    assert _ranges(tree) == ranges
    for group, root in zip(tree.group_ids, tree.group_roots):
        start, end, _ = next(r for r in _ranges_of(tree, root))
        assert sorted(tree.order[start:end]) == list(np.flatnonzero(groups == group))


def _ranges_of(tree, node):
    """The (start, end, is_leaf) of a node."""
    if tree.lo_i[node] < 0:
        yield int(-(tree.lo_i[node] + 1)), int(tree.hi_i[node]), True
    else:
        (s, _, _), (_, e, _) = next(_ranges_of(tree, tree.lo_i[node])), next(_ranges_of(tree, tree.hi_i[node]))
        yield s, e, False


def test_a_large_sah_tree_is_the_same_on_one_and_two_threads():
    rng = np.random.default_rng(5)
    n = 40_000
    lo = np.stack([(rng.permutation(n) * (10.0 / n)) ** 2 for _ in range(3)], 1).astype(np.float32)  # near 0
    hi = lo + (rng.random((n, 3)) * 1e-4).astype(np.float32)
    trees = []
    for threads in (1, 2):
        with config.override(num_threads=threads), parallel_builds():
            trees.append(_sah_tree(lo, hi, 2))
    np.testing.assert_array_equal(trees[0].order, trees[1].order)
    np.testing.assert_array_equal(trees[0].lo_i, trees[1].lo_i)
    np.testing.assert_array_equal(trees[0].hi_i, trees[1].hi_i)


# -- the cost of the tree ----------------------------------------------------------------------------------
def sah_cost(tree: Tree, lo, hi) -> float:
    """The surface-area-heuristic cost of the tree: each node's area times one visit, each leaf's times its
    items, over the root's area."""
    node_lo, node_hi = tree.bounds(lo, hi)
    area = _area(node_lo, node_hi)
    sizes = np.zeros(tree.num_nodes)
    sizes[tree.leaves] = tree.hi_i[tree.leaves] - tree.leaf_starts
    return float((area * (1 + sizes)).sum() / area[0])


@pytest.mark.parametrize("kind, ratio", [("skewed", 0.9), ("clustered", 0.5), ("uniform", 1.0)])
def test_the_sah_tree_costs_less_than_the_median_tree(kind, ratio):
    lo, hi = _data(kind, np.random.default_rng(3), 5000)
    centres = _centers(lo, hi).astype(np.float64)
    sah, median = sah_cost(Tree(centres, 1, None, (lo, hi)), lo, hi), sah_cost(Tree(centres, 1), lo, hi)
    assert sah < ratio * median, (sah, median)  # 112 against 143, 1.6 against 7.9, 95 against 105


def test_a_skewed_mesh_tree_costs_less_by_sah():
    pts, tris = skewed_mesh()
    corners = pts[tris]
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    costs = {}
    for constructor in ("sah", "median"):
        mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32),
                       bvh_constructor=constructor)
        costs[constructor] = sah_cost(mesh._tree, lo, hi)
    assert costs["sah"] < 0.7 * costs["median"], costs  # 9.6 against 18.1


# -- queries --------------------------------------------------------------------------------------------------
def _np_overlap(lo, hi, qlo, qhi):
    """The kernels' box test: a NaN bound meets every box."""
    return (~np.any((lo > np.float32(qhi)) | (hi < np.float32(qlo)), axis=1)).astype(int)


@pytest.mark.parametrize("kind", ["uniform", "clustered", "skewed", "ties"])
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_box_ray_sphere_and_capsule_queries_of_a_sah_tree_equal_brute_force(kind, leaf_size):
    rng = np.random.default_rng(leaf_size)
    lo, hi = _data(kind, rng, 600)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="sah", leaf_size=leaf_size)
    assert bvh.constructor == "sah"
    span_lo, span_hi = lo.min(axis=0), hi.max(axis=0)
    for _ in range(6):
        qlo = rng.uniform(span_lo, span_hi)
        qhi = qlo + rng.random(3) * (span_hi - span_lo) * 0.3
        np.testing.assert_array_equal(_hits(bvh, 600, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))
        start, d = rng.uniform(span_lo, span_hi), rng.normal(size=3)
        np.testing.assert_array_equal(_hits(bvh, 600, 1, start, d), _np_ray(lo, hi, start, d))
        c, r = rng.uniform(span_lo, span_hi), rng.random() * 2
        np.testing.assert_array_equal(_hits(bvh, 600, 2, c, radius=r), _np_sphere(lo, hi, c, r))
        p0, p1, radius = rng.uniform(span_lo, span_hi), rng.uniform(span_lo, span_hi), rng.random()
        hits = wp.zeros(600, dtype=int)
        wp.launch(_capsule_hits, 1, [bvh.id, wp.vec3(*p0), wp.vec3(*p1), float(radius), hits])
        want = _grown_box_meets_segment(p0.astype(np.float64), p1.astype(np.float64), radius,
                                        lo.astype(np.float64), hi.astype(np.float64))
        np.testing.assert_array_equal(hits.numpy(), want)


def test_nan_and_infinite_boxes_are_found_as_by_the_median_tree():
    rng = np.random.default_rng(4)
    lo, hi = _data("uniform", rng, 300)
    lo[::17, 1] = np.nan
    hi[5::23, 2] = np.nan
    lo[3::31, 0], hi[3::31, 0] = -np.inf, np.inf
    arrays = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    sah, median = (wp.Bvh(*arrays, constructor=c) for c in ("sah", "median"))
    assert sorted(sah._tree.order) == list(range(300))
    for qlo, qhi in (((1, 1, 1), (2, 3, 2)), ((-1, -1, -1), (9, 9, 9)), ((4, 0, 0), (4.2, 0.1, 5))):
        want = _np_overlap(lo, hi, qlo, qhi)
        np.testing.assert_array_equal(_hits(sah, 300, 0, qlo, qhi), want)
        np.testing.assert_array_equal(_hits(median, 300, 0, qlo, qhi), want)


def skewed_mesh(seed=2):
    """A terrain of a few large triangles and many tiny ones, in clusters (very different sizes)."""
    rng = np.random.default_rng(seed)
    big = np.array([[-10, -10, 0], [10, -10, 0], [10, 10, 0], [-10, 10, 0]], np.float32)
    tris = [[0, 1, 2], [0, 2, 3]]
    pts = list(big)
    for centre in rng.uniform(-9, 9, (6, 2)):
        for _ in range(300):
            base = np.array([*(centre + rng.normal(size=2) * 0.3), rng.uniform(0, 2)], np.float32)
            k = len(pts)
            pts += [base, base + rng.normal(size=3).astype(np.float32) * 0.02,
                    base + rng.normal(size=3).astype(np.float32) * 0.02]
            tris.append([k, k + 1, k + 2])
    return np.array(pts, np.float32), np.array(tris, np.int32)


@wp.kernel
def _closest(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, qs[i], 100.0)
    out[i, 0] = float(q.face)
    out[i, 1] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - qs[i])


@wp.kernel
def _tris_in_box(mesh: wp.uint64, lower: wp.vec3, upper: wp.vec3, hits: wp.array(dtype=int)):
    for f in wp.mesh_query_aabb(mesh, lower, upper):
        hits[f] += 1


def test_mesh_point_ray_and_box_queries_of_a_sah_tree_equal_brute_force():
    pts, tris = skewed_mesh()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32), bvh_constructor="sah")
    assert mesh.bvh_constructor == "sah"
    rng = np.random.default_rng(3)
    qs = np.concatenate([rng.uniform(-10, 10, (40, 3)), pts[rng.integers(0, len(pts), 40)] + 0.05]).astype(np.float32)
    a, b, c = (pts[tris[:, k]].astype(np.float64) for k in range(3))
    out = wp.zeros((len(qs), 2), dtype=float)
    wp.launch(_closest, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), out])
    for i, p in enumerate(qs.astype(np.float64)):
        _, dist = closest_on_triangles(np.broadcast_to(p, a.shape), a, b, c)
        assert abs(out.numpy()[i, 1] - dist.min()) < 1e-5 and abs(dist[int(out.numpy()[i, 0])] - dist.min()) < 1e-5
    dirs = rng.normal(size=qs.shape).astype(np.float32)
    dirs[:20] = [0, 0, -1]  # down onto the terrain
    rays, normals = wp.zeros((len(qs), 7), dtype=float), wp.zeros(len(qs), dtype=wp.vec3)
    wp.launch(ray_queries, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), 50.0,
                                     rays, normals])
    rays = rays.numpy()
    assert rays[:20, 0].sum() > 10
    for i in range(len(qs)):
        t = moller_trumbore(qs[i].astype(np.float64), dirs[i].astype(np.float64), a, b, c)
        assert rays[i, 0] == (t.min() <= 50) and rays[i, 5] == np.isfinite(t).sum()
        if rays[i, 0]:
            assert abs(rays[i, 1] - t.min()) < 1e-4
    corners = pts[tris]
    for qlo, qhi in (((-1, -1, -1), (1, 1, 1)), ((-10, -10, 0.5), (10, 10, 0.6))):
        hits = wp.zeros(len(tris), dtype=int)
        wp.launch(_tris_in_box, 1, [mesh.id, wp.vec3(*qlo), wp.vec3(*qhi), hits])
        np.testing.assert_array_equal(hits.numpy(), _np_overlap(corners.min(axis=1), corners.max(axis=1), qlo, qhi))


# -- depth ---------------------------------------------------------------------------------------------------
def _depth(tree: Tree, root: int = 0) -> int:
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if tree.lo_i[node] >= 0:
            stack += [(int(tree.lo_i[node]), d + 1), (int(tree.hi_i[node]), d + 1)]
    return deepest


def _geometric(count, low=-70.0):
    """Warp's test_sah_depth_fits_query_stack boxes: sizes and places growing geometrically along x, so that
    the SAH splits off a few outer boxes at each level."""
    x = np.exp(np.linspace(low, 0.0, count)).astype(np.float32)
    lo, hi = np.zeros((count, 3), np.float32), np.ones((count, 3), np.float32)
    lo[:, 0], hi[:, 0] = x, x * np.float32(1.001)
    return lo, hi


@pytest.mark.parametrize("count, leaf_size", [(300, 1), (5000, 1), (5000, 3), (40_000, 1)])
def test_the_depth_on_geometrically_growing_boxes_stays_within_the_budget_and_queries_find_every_box(count,
                                                                                                   leaf_size):
    lo, hi = _geometric(count, -80.0)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="sah", leaf_size=leaf_size)
    tree = bvh._tree
    assert _depth(tree) == tree.max_depth <= MAX_DEPTH
    assert tree.max_depth > np.log2(count / leaf_size) + 5  # the SAH did split off boxes: a deep tree
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.max() <= leaf_size
    np.testing.assert_array_equal(_hits(bvh, count, 0, (-1, -1, -1), (2, 2, 2)), 1)
    np.testing.assert_array_equal(_hits(bvh, count, 1, (-1, 0.5, 0.5), (1, 0, 0)), 1)


def test_warps_depth_test_data_gives_31_levels_and_each_group_its_budget():
    lo, hi = _geometric(300)
    # Warp's: 31 too, with two leaves of two boxes at level 31; the binned tree of one group (bvh_binned): 25
    expected = [25, 31, 33, 35]
    for num_groups, depth in zip((0, 1, 4, 16), expected):
        extra = max(num_groups - 1, 0)
        glo = np.vstack((lo, np.tile([-1.0, 0.0, 0.0], (extra, 1)))).astype(np.float32)
        ghi = np.vstack((hi, np.tile([-0.5, 1.0, 1.0], (extra, 1)))).astype(np.float32)
        ids = np.concatenate((np.zeros(300, np.int32), np.arange(1, num_groups, dtype=np.int32)))
        groups = wp.array(ids, dtype=wp.int32) if num_groups else None
        bvh = wp.Bvh(wp.array(glo, dtype=wp.vec3), wp.array(ghi, dtype=wp.vec3), groups=groups, constructor="sah")
        tree = bvh._tree
        assert _depth(tree) == depth
        # Warp's: a group's from its root
        assert tree.max_depth == min(depth, 31) == bvh._storage.descriptor["max_depth"][0]
        assert (tree.hi_i[tree.leaves] - tree.leaf_starts).max() == 1
        for root in tree.group_roots:
            assert _depth(tree, int(root)) <= 31
        np.testing.assert_array_equal(_hits(bvh, len(glo), 0, (-2, -1, -1), (2, 2, 2)), 1)


# -- constructors ------------------------------------------------------------------------------------------------
def test_the_cpu_default_is_sah_and_rebuild_keeps_the_constructor_or_takes_a_new_one():
    lo, hi = _data("skewed", np.random.default_rng(6), 400)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    centres = _centers(lo, hi).astype(np.float64)
    sah_order, median_order = shape_tree(centres, 1, None, (lo, hi)).order, Tree(centres, 1).order
    assert not np.array_equal(sah_order, median_order)
    bvh = wp.Bvh(lowers, uppers)
    assert bvh.constructor == "sah"
    np.testing.assert_array_equal(bvh._tree.order, sah_order)
    bvh.rebuild("median")
    assert bvh.constructor == "median"
    np.testing.assert_array_equal(bvh._tree.order, median_order)
    bvh.rebuild()  # keeps "median"
    np.testing.assert_array_equal(bvh._tree.order, median_order)
    bvh.refit()
    np.testing.assert_array_equal(bvh._tree.order, median_order)
    with pytest.raises(BvhError, match="Unknown BVH constructor 'fast'"):
        bvh.rebuild("fast")
    assert bvh.constructor == "median"  # nothing changed
    np.testing.assert_array_equal(bvh._tree.order, median_order)
    bvh.rebuild("sah")
    np.testing.assert_array_equal(bvh._tree.order, sah_order)
    lbvh = wp.Bvh(lowers, uppers, constructor="lbvh")  # the linear BVH (tests/runtime/test_bvh_lbvh.py)
    assert not np.array_equal(lbvh._tree.order, median_order)
    bvh.rebuild("lbvh")
    np.testing.assert_array_equal(bvh._tree.order, lbvh._tree.order)
    mesh = wp.Mesh(wp.array(np.zeros((3, 3), np.float32), dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))
    assert mesh.bvh_constructor == "sah"


def test_a_device_tree_defaults_to_lbvh_and_a_sah_device_tree_uploads_the_sah_tables():
    from .cuda_fake import FakeDriver, installed

    lo, hi = _data("skewed", np.random.default_rng(10), 60)
    host = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="sah", leaf_size=2)
    with installed(FakeDriver()) as fake:
        device = [wp.array(x, dtype=wp.vec3, device="cuda:0") for x in (lo, hi)]
        assert wp.Bvh(*device).constructor == "lbvh"
        bvh = wp.Bvh(*device, constructor="sah", leaf_size=2)
        primitive = host._storage.tables["primitive_indices"]
        address = int(bvh._storage.descriptor["primitive_indices"][0])
        base = max(b for b in fake.memory if b <= address)
        uploaded = np.frombuffer(bytes(fake.memory[base][address - base:address - base + primitive.nbytes]), np.int32)
        np.testing.assert_array_equal(uploaded, primitive)
        np.testing.assert_array_equal(bvh._tree.order, host._tree.order)


def test_the_median_reference_still_holds_for_the_median_constructor():
    lo, hi = _data("clustered", np.random.default_rng(12), 500)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="median", leaf_size=2)
    np.testing.assert_array_equal(bvh._tree.order, _numpy_order(_centers(lo, hi).astype(np.float64), 2))


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_traverses_a_deep_grouped_sah_tree_as_the_cpu_does():
    lo, hi = _geometric(3000, -80.0)
    ids = np.arange(3000, dtype=np.int32) % 3  # three deep subtrees under two levels of groups
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), groups=wp.array(ids, dtype=wp.int32),
                 constructor="sah")
    assert _depth(bvh._tree) > 25
    found = []
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            found.append([_hits(bvh, 3000, 0, (-1, -1, -1), (2, 2, 2)), _hits(bvh, 3000, 1, (-1, 0.5, 0.5), (1, 0, 0)),
                          _hits(bvh, 3000, 2, (0.5, 0.5, 0.5), radius=0.7)])
    np.testing.assert_array_equal(found[0][0], 1)
    np.testing.assert_array_equal(found[0][1], 1)
    np.testing.assert_array_equal(found[0][2], _np_sphere(lo, hi, (0.5, 0.5, 0.5), 0.7))
    np.testing.assert_array_equal(np.array(found[0]), np.array(found[1]))
