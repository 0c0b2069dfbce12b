"""Builtin forms Warp code uses: a scalar divided by a matrix or quaternion (componentwise),
quat_from_matrix of a 4x4 matrix (its rotation block), and one object per tuple type."""

import numpy as np

import brickwork as wp
from brickwork.types.opaque import TupleType


@wp.kernel
def scalar_over(q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat22d), oq: wp.array(dtype=wp.quat),
                om: wp.array(dtype=wp.mat22d)):
    oq[0] = 2.0 / q[0]
    om[0] = wp.float64(3.0) / m[0]


def test_a_scalar_over_a_matrix_or_quaternion_is_componentwise():
    q = wp.array([wp.quat(1.0, 2.0, 4.0, -8.0)], dtype=wp.quat)
    m = wp.array([[[1.0, 2.0], [-4.0, 0.5]]], dtype=wp.mat22d)
    oq, om = wp.zeros(1, dtype=wp.quat), wp.zeros(1, dtype=wp.mat22d)
    wp.launch(scalar_over, 1, inputs=[q, m, oq, om])
    assert oq.numpy().tolist() == [[2.0, 1.0, 0.5, -0.25]]
    assert om.numpy().tolist() == [[[3.0, 1.5], [-0.75, 6.0]]]


@wp.kernel
def from_matrix(m: wp.array(dtype=wp.mat44d), out: wp.array(dtype=wp.quatd), out3: wp.array(dtype=wp.quatd)):
    a = m[wp.tid()]
    out[wp.tid()] = wp.quat_from_matrix(a)
    out3[wp.tid()] = wp.quat_from_matrix(wp.mat33d(a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2],
                                                   a[2, 0], a[2, 1], a[2, 2]))


def test_quat_from_matrix_of_a_4x4_matrix_reads_its_rotation_block():
    rng = np.random.default_rng(5)
    mats = rng.uniform(-2, 2, (6, 4, 4))
    q = rng.normal(size=(6, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[1:4] = [[0.9, 0.1, 0.2, 0.1], [0.1, 0.9, 0.2, 0.1], [0.1, 0.2, 0.9, 0.1]]  # trace < 0: x, y, z largest
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    for k in range(4):  # rotation blocks in every branch of the conversion; 4 and 5 stay plain matrices
        mats[k, :3, :3] = np.array(wp.quat_to_matrix(wp.quatd(*q[k])))
    out, out3 = wp.zeros(6, dtype=wp.quatd), wp.zeros(6, dtype=wp.quatd)
    wp.launch(from_matrix, 6, inputs=[wp.array(mats, dtype=wp.mat44d), out, out3])
    assert np.array_equal(out.numpy(), out3.numpy())
    for k in range(4):  # a rotation's quaternion up to sign
        got = out.numpy()[k]
        assert np.allclose(got, q[k], atol=1e-12) or np.allclose(got, -q[k], atol=1e-12)
    host = wp.quat_from_matrix(wp.mat44d(*mats[5].reshape(-1)))
    assert np.allclose(np.array(host), out.numpy()[5], atol=1e-12)


def test_tuple_types_are_one_object_per_item_types():
    a = TupleType((wp.vec3, wp.float32))
    assert a is TupleType([wp.vec3, wp.float32]) and a is not TupleType((wp.vec3, wp.float64))
    import copy

    assert copy.copy(a) is a and copy.deepcopy(a) is a


@wp.kernel
def invert(m: wp.array(dtype=wp.mat44), out: wp.array(dtype=wp.mat44)):
    out[wp.tid()] = wp.inverse(m[wp.tid()])


def test_float32_4x4_inverse_is_the_rounded_exact_inverse():
    # ill-conditioned matrices (condition numbers up to ~1e5): the float32 inverse is the exact inverse
    # of the float32 input rounded once, not the sum of float32 cofactors
    rng = np.random.default_rng(11)
    u, _, vt = np.linalg.svd(rng.normal(size=(8, 4, 4)))
    s = np.stack([np.geomspace(1.0, 10.0 ** -(k % 5 + 1), 4) for k in range(8)])
    mats = np.einsum("kij,kj,kjl->kil", u, s, vt).astype(np.float32)
    out = wp.zeros(8, dtype=wp.mat44)
    wp.launch(invert, 8, inputs=[wp.array(mats, dtype=wp.mat44), out])
    exact = np.linalg.inv(mats.astype(np.float64))
    scale = np.abs(exact).max(axis=(1, 2), keepdims=True)
    assert np.all(np.abs(out.numpy() - exact) <= 1e-6 * scale)


@wp.kernel
def det4(m: wp.array(dtype=wp.mat44), out: wp.array(dtype=float)):
    out[wp.tid()] = wp.determinant(m[wp.tid()])


def test_float32_4x4_determinant_is_rounded_once():
    # entries of mixed sizes whose products cancel: a float32 expansion loses digits, a rounded
    # double expansion is within one float32 rounding of the exact value
    rng = np.random.default_rng(3)
    mats = (rng.normal(size=(16, 4, 4)) * rng.choice([1.0, 100.0], size=(16, 4, 4))).astype(np.float32)
    out = wp.zeros(16, dtype=float)
    wp.launch(det4, 16, inputs=[wp.array(mats, dtype=wp.mat44), out])
    exact = np.linalg.det(mats.astype(np.float64))
    assert np.all(np.abs(out.numpy() - exact) <= 1e-6 * np.abs(exact) + 1e-9 * np.abs(mats).max() ** 4)
