"""``wp.closest_point_edge_edge`` and ``wp.intersect_tri_tri``: values measured with Warp 1.19, the special
cases (degenerate and parallel segments, touching triangles), gradients under ``wp.Tape`` against central
differences, and the argument rules; on the CPU and the GPU mapping's emulation."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

TARGETS = ["cpu", "cuda-emulation"]

# Four segment pairs (p1, q1, p2, q2 each) and Warp's (s, t, distance) for them with epsilon 1e-5.
SEGMENTS = np.array([
    [-0.006826779805123806, 1.0461432933807373, 0.7415884137153625], [0.7239565253257751, 1.6187762022018433,
                                                                      -1.205558180809021],
    [-0.6269554495811462, -1.3206632137298584, -0.10775250941514969], [0.9987636804580688, -0.021947886794805527,
                                                                       0.4958800673484802],
    [-1.9107686281204224, 0.14706416428089142, -0.9069432616233826], [1.7753894329071045, 0.8868491053581238,
                                                                      0.9493494629859924],
    [-0.05785496160387993, 0.6128622889518738, 0.6578901410102844], [-0.3444026708602905, -0.497372031211853,
                                                                     -0.11477278172969818],
    [-0.6054520010948181, -0.5943394303321838, -0.2833753824234009], [-0.7284177541732788, 0.7663277983665466,
                                                                      -1.5960863828659058],
    [0.8235621452331543, -0.6255664825439453, -0.5459399819374084], [-1.3508471250534058, -0.14424212276935577,
                                                                     -0.2476615160703659],
    [0.19145582616329193, -0.5337743163108826, 0.09375617653131485], [1.8196918964385986, 0.4089996814727783,
                                                                      -0.5736900568008423],
    [0.953109622001648, -0.1288011372089386, 0.593874454498291], [0.6127474308013916, -0.39106571674346924,
                                                                  -1.930287480354309]], np.float32)
WARP_ST = np.array([[0.1292448192834854, 0.9996621012687683, 1.4610291719436646],
                    [0.5208970904350281, 0.27829742431640625, 0.46947136521339417],
                    [0.13099431991577148, 0.6477181315422058, 0.1494590938091278],
                    [0.38988351821899414, 0.30082425475120544, 0.048168811947107315]])


@wp.kernel
def closest(p: wp.array(dtype=wp.vec3), eps: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.closest_point_edge_edge(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3], eps)


def _closest(points, target="cpu", eps=1e-5):
    points = np.asarray(points, np.float32).reshape(-1, 3)
    out = wp.zeros(len(points) // 4, dtype=wp.vec3)
    with config.override(target=target):
        wp.launch(closest, dim=len(out), inputs=[wp.array(points, dtype=wp.vec3), eps, out])
    return out.numpy()


@pytest.mark.parametrize("target", TARGETS)
def test_values_are_warps(target):
    np.testing.assert_allclose(_closest(SEGMENTS, target), WARP_ST, atol=2e-6)


def test_special_cases():
    cases = [  # p1, q1, p2, q2 -> s, t, distance
        ([0, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0], (0.5, 0.5, 0.0)),  # crossing in the middle
        ([0, 0, 0], [1, 1, 0], [2, 2, 0], [3, 3, 0], (1.0, 0.0, np.sqrt(2.0))),  # parallel, end to end
        ([0, 0, 0], [0, 0, 0], [1, 1, 1], [1, 1, 1], (0.0, 0.0, np.sqrt(3.0))),  # both points
        ([0, 0, 0], [0, 0, 0], [-1, 1, 0], [1, 1, 0], (0.0, 0.5, 1.0)),  # a point and a segment
        ([0, 0, 0], [0, 0, 0], [1, 1, 0], [2, 1, 0], (0.0, 0.0, np.sqrt(2.0))),  # its projection clamped
        ([-1, 1, 0], [1, 1, 0], [0, 0, 0], [0, 0, 0], (0.5, 0.0, 1.0)),  # a segment and a point
        ([0, 0, 0], [0.003, 0, 0], [0, 1, 0], [1, 0, 0], (0.0, 0.5, np.sqrt(0.5))),  # within epsilon: a point
        # nearly parallel, crossing in the middle: Warp's float32 result (a e - b^2 loses digits)
        ([0, 0, 0], [1, 0, 0], [0, -4.9e-4, 0], [1, 4.9e-4, 0], (0.50352621, 0.50352621, 3.4556724e-06)),
    ]
    got = _closest([c[:4] for c in cases])
    np.testing.assert_allclose(got, [c[4] for c in cases], atol=1e-6)
    # the closest points of random segments: each parameter is clamped or makes c1 - c2 normal to its segment
    rng = np.random.default_rng(5)
    p = rng.standard_normal((64, 4, 3)).astype(np.float32)
    st = _closest(p)
    d1, d2 = p[:, 1] - p[:, 0], p[:, 3] - p[:, 2]
    u = p[:, 0] + d1 * st[:, :1] - p[:, 2] - d2 * st[:, 1:2]
    np.testing.assert_allclose(np.linalg.norm(u, axis=1), st[:, 2], rtol=1e-5)
    inner_s, inner_t = (st[:, 0] > 0) & (st[:, 0] < 1), (st[:, 1] > 0) & (st[:, 1] < 1)
    assert np.abs(np.einsum("ij,ij->i", u, d1)[inner_s]).max() < 1e-4
    assert np.abs(np.einsum("ij,ij->i", u, d2)[inner_t]).max() < 1e-4


@wp.kernel
def closest_loss(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), p2: wp.array(dtype=wp.vec3),
                 q2: wp.array(dtype=wp.vec3), w: wp.vec3, loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], 1.0e-5), w))


def test_gradients_match_central_differences():
    # well inside their branches: both parameters free, both clamped, and a segment within epsilon
    base = np.array([[[0.1, 0.2, 0.3], [1.3, 0.7, -0.2], [0.5, -1.0, 0.4], [0.2, 1.1, 0.9]],
                     [[0.1, 0.2, 0.3], [1.3, 0.7, -0.2], [0.5, -1.0, 0.4], [0.2, -2.1, 0.9]],
                     [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [-0.5, 1.0, 0.4], [0.8, 0.1, -0.2]]], np.float64)
    w = wp.vec3(0.7, -0.4, 1.1)
    arrays = [wp.array(base[:, k].astype(np.float32), dtype=wp.vec3, requires_grad=True) for k in range(4)]
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(closest_loss, dim=3, inputs=[*arrays, w, loss])
    tape.backward(loss=loss)

    def value(points):
        out = _closest(points)
        return out @ np.array([0.7, -0.4, 1.1])

    h = 1e-3
    for k in range(4):
        fd = np.zeros((3, 3))
        for j in range(3):
            plus, minus = base.copy(), base.copy()
            plus[:, k, j] += h
            minus[:, k, j] -= h
            fd[:, j] = (value(plus) - value(minus)) / (2 * h)
        np.testing.assert_allclose(arrays[k].grad.numpy(), fd, atol=5e-3)


def test_gradient_of_nearly_parallel_segments_stays_bounded():
    rng = np.random.default_rng(8)
    n = 64
    p1 = rng.standard_normal((n, 3)).astype(np.float32)
    d = rng.standard_normal((n, 3)).astype(np.float32)
    p2 = p1 + rng.standard_normal((n, 3)).astype(np.float32)
    q2 = p2 + d * 1.3 + 10.0 ** rng.uniform(-7, -2, (n, 1)).astype(np.float32) * rng.standard_normal((n, 3))
    arrays = [wp.array(x.astype(np.float32), dtype=wp.vec3, requires_grad=True) for x in (p1, p1 + d, p2, q2)]
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(closest_loss, dim=n, inputs=[*arrays, wp.vec3(0.0, 0.0, 1.0), loss])
    tape.backward(loss=loss)
    for a in arrays:
        g = a.grad.numpy()
        assert np.all(np.isfinite(g)) and np.abs(g).max() <= 1.0 + 1e-4


@wp.kernel
def tri_tri(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=int), outd: wp.array(dtype=int)):
    i = wp.tid()
    a = v[6 * i]
    b = v[6 * i + 1]
    c = v[6 * i + 2]
    d = v[6 * i + 3]
    e = v[6 * i + 4]
    f = v[6 * i + 5]
    out[i] = wp.intersect_tri_tri(a, b, c, d, e, f)
    outd[i] = wp.intersect_tri_tri(wp.vec3d(a), wp.vec3d(b), wp.vec3d(c), wp.vec3d(d), wp.vec3d(e), wp.vec3d(f))


@pytest.mark.parametrize("target", TARGETS)
def test_intersect_tri_tri(target):
    tri = [[0, 0, 0], [1, 0, 0], [0, 0, 1]]
    cases = [
        (tri + [[0.5, -0.5, 0], [0.5, -0.5, 1], [0.5, 0.5, 0]], 1),  # Warp's test: piercing
        (tri + [[-0.5, -0.5, 0], [-0.5, -0.5, 1], [-0.5, 0.5, 0]], 0),  # Warp's test: apart
        (tri + tri, 1),  # the same triangle
        (tri + [[1, 0, 0], [2, 0, 0], [1, 1, 0]], 1),  # touching at a corner
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.2, 0], [0.3, 0.2, 0], [0.2, 0.3, 0]], 1),  # coplanar, inside
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.6, 0.6, 0], [1, 0.6, 0], [0.6, 1, 0]], 0),  # coplanar, apart
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.2, 0.1], [0.3, 0.2, 1], [0.2, 0.3, 1]], 0),  # above
    ]
    v = np.array([p for pts, _ in cases for p in pts], np.float32)
    out, outd = wp.zeros(len(cases), dtype=int), wp.zeros(len(cases), dtype=int)
    with config.override(target=target):
        wp.launch(tri_tri, dim=len(cases), inputs=[wp.array(v, dtype=wp.vec3), out, outd])
    want = [w for _, w in cases]
    assert out.numpy().tolist() == want and outd.numpy().tolist() == want


@wp.kernel
def edge_with_vec3d(out: wp.array(dtype=wp.vec3d)):
    z = wp.vec3d(0.0, 0.0, 0.0)
    out[0] = wp.closest_point_edge_edge(z, z, z, z, wp.float64(1e-5))


@wp.kernel
def tri_mixed(out: wp.array(dtype=int)):
    z = wp.vec3(0.0, 0.0, 0.0)
    out[0] = wp.intersect_tri_tri(z, z, z, wp.vec3d(z), z, z)


@pytest.mark.parametrize("kernel, dtype, message", [
    (edge_with_vec3d, wp.vec3d, "closest_point_edge_edge(): needs the end points of two segments as vec3f"),
    (tri_mixed, int, "intersect_tri_tri(): needs the corners of two triangles as six vec3f or six vec3d"),
])
def test_argument_errors(kernel, dtype, message):
    out = wp.zeros(1, dtype=dtype)
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(kernel, dim=1, inputs=[out])
    assert message in str(info.value) and "test_warp_geometry.py" in str(info.value)
