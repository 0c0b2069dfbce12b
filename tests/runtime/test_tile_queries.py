"""Warp's tiled BVH and mesh queries: ``tile_bvh_query_aabb/ray`` and ``tile_mesh_query_aabb`` (and Warp's older
``*_tiled`` names) step through the same boxes and faces as the plain queries, one index per step as a tile of
shape (1,) (a block is one thread here), -1 once none is left; ``tile_query_valid`` is true at the start and
after a step that gave an index."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import KernelTypeError
from kernel_files import kernel_module


@wp.kernel
def _tiled_boxes(bvh: wp.uint64, kind: int, a: wp.vec3, b: wp.vec3, hits: wp.array(dtype=int),
                 steps: wp.array(dtype=int)):
    query = wp.tile_bvh_query_aabb(bvh, a, b)
    if kind == 1:
        query = wp.tile_bvh_query_ray(bvh, a, b)
    n = 0
    while wp.tile_query_valid(query):
        t = wp.tile_bvh_query_next(query)
        steps[1] = t.shape[0]
        i = wp.untile(t)
        n += 1
        if i >= 0:
            wp.atomic_add(hits, i, 1)
        else:
            steps[2] = i
    steps[0] = n


@wp.kernel
def _tiled_faces(mesh: wp.uint64, lower: wp.vec3, upper: wp.vec3, hits: wp.array(dtype=int)):
    query = wp.mesh_query_aabb_tiled(mesh, lower, upper)  # Warp's older names
    while wp.tile_query_valid(query=query):
        face = wp.untile(wp.mesh_query_aabb_next_tiled(query))
        if face >= 0:
            hits[face] += 1
    query = wp.tile_mesh_query_aabb(mesh, lower, upper)
    while wp.tile_query_valid(query):
        face = wp.untile(wp.tile_mesh_query_aabb_next(query=query))
        if face >= 0:
            hits[face] += 10


@wp.func
def _drain(query: wp.BvhQueryTiled, hits: wp.array(dtype=int)) -> int:
    n = 0
    while wp.tile_query_valid(query):
        i = wp.untile(wp.bvh_query_next_tiled(query))
        if i >= 0:
            hits[i] += 1
            n += 1
    return n


@wp.kernel
def _older_names_in_a_function(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, start: wp.vec3, d: wp.vec3,
                               hits: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    counts[0] = _drain(wp.bvh_query_aabb_tiled(bvh, lower, upper), hits[0])
    counts[1] = _drain(wp.bvh_query_ray_tiled(bvh, start, d), hits[1])


def _boxes(seed: int, n: int = 120):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0.0, 5.0, (n, 3)).astype(np.float32)
    return lo, (lo + rng.uniform(0.2, 2.0, (n, 3))).astype(np.float32)


def _np_overlap(lo, hi, qlo, qhi):
    return np.all((lo <= qhi) & (hi >= qlo), axis=1)


def _np_ray(lo, hi, start, d):
    """The boxes the half-line start + t d (t >= 0) meets (slab test in float64; d has no zero component)."""
    t1, t2 = (lo - start) / d, (hi - start) / d
    near, far = np.minimum(t1, t2).max(axis=1), np.maximum(t1, t2).min(axis=1)
    return (far >= np.maximum(near, 0.0))


def _launch(bvh, n, kind, a, b, target="cpu"):
    hits, steps = wp.zeros(n, dtype=int), wp.zeros(3, dtype=int)
    with config.override(target=target):
        wp.launch_tiled(_tiled_boxes, 1, [bvh.id, kind, wp.vec3(*a), wp.vec3(*b), hits, steps], block_dim=64)
    return hits.numpy(), steps.numpy()


@pytest.mark.parametrize("leaf_size", [1, 4])
def test_tiled_box_and_ray_queries_give_each_box_once_then_minus_one(leaf_size):
    lo, hi = _boxes(1)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=leaf_size)
    hits, steps = _launch(bvh, len(lo), 0, (2.0, 2.0, 2.0), (3.0, 3.5, 4.0))
    expected = _np_overlap(lo, hi, np.float32([2, 2, 2]), np.float32([3, 3.5, 4]))
    assert 0 < expected.sum() < len(lo)
    np.testing.assert_array_equal(hits, expected.astype(int))
    # one step per box, then the step that gives -1 and ends the loop; each step's tile holds 1 index
    np.testing.assert_array_equal(steps, [expected.sum() + 1, 1, -1])
    start, d = np.float32([0.1, 0.2, 0.3]), np.float32([1.0, 0.8, 0.6])
    hits, steps = _launch(bvh, len(lo), 1, start, d)
    expected = _np_ray(lo.astype(np.float64), hi.astype(np.float64), start.astype(np.float64), d.astype(np.float64))
    assert 0 < expected.sum() < len(lo)
    np.testing.assert_array_equal(hits, expected.astype(int))
    assert steps[0] == expected.sum() + 1


def test_a_query_that_finds_nothing_runs_its_loop_once():
    lo, hi = _boxes(2)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    hits, steps = _launch(bvh, len(lo), 0, (-5.0, -5.0, -5.0), (-4.0, -4.0, -4.0))
    np.testing.assert_array_equal(hits, 0)
    np.testing.assert_array_equal(steps, [1, 1, -1])  # valid at the start; the one step gives -1
    hits, steps = _launch(bvh, len(lo), 1, (-1.0, -1.0, -1.0), (-1.0, -0.5, -0.25))  # pointing away
    np.testing.assert_array_equal(hits, 0)
    assert steps[0] == 1


def test_tiled_mesh_queries_and_the_older_names_give_the_faces_whose_bounds_overlap():
    rng = np.random.default_rng(3)
    corners = (rng.uniform(-0.5, 0.5, (60, 3, 3)) + rng.uniform(0.0, 4.0, (60, 1, 3))).astype(np.float32)
    mesh = wp.Mesh(wp.array(corners.reshape(-1, 3), dtype=wp.vec3), wp.array(np.arange(180, dtype=np.int32)))
    hits = wp.zeros(60, dtype=int)
    wp.launch_tiled(_tiled_faces, 1, [mesh.id, wp.vec3(1.0), wp.vec3(2.5), hits], block_dim=32)
    expected = _np_overlap(corners.min(axis=1), corners.max(axis=1), np.float32(1.0), np.float32(2.5))
    assert 0 < expected.sum() < 60
    np.testing.assert_array_equal(hits.numpy(), 11 * expected.astype(int))


def test_a_function_takes_a_tiled_query_and_the_older_bvh_names_answer_as_the_new_ones():
    lo, hi = _boxes(4)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    hits, counts = wp.zeros((2, len(lo)), dtype=int), wp.zeros(2, dtype=int)
    start, d = (0.0, 0.5, 0.25), (1.0, 1.0, 0.9)
    wp.launch_tiled(_older_names_in_a_function, 1, [bvh.id, wp.vec3(1.0), wp.vec3(3.0), wp.vec3(*start),
                                                    wp.vec3(*d), hits, counts], block_dim=16)
    np.testing.assert_array_equal(hits.numpy()[0], _launch(bvh, len(lo), 0, (1.0,) * 3, (3.0,) * 3)[0])
    np.testing.assert_array_equal(hits.numpy()[1], _launch(bvh, len(lo), 1, start, d)[0])
    np.testing.assert_array_equal(counts.numpy(), hits.numpy().sum(axis=1))


def _compiled(texts):
    assert any("bw::tile_query_next(" in t and "bw::tile_mesh_query_aabb(" in t for t in texts)


@pytest.mark.compiles_for_cuda(check=_compiled)
def test_the_gpu_mapping_answers_tiled_queries_as_the_cpu_does():
    lo, hi = _boxes(5)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    for kind, a, b in ((0, (1.0, 1.0, 1.0), (2.0, 3.0, 2.5)), (1, (0.0, 0.2, 0.4), (1.0, 0.9, 1.1))):
        on_cpu = _launch(bvh, len(lo), kind, a, b)
        emulated = _launch(bvh, len(lo), kind, a, b, "cuda-emulation")
        assert on_cpu[0].sum() > 0
        np.testing.assert_array_equal(on_cpu[0], emulated[0])
        np.testing.assert_array_equal(on_cpu[1], emulated[1])
    corners = np.float32([[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[2, 0, 0], [3, 0, 0], [2, 1, 0]]])
    mesh = wp.Mesh(wp.array(corners.reshape(-1, 3), dtype=wp.vec3), wp.array(np.arange(6, dtype=np.int32)))
    hits = wp.zeros(2, dtype=int)
    with config.override(target="cuda-emulation"):
        wp.launch_tiled(_tiled_faces, 1, [mesh.id, wp.vec3(-1.0), wp.vec3(0.5, 2.0, 1.0), hits], block_dim=4)
    np.testing.assert_array_equal(hits.numpy(), [11, 0])


_HEAD = ("@wp.kernel\ndef k(bvh: wp.uint64, hits: wp.array(dtype=int)):\n"
         "    q = wp.tile_bvh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0))\n"
         "    m = wp.tile_mesh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0))\n"
         "    p = wp.bvh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0))\n")


@pytest.mark.parametrize("body, words", [
    ("    t = wp.tile_bvh_query_next(wp.tile_bvh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0)))\n",
     "tile_bvh_query_next() advances its query, which must be a local variable, got 'wp.tile_bvh_query_aabb("),
    ("    t = wp.tile_bvh_query_next(m)\n",
     "tile_bvh_query_next(): the query must come from tile_bvh_query_aabb/ray(), got MeshQueryAABBTiled"),
    ("    t = wp.tile_mesh_query_aabb_next(q)\n",
     "tile_mesh_query_aabb_next(): the query must come from tile_mesh_query_aabb(), got BvhQueryTiled"),
    ("    t = wp.tile_bvh_query_next(p)\n",
     "tile_bvh_query_next(): the query must come from tile_bvh_query_aabb/ray(), got BvhQuery"),
    ("    t = wp.tile_bvh_query_next(q, 1)\n", "tile_bvh_query_next() takes 1 argument (query), got 2"),
    ("    t = wp.tile_bvh_query_next(que=q)\n", "tile_bvh_query_next() has no parameter 'que'"),
    ("    i = int(0)\n    wp.bvh_query_next(q, i)\n",
     "bvh_query_next(): the query must come from bvh_query_aabb/ray/sphere/capsule(), got BvhQueryTiled"),
    ("    b = wp.tile_query_valid(p)\n",
     "tile_query_valid(): needs a tiled query (from tile_bvh_query_aabb/ray() or tile_mesh_query_aabb()), "
     "got BvhQuery"),
    ("    x = wp.tile_bvh_query_aabb(bvh, wp.vec3(0.0), 1.0)\n",
     "tile_bvh_query_aabb(): needs a BVH id (uint64) and the box's lower and upper corners (vec3f), got uint64, "
     "vec3f, float32"),
    ("    x = wp.tile_bvh_query_ray(bvh, 1.0, wp.vec3(1.0))\n",
     "tile_bvh_query_ray(): needs a BVH id (uint64) and a start and a direction (vec3f), got uint64, float32, "
     "vec3f"),
])
def test_errors_name_the_query_and_the_line(tmp_path, body, words):
    module, path = kernel_module(tmp_path, _HEAD + body)
    hits = wp.zeros(1, dtype=int)
    with pytest.raises(KernelTypeError) as e:
        wp.launch(module.k, 1, [0, hits])
    assert words in str(e.value)
    assert f'File "{path}", line {8 + body.count(chr(10)) - 1}' in str(e.value)
    np.testing.assert_array_equal(hits.numpy(), [0])


def test_the_query_types_live_in_kernels_only():
    with pytest.raises(TypeError, match="a BvhQueryTiled exists in kernels only"):
        wp.BvhQueryTiled()
    with pytest.raises(TypeError, match="a MeshQueryAABBTiled exists in kernels only"):
        wp.MeshQueryAABBTiled()
    with pytest.raises(RuntimeError, match=r"tile_bvh_query_aabb\(\) can only be called inside a @kernel"):
        wp.tile_bvh_query_aabb(0, wp.vec3(0.0), wp.vec3(1.0))
