"""The linear BVH (constructor="lbvh", runtime/bvh_lbvh.py): the compiled build against a numpy radix tree over
(Morton code, position) keys node by node, the tree's structure (items, leaf sizes, bounds, parents, levels,
depth) on uniform, clustered, tied and degenerate data, queries against brute force, the same tree on the
cuda-emulation target, and with the fake CUDA driver a device build that launches its kernels there and copies
only the level ends to the host."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.runtime import bvh_lbvh, device_sort
from brickwork.runtime.bvh import linear_tree
from brickwork.runtime.device_sort import Plan

from .test_bvh_mesh import _hits, _np_ray, _np_sphere, closest_on_triangles, moller_trumbore, ray_queries
from .test_bvh_sah import _closest, _data, _np_overlap, _tris_in_box, skewed_mesh


def _spread(v):
    v = v.astype(np.int64) & 1023
    for shift, mask in ((16, 0x030000FF), (8, 0x0300F00F), (4, 0x030C30C3), (2, 0x09249249)):
        v = (v | (v << shift)) & mask
    return v


def _codes(lo, hi):
    """The 30-bit Morton codes of the float32 box centres in the bounds of the finite ones."""
    c = (lo + hi) * np.float32(0.5)
    codes = np.zeros(len(c), np.int64)
    for axis in range(3):
        x = c[:, axis]
        finite = x[np.isfinite(x)]
        low, high = (finite.min(), finite.max()) if len(finite) else (np.float32(0), np.float32(0))
        extent = np.float32(high - low)
        scale = np.float32(1024) / extent if extent > 0 and np.isfinite(extent) else np.float32(0)
        with np.errstate(invalid="ignore", over="ignore"):
            q = (x - low) * scale
        q = np.minimum(np.where(q >= 0, q, np.float32(0)), np.float32(1023)).astype(np.int64)
        codes |= _spread(q) << (2 - axis)
    return codes


def reference(lo, hi, leaf_size):
    """The radix tree over the keys (code << 32 | position) of the stably sorted codes, split where the bit
    after a node's common prefix turns 1, numbered level by level: first, last, parents, order."""
    codes = _codes(lo, hi)
    order = np.argsort(codes, kind="stable")
    keys = [int(k) << 32 | p for p, k in enumerate(codes[order])]
    first, last, parents = [], [], []
    level, parent = [(0, len(keys))], [-1]
    while level:
        next_level, next_parent = [], []
        base = len(first) + len(level)
        for (a, b), p in zip(level, parent):
            parents.append(p)
            if b - a <= leaf_size:
                first.append(-(a + 1))
                last.append(b)
                continue
            bit = (keys[a] ^ keys[b - 1]).bit_length() - 1
            s = next(i for i in range(a, b) if keys[i] >> bit & 1)
            child = base + len(next_level)
            first.append(child)
            last.append(child + 1)
            next_level += [(a, s), (s, b)]
            next_parent += [len(first) - 1] * 2
        level, parent = next_level, next_parent
    return np.array(first), np.array(last), np.array(parents), order


def check_structure(tree, lo, hi, leaf_size, node_lo=None, node_hi=None):
    """Each item in exactly one leaf of at most leaf_size, children after their parents, parents, levels,
    max_depth, and (given) node bounds holding their children's."""
    n = len(lo)
    first, last = tree.lo_i, tree.hi_i
    leaf = first < 0
    sizes = last[leaf] + first[leaf] + 1
    assert sizes.min() >= 1 and sizes.max() <= leaf_size and sizes.sum() == n
    assert sorted(np.concatenate([tree.order[-f - 1:e] for f, e in zip(first[leaf], last[leaf])])) == list(range(n))
    inner = np.flatnonzero(~leaf)
    assert (first[inner] > inner).all() and (last[inner] == first[inner] + 1).all()
    assert (tree.parents[first[inner]] == inner).all() and (tree.parents[last[inner]] == inner).all()
    assert tree.parents[0] == -1 and sorted(np.concatenate([first[inner], last[inner], [0]])) == list(
        range(tree.num_nodes))
    depth = np.zeros(tree.num_nodes, int)
    for node in range(1, tree.num_nodes):
        depth[node] = depth[tree.parents[node]] + 1
    assert tree.max_depth == depth.max() <= 62
    for d, (ids, _) in enumerate(tree.levels):
        assert (depth[ids] == d).all()
    if node_lo is not None:
        for node in inner:
            for child in (first[node], last[node]):
                assert (node_lo[node] <= node_lo[child]).all() and (node_hi[node] >= node_hi[child]).all()
        for node in np.flatnonzero(leaf):
            items = tree.order[-first[node] - 1:last[node]]
            np.testing.assert_array_equal(node_lo[node], lo[items].min(axis=0))
            np.testing.assert_array_equal(node_hi[node], hi[items].max(axis=0))


