"""quat_from_euler / quat_to_euler / quat_twist* against Warp 1.19's results and a numpy reference."""

import itertools

import numpy as np
import pytest

import brickwork as wp


def _axis_matrix(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    a, b = (axis + 1) % 3, (axis + 2) % 3
    r = np.eye(3)
    r[a, a] = r[b, b] = c
    r[b, a], r[a, b] = s, -s
    return r


def _quat_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@wp.kernel
def _euler(e: wp.array(dtype=wp.vec3d), axes: wp.array(dtype=wp.vec3i), q: wp.array(dtype=wp.quatd),
           back: wp.array(dtype=wp.vec3d)):
    t = wp.tid()
    q[t] = wp.quat_from_euler(e[t], axes[t][0], axes[t][1], axes[t][2])
    back[t] = wp.quat_to_euler(q[t], axes[t][0], axes[t][1], axes[t][2])


SEQUENCES = [s for s in itertools.product(range(3), repeat=3) if s[0] != s[1] and s[1] != s[2]]


def test_from_euler_is_the_extrinsic_product_and_to_euler_inverts_it():
    e = np.array([0.31, -0.27, 0.41])
    n = len(SEQUENCES)
    q, back = wp.zeros(n, dtype=wp.quatd), wp.zeros(n, dtype=wp.vec3d)
    wp.launch(_euler, dim=n, inputs=[wp.array(np.tile(e, (n, 1)), dtype=wp.vec3d),
                                     wp.array(np.array(SEQUENCES), dtype=wp.vec3i), q, back])
    for (i, j, k), qv, ev in zip(SEQUENCES, q.numpy(), back.numpy()):
        third = e[i] if i == k else e[k]  # proper sequences read e[i] twice
        expected = _axis_matrix(k, third) @ _axis_matrix(j, e[j]) @ _axis_matrix(i, e[i])
        np.testing.assert_allclose(_quat_matrix(qv), expected, atol=1e-14)
        if i != k:
            np.testing.assert_allclose(ev, e, atol=1e-12)
        else:  # the third angle is stored in the unused slot
            m = 3 - i - j
            rebuilt = _axis_matrix(i, ev[m]) @ _axis_matrix(j, ev[j]) @ _axis_matrix(i, ev[i])
            np.testing.assert_allclose(rebuilt, expected, atol=1e-12)


@wp.kernel
def _warp_values(out: wp.array(dtype=wp.vec3), qo: wp.array(dtype=wp.quat), tw: wp.array(dtype=float)):
    q = wp.quat_rpy(0.3, 0.5, -0.7)
    qo[0] = wp.quat_from_euler(wp.vec3(0.3, -0.2, 0.4), 2, 1, 0)
    out[0] = wp.quat_to_euler(q, 1, 0, 2)
    out[1] = wp.quat_to_euler(q, 0, 1, 0)
    out[2] = wp.quat_to_euler(wp.quat_from_euler(wp.vec3(0.6, wp.HALF_PI, 0.2), 2, 1, 0), 2, 1, 0)  # gimbal lock
    qo[1] = wp.quat_twist(wp.vec3(0.0, 0.0, 1.0), q)
    qo[2] = wp.quat_twist(wp.vec3(0.0, 0.0, 1.0), wp.quat(1.0, 0.0, 0.0, 0.0))  # no twist part: identity
    tw[0] = wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), q)
    tw[1] = wp.quat_twist_angle_signed(wp.vec3(0.0, 0.0, 1.0), q)
    tw[2] = wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), wp.quat(0.0, 0.0, -0.6, -0.8))
    tw[3] = wp.quat_twist_angle_signed(wp.vec3(0.0, 0.0, 1.0), wp.quat(0.0, 0.0, -0.6, -0.8))


def test_values_match_warp():
    out, qo, tw = wp.zeros(3, dtype=wp.vec3), wp.zeros(3, dtype=wp.quat), wp.zeros(4, dtype=float)
    wp.launch(_warp_values, dim=1, inputs=[out, qo, tw])
    np.testing.assert_allclose(out.numpy(), [[0.2623422, 0.5194585, -0.8472306], [1.3533363, 0.8349534, -0.86745924],
                                             [0.8, 1.5707964, 0.0]], atol=2e-6)
    np.testing.assert_allclose(qo.numpy(), [[0.12611653, -0.12628518, 0.18083557, 0.96718425],
                                            [0.0, 0.0, -0.37886727, 0.925451], [0.0, 0.0, 0.0, 1.0]], atol=2e-6)
    np.testing.assert_allclose(tw.numpy(), [0.7771441, -0.7771441, 4.9961834, -4.9961834], atol=2e-6)


@wp.kernel
def _bad_twist(q: wp.quatd, out: wp.array(dtype=float)):
    out[0] = wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), q)


def test_twist_needs_one_dtype():
    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError, match=r"quat_twist_angle\(\): needs an axis \(3-vector\) and a quaternion "
                                                 r"of one dtype, got vec3f and quatd"):
        wp.launch(_bad_twist, dim=1, inputs=[wp.quatd(0.0, 0.0, 0.0, 1.0), out])
    assert out.numpy()[0] == 0.0


def test_host_calls_match_the_kernel():
    e = wp.vec3d(0.31, -0.27, 0.41)
    q, back = wp.zeros(len(SEQUENCES), dtype=wp.quatd), wp.zeros(len(SEQUENCES), dtype=wp.vec3d)
    wp.launch(_euler, dim=len(SEQUENCES), inputs=[wp.array([e] * len(SEQUENCES), dtype=wp.vec3d),
                                                  wp.array(np.array(SEQUENCES), dtype=wp.vec3i), q, back])
    for n, (i, j, k) in enumerate(SEQUENCES):
        host_q = wp.quat_from_euler(e, i, j, k)
        assert type(host_q) is wp.quatd
        np.testing.assert_allclose(np.asarray(host_q), q.numpy()[n], atol=1e-14)
        np.testing.assert_allclose(np.asarray(wp.quat_to_euler(host_q, i, j, k)), back.numpy()[n], atol=1e-12)
    axis, qm = wp.vec3(0.0, 0.0, 1.0), wp.quat(0.0, 0.0, -0.6, -0.8)
    assert abs(float(wp.quat_twist_angle(axis, qm)) - 4.9961834) < 1e-6
    assert abs(float(wp.quat_twist_angle_signed(axis, qm)) + 4.9961834) < 1e-6
    np.testing.assert_allclose(np.asarray(wp.quat_twist(axis, wp.quat(1.0, 0.0, 0.0, 0.0))), [0, 0, 0, 1])
