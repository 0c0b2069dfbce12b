"""An id held in a struct argument's ``uint64`` field and passed to a query is checked as an id argument is: a
kernel given a struct whose field held a made-up or freed hash grid id died of a segmentation fault in
hash_grid_query (attacker probe; an id argument was refused, ``runtime/live_ids``)."""

import gc
import weakref

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError


@wp.struct
class Neighbours:
    grid: wp.uint64
    radius: float


@wp.struct
class Scene:
    inner: Neighbours


@wp.func
def count_near(grid: wp.uint64, p: wp.vec3, radius: float) -> int:
    n = 0
    for _j in wp.hash_grid_query(grid, p, radius):
        n += 1
    return n


@wp.kernel
def count_nested(scene: Scene, out: wp.array(dtype=int)):
    out[0] = count_near(scene.inner.grid, wp.vec3(0.5, 0.5, 0.5), scene.inner.radius)


def _grid():
    points = np.linspace(0.4, 0.6, 10, dtype=np.float32)[:, None].repeat(3, axis=1)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(wp.array(points, dtype=wp.vec3), 0.5)
    return grid


def _scene(grid_id) -> Scene:
    scene = Scene()
    scene.inner.grid = grid_id
    scene.inner.radius = 0.5
    return scene


def test_a_live_id_in_a_nested_struct_field_runs():
    grid, out = _grid(), wp.full(1, -1, dtype=int)
    wp.launch(count_nested, 1, inputs=[_scene(grid.id), out])
    assert out.numpy().tolist() == [10]


@pytest.mark.parametrize("made", ["made up", "freed", "another kind"])
def test_an_id_of_no_live_grid_in_a_struct_field_is_refused(made):
    keep = None
    if made == "made up":
        value = 424242
    elif made == "freed":
        grid = _grid()
        value = grid.id
        del grid
        gc.collect()
    else:
        keep = wp.Mesh(wp.array(np.eye(3, dtype=np.float32), dtype=wp.vec3), wp.array([0, 1, 2], dtype=int))
        value = keep.id
    out = wp.full(1, -1, dtype=int)
    with pytest.raises(LaunchError) as info:
        wp.launch(count_nested, 1, inputs=[_scene(value), out])
    why = ("it is the id of a wp.Mesh, not of a wp.HashGrid" if keep is not None else
           "no live wp.HashGrid has it (was the object freed? an id is valid only while its object is referenced)")
    assert str(info.value) == (f"launch of 'count_nested': argument 'scene.inner.grid' = {value} is passed to "
                               f"hash_grid_query() as the id of a wp.HashGrid, but {why}")
    assert out.numpy().tolist() == [-1]


def test_a_captured_graph_holds_the_grid_a_struct_field_names():
    """A replay follows the id in the packed struct: the graph keeps the grid alive (released with the graph)."""
    grid, out = _grid(), wp.full(1, -1, dtype=int)
    scene = _scene(grid.id)
    wp.capture_begin()
    wp.launch(count_nested, 1, inputs=[scene, out])
    graph = wp.capture_end()
    ref = weakref.ref(grid)
    del grid
    gc.collect()
    assert ref() is not None
    wp.capture_launch(graph)
    assert out.numpy().tolist() == [10]
    del graph
    gc.collect()
    assert ref() is None
