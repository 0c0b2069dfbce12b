"""Quaternion conversions as in Warp: quat_to_matrix (also for a non-unit q), quat_from_matrix (each
branch), quat_rpy/quat_to_rpy and quat_slerp; values measured with Warp 1.19 (float32, to a few ulps
where the order of float32 operations differs) and checked against rotation properties."""

import numpy as np
import pytest

import brickwork as wp

R = np.array([[0.36, 0.48, -0.8], [-0.8, 0.6, 0.0], [0.48, 0.64, 0.6]], dtype=np.float32)
R2 = np.array([[-1, 0, 0], [0, -1, 0], [0, 0, 1]], dtype=np.float32) @ np.array(
    [[1, 0, 0], [0, 0.6, -0.8], [0, 0.8, 0.6]], dtype=np.float32)


@wp.kernel
def conversions(q: wp.quat, m: wp.mat33, m2: wp.mat33, om: wp.array(dtype=wp.mat33), oq: wp.array(dtype=wp.quat),
                ov: wp.array(dtype=wp.vec3)):
    om[0] = wp.quat_to_matrix(q)
    oq[0] = wp.quat_from_matrix(m)
    oq[1] = wp.quat_from_matrix(m2)
    oq[2] = wp.quat_rpy(0.3, -0.4, 1.2)
    ov[0] = wp.quat_to_rpy(wp.normalize(q))
    oq[3] = wp.quat_slerp(wp.quat_identity(), wp.normalize(q), 0.3)
    oq[4] = wp.quat_from_matrix(wp.quat_to_matrix(wp.normalize(wp.quat(0.9, 0.1, -0.3, 0.05))))
    oq[5] = wp.quat_slerp(wp.normalize(wp.quat(0.1, 0.2, 0.3, -0.9)), wp.normalize(q), 0.7)
    ov[1] = wp.quat_to_rpy(wp.quat_rpy(0.3, -0.4, 1.2))


def test_conversions_match_warp():
    om, oq, ov = wp.zeros(1, dtype=wp.mat33), wp.zeros(6, dtype=wp.quat), wp.zeros(2, dtype=wp.vec3)
    wp.launch(conversions, dim=1, inputs=[wp.quat(0.2, -0.5, 0.4, 0.9), wp.mat33(*R.ravel()), wp.mat33(*R2.ravel()),
                                          om, oq, ov])
    assert om.numpy().tolist() == [[[0.6999998688697815, -0.9199999570846558, -0.7399999499320984],
                                    [0.5199999809265137, 1.119999885559082, -0.7599999904632568],
                                    [1.059999942779541, -0.04000002145767212, 0.9399999380111694]]]
    warp_q = [[0.19999998807907104, -0.3999999761581421, -0.3999999761581421, 0.800000011920929],
              [0.0, 0.44721361994743347, 0.8944271802902222, 0.0],
              [0.23179560899734497, -0.07943051308393478, 0.5716765522956848, 0.7830374240875244],
              [0.05693815276026726, -0.1423453837633133, 0.11387630552053452, 0.9815946221351624],
              [0.9421630501747131, 0.10468477755784988, -0.31405434012413025, 0.05234238877892494],
              [-0.09783370792865753, 0.39718613028526306, -0.16175587475299835, -0.898057222366333]]
    np.testing.assert_allclose(oq.numpy(), warp_q, atol=2e-7)
    assert oq.numpy()[:2].tolist() == warp_q[:2]
    np.testing.assert_allclose(ov.numpy()[0], [-0.05875587835907936, -0.9996277093887329, 0.8685393929481506],
                               atol=3e-7)
    np.testing.assert_allclose(ov.numpy()[1], [0.3, -0.4, 1.2], atol=1e-6)  # rpy round trip


def test_quat_rpy_type_rule():
    @wp.kernel
    def mixed(out: wp.array(dtype=wp.quat)):
        out[0] = wp.quat_rpy(0.1, 0.2, wp.float64(0.3))

    out = wp.zeros(1, dtype=wp.quat)
    with pytest.raises(wp.KernelTypeError, match=r"quat_rpy\(\)"):
        wp.launch(mixed, dim=1, inputs=[out])
    assert out.numpy().tolist() == [[0, 0, 0, 0]]


def test_host_quaternion_conversions_and_warp_type_attributes():
    q = wp.normalize(wp.quat(0.2, -0.5, 0.4, 0.9))
    m = wp.quat_to_matrix(q)
    assert type(m) is wp.mat33
    np.testing.assert_allclose(np.asarray(m) @ np.asarray(m).T, np.eye(3), atol=1e-6)
    np.testing.assert_allclose(np.asarray(wp.quat_from_matrix(m)), np.asarray(q), atol=1e-7)
    assert list(wp.quat_from_matrix(wp.mat33(*R2.ravel()))) == [0.0, np.float32(0.4472135901451111),
                                                                np.float32(0.8944271802902222), 0.0]
    np.testing.assert_allclose(np.asarray(wp.quat_rpy(0.3, -0.4, 1.2)),
                               [0.23179560899734497, -0.07943051308393478, 0.5716765522956848, 0.7830374240875244],
                               atol=1e-7)
    np.testing.assert_allclose(np.asarray(wp.quat_to_rpy(wp.quat_rpy(0.3, -0.4, 1.2))), [0.3, -0.4, 1.2], atol=1e-6)
    assert (wp.mat33._shape_, wp.mat33._length_, wp.vec3d._wp_scalar_type_) == ((3, 3), 9, wp.float64)
    assert (wp.transform._shape_, wp.quat._length_) == ((7,), 4)
