"""Ids read from a ``uint64`` array and passed to a query are checked at launch, as id arguments are: a kernel
given an array holding a made-up mesh id died of a segmentation fault in mesh_query_point (attacker probe;
arguments and struct fields were refused, ``runtime/live_ids``). The launch scans the array (``ir/id_params``)."""

import gc
import weakref

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError


@wp.kernel
def nearest_face(ids: wp.array(dtype=wp.uint64), out: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.mesh_query_point(ids[i], wp.vec3(0.1, 0.1, 0.0), 10.0)
    out[i] = q.face


@wp.func
def count_near(grid: wp.uint64, p: wp.vec3) -> int:
    n = 0
    for _j in wp.hash_grid_query(grid, p, 0.5):
        n += 1
    return n


@wp.kernel
def count_per_grid(grids: wp.array2d(dtype=wp.uint64), out: wp.array(dtype=int)):
    i = wp.tid()
    g = grids[i, 0]
    n = 0
    if g != wp.uint64(0):  # the null id passes the launch: the kernel skips it
        n = count_near(g, wp.vec3(0.5, 0.5, 0.5))
    out[i] = n


def _mesh():
    return wp.Mesh(wp.array(np.eye(3, dtype=np.float32), dtype=wp.vec3), wp.array([0, 1, 2], dtype=int))


def _grid():
    points = np.linspace(0.4, 0.6, 10, dtype=np.float32)[:, None].repeat(3, axis=1)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(wp.array(points, dtype=wp.vec3), 0.5)
    return grid


def test_live_ids_in_arrays_run():
    mesh, grid = _mesh(), _grid()
    out = wp.full(2, -1, dtype=int)
    wp.launch(nearest_face, 2, inputs=[wp.array([mesh.id, mesh.id], dtype=wp.uint64), out])
    assert out.numpy().tolist() == [0, 0]
    wp.launch(count_per_grid, 2, inputs=[wp.array([[grid.id], [0]], dtype=wp.uint64), out])
    assert out.numpy().tolist() == [10, 0]


@pytest.mark.parametrize("made", ["made up", "freed", "another kind"])
def test_an_array_holding_an_id_of_no_live_mesh_is_refused(made):
    mesh = _mesh()
    keep = None
    if made == "made up":
        value = 424242
    elif made == "freed":
        gone = _mesh()
        value = gone.id
        del gone
        gc.collect()
    else:
        keep = _grid()
        value = keep.id
    out = wp.full(2, -1, dtype=int)
    with pytest.raises(LaunchError) as info:
        wp.launch(nearest_face, 2, inputs=[wp.array([mesh.id, value], dtype=wp.uint64), out])
    why = ("it is the id of a wp.HashGrid, not of a wp.Mesh" if keep is not None else
           "no live wp.Mesh has it (was the object freed? an id is valid only while its object is referenced)")
    assert str(info.value) == (f"launch of 'nearest_face': array 'ids' holds {value} at flat index 1, and its "
                               f"elements are passed to mesh_query_point() as ids of a wp.Mesh, but {why}")
    assert out.numpy().tolist() == [-1, -1]


def test_an_element_through_a_local_and_a_func_is_checked():
    grid = _grid()
    out = wp.full(3, -1, dtype=int)
    with pytest.raises(LaunchError, match=r"array 'grids' holds 777 at flat index 2, and its elements are passed "
                                          r"to hash_grid_query\(\) as ids of a wp.HashGrid, but no live"):
        wp.launch(count_per_grid, 3, inputs=[wp.array([[grid.id], [0], [777]], dtype=wp.uint64), out])
    assert out.numpy().tolist() == [-1, -1, -1]


def test_a_captured_graph_holds_the_meshes_an_id_array_names():
    mesh = _mesh()
    ref = weakref.ref(mesh)
    ids, out = wp.array([mesh.id, 0], dtype=wp.uint64), wp.full(1, -1, dtype=int)
    wp.capture_begin()
    wp.launch(nearest_face, 1, inputs=[ids, out])
    graph = wp.capture_end()
    del mesh
    gc.collect()
    assert ref() is not None  # the replay follows the id: the graph keeps its mesh
    wp.capture_launch(graph)
    assert out.numpy().tolist() == [0]
    del graph
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("live", [1, 17])  # a comparison per live mesh, or a sorted lookup beyond 16
def test_a_long_array_is_scanned_to_its_last_element(live):
    meshes = [_mesh() for _ in range(live)]
    ids = np.array([m.id for m in meshes] * (300 // live + 1), dtype=np.uint64)[:300]
    out = wp.full(1, -1, dtype=int)
    wp.launch(nearest_face, 1, inputs=[wp.array(ids, dtype=wp.uint64), out])
    assert out.numpy().tolist() == [0]
    ids[299] = 31337
    with pytest.raises(LaunchError, match=r"array 'ids' holds 31337 at flat index 299, and its elements"):
        wp.launch(nearest_face, 1, inputs=[wp.array(ids, dtype=wp.uint64), wp.full(1, -1, dtype=int)])
