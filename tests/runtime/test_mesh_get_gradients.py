"""The backward pass of ``wp.mesh_get``: what a kernel reads through the mesh's arrays sends its adjoint to the
gradients of the mesh's points and velocities (those they had when the mesh was made or its points set), as
Warp's mesh does; a mesh whose arrays have no gradient takes none."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.runtime.mesh import DESCRIPTOR


@wp.func
def _face_area(mesh_id: wp.uint64, face: int):
    m = wp.mesh_get(mesh_id)
    a = m.points[m.indices[3 * face]]
    b = m.points[m.indices[3 * face + 1]]
    c = m.points[m.indices[3 * face + 2]]
    return 0.5 * wp.length(wp.cross(b - a, c - a))


@wp.kernel
def _total_area(mesh: wp.uint64, w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    f = wp.tid()
    wp.atomic_add(loss, 0, w[f] * _face_area(mesh, f))


@wp.kernel
def _points_dot_velocities(mesh: wp.uint64, loss: wp.array(dtype=float)):
    i = wp.tid()
    m = wp.mesh_get(mesh)
    wp.atomic_add(loss, 0, wp.dot(m.points[i], m.velocities[i]) + 2.0 * m.points[i][0])


def _area_gradients(points: np.ndarray, tris: np.ndarray, w: np.ndarray) -> np.ndarray:
    """d/dpoints of sum_f w_f area_f, in float64: d area / d b = (c - a) x n / 2, d area / d c = n x (b - a) / 2."""
    p = points.astype(np.float64)
    a, b, c = p[tris[:, 0]], p[tris[:, 1]], p[tris[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    db = 0.5 * np.cross(c - a, n) * w[:, None]
    dc = 0.5 * np.cross(n, b - a) * w[:, None]
    grad = np.zeros_like(p)
    for k, g in ((0, -db - dc), (1, db), (2, dc)):
        np.add.at(grad, tris[:, k], g)
    return grad


def _case(seed: int = 3, n_points: int = 12, n_tris: int = 20):
    rng = np.random.default_rng(seed)
    points = rng.uniform(-1.0, 1.0, (n_points, 3)).astype(np.float32)
    tris = np.array([rng.choice(n_points, 3, replace=False) for _ in range(n_tris)], np.int32)
    w = rng.uniform(0.5, 2.0, n_tris).astype(np.float32)
    return points, tris, w


def _area_launch(mesh, w_np, target="cpu"):
    w = wp.array(w_np, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with config.override(target=target):
        with tape:
            wp.launch(_total_area, len(w_np), [mesh.id, w, loss])
        tape.backward(loss)
    return w, loss


def test_reads_through_mesh_get_send_their_adjoints_to_the_points_gradient():
    points, tris, w_np = _case()
    pos = wp.array(points, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points=pos, indices=wp.array(tris.reshape(-1), dtype=wp.int32))
    w, loss = _area_launch(mesh, w_np)
    p = points.astype(np.float64)
    areas = 0.5 * np.linalg.norm(np.cross(p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]]), axis=1)
    np.testing.assert_allclose(loss.numpy()[0], (w_np * areas).sum(), rtol=1e-5)
    np.testing.assert_allclose(mesh.points.grad.numpy(), _area_gradients(points, tris, w_np), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), areas, rtol=1e-5)  # the other values differentiate as before


def test_points_and_velocities_each_take_their_own_adjoint():
    points, tris, _ = _case(4)
    velocities = np.random.default_rng(5).normal(size=points.shape).astype(np.float32)
    pos = wp.array(points, dtype=wp.vec3, requires_grad=True)
    vel = wp.array(velocities, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points=pos, indices=wp.array(tris.reshape(-1), dtype=wp.int32), velocities=vel)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_points_dot_velocities, len(points), [mesh.id, loss])
    tape.backward(loss)
    np.testing.assert_allclose(pos.grad.numpy(), velocities + np.array([2.0, 0.0, 0.0], np.float32), rtol=1e-6)
    np.testing.assert_allclose(vel.grad.numpy(), points, rtol=1e-6)
    tape.reset()  # zeroes the gradients of its launches' arrays; the mesh's are the user's to zero
    pos.grad.zero_()
    with tape:
        wp.launch(_points_dot_velocities, len(points), [mesh.id, loss])
    tape.backward(loss)
    np.testing.assert_allclose(vel.grad.numpy(), 2 * points, rtol=1e-6)  # accumulated, as every gradient is
    np.testing.assert_allclose(pos.grad.numpy(), velocities + np.array([2.0, 0.0, 0.0], np.float32), rtol=1e-6)


def test_a_mesh_without_gradients_takes_none_and_the_other_values_still_differentiate():
    points, tris, w_np = _case(6)
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(tris.reshape(-1), dtype=wp.int32))
    assert mesh._storage.descriptor["points_grad"][0] == 0
    w, _ = _area_launch(mesh, w_np)
    assert mesh.points.grad is None
    p = points.astype(np.float64)
    areas = 0.5 * np.linalg.norm(np.cross(p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]]), axis=1)
    np.testing.assert_allclose(w.grad.numpy(), areas, rtol=1e-5)


def test_setting_the_points_moves_the_gradient_to_the_new_points():
    points, tris, w_np = _case(7)
    old = wp.array(points, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points=old, indices=wp.array(tris.reshape(-1), dtype=wp.int32))
    moved = points * 1.5
    new = wp.array(moved, dtype=wp.vec3, requires_grad=True)
    mesh.points = new
    assert DESCRIPTOR.itemsize == 152 and mesh._storage.descriptor["points_grad"][0] == new.grad.ptr
    _area_launch(mesh, w_np)
    np.testing.assert_array_equal(old.grad.numpy(), 0.0)
    np.testing.assert_allclose(new.grad.numpy(), _area_gradients(moved, tris, w_np), rtol=1e-4, atol=1e-5)


def _backward_compiled(texts):
    assert any("bw::mesh_get_grads<" in t for t in texts)  # the backward kernel compiled for CUDA too


@pytest.mark.compiles_for_cuda(check=_backward_compiled)
def test_the_gpu_mapping_differentiates_mesh_get_as_the_cpu_does():
    points, tris, w_np = _case(8)
    grads = []
    for target in ("cpu", "cuda-emulation"):
        pos = wp.array(points, dtype=wp.vec3, requires_grad=True)
        mesh = wp.Mesh(points=pos, indices=wp.array(tris.reshape(-1), dtype=wp.int32))
        _area_launch(mesh, w_np, target)
        grads.append(pos.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0], _area_gradients(points, tris, w_np), rtol=1e-4, atol=1e-5)
