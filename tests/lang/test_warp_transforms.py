"""The transform family (Warp's rigid transforms): types, constructors, t.p/t.q, transform_* builtins,
kernel and host values against a rotation-matrix reference computed with numpy."""

import numpy as np
import pytest

import brickwork as wp


def rotation_matrix(q):
    """The rotation of a unit quaternion (x, y, z, w) as a 3x3 matrix (the textbook formula)."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def unit_quat(axis, angle):
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return np.concatenate([axis * np.sin(angle / 2), [np.cos(angle / 2)]])


P1, Q1 = np.array([1.0, -2.0, 0.5]), unit_quat([1, 2, 3], 0.7)
P2, Q2 = np.array([-0.3, 4.0, 2.0]), unit_quat([0, 1, -1], -1.2)
X = np.array([0.25, 1.5, -3.0])


@wp.kernel
def apply_transforms(ts: wp.array(dtype=wp.transformd), x: wp.vec3d, points: wp.array(dtype=wp.vec3d),
                     prods: wp.array(dtype=wp.transformd)):
    a = ts[0]
    b = ts[1]
    points[0] = wp.transform_point(a, x)
    points[1] = wp.transform_vector(a, x)
    points[2] = a.p + wp.quat_rotate(b.q, x)
    points[3] = wp.transform_get_translation(b)
    prods[0] = wp.transform_multiply(a, b)
    prods[1] = a * b
    prods[2] = wp.transform_inverse(a)
    prods[3] = wp.transformd(a.p, b.q)
    prods[4] = wp.transformd(q=b.q)
    prods[5] = wp.transform_identity(dtype=wp.float64) + a * wp.float64(2.0)
    prods[6] = wp.transformd(b[0], b[1], b[2], a[3], a[4], a[5], a[6])


def test_transform_builtins_match_the_rotation_matrix_reference():
    ts = wp.array([wp.transformd(P1, Q1), wp.transformd(P2, Q2)], dtype=wp.transformd)
    points = wp.zeros(4, dtype=wp.vec3d)
    prods = wp.zeros(7, dtype=wp.transformd)
    wp.launch(apply_transforms, dim=1, inputs=[ts, wp.vec3d(*X), points, prods])
    r1, r2 = rotation_matrix(Q1), rotation_matrix(Q2)
    pts, prd = points.numpy(), prods.numpy()
    np.testing.assert_allclose(pts[0], P1 + r1 @ X, rtol=1e-12)
    np.testing.assert_allclose(pts[1], r1 @ X, rtol=1e-12)
    np.testing.assert_allclose(pts[2], P1 + r2 @ X, rtol=1e-12)
    assert pts[3].tolist() == P2.tolist()
    # (a * b) maps x to a(b(x)): translation a(p2), rotation r1 r2
    for k in (0, 1):
        np.testing.assert_allclose(prd[k][:3], P1 + r1 @ P2, rtol=1e-12)
        np.testing.assert_allclose(rotation_matrix(prd[k][3:]), r1 @ r2, atol=1e-12)
    np.testing.assert_allclose(prd[2][:3], -r1.T @ P1, rtol=1e-12)
    np.testing.assert_allclose(rotation_matrix(prd[2][3:]), r1.T, atol=1e-12)
    assert prd[3].tolist() == [*P1, *Q2]
    assert prd[4].tolist() == [0, 0, 0, *Q2]
    np.testing.assert_allclose(prd[5], np.array([0, 0, 0, 0, 0, 0, 1]) + 2 * np.concatenate([P1, Q1]), rtol=1e-15)
    assert prd[6].tolist() == [*P2, *Q1]


def test_host_transform_values_and_functions():
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    assert list(t.p) == [1.0, 2.0, 3.0] and type(t.p) is wp.vec3 and type(t.q) is wp.quat
    assert list(wp.transform()) == [0, 0, 0, 0, 0, 0, 1]
    assert list(wp.transform(p=wp.vec3(1.0, 2.0, 3.0))) == [1, 2, 3, 0, 0, 0, 1]
    assert list(wp.transform_identity(wp.float64)) == [0, 0, 0, 0, 0, 0, 1]
    assert type(wp.transform_identity(wp.float64)) is wp.transformd
    t = wp.transformd(P1, Q1)
    assert list(t.q) == pytest.approx(Q1.tolist())
    t.p = wp.vec3d(7.0, 8.0, 9.0)
    assert list(t) == pytest.approx([7, 8, 9, *Q1])
    t = wp.transformd(P1, Q1)
    np.testing.assert_allclose(np.asarray(wp.transform_point(t, wp.vec3d(*X))), P1 + rotation_matrix(Q1) @ X)
    inv = wp.transform_inverse(t)
    np.testing.assert_allclose(np.asarray(wp.transform_multiply(t, inv)), [0, 0, 0, 0, 0, 0, 1], atol=1e-12)
    assert wp.types.transformation(wp.float16) is wp.transformh


@wp.kernel
def wrong_point(t: wp.transform, x: wp.vec3d, out: wp.array(dtype=wp.vec3)):
    out[0] = wp.transform_point(t, x)


def test_transform_type_errors_name_the_types():
    out = wp.zeros(1, dtype=wp.vec3)
    with pytest.raises(wp.KernelTypeError, match=r"transform_point\(\): needs a transform or a 4x4 matrix and "
                                                 r"a 3-vector of one dtype, got transformf and vec3d"):
        wp.launch(wrong_point, dim=1, inputs=[wp.transform(), wp.vec3d(), out])
    assert out.numpy().tolist() == [[0, 0, 0]]

    @wp.kernel
    def bad_keyword(out: wp.array(dtype=wp.transform)):
        out[0] = wp.transform(r=wp.quat_identity())

    with pytest.raises(wp.KernelTypeError, match=r"transformf\(\) takes keywords p and q, got \['r'\]"):
        wp.launch(bad_keyword, dim=1, inputs=[wp.zeros(1, dtype=wp.transform)])

    @wp.kernel
    def mixed_dtypes(out: wp.array(dtype=wp.transform)):
        out[0] = wp.transform(wp.vec3d(1.0, 2.0, 3.0), wp.quat_identity())

    with pytest.raises(wp.KernelTypeError, match=r"needs p and q of dtype float32, got vec3d"):
        wp.launch(mixed_dtypes, dim=1, inputs=[wp.zeros(1, dtype=wp.transform)])


@wp.kernel
def _apply_mat44(m: wp.mat44d, x: wp.vec3d, out: wp.array(dtype=wp.vec3d)):
    out[0] = wp.transform_point(m, x)
    out[1] = wp.transform_vector(m, x)


def test_transform_point_and_vector_with_a_4x4_matrix():
    """Homogeneous coordinates without division by w (Warp 1.19 gives (18, 46, 74) and (14, 38, 62))."""
    values = np.arange(1.0, 17.0)
    m, x = wp.mat44d(*values), wp.vec3d(1.0, 2.0, 3.0)
    out = wp.zeros(2, dtype=wp.vec3d)
    wp.launch(_apply_mat44, dim=1, inputs=[m, x, out])
    mn = values.reshape(4, 4)
    expected = [mn[:3, :3] @ [1, 2, 3] + mn[:3, 3], mn[:3, :3] @ [1, 2, 3]]
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(out.numpy(), [[18, 46, 74], [14, 38, 62]])
    np.testing.assert_array_equal(np.asarray(wp.transform_point(m, x)), expected[0])
    np.testing.assert_array_equal(np.asarray(wp.transform_vector(m, x)), expected[1])