def _compare(tree, lo, hi, leaf_size):
    first, last, parents, order = reference(lo, hi, leaf_size)
    np.testing.assert_array_equal(tree.order, order)
    np.testing.assert_array_equal(tree.lo_i, first)
    np.testing.assert_array_equal(tree.hi_i, last)
    np.testing.assert_array_equal(tree.parents, parents)


@pytest.mark.parametrize("kind", ["uniform", "clustered", "skewed", "ties"])
@pytest.mark.parametrize("n, leaf_size", [(1, 1), (2, 1), (3, 2), (40, 1), (500, 1), (500, 4), (7, 8)])
def test_the_lbvh_is_the_radix_tree_of_the_sorted_morton_codes(kind, n, leaf_size):
    lo, hi = _data(kind, np.random.default_rng(n), n)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="lbvh", leaf_size=leaf_size)
    _compare(bvh._tree, lo, hi, leaf_size)
    nodes = [bvh._storage.tables[name].reshape(-1, 4) for name in ("node_lowers", "node_uppers")]
    check_structure(bvh._tree, lo, hi, leaf_size, nodes[0][:, :3], nodes[1][:, :3])
    assert bvh._storage.descriptor["max_depth"] == bvh._tree.max_depth


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 120), leaf_size=st.integers(1, 5),
       special=st.sampled_from([np.nan, np.inf, -np.inf, 3e38, 0.0]))
def test_any_boxes_with_nan_and_infinite_bounds_give_the_reference_tree(seed, n, leaf_size, special):
    rng = np.random.default_rng(seed)
    lo = np.round(rng.normal(size=(n, 3)) * 3, 1).astype(np.float32)
    hi = lo + 1
    picks = rng.random((n, 3)) < 0.1
    lo[picks] = special
    tree = linear_tree(lo, hi, leaf_size)
    _compare(tree, lo, hi, leaf_size)
    check_structure(tree, lo, hi, leaf_size)


def test_equal_centres_and_a_morton_chain_stay_within_the_traversal_stack():
    # 2^20 equal centres: a tree balanced by their positions
    lo = np.zeros((1 << 12, 3), np.float32)
    tree = linear_tree(lo, lo, 1)
    assert tree.max_depth == 12
    check_structure(tree, lo, lo, 1)
    # one point per bit of the x code (each splits off one level), the last repeated 4096 times: the deepest
    # radix tree, 10 levels of x bits plus 12 of positions (the y and z axes are flat)
    xs = np.concatenate([[0.0], 2.0 ** -np.arange(10), np.full(4095, 2.0 ** -9)]).astype(np.float32) * 1024
    lo = np.zeros((len(xs), 3), np.float32)
    lo[:, 0] = xs
    tree = linear_tree(lo, lo, 1)
    _compare(tree, lo, lo, 1)
    assert tree.max_depth == 10 + 12
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo, dtype=wp.vec3), constructor="lbvh")
    np.testing.assert_array_equal(_hits(bvh, len(lo), 0, (-1, -1, -1), (2000, 1, 1)), np.ones(len(lo), int))


@pytest.mark.parametrize("kind", ["uniform", "clustered", "ties"])
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_box_ray_and_sphere_queries_of_an_lbvh_equal_brute_force(kind, leaf_size):
    rng = np.random.default_rng(leaf_size)
    lo, hi = _data(kind, rng, 600)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="lbvh", leaf_size=leaf_size)
    span_lo, span_hi = lo.min(axis=0), hi.max(axis=0)
    for step in range(6):
        if step == 3:  # after a refit over moved boxes, and a rebuild
            lo, hi = lo + rng.normal(size=lo.shape).astype(np.float32), hi + 2
            bvh.lowers.assign(lo)
            bvh.uppers.assign(hi)
            (bvh.refit if kind != "ties" else bvh.rebuild)()
        qlo = rng.uniform(span_lo, span_hi)
        qhi = qlo + rng.random(3) * (span_hi - span_lo) * 0.3
        np.testing.assert_array_equal(_hits(bvh, 600, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))
        start, d = rng.uniform(span_lo, span_hi), rng.normal(size=3)
        np.testing.assert_array_equal(_hits(bvh, 600, 1, start, d), _np_ray(lo, hi, start, d))
        c, r = rng.uniform(span_lo, span_hi), rng.random() * 2
        np.testing.assert_array_equal(_hits(bvh, 600, 2, c, radius=r), _np_sphere(lo, hi, c, r))


