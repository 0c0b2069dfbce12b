"""wp.mesh_eval_face_normal(id, face): a triangle's unit normal, oriented by its winding, as Warp 1.19's (bits
taken from Warp 1.19 on the CPU), on the CPU and the emulation target (whose kernels compile for sm_90)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

# face 2 is degenerate (three points on the x axis); faces 1 and 3 are one triangle from two starting vertices
POINTS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.3, -0.7, 1.9], [2, 0, 0]], np.float32)
INDICES = [0, 1, 2, 1, 3, 2, 0, 1, 4, 2, 1, 3]
WARP_BITS = np.array([[0, 0, 1065353216], [3206580530, 3206580530, 3203175498], [0, 0, 0],
                      [3206580530, 3206580530, 3203175499]], np.uint32)


@wp.kernel
def face_normals(mesh: wp.uint64, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.mesh_eval_face_normal(mesh, i)


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_face_normals_equal_warp_bit_for_bit(target):
    mesh = wp.Mesh(wp.array(POINTS, dtype=wp.vec3), wp.array(INDICES, dtype=wp.int32))
    out = wp.zeros(4, dtype=wp.vec3)
    with config.override(target=target):
        wp.launch(face_normals, 4, [mesh.id, out])
    np.testing.assert_array_equal(out.numpy().view(np.uint32), WARP_BITS)
    tri = POINTS[np.reshape(INDICES, (4, 3))[[0, 1, 3]]]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    np.testing.assert_allclose(out.numpy()[[0, 1, 3]], n / np.linalg.norm(n, axis=1)[:, None], rtol=1e-6)


def test_a_float_face_is_refused_naming_the_builtin_and_its_arguments():
    with pytest.raises(wp.KernelError) as caught:
        @wp.kernel
        def by_float(mesh: wp.uint64, f: float, out: wp.array(dtype=wp.vec3)):
            out[0] = wp.mesh_eval_face_normal(mesh, f)

        wp.launch(by_float, 1, [wp.uint64(0), 1.0, wp.zeros(1, dtype=wp.vec3)])
    message = str(caught.value)
    assert "mesh_eval_face_normal(): needs a mesh id (uint64) and an int32 face, got uint64 and float32" in message
    assert "test_mesh_face_normal.py" in message
