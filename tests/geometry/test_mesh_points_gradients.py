"""Gradients with respect to a ``wp.Mesh``'s ``points`` and ``velocities``, as Warp 1.19 gives them (its values, run
with warp-lang 1.19.0 on the CPU, are written below): the queries (``mesh_query_point*``, ``mesh_query_ray``),
``mesh_eval_position``/``mesh_eval_velocity`` and ``mesh_get_point``/``mesh_get_velocity`` send nothing to them;
what a kernel reads through ``wp.mesh_get`` does (test_mesh_get_gradients.py), so a closest point built from the
face's corners carries the gradient to the points, and from there, after a ``refit`` (which a tape does not
record: it has no adjoint), to what moved them, against central finite differences and Warp's values; the GPU
mapping (cuda-emulation) gives the CPU's values, and a mesh on a CUDA device (the fake driver) is differentiated
there, nothing refused and nothing copied through the host."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.targets.cuda import BOUNDS_SYMBOL

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import counting_copies  # noqa: E402

POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
FACES = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], dtype=np.int32)
VELOCITIES = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.5], [3.0, 1.0, 0.0], [0.5, 0.5, 0.5]], dtype=np.float32)


@wp.kernel
def _query_outputs(mesh: wp.uint64, kind: int, p: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3),
                   out: wp.array(dtype=float)):
    x = p[0]
    q = wp.mesh_query_point_no_sign(mesh, x, 10.0)
    if kind == 1:
        q = wp.mesh_query_point(mesh, x, 10.0)
    c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    v = wp.mesh_eval_velocity(mesh, q.face, q.u, q.v)
    h = wp.mesh_query_ray(mesh, x, d[0], 100.0)
    a = wp.mesh_get_point(mesh, 4)  # face 1's first corner: points[indices[4]]
    w = wp.mesh_get_velocity(mesh, 4)
    out[0] = q.u + 2.0 * q.v
    out[1] = c[0] + 2.0 * c[1] - c[2]
    out[2] = wp.length(c - x)
    out[3] = wp.dot(v, wp.vec3(1.0, 2.0, -1.0))
    out[4] = h.t
    out[5] = h.u + 2.0 * h.v
    out[6] = a[0] + 2.0 * a[1] + 3.0 * a[2]
    out[7] = w[0] + 2.0 * w[1] + 3.0 * w[2]


# Warp 1.19's gradients of each output in the query point p and the ray's direction d (the points' and velocities'
# are zero for all); p below the face (0, 2, 1) at z = 0, the ray from p up through it (t = 0.5)
WARP_P = [[-1.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, -1.0], [-1.5, 6.0, 0.0], [0.0, 0.0, -1.0],
          [-1.0, 1.0, 0.1], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
WARP_D = [[0.0, 0.0, 0.0]] * 4 + [[0.0, 0.0, -0.5], [-0.5, 0.5, 0.05], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize("kind", [0, 1])
@pytest.mark.parametrize("k", range(8))
def test_queries_evaluations_and_getters_send_nothing_to_points_and_velocities(kind, k):
    points = wp.array(POINTS, dtype=wp.vec3, requires_grad=True)
    velocities = wp.array(VELOCITIES, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points, wp.array(FACES, dtype=wp.int32), velocities)
    p = wp.array([[0.2, 0.3, -0.5]], dtype=wp.vec3, requires_grad=True)
    d = wp.array([[0.1, 0.0, 1.0]], dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(8, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_query_outputs, 1, inputs=[mesh.id, kind, p, d, out])
    seed = np.zeros(8, dtype=np.float32)
    seed[k] = 1.0
    tape.backward(grads={out: wp.array(seed, dtype=float)})
    assert not points.grad.numpy().any() and not velocities.grad.numpy().any()
    np.testing.assert_allclose(p.grad.numpy()[0], WARP_P[k], atol=1e-6)
    np.testing.assert_allclose(d.grad.numpy()[0], WARP_D[k], atol=1e-6)


@wp.kernel
def _move(base: wp.array(dtype=wp.vec3), shift: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = base[i] + shift[0] * float(i + 1)


@wp.kernel
def _distance_by_corners(mesh: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    x = p[0]
    q = wp.mesh_query_point_no_sign(mesh, x, 10.0)
    m = wp.mesh_get(mesh)  # the corners read through the mesh's arrays: their adjoints reach points.grad
    a = m.points[m.indices[3 * q.face]]
    b = m.points[m.indices[3 * q.face + 1]]
    c = m.points[m.indices[3 * q.face + 2]]
    out[0] = wp.length(x - (q.u * a + q.v * b + (1.0 - q.u - q.v) * c))
    e = wp.mesh_eval_position(mesh, q.face, q.u, q.v)  # the same point: no gradient in the points
    out[1] = e[0] + 2.0 * e[1] - e[2]


SHIFT = np.array([[0.05, -0.02, 0.1]], dtype=np.float32)
QUERY = np.array([[0.2, 0.3, -0.5]], dtype=np.float32)


def _moved_mesh(base, shift, p, out, tape=None):
    """``points = base + shift * (i + 1)`` by a kernel, a refit, then the query (under ``tape`` when given)."""
    points = wp.zeros(4, dtype=wp.vec3, requires_grad=True)
    wp.launch(_move, 4, inputs=[base, shift, points])
    mesh = wp.Mesh(points, wp.array(FACES, dtype=wp.int32))
    with tape if tape is not None else _no_tape():
        wp.launch(_move, 4, inputs=[base, shift, points])
        mesh.refit()
        wp.launch(_distance_by_corners, 1, inputs=[mesh.id, p, out])
    return mesh


class _no_tape:  # noqa: N801 - a context that does nothing
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _output(base_np, shift_np, k):
    out = wp.zeros(2, dtype=float)
    _moved_mesh(wp.array(base_np, dtype=wp.vec3), wp.array(shift_np, dtype=wp.vec3), wp.array(QUERY, dtype=wp.vec3),
                out)
    return float(out.numpy()[k])


def _gradients(k, target="cpu"):
    base = wp.array(POINTS, dtype=wp.vec3, requires_grad=True)
    shift = wp.array(SHIFT, dtype=wp.vec3, requires_grad=True)
    p = wp.array(QUERY, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with config.override(target=target):
        mesh = _moved_mesh(base, shift, p, out, tape)  # kept: the backward pass reads it
        assert len(tape.launches) == 2  # the refit is not recorded (nor in Warp)
        seed = np.zeros(2, dtype=np.float32)
        seed[k] = 1.0
        tape.backward(grads={out: wp.array(seed, dtype=float)})
    del mesh
    return base.grad.numpy(), shift.grad.numpy(), p.grad.numpy()


def test_corners_read_after_a_refit_carry_the_gradient_to_what_moved_the_points():
    base_grad, shift_grad, p_grad = _gradients(0)
    h = 1e-3
    for which, gradient in ((0, base_grad), (1, shift_grad)):
        value = (POINTS, SHIFT)[which]
        finite = np.zeros(value.size)
        for m in range(value.size):
            moved = []
            for step in (h, -h):
                args = [POINTS, SHIFT]
                args[which] = value.copy()
                args[which].reshape(-1)[m] += step
                moved.append(_output(*args, k=0))
            finite[m] = (moved[0] - moved[1]) / (2.0 * h)
        np.testing.assert_allclose(gradient.reshape(-1), finite, atol=2e-3, err_msg=("base", "shift")[which])
    # Warp 1.19's values for the same case
    np.testing.assert_allclose(base_grad, [[-0.0711483, -0.1422963, 0.7185965], [-0.0060634, -0.0121268, 0.0612401],
                                           [-0.0194576, -0.0389152, 0.1965217], [0.0, 0.0, 0.0]], atol=1e-5)
    np.testing.assert_allclose(shift_grad, [[-0.1416479, -0.2832954, 1.4306418]], atol=1e-5)
    np.testing.assert_allclose(p_grad, [[0.0966691, 0.1933383, -0.9763583]], atol=1e-5)


def test_the_evaluated_position_after_a_refit_passes_nothing_to_the_points():
    base_grad, shift_grad, p_grad = _gradients(1)
    assert not base_grad.any() and not shift_grad.any()
    np.testing.assert_allclose(p_grad, [[0.8588916, 1.7177835, 0.4251939]], atol=1e-5)  # Warp 1.19's


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("k", [0, 1])
def test_the_gpu_mapping_gives_the_cpus_gradients(k):
    cpu = _gradients(k)
    emulated = _gradients(k, "cuda-emulation")
    for got, want in zip(emulated, cpu):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_a_mesh_on_a_cuda_device_is_differentiated_there():
    # not refused, as in Warp (whose mesh adjoints are the CPU's code): the backward kernel runs on the device, with
    # the mesh's descriptor there holding the points' gradient for mesh_get, and nothing goes through the host
    with counting_copies() as drv:
        points = wp.array(POINTS, dtype=wp.vec3, device="cuda:0", requires_grad=True)
        mesh = wp.Mesh(points, wp.array(FACES, dtype=wp.int32, device="cuda:0"))
        assert mesh._storage.descriptor["points_grad"][0] == points.grad.ptr
        p = wp.array(QUERY, dtype=wp.vec3, device="cuda:0", requires_grad=True)
        out = wp.zeros(2, dtype=float, device="cuda:0", requires_grad=True)
        seed = wp.array([1.0, 1.0], dtype=float, device="cuda:0")
        with wp.Tape() as tape:
            wp.launch(_distance_by_corners, 1, inputs=[mesh.id, p, out], device="cuda:0")
        drv.copies.clear()
        launched = len(drv.launches)
        tape.backward(grads={out: seed})
        record = ("down", drv.globals[BOUNDS_SYMBOL][1]) if BOUNDS_SYMBOL in drv.globals else None
        assert [c for c in drv.copies if c != record] == []  # only a checked launch's bounds record is read back
        assert len(drv.launches) - launched == 1  # the kernel's backward
