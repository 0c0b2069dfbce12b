"""Spatial algebra (angular top, linear bottom) and transform/matrix conversions as in Warp; expected values
measured with Warp 1.19 for the same inputs (float32; the rotation to a few ulps), and properties."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def spatial(a: wp.spatial_vector, b: wp.spatial_vector, t: wp.transform, out: wp.array(dtype=wp.spatial_vector),
            o3: wp.array(dtype=wp.vec3), om: wp.array(dtype=wp.mat44), os: wp.array(dtype=float),
            ot: wp.array(dtype=wp.transform), o66: wp.array(dtype=wp.spatial_matrix)):
    out[0] = wp.spatial_cross(a, b)
    out[1] = wp.spatial_cross_dual(a, b)
    out[2] = wp.transform_twist(t, a)
    out[3] = wp.transform_wrench(t, a)
    o3[0] = wp.spatial_top(a)
    o3[1] = wp.spatial_bottom(a)
    o3[2] = wp.velocity_at_point(a, wp.vec3(0.5, -1.0, 2.0))
    os[0] = wp.spatial_dot(a, b)
    om[0] = wp.transform_to_matrix(t)
    om[1] = wp.transform_compose(wp.vec3(1.0, 2.0, 3.0), t.q, wp.vec3(2.0, 3.0, 4.0))
    ot[0] = wp.transform_from_matrix(om[0])
    o66[0] = wp.spatial_adjoint(wp.quat_to_matrix(t.q), wp.skew(t.p))


def test_spatial_builtins_match_warp():
    out, o3, om = wp.zeros(4, dtype=wp.spatial_vector), wp.zeros(3, dtype=wp.vec3), wp.zeros(2, dtype=wp.mat44)
    os, ot, o66 = wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.transform), wp.zeros(1, dtype=wp.spatial_matrix)
    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, 2.0, 3.0)), 0.7)
    t = wp.transform(wp.vec3(0.3, -0.2, 1.5), q)
    wp.launch(spatial, dim=1, inputs=[wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0),
                                      wp.spatial_vector(-1.0, 0.5, 2.0, 0.0, 1.0, -3.0), t, out, o3, om, os, ot, o66])
    assert out.numpy()[:2].tolist() == [[2.5, -5.0, 2.5, -2.0, -11.0, 8.0], [-18.5, 7.0, 6.5, -9.0, 3.0, 1.0]]
    np.testing.assert_allclose(out.numpy()[2:], [[1.0, 2.0, 3.0, -0.5196507, 6.5322638, 6.4850397],
                                                 [-9.0354033, 4.9150114, 5.3957491, 3.080349, 5.9322639, 5.68504]],
                               atol=2e-6)
    assert o3.numpy().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [11.0, 4.5, 4.0]] and os.numpy()[0] == -7.0
    r = np.array([[0.78163916, -0.4829292, 0.39473978], [0.55011714, 0.83203012, -0.0713925],
                  [-0.29395786, 0.27295631, 0.91601503]])
    np.testing.assert_allclose(om.numpy()[0], np.vstack([np.hstack([r, [[0.3], [-0.2], [1.5]]]), [[0.0, 0.0, 0.0, 1.0]]]),
                               atol=2e-7)
    np.testing.assert_allclose(om.numpy()[1][:3, :3], r * [2.0, 3.0, 4.0], atol=1e-6)
    np.testing.assert_allclose(ot.numpy()[0], np.asarray(t), atol=2e-7)  # from_matrix inverts to_matrix
    adj = o66.numpy()[0]
    np.testing.assert_allclose(adj[:3, :3], r, atol=2e-7)
    assert adj[:3, 3:].tolist() == [[0.0] * 3] * 3
    np.testing.assert_allclose(adj[3:, :3], [[0.0, -1.5, -0.2], [1.5, 0.0, -0.3], [0.2, 0.3, 0.0]], atol=1e-7)


def test_spatial_argument_rules():
    @wp.kernel
    def not_spatial(a: wp.vec3, out: wp.array(dtype=wp.vec3)):
        out[0] = wp.spatial_top(a)

    out = wp.zeros(1, dtype=wp.vec3)
    with pytest.raises(wp.KernelTypeError, match=r"spatial_top\(\): needs a spatial vector \(a floating-point "
                                                 r"6-vector\), got vec3f"):
        wp.launch(not_spatial, dim=1, inputs=[wp.vec3(), out])
    assert out.numpy().tolist() == [[0, 0, 0]]


@wp.kernel
def _spatial_from_parts(w: wp.vec3d, v: wp.vec3d, out: wp.array(dtype=wp.spatial_vectord)):
    out[0] = wp.spatial_vectord(w, v)


def test_spatial_vector_from_angular_and_linear_parts():
    out = wp.zeros(1, dtype=wp.spatial_vectord)
    wp.launch(_spatial_from_parts, dim=1, inputs=[wp.vec3d(1.0, 2.0, 3.0), wp.vec3d(4.0, 5.0, 6.0), out])
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3, 4, 5, 6]])
    np.testing.assert_array_equal(np.asarray(wp.spatial_vectord(wp.vec3d(1.0, 2.0, 3.0), wp.vec3d(4.0, 5.0, 6.0))),
                                  [1, 2, 3, 4, 5, 6])
