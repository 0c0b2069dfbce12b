"""wp.mesh_query_ray's t, u, v and sign are Warp 1.19's bits (newuser round 11, a ray caster run under both):
brickwork's Moeller-Trumbore test gave t a few ulps off in a quarter of the pixels, u and v up to 1.2e-5 off and a
sign of another magnitude (dot(dir, normal) where Warp's is the sheared triangle's area). Now Warp's watertight
test (Woop, Benthin and Wald); the bits below are Warp 1.19's on the CPU, for rays through vertices, an edge's midpoint,
centroids and one meeting a face's back, on the CPU and the emulation target (whose kernels compile for sm_90)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


@wp.kernel
def cast(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), targets: wp.array(dtype=wp.vec3),
         out: wp.array(dtype=float, ndim=2), faces: wp.array(dtype=int)):
    i = wp.tid()
    d = wp.normalize(targets[i] - starts[i])
    q = wp.mesh_query_ray(mesh, starts[i], d, 100.0)
    out[i, 0] = q.t
    out[i, 1] = q.u
    out[i, 2] = q.v
    out[i, 3] = q.sign
    faces[i] = q.face


def _bumpy_grid():
    """A 4 x 4 grid of points 0.37 apart with heights 0.1 sin(3.1 x) cos(2.3 y), two triangles a cell."""
    g = np.arange(4, dtype=np.float32) * np.float32(0.37)
    x, y = np.meshgrid(g, g)
    z = (0.1 * np.sin(3.1 * x) * np.cos(2.3 * y)).astype(np.float32)
    points = np.stack([x.ravel(), y.ravel(), z.ravel()], 1).astype(np.float32)
    tris = []
    for j in range(3):
        for i in range(3):
            k = j * 4 + i
            tris += [k, k + 1, k + 4, k + 1, k + 5, k + 4]
    return points, tris


# Warp 1.19's (t, u, v, sign) bits and faces of the rays below (its CPU)
WARP_BITS = np.array([[1073310656, 0, 1065353216, 1040972239],
                      [1073770354, 794912047, 1065353214, 1040870943],
                      [1074095442, 875988169, 1065353214, 1040495734],
                      [1074274895, 875871397, 1065353214, 1040602348],
                      [1073483771, 858654445, 1056964606, 1040895823],
                      [1073865084, 1056857378, 1001648117, 1040728405],
                      [1073565735, 1051372203, 1051372203, 1040782973],
                      [1069371729, 1051372191, 1051372207, 3188533996]], np.uint32)
WARP_FACES = [1, 3, 7, 9, 3, 9, 0, 16]


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_ray_hits_equal_warps_bits(target):
    p, tris = _bumpy_grid()
    targets = np.array([p[5], p[6], p[9], p[10], (p[5] + p[6]) / 2, (p[5] + p[10]) / 2, (p[0] + p[1] + p[4]) / 3,
                        (p[10] + p[11] + p[14]) / 3], np.float32)
    starts = np.array([[0.3, 0.2, 2.0]] * 7 + [[0.9, 0.8, -1.5]], np.float32)  # the last meets a face's back
    mesh = wp.Mesh(wp.array(p, dtype=wp.vec3), wp.array(tris, dtype=wp.int32))
    out, faces = wp.zeros((8, 4), dtype=float), wp.zeros(8, dtype=int)
    with config.override(target=target):
        wp.launch(cast, 8, [mesh.id, wp.array(starts, dtype=wp.vec3), wp.array(targets, dtype=wp.vec3), out, faces])
    np.testing.assert_array_equal(out.numpy().view(np.uint32), WARP_BITS)
    assert faces.numpy().tolist() == WARP_FACES
    hit = starts + out.numpy()[:, :1] * (targets - starts) / np.linalg.norm(targets - starts, axis=1)[:, None]
    on_mesh = [0, 1, 2, 3, 4, 6, 7]  # vertices, an edge's midpoint, centroids (the midpoint of 5 and 10 is not)
    np.testing.assert_allclose(hit[on_mesh], targets[on_mesh], atol=2e-6)
    assert (out.numpy()[:7, 3] > 0).all() and out.numpy()[7, 3] < 0
