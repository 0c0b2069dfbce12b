"""A captured graph holds the meshes, hash grids (and BVHs, volumes) whose ids its launches pass to their
queries: a replay follows the ids, and one after the object was dropped read freed memory (a hash grid's
replay crashed the process; a mesh's gave other values). The objects are released with the graph. It holds
the arrays in a struct argument's fields as they were at the capture too: the replay writes them, and one
replaced in the struct afterwards was freed."""

import gc
import weakref

import numpy as np

import brickwork as wp


@wp.struct
class Holder:
    a: wp.array(dtype=float)


@wp.kernel
def bump(h: Holder):
    i = wp.tid()
    h.a[i] = h.a[i] + 1.0


@wp.kernel
def neighbours(grid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.hash_grid_query(grid, points[i], 0.2)
    n = wp.int32(0)
    j = wp.int32(0)
    while wp.hash_grid_query_next(q, j):
        if wp.length(points[j] - points[i]) <= 0.2:
            n += 1
    out[i] = n


@wp.kernel
def closest_face(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.mesh_query_point(mesh, points[i], 1.0e6)
    out[i] = q.face


def _replayed_after_drop(make, kernel, points, n):
    """The first launch's output, and a replay's after the object ``make()`` gave was dropped (with a weak
    reference to the object)."""
    obj = make()
    out = wp.zeros(n, dtype=int)
    wp.launch(kernel, dim=n, inputs=[obj.id, points, out])
    first = out.numpy().copy()
    out.zero_()
    wp.capture_begin()
    wp.launch(kernel, dim=n, inputs=[obj.id, points, out])
    graph = wp.capture_end()
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    assert ref() is not None  # the graph holds it
    junk = [np.full(1 << 16, 7.0) for _ in range(20)]  # memory a freed object's would be reused for
    wp.capture_launch(graph)
    del junk, graph
    gc.collect()
    assert ref() is None  # released with the graph
    return first, out.numpy()


def test_a_replay_after_the_hash_grid_was_dropped_queries_the_grid():
    rng = np.random.default_rng(1)
    xyz = rng.random((300, 3)).astype(np.float32)
    points = wp.array(xyz, dtype=wp.vec3)

    def make():
        grid = wp.HashGrid(16, 16, 16)
        grid.build(points, 0.2)
        return grid

    first, replayed = _replayed_after_drop(make, neighbours, points, 300)
    expected = (np.linalg.norm(xyz[:, None] - xyz[None], axis=-1) <= np.float32(0.2)).sum(axis=1)
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(replayed, expected)


def test_a_replay_after_the_mesh_was_dropped_queries_the_mesh():
    rng = np.random.default_rng(2)
    queries = wp.array(rng.random((50, 3)).astype(np.float32), dtype=wp.vec3)

    def make():
        corners = wp.array(rng.random((60, 3)).astype(np.float32), dtype=wp.vec3)
        return wp.Mesh(points=corners, indices=wp.array(np.arange(60, dtype=np.int32)))

    first, replayed = _replayed_after_drop(make, closest_face, queries, 50)
    assert (first >= 0).all() and (first < 20).all()
    np.testing.assert_array_equal(replayed, first)


def test_a_struct_fields_array_replaced_after_the_capture_is_the_one_replayed():
    h = Holder()
    h.a = wp.zeros(1000, dtype=float)
    wp.capture_begin()
    wp.launch(bump, dim=1000, inputs=[h])
    graph = wp.capture_end()
    ref = weakref.ref(h.a)
    h.a = wp.full(4, 5.0, dtype=float)
    gc.collect()
    assert ref() is not None  # the graph holds the array it packed
    wp.capture_launch(graph)
    wp.capture_launch(graph)
    np.testing.assert_array_equal(ref().numpy(), 2.0)
    np.testing.assert_array_equal(h.a.numpy(), 5.0)  # the new field's array is not the graph's
    del graph
    gc.collect()
    assert ref() is None
