"""``Mesh.refit()`` (and setting ``mesh.points``, which refits) refuses indices edited in place to lie outside the
points: the refit's kernels read ``points[indices[i]]`` unchecked and crashed there."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.runtime.mesh import MeshError


def _tetrahedron():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    faces = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], np.int32)
    return wp.array(pts, dtype=wp.vec3), wp.array(faces, dtype=wp.int32)


def _tables(mesh) -> dict:
    return {name: np.array(table, copy=True) for name, table in mesh._storage.tables.items()}


@pytest.mark.parametrize("winding", [False, True])
@pytest.mark.parametrize("bad", [4, 1000, -1])
def test_refit_refuses_indices_past_the_points_and_changes_nothing(winding, bad):
    points, indices = _tetrahedron()
    mesh = wp.Mesh(points, indices, support_winding_number=winding)
    before = _tables(mesh)
    indices.numpy()[4] = bad  # a view of the mesh's own array
    low, high = min(bad, 0), max(bad, 3)
    with pytest.raises(MeshError, match=rf"^Mesh.refit: mesh.indices must lie in \[0, 4\), got values from {low} to "
                                        rf"{high} \(changed in place since the mesh was built\); nothing was refit$"):
        mesh.refit()
    after = _tables(mesh)
    assert after.keys() == before.keys()
    for name, table in before.items():
        np.testing.assert_array_equal(after[name], table, err_msg=name)
    moved = wp.array(points.numpy() * 2, dtype=wp.vec3)
    with pytest.raises(MeshError, match=r"mesh.indices must lie in \[0, 4\)"):
        mesh.points = moved
    assert mesh.points is points
    indices.numpy()[4] = 2  # repaired: the refit runs, and sees the points moved
    points.assign(points.numpy() * 2)
    mesh.refit()
    node_lowers, node_uppers = mesh._storage.tables["node_lowers"], mesh._storage.tables["node_uppers"]
    np.testing.assert_array_equal(node_lowers[0, :3], [0, 0, 0])
    np.testing.assert_array_equal(node_uppers[0, :3], [2, 2, 2])

