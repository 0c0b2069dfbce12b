"""Quaternion conversions as in Warp: quat_to_matrix (also for a non-unit q), quat_from_matrix (each
branch), quat_rpy/quat_to_rpy and quat_slerp; values measured with Warp 1.19 (float32, to a few ulps
where the order of float32 operations differs) and checked against rotation properties."""

from typing import Any

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


# quat_between_vectors: inputs and Warp 1.19's float32 results (its own run, CPU)
BETWEEN_A = [[2.040919065475464, -2.5556650161743164, 0.4180988371372223],
             [-0.5677695870399475, -0.4526492953300476, -0.21559716761112213],
             [-2.019986152648926, -0.2319323718547821, -0.8652130961418152],
             [3.3229994773864746, 0.22578661143779755, -0.3526307940483093], [1.0, 0.0, 0.0]]
BETWEEN_B = [[-0.39080098271369934, 0.4819453954696655, -0.23855361342430115],
             [0.9577587246894836, -0.19980213046073914, 0.02425956539809704],
             [1.5458208322525024, 0.545105516910553, -0.5052287578582764],
             [-0.18283897638320923, 0.5405251383781433, 1.935088038444519], [2.0, 0.0, 0.0]]
BETWEEN_WARP = [[0.7777566909790039, 0.6163846850395203, -0.028858575969934464, 0.1197146475315094],
                [-0.08349532634019852, -0.29766079783439636, 0.844825804233551, 0.4366874694824219],
                [0.2162269502878189, -0.8659266233444214, -0.27269473671913147, 0.3592417538166046],
                [0.0722043365240097, -0.7324674725532532, 0.21142129600048065, 0.6431010365486145],
                [0.0, 0.0, 0.0, 1.0]]


@wp.kernel
def between(a: wp.array(dtype=Any), b: wp.array(dtype=Any), q: wp.array(dtype=Any), moved: wp.array(dtype=Any)):
    i = wp.tid()
    q[i] = wp.quat_between_vectors(a[i], b[i])
    moved[i] = wp.quat_rotate(q[i], wp.normalize(a[i]))


@pytest.mark.parametrize("vec, quat, tol", [(wp.vec3, wp.quat, 3e-7), (wp.vec3d, wp.quatd, 1e-15),
                                            (wp.vec3h, wp.quath, 2e-3)])
def test_quat_between_vectors_rotates_a_onto_b_as_warp(vec, quat, tol):
    a, b = np.array(BETWEEN_A), np.array(BETWEEN_B)
    q, moved = wp.zeros(5, dtype=quat), wp.zeros(5, dtype=vec)
    wp.launch(between, dim=5, inputs=[wp.array(a, dtype=vec), wp.array(b, dtype=vec), q, moved])
    np.testing.assert_allclose(q.numpy(), BETWEEN_WARP, atol=max(8 * tol, 1e-6))  # Warp's values are float32
    an, bn = a / np.linalg.norm(a, axis=1, keepdims=True), b / np.linalg.norm(b, axis=1, keepdims=True)
    want = np.concatenate([np.cross(an, bn), 1 + (an * bn).sum(axis=1, keepdims=True)], axis=1)
    np.testing.assert_allclose(q.numpy(), want / np.linalg.norm(want, axis=1, keepdims=True), atol=8 * tol)
    np.testing.assert_allclose(np.linalg.norm(q.numpy().astype(np.float64), axis=1), 1.0, atol=4 * tol)
    unit_b = b / np.linalg.norm(b, axis=1, keepdims=True)
    np.testing.assert_allclose(moved.numpy(), unit_b, atol=16 * tol)  # the rotation takes a's direction onto b's
    host = wp.quat_between_vectors(vec(*a[0]), vec(*b[0]))  # from Python, the same formula
    assert type(host) is quat and np.allclose(list(host), BETWEEN_WARP[0], atol=8 * tol)


def test_quat_between_vectors_type_rule():
    @wp.kernel
    def mixed(out: wp.array(dtype=wp.quat)):
        out[0] = wp.quat_between_vectors(wp.vec3(1.0, 0.0, 0.0), wp.vec3d(0.0, 1.0, 0.0))

    out = wp.zeros(1, dtype=wp.quat)
    with pytest.raises(wp.KernelTypeError, match=r"quat_between_vectors\(\).*two floating-point 3-vectors"):
        wp.launch(mixed, dim=1, inputs=[out])
    assert out.numpy().tolist() == [[0, 0, 0, 0]]


@wp.kernel
def rpy_and_rotations(outq: wp.array(dtype=wp.quat), outv: wp.array(dtype=wp.vec3)):
    outq[0] = wp.quat_rpy(0.3, -1.2, 2.0)
    q = wp.quat(0.1, -0.3, 0.2, 0.9273618)
    outv[0] = wp.quat_rotate(q, wp.vec3(1.0, 2.0, 3.0))
    outv[1] = wp.quat_rotate_inv(q, wp.vec3(1.0, 2.0, 3.0))


def test_quat_rpy_and_rotations_give_warps_bits():
    """Values measured with Warp 1.19 on the CPU (float32 hex): the products and sums in Warp's order."""
    q, v = wp.zeros(1, dtype=wp.quat), wp.zeros(2, dtype=wp.vec3)
    wp.launch(rpy_and_rotations, dim=1, inputs=[q, v])

    def same_bits(values, hexes):
        np.testing.assert_array_equal(np.asarray(values, dtype=np.float32).ravel(),
                                      np.array([float.fromhex(h) for h in hexes], dtype=np.float32))

    same_bits(q.numpy(), ["0x1.12a77ep-1", "-0x1.953baep-3", "0x1.76ee6ap-1", "0x1.7acc84p-2"])
    same_bits(v.numpy(), ["-0x1.abcfe4p+0", "0x1.31cc88p+0", "0x1.904d5ep+1",
                          "0x1.935892p+1", "0x1.90c2c4p+0", "0x1.45cb94p+0"])
    same_bits(wp.quat_rpy(-0.5, -0.5, 0.0), ["-0x1.eaee88p-3", "-0x1.eaee88p-3", "-0x1.f56bfep-5",
                                            "0x1.e0a940p-1"])  # on the host too