def test_mesh_point_ray_and_box_queries_of_an_lbvh_equal_brute_force():
    pts, tris = skewed_mesh()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32), bvh_constructor="lbvh")
    corners = pts[tris]
    _compare(mesh._tree, corners.min(axis=1), corners.max(axis=1), 4)  # bvh_leaf_size: 4 by default, as Warp
    rng = np.random.default_rng(3)
    qs = np.concatenate([rng.uniform(-10, 10, (30, 3)), pts[rng.integers(0, len(pts), 30)] + 0.05]).astype(np.float32)
    a, b, c = (pts[tris[:, k]].astype(np.float64) for k in range(3))
    out = wp.zeros((len(qs), 2), dtype=float)
    wp.launch(_closest, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), out])
    for i, p in enumerate(qs.astype(np.float64)):
        _, dist = closest_on_triangles(np.broadcast_to(p, a.shape), a, b, c)
        assert abs(out.numpy()[i, 1] - dist.min()) < 1e-5 and abs(dist[int(out.numpy()[i, 0])] - dist.min()) < 1e-5
    dirs = rng.normal(size=qs.shape).astype(np.float32)
    dirs[:20] = [0, 0, -1]
    rays, normals = wp.zeros((len(qs), 7), dtype=float), wp.zeros(len(qs), dtype=wp.vec3)
    wp.launch(ray_queries, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), 50.0,
                                     rays, normals])
    rays = rays.numpy()
    for i in range(len(qs)):
        t = moller_trumbore(qs[i].astype(np.float64), dirs[i].astype(np.float64), a, b, c)
        assert rays[i, 0] == (t.min() <= 50) and rays[i, 5] == np.isfinite(t).sum()
    hits = wp.zeros(len(tris), dtype=int)
    wp.launch(_tris_in_box, 1, [mesh.id, wp.vec3(-1, -1, -1), wp.vec3(1, 1, 1), hits])
    want = ~np.any((corners.min(axis=1) > 1) | (corners.max(axis=1) < -1), axis=1)
    np.testing.assert_array_equal(hits.numpy(), want.astype(int))


