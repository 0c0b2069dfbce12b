"""A ray with a NaN in its start or direction meets no triangle, as in Warp: the Moeller-Trumbore tests rejected
what was out of range, which a NaN is not, so mesh_query_ray of direction (nan, 0, -1) returned a hit on face 0 at
t = nan (attacker probe; Warp 1.19 returns a miss)."""

import math

import numpy as np
import pytest

import brickwork as wp

NAN, INF = float("nan"), float("inf")


@wp.kernel
def cast(m: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), face: wp.array(dtype=int),
         t: wp.array(dtype=float), anyhit: wp.array(dtype=int), count: wp.array(dtype=int)):
    i = wp.tid()
    r = wp.mesh_query_ray(m, o[i], d[i], 1.0e6)
    face[i] = -2
    t[i] = -1.0
    if r.result:
        face[i] = r.face
        t[i] = r.t
    anyhit[i] = int(wp.mesh_query_ray_anyhit(m, o[i], d[i], 1.0e6))
    count[i] = wp.mesh_query_ray_count_intersections(m, o[i], d[i])


@pytest.fixture(scope="module")
def square():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], np.float32)
    return wp.Mesh(wp.array(points, dtype=wp.vec3), wp.array([0, 1, 2, 1, 3, 2], dtype=int))


def _cast(mesh, starts, dirs):
    n = len(starts)
    face, t = wp.full(n, -9, dtype=int), wp.full(n, -9.0, dtype=float)
    anyhit, count = wp.full(n, -9, dtype=int), wp.full(n, -9, dtype=int)
    wp.launch(cast, dim=n, inputs=[mesh.id, wp.array(starts, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), face, t,
                                   anyhit, count])
    return face.numpy().tolist(), t.numpy().tolist(), anyhit.numpy().tolist(), count.numpy().tolist()


@pytest.mark.parametrize("start, direction", [
    ((0.2, 0.2, 1.0), (NAN, 0.0, -1.0)),
    ((0.2, 0.2, 1.0), (0.0, 0.0, NAN)),
    ((0.2, 0.2, 1.0), (INF, 0.0, -1.0)),
    ((NAN, 0.2, 1.0), (0.0, 0.0, -1.0)),
    ((0.2, 0.2, NAN), (0.0, 0.0, -1.0)),
])
def test_a_ray_with_a_nan_misses(square, start, direction):
    assert _cast(square, [start], [direction]) == ([-2], [-1.0], [0], [0])


def test_finite_rays_hit_as_before(square):
    face, t, anyhit, count = _cast(square, [(0.2, 0.2, 1.0), (0.9, 0.9, 2.0), (0.2, 0.2, 1.0)],
                                   [(0.0, 0.0, -1.0), (0.0, 0.0, -0.5), (0.0, 0.0, 1.0)])
    assert face == [0, 1, -2] and anyhit == [1, 1, 0] and count == [1, 1, 0]
    assert t[:2] == [1.0, 4.0] and t[2] == -1.0 and not any(math.isnan(x) for x in t)
