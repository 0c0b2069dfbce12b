"""Ids of meshes, BVHs, hash grids and volumes checked at launch (runtime/live_ids.py, ir/id_params.py): a
``uint64`` parameter passed to a query builtin must hold the id of a live object of the kind on the launch's
device. A made-up id, an id of a freed object or of another kind is a LaunchError naming the argument,
its value, the builtin and the reason, before the kernel runs (it read freed memory or crashed the process);
nothing is written. 0, the null id, passes (an optional object queried in a branch). Live ids launch as
before, with the values numpy gives."""

import gc

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError
from brickwork.runtime import live_ids


@wp.kernel
def closest_u(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point(mesh, points[i], 10.0)
    out[i] = wp.where(q.result, q.u + 2.0 * q.v, -1.0)


@wp.kernel
def closest_u_if(mesh: wp.uint64, has_mesh: int, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = -2.0
    if has_mesh != 0:
        q = wp.mesh_query_point(mesh, points[i], 10.0)
        out[i] = wp.where(q.result, q.u + 2.0 * q.v, -1.0)


@wp.func
def face_count(mesh: wp.uint64, p: wp.vec3) -> float:
    q = wp.mesh_query_aabb(mesh, p - wp.vec3(5.0), p + wp.vec3(5.0))
    face = 0
    n = 0.0
    while wp.mesh_query_aabb_next(q, face):
        n += 1.0
    return n


@wp.kernel
def faces_near(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = face_count(mesh, points[i])  # the id reaches the query through a wp.func


@wp.kernel
def boxes_hit(tree: wp.uint64, out: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.bvh_query_aabb(tree, wp.vec3(-0.5), wp.vec3(0.5))
    box = 0
    n = 0
    while wp.bvh_query_next(q, box):
        n += 1
    out[i] = n


@wp.kernel
def neighbours(grid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    i = wp.tid()
    n = 0
    for _j in wp.hash_grid_query(grid, points[i], 0.5):
        n += 1
    out[i] = n


@wp.kernel
def sample(volume: wp.uint64, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_lookup_f(volume, i, 0, 0)


@wp.kernel
def keep_number(value: wp.uint64, out: wp.array(dtype=wp.uint64)):
    out[wp.tid()] = value  # a uint64 no query reads: any value


def _triangle():
    points = wp.array(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), dtype=wp.vec3)
    return wp.Mesh(points=points, indices=wp.array(np.array([0, 1, 2], np.int32), dtype=int))


def _queries():
    return wp.array(np.array([[0.25, 0.25, 1.0], [2.0, 0.0, 0.0]], np.float32), dtype=wp.vec3)


def _refused(kernel, inputs, out, *words):
    before = out.numpy().copy()
    with pytest.raises(LaunchError) as info:
        wp.launch(kernel, dim=out.shape[0], inputs=[*inputs, out])
    for w in words:
        assert w in str(info.value)
    np.testing.assert_array_equal(out.numpy(), before)  # the kernel did not run
    return str(info.value)


def test_live_mesh_launches_and_computes():
    mesh, points, out = _triangle(), _queries(), wp.zeros(2, dtype=float)
    wp.launch(closest_u, dim=2, inputs=[mesh.id, points, out])
    # the closest points (0.25, 0.25, 0) and (1, 0, 0): barycentric (u, v) of the corners 0, 1
    u = out.numpy()
    np.testing.assert_allclose(u, [0.5 + 2 * 0.25, 0.0 + 2 * 1.0], atol=1e-6)
    wp.launch(closest_u, dim=2, inputs=[wp.uint64(mesh.id), points, out])  # a wp.uint64 holding it too
    np.testing.assert_array_equal(out.numpy(), u)


def test_made_up_mesh_id_is_refused():
    out = wp.full(2, 7.0, dtype=float)
    msg = _refused(closest_u, [12345, _queries()], out, "launch of 'closest_u'", "argument 'mesh' = 12345",
                   "mesh_query_point()", "no live wp.Mesh has it")
    assert "freed" in msg


def test_freed_mesh_id_is_refused():
    mesh, out = _triangle(), wp.full(2, 7.0, dtype=float)
    dangling = mesh.id
    del mesh
    gc.collect()
    _refused(closest_u, [dangling, _queries()], out, f"argument 'mesh' = {dangling}", "no live wp.Mesh")


def test_zero_id_passes_for_a_query_in_a_branch_not_taken():
    # 0 is the null id: an optional mesh left unset, queried only when a flag says it is there
    out = wp.full(2, 7.0, dtype=float)
    wp.launch(closest_u_if, dim=2, inputs=[0, 0, _queries(), out])
    np.testing.assert_array_equal(out.numpy(), [-2.0, -2.0])
    mesh = _triangle()
    wp.launch(closest_u_if, dim=2, inputs=[mesh.id, 1, _queries(), out])
    expected = wp.zeros(2, dtype=float)
    wp.launch(closest_u, dim=2, inputs=[mesh.id, _queries(), expected])
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_id_of_another_kind_is_refused():
    tree = wp.Bvh(wp.array(np.zeros((1, 3), np.float32), dtype=wp.vec3),
                  wp.array(np.ones((1, 3), np.float32), dtype=wp.vec3))
    _refused(closest_u, [tree.id, _queries()], wp.full(2, 7.0, dtype=float),
             "it is the id of a wp.Bvh, not of a wp.Mesh")


def test_id_through_a_func_is_checked():
    mesh, points, out = _triangle(), _queries(), wp.zeros(2, dtype=float)
    wp.launch(faces_near, dim=2, inputs=[mesh.id, points, out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])
    dangling = mesh.id
    del mesh
    gc.collect()
    _refused(faces_near, [dangling, points], out, "mesh_query_aabb()", "no live wp.Mesh")


def test_bvh_ids():
    lowers = wp.array(np.array([[0, 0, 0], [2, 2, 2]], np.float32), dtype=wp.vec3)
    uppers = wp.array(np.array([[1, 1, 1], [3, 3, 3]], np.float32), dtype=wp.vec3)
    tree, out = wp.Bvh(lowers, uppers), wp.zeros(1, dtype=int)
    wp.launch(boxes_hit, dim=1, inputs=[tree.id, out])
    assert out.numpy()[0] == 1  # [-0.5, 0.5]^3 overlaps the first box only
    dangling = tree.id
    del tree
    gc.collect()
    _refused(boxes_hit, [dangling], out, "bvh_query_aabb()", "no live wp.Bvh")


def test_hash_grid_ids():
    points = wp.array(np.array([[0, 0, 0], [0.1, 0, 0], [3, 3, 3]], np.float32), dtype=wp.vec3)
    grid, out = wp.HashGrid(4, 4, 4), wp.zeros(3, dtype=int)
    grid.build(points, 1.0)
    wp.launch(neighbours, dim=3, inputs=[grid.id, points, out])
    assert out.numpy()[0] >= 2  # candidates: at least both near points
    dangling = grid.id
    del grid
    gc.collect()
    _refused(neighbours, [dangling, points], out, "hash_grid_query()", "no live wp.HashGrid")


def test_volume_ids():
    volume = wp.Volume.load_from_numpy(np.arange(8, dtype=np.float32).reshape(2, 2, 2), bg_value=-1.0)
    out = wp.zeros(2, dtype=float)
    wp.launch(sample, dim=2, inputs=[volume.id, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 4.0])  # values [i, 0, 0]
    _refused(sample, [volume.id + 8], out, "volume_lookup_f()", "no live wp.Volume")


def test_other_uint64_parameters_take_any_value():
    out = wp.zeros(1, dtype=wp.uint64)
    wp.launch(keep_number, dim=1, inputs=[12345, out])
    assert out.numpy()[0] == 12345


def test_registration_ends_with_the_object():
    mesh = _triangle()
    key = mesh.id
    assert key in live_ids.LIVE["mesh"]
    del mesh
    gc.collect()
    assert key not in live_ids.LIVE["mesh"]


def test_an_id_of_another_device_is_refused():
    from .cuda_fake import FakeDriver, installed

    lowers = np.array([[0, 0, 0], [2, 2, 2]], np.float32)
    uppers = np.array([[1, 1, 1], [3, 3, 3]], np.float32)
    out = wp.full(1, 7, dtype=int)
    with installed(FakeDriver()):
        tree = wp.Bvh(wp.array(lowers, dtype=wp.vec3, device="cuda:0"), wp.array(uppers, dtype=wp.vec3, device="cuda:0"))
        # the device tree's id is an address in (fake) device memory: a CPU launch would read it as host memory
        _refused(boxes_hit, [tree.id], out, "it is the id of a wp.Bvh on cuda:0, but the launch runs on cpu")
        del tree


def test_the_object_instead_of_its_id_says_to_pass_the_id():
    mesh, out = _triangle(), wp.full(2, 7.0, dtype=float)
    with pytest.raises(LaunchError, match=r"argument 'mesh' must be uint64, got .*Mesh: pass its id \(mesh.id\)"):
        wp.launch(closest_u, dim=2, inputs=[mesh, _queries(), out])
    assert out.numpy().tolist() == [7.0, 7.0]


@wp.kernel
def mesh_tree(mesh: wp.uint64, out: wp.array(dtype=wp.uint64)):
    out[0] = wp.mesh_get_bvh(mesh)


def test_the_bvh_of_a_live_mesh_passes_as_a_bvh_id():
    # Warp's mesh_get_bvh gives the mesh's tree as a BVH id, valid while the mesh lives: a kernel may store it
    # and a later launch pass it to bvh_query_* (it was refused as the id of a wp.Mesh, not of a wp.Bvh)
    mesh = wp.Mesh(points=wp.array(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5], [6, 5, 5], [5, 6, 5]],
                                            np.float32), dtype=wp.vec3),
                   indices=wp.array(np.arange(6, dtype=np.int32), dtype=int))
    held = wp.zeros(1, dtype=wp.uint64)
    wp.launch(mesh_tree, dim=1, inputs=[mesh.id, held])
    out = wp.zeros(1, dtype=int)
    wp.launch(boxes_hit, dim=1, inputs=[int(held.numpy()[0]), out])
    assert out.numpy()[0] == 1  # [-0.5, 0.5]^3 overlaps the first triangle's box only
    dangling = mesh.id
    del mesh
    gc.collect()
    _refused(boxes_hit, [dangling], out, "bvh_query_aabb()", "no live wp.Bvh")