def test_a_grouped_lbvh_is_the_median_tree_and_no_boxes_an_empty_leaf():
    lo, hi = _data("uniform", np.random.default_rng(1), 50)
    arrays = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    groups = wp.array(np.arange(50, dtype=np.int32) % 3)
    grouped = wp.Bvh(*arrays, constructor="lbvh", groups=groups)
    median = wp.Bvh(*arrays, constructor="median", groups=groups)
    np.testing.assert_array_equal(grouped._tree.order, median._tree.order)
    empty = wp.Bvh(wp.zeros(0, dtype=wp.vec3), wp.zeros(0, dtype=wp.vec3), constructor="lbvh")
    assert empty._tree.num_nodes == 1 and empty._tree.lo_i[0] == -1


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_builds_the_same_tree():
    lo, hi = _data("clustered", np.random.default_rng(5), 700)
    want = linear_tree(lo, hi, 3)
    with config.override(target="cuda-emulation"):
        got = linear_tree(lo, hi, 3)
    for name in ("order", "lo_i", "hi_i", "parents"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.max_depth == want.max_depth


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the launches compile for CUDA)")
def test_a_device_lbvh_builds_on_the_device_copying_only_the_level_ends_to_the_host():
    from .cuda_fake import FakeDriver, installed

    rng = np.random.default_rng(4)
    lo = rng.uniform(-5, 5, (300, 3)).astype(np.float32)
    pts = rng.uniform(-1, 1, (30, 3)).astype(np.float32)
    tris = rng.integers(0, 30, (20, 3)).astype(np.int32)
    with installed(FakeDriver()) as fake:
        reads = []
        host_read = fake.copy_to_host
        fake.copy_to_host = lambda *a: (reads.append(a), host_read(*a))
        writes = []
        host_write = fake.copy_to_device
        fake.copy_to_device = lambda *a, **k: (writes.append(a[3]), host_write(*a, **k))
        lowers = wp.array(lo, dtype=wp.vec3, device="cuda:0")
        uppers = wp.array(lo + 1, dtype=wp.vec3, device="cuda:0")
        points = wp.array(pts, dtype=wp.vec3, device="cuda:0")
        indices = wp.array(tris.reshape(-1), dtype=wp.int32, device="cuda:0")
        del reads[:], writes[:], fake.launches[:]
        bvh = wp.Bvh(lowers, uppers, leaf_size=2)  # the default on a CUDA device
        assert bvh.constructor == "lbvh" and isinstance(bvh._tree.tables_on(bvh.device)["ranges"], list)
        assert [a[-1] for a in reads] == [4 * (bvh_lbvh.DROPPED + 1)]  # the level ends only
        assert len(fake.launches) > 10 and writes and set(writes) == {96}  # the descriptor, nothing else
        tables = {name: table.ptr for name, table in bvh._storage.tables.items()}
        ident = bvh.id
        del reads[:]
        bvh.rebuild()
        assert len(reads) == 1 and bvh.id == ident
        assert {name: table.ptr for name, table in bvh._storage.tables.items()} == tables  # the same tables
        del reads[:]
        mesh = wp.Mesh(points, indices, bvh_constructor="lbvh")
        assert len(reads) == 2 and reads[1][-1] == 4 * (bvh_lbvh.DROPPED + 1)  # the indices checked, the ends


@pytest.mark.parametrize("leaf_size", [2**31 - 1, 2**31, 2**40])
def test_a_leaf_size_beyond_int32_is_one_leaf_of_every_item(leaf_size):
    """The kernels take leaf_size as an int32: 2^31 and more raised LaunchError (Warp 1.19's CPU build
    segfaults); any leaf size of at least the item count gives one leaf, as for the other constructors."""
    lo, hi = _data("uniform", np.random.default_rng(2), 40)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor="lbvh", leaf_size=leaf_size)
    assert bvh._tree.num_nodes == 1 and (bvh._tree.lo_i[0], bvh._tree.hi_i[0]) == (-1, 40)
    qlo, qhi = lo[7] - 0.01, lo[7] + 0.01
    np.testing.assert_array_equal(_hits(bvh, 40, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))
    pts, tris = skewed_mesh()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32), bvh_constructor="lbvh",
                   bvh_leaf_size=leaf_size)
    assert mesh._tree.num_nodes == 1 and mesh._tree.hi_i[0] == len(tris)


@pytest.mark.parametrize("plan", [Plan(items=3, segment=4), Plan(bits=4, items=3, segment=2), Plan(bits=16, items=1000,
                                                                                                     segment=3)])
@pytest.mark.parametrize("kind", ["uniform", "clustered", "ties"])
def test_any_sort_plan_builds_the_same_tree(plan, kind):
    """Many chunks and scan levels (3 items a chunk), 4- and 16-bit digits: the tree of the GPU's plan. The depth
    key (up to 64) was sorted by one digit: with 4-bit digits only its low 4 bits, levels interleaved."""
    lo, hi = _data(kind, np.random.default_rng(5), 700)
    want = linear_tree(lo, hi, 2)
    with mock.patch.object(device_sort, "GPU", plan):
        got = linear_tree(lo, hi, 2)
    for name in ("order", "lo_i", "hi_i", "parents"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.max_depth == want.max_depth
    check_structure(got, lo, hi, 2)


@pytest.mark.parametrize("plan", [bvh_lbvh.CPU_SORT, Plan(bits=11, items=50, max_chunks=64),
                                  Plan(bits=8, items=7, max_chunks=5)])
def test_a_cpu_tree_is_the_reference_whatever_its_sorts_chunks_and_digits(plan, monkeypatch):
    # the CPU's sorts take few chunks of many positions (bvh_lbvh.CPU_SORT); the sort is stable for any plan
    lo, hi = _data("clustered", np.random.default_rng(12), 3000)
    monkeypatch.setattr(bvh_lbvh, "CPU_SORT", plan)
    _compare(linear_tree(lo, hi, 2), lo, hi, 2)
