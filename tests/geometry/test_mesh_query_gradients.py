"""Gradients of the mesh queries (builtins/mesh_adjoints.py) against central finite differences on a small mesh: the
closest point's barycentric weights (and so the closest point and the distance) with respect to the query point in
each region of a triangle, a ray hit's t, u, v with respect to its start and direction, mesh_eval_position and
mesh_eval_velocity with respect to u and v; the values Warp 1.19 gives where it has them."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

# a tetrahedron: faces wound outwards
POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
FACES = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], dtype=np.int32)
VELOCITIES = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.5], [3.0, 1.0, 0.0], [0.5, 0.5, 0.5]], dtype=np.float32)


@wp.kernel
def closest(mesh: wp.uint64, kind: int, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    x = p[0]
    q = wp.mesh_query_point_no_sign(mesh, x, 10.0)
    if kind == 1:
        q = wp.mesh_query_point(mesh, x, 10.0)
    elif kind == 2:
        q = wp.mesh_query_point_sign_normal(mesh, x, 10.0)
    elif kind == 3:
        q = wp.mesh_query_point_sign_winding_number(mesh, x, 10.0)
    elif kind == 4:
        q = wp.mesh_query_point_sign_parity(mesh, x, 10.0)
    elif kind == 5:
        q = wp.mesh_query_furthest_point_no_sign(mesh, x, 0.0)
    c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    out[0] = q.u
    out[1] = q.v
    out[2] = c[0] + 2.0 * c[1] - c[2]
    out[3] = wp.length(c - x)
    out[4] = wp.float32(q.face)


@wp.kernel
def ray(mesh: wp.uint64, s: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    h = wp.mesh_query_ray(mesh, s[0], d[0], 100.0)
    out[0] = h.t
    out[1] = h.u
    out[2] = h.v
    out[3] = wp.float32(h.face)


@wp.kernel
def evaluate(mesh: wp.uint64, face: int, uv: wp.array(dtype=float), out: wp.array(dtype=float)):
    p = wp.mesh_eval_position(mesh, face, uv[0], uv[1])
    v = wp.mesh_eval_velocity(mesh, face, uv[0], uv[1])
    out[0] = p[0] - 3.0 * p[1] + p[2]
    out[1] = wp.dot(v, wp.vec3(1.0, 2.0, -1.0))


@pytest.fixture(scope="module")
def mesh():
    return wp.Mesh(wp.array(POINTS, dtype=wp.vec3), wp.array(FACES, dtype=wp.int32),
                   velocities=wp.array(VELOCITIES, dtype=wp.vec3))


def _values(kernel, mesh, head, inputs, count):
    out = wp.zeros(count, dtype=float)
    wp.launch(kernel, 1, inputs=[mesh.id, *head, *[wp.array(a, dtype=a_type) for a, a_type in inputs], out])
    return out.numpy().astype(np.float64)


def _check(kernel, mesh, head, inputs, count, outputs, h=1e-3, atol=2e-3):
    """The tape's gradient of each output in ``outputs`` against central differences in every input component."""
    for k in outputs:
        arrays = [wp.array(a, dtype=a_type, requires_grad=True) for a, a_type in inputs]
        out = wp.zeros(count, dtype=float, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(kernel, 1, inputs=[mesh.id, *head, *arrays, out])
        seed = np.zeros(count, dtype=np.float32)
        seed[k] = 1.0
        tape.backward(grads={out: wp.array(seed, dtype=float)})
        for j, (a, a_type) in enumerate(inputs):
            gradient = arrays[j].grad.numpy().reshape(-1)
            finite = np.zeros(a.size)
            for m in range(a.size):
                plus, minus = a.copy().reshape(-1), a.copy().reshape(-1)
                plus[m] += h
                minus[m] -= h
                shifted = [(plus.reshape(a.shape) if i == j else b, t) for i, (b, t) in enumerate(inputs)]
                up = _values(kernel, mesh, head, shifted, count)
                shifted[j] = (minus.reshape(a.shape), a_type)
                down = _values(kernel, mesh, head, shifted, count)
                assert up[-1] == down[-1], "the difference crosses into another face"
                finite[m] = (up[k] - down[k]) / (2.0 * h)
            np.testing.assert_allclose(gradient, finite, atol=atol, err_msg=f"output {k}, input {j}")


@pytest.fixture(scope="module")
def triangle():
    """One triangle (corners a, b, c): every region of its plane belongs to it alone (a closed mesh ties two faces
    at each edge)."""
    return wp.Mesh(wp.array(POINTS[:3], dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))


# a query point in each region of the triangle's plane, off the plane
QUERIES = {"face": [0.2, 0.3, -0.5], "edge ab": [0.4, -0.3, 0.2], "edge ac": [-0.3, 0.4, 0.1],
           "edge bc": [0.8, 0.7, -0.1], "corner a": [-0.3, -0.2, 0.4], "corner b": [1.4, -0.2, 0.1],
           "corner c": [-0.1, 1.5, 0.2]}


@pytest.mark.parametrize("where", list(QUERIES))
@pytest.mark.parametrize("kind", [0, 1, 2, 3, 4])
def test_closest_point_weights_gradient_matches_finite_differences(triangle, where, kind):
    point = np.array([QUERIES[where]], dtype=np.float32)
    _check(closest, triangle, [kind], [(point, wp.vec3)], 5, outputs=range(4))


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_closest_point_gradient_values(mesh, target):
    """Below the face's interior: u = 1 - x - y, v = y (the face's corners 0, 2, 1), the distance's gradient -z."""
    p = wp.array([[0.2, 0.3, -0.5]], dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(5, dtype=float, requires_grad=True)
    expected = {0: [-1.0, -1.0, 0.0], 1: [0.0, 1.0, 0.0], 2: [1.0, 2.0, 0.0], 3: [0.0, 0.0, -1.0]}
    for k, gradient in expected.items():
        with wp.Tape() as tape, config.override(target=target):
            wp.launch(closest, 1, inputs=[mesh.id, 0, p, out])
        seed = np.zeros(5, dtype=np.float32)
        seed[k] = 1.0
        with config.override(target=target):
            tape.backward(grads={out: wp.array(seed, dtype=float)})
        np.testing.assert_allclose(p.grad.numpy()[0], gradient, atol=1e-6)
        tape.zero()


def test_furthest_point_is_a_corner_without_gradient(triangle):
    point = np.array([[0.2, 0.3, -0.5]], dtype=np.float32)
    _check(closest, triangle, [5], [(point, wp.vec3)], 5, outputs=range(3))


@pytest.mark.parametrize("start, direction", [([0.2, 0.3, -1.0], [0.1, 0.0, 1.0]),
                                              ([0.1, 0.2, 2.0], [0.15, 0.1, -1.0]),
                                              ([2.0, 0.3, 0.2], [-1.0, 0.05, 0.1])])
def test_ray_hit_gradients_match_finite_differences(mesh, start, direction):
    inputs = [(np.array([start], dtype=np.float32), wp.vec3), (np.array([direction], dtype=np.float32), wp.vec3)]
    _check(ray, mesh, [], inputs, 4, outputs=range(3))


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_ray_hit_gradient_values(mesh, target):
    """A ray up through z = 0: t = -s_z / d_z, so dt/ds = (0, 0, -1/d_z) and dt/dd = t dt/ds (Warp's values)."""
    s = wp.array([[0.2, 0.3, -1.0]], dtype=wp.vec3, requires_grad=True)
    d = wp.array([[0.1, 0.0, 1.0]], dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    for k, gradient in {0: [0.0, 0.0, -1.0], 1: [-1.0, -1.0, 0.1], 2: [0.0, 1.0, 0.0]}.items():
        with wp.Tape() as tape, config.override(target=target):
            wp.launch(ray, 1, inputs=[mesh.id, s, d, out])
        seed = np.zeros(4, dtype=np.float32)
        seed[k] = 1.0
        with config.override(target=target):
            tape.backward(grads={out: wp.array(seed, dtype=float)})
        np.testing.assert_allclose(s.grad.numpy()[0], gradient, atol=1e-6)
        np.testing.assert_allclose(d.grad.numpy()[0], gradient, atol=1e-6)  # t = 1
        tape.zero()


def test_a_miss_has_no_gradient(mesh):
    p = wp.array([[20.0, 20.0, 20.0]], dtype=wp.vec3, requires_grad=True)
    d = wp.array([[1.0, 0.0, 0.0]], dtype=wp.vec3, requires_grad=True)
    for kernel, inputs, seed in ((closest, [0, p], [1.0, 1.0, 0.0, 0.0, 0.0]),  # beyond max_dist: u and v
                                 (ray, [p, d], [1.0, 1.0, 1.0, 0.0])):  # pointing away: t, u and v
        out = wp.zeros(len(seed), dtype=float, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(kernel, 1, inputs=[mesh.id, *inputs, out])
        tape.backward(grads={out: wp.array(np.array(seed, dtype=np.float32), dtype=float)})
        assert not p.grad.numpy().any() and not d.grad.numpy().any()


@pytest.mark.parametrize("face", [0, 3])
def test_eval_position_and_velocity_gradients(mesh, face):
    uv = wp.array([0.2, 0.5], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    corners = FACES[3 * face:3 * face + 3]
    for k, (values, weights) in enumerate([(POINTS, [1.0, -3.0, 1.0]), (VELOCITIES, [1.0, 2.0, -1.0])]):
        with wp.Tape() as tape:
            wp.launch(evaluate, 1, inputs=[mesh.id, face, uv, out])
        seed = np.zeros(2, dtype=np.float32)
        seed[k] = 1.0
        tape.backward(grads={out: wp.array(seed, dtype=float)})
        a, b, c = (values[i] @ np.array(weights, dtype=np.float32) for i in corners)
        np.testing.assert_allclose(uv.grad.numpy(), [a - c, b - c], atol=1e-6)
        tape.zero()
