"""Vector, matrix and quaternion builtins against numpy, for float32, float64 and float16.

One generic kernel computes every linear-algebra builtin the kernel language promises (dot, cross,
length, length_sq, normalize, outer, transpose, determinant, inverse, diag, identity, ddot, trace,
skew; see docs/kernel_language.md) plus the vector and matrix operators; each result goes to its
own row of an output array.
"""

from typing import Any

import numpy as np
import pytest

import brickwork as wp

SCALAR_OUT = "dot length length_sq determinant trace ddot min_elem max_elem len_vec det4 eq ne len_arr".split()
VECTOR_OUT = ("cross normalize mat_vec vec_mat add sub mul_s s_mul div_s neg cw_mul cw_div abs min max clamp "
              "quat_rotate component_write cast_back select where").split()
MATRIX_OUT = "outer transpose inverse diag identity skew matmul matmul_at add scale from_rows neg".split()
QUAT_OUT = "product inverse scale add".split()


@wp.kernel
def linalg(a: wp.array(dtype=Any), b: wp.array(dtype=Any), m: wp.array(dtype=Any), n: wp.array(dtype=Any),
           q: wp.array(dtype=Any), r: wp.array(dtype=Any), big: wp.array(dtype=Any),
           out_s: wp.array2d(dtype=Any), out_v: wp.array2d(dtype=Any), out_m: wp.array2d(dtype=Any),
           out_q: wp.array2d(dtype=Any), out_big: wp.array(dtype=Any)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    A = m[i]
    B = n[i]
    T = type(x[0])
    M = type(A)
    out_s[0, i] = wp.dot(x, y)
    out_s[1, i] = wp.length(x)
    out_s[2, i] = wp.length_sq(x)
    out_s[3, i] = wp.determinant(A)
    out_s[4, i] = wp.trace(A)
    out_s[5, i] = wp.ddot(A, B)
    out_s[6, i] = wp.min(x)
    out_s[7, i] = wp.max(x)
    out_s[8, i] = T(len(x))
    out_s[9, i] = wp.determinant(big[i])
    out_s[10, i] = T(x == y)
    out_s[11, i] = T(x != y)
    out_s[12, i] = T(len(a))
    out_v[0, i] = wp.cross(x, y)
    out_v[1, i] = wp.normalize(x)
    out_v[2, i] = A * x
    out_v[3, i] = x * A
    out_v[4, i] = x + y
    out_v[5, i] = x - y
    out_v[6, i] = x * T(2.0)
    out_v[7, i] = T(2.0) * x
    out_v[8, i] = x / T(4.0)
    out_v[9, i] = -x
    out_v[10, i] = wp.cw_mul(x, y)
    out_v[11, i] = wp.cw_div(x, y)
    out_v[12, i] = wp.abs(x)
    out_v[13, i] = wp.min(x, y)
    out_v[14, i] = wp.max(x, y)
    out_v[15, i] = wp.clamp(x, -wp.abs(y), wp.abs(y))
    out_v[16, i] = wp.quat_rotate(q[i], x)
    z = x
    z[1] = T(5.0)
    z.x = y.z
    out_v[17, i] = z
    out_v[18, i] = type(x)(wp.vec3d(x))  # casts by constructor, there and back
    out_v[19, i] = wp.select(x[0] > y[0], x, y)
    out_v[20, i] = wp.where(x[0] > y[0], x, y)
    out_m[0, i] = wp.outer(x, y)
    out_m[1, i] = wp.transpose(A)
    out_m[2, i] = wp.inverse(A)
    out_m[3, i] = wp.diag(x)
    out_m[4, i] = wp.identity(n=3, dtype=T)
    out_m[5, i] = wp.skew(x)
    out_m[6, i] = A * B
    out_m[7, i] = A @ B
    out_m[8, i] = A + B
    out_m[9, i] = A * T(3.0)
    out_m[10, i] = M(x, y, x + y)
    out_m[11, i] = -A
    out_q[0, i] = q[i] * r[i]
    out_q[1, i] = wp.quat_inverse(q[i])
    out_q[2, i] = q[i] * T(2.0)
    out_q[3, i] = q[i] + r[i]
    out_big[i] = wp.inverse(big[i])


def _quat_mul(p, q):
    (x1, y1, z1, w1), (x2, y2, z2, w2) = p, q
    return np.array([w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2])


def _rotate(q, v):
    """Warp's rotation formula, q v q* for a unit quaternion (the float16 data is not unit)."""
    u, w = q[:3], q[3]
    return v * (2 * w * w - 1) + np.cross(u, v) * 2 * w + u * 2 * np.dot(u, v)


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def reference(x, y, A, B, q, r, big):
    """Expected results in float64, per element."""
    s = [x @ y, np.linalg.norm(x), x @ x, np.linalg.det(A), np.trace(A), np.sum(A * B), x.min(), x.max(), 3.0,
         np.linalg.det(big), float(np.array_equal(x, y)), float(not np.array_equal(x, y)), None]
    v = [np.cross(x, y), x / np.linalg.norm(x), A @ x, x @ A, x + y, x - y, x * 2, 2 * x, x / 4, -x, x * y, x / y,
         np.abs(x), np.minimum(x, y), np.maximum(x, y), np.clip(x, -np.abs(y), np.abs(y)), _rotate(q, x),
         np.array([y[2], 5.0, x[2]]), x, y if x[0] > y[0] else x, x if x[0] > y[0] else y]
    m = [np.outer(x, y), A.T, np.linalg.inv(A), np.diag(x), np.eye(3), _skew(x), A @ B, A @ B, A + B, A * 3,
         np.stack([x, y, x + y]), -A]
    qs = [_quat_mul(q, r), np.array([-q[0], -q[1], -q[2], q[3]]), q * 2, q + r]
    return s, v, m, qs, np.linalg.inv(big)


def _data(np_t, count):
    rng = np.random.default_rng(2)
    x, y = rng.uniform(-2, 2, (2, count, 3))
    y[0] = x[0]  # one equal pair for == and !=
    A = rng.uniform(-1, 1, (count, 3, 3)) + 3 * np.eye(3)  # well conditioned
    B = rng.uniform(-1, 1, (count, 3, 3))
    q = rng.standard_normal((count, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    r = rng.standard_normal((count, 4))
    big = rng.uniform(-1, 1, (count, 4, 4)) + 4 * np.eye(4)
    if np_t == np.float16:  # keep values that half represents closely
        x, y, A, B, q, r, big = (np.round(v * 8) / 8 for v in (x, y, A, B, q, r, big))
    return [v.astype(np_t) for v in (x, y, A, B, q, r, big)]


@pytest.mark.parametrize("dtype, np_t, rtol", [(wp.float32, np.float32, 1e-5), (wp.float64, np.float64, 1e-12),
                                               (wp.float16, np.float16, 2e-2)])
def test_linalg_builtins_match_numpy(dtype, np_t, rtol):
    count = 12
    x, y, A, B, q, r, big = _data(np_t, count)
    vec, mat, quat, mat4 = (wp.vector(3, dtype), wp.matrix((3, 3), dtype), wp.quaternion(dtype),
                            wp.matrix((4, 4), dtype))
    arrays = [wp.array(x, dtype=vec), wp.array(y, dtype=vec), wp.array(A, dtype=mat), wp.array(B, dtype=mat),
              wp.array(q, dtype=quat), wp.array(r, dtype=quat), wp.array(big, dtype=mat4)]
    out_s = wp.zeros((len(SCALAR_OUT), count), dtype=dtype)
    out_v = wp.zeros((len(VECTOR_OUT), count), dtype=vec)
    out_m = wp.zeros((len(MATRIX_OUT), count), dtype=mat)
    out_q = wp.zeros((len(QUAT_OUT), count), dtype=quat)
    out_big = wp.zeros(count, dtype=mat4)
    wp.launch(linalg, dim=count, inputs=[*arrays, out_s, out_v, out_m, out_q, out_big])

    f64 = [v.astype(np.float64) for v in (x, y, A, B, q, r, big)]
    for i in range(count):
        with np.errstate(divide="ignore", invalid="ignore"):  # float16 inputs may round to zero
            s, v, m, qs, inv4 = reference(*(a[i] for a in f64))
        s[-1] = float(count)
        tol = {"rtol": rtol, "atol": rtol}
        for name, got, exp in zip(SCALAR_OUT, out_s.numpy()[:, i], s):
            np.testing.assert_allclose(got, exp, **tol, err_msg=f"{name}[{i}]")
        for name, got, exp in zip(VECTOR_OUT, out_v.numpy()[:, i], v):
            np.testing.assert_allclose(got, exp, **tol, err_msg=f"{name}[{i}]")
        for name, got, exp in zip(MATRIX_OUT, out_m.numpy()[:, i], m):
            np.testing.assert_allclose(got, exp, **tol, err_msg=f"{name}[{i}]")
        for name, got, exp in zip(QUAT_OUT, out_q.numpy()[:, i], qs):
            np.testing.assert_allclose(got, exp, **tol, err_msg=f"quat {name}[{i}]")
        np.testing.assert_allclose(out_big.numpy()[i], inv4, rtol=rtol * 4, atol=rtol * 4, err_msg=f"inverse4[{i}]")


def test_exact_results_in_float32():
    """Operations that round once per component agree with numpy bit for bit."""
    count = 12
    x, y, A, B, q, r, big = _data(np.float32, count)
    arrays = [wp.array(x, dtype=wp.vec3), wp.array(y, dtype=wp.vec3), wp.array(A, dtype=wp.mat33),
              wp.array(B, dtype=wp.mat33), wp.array(q, dtype=wp.quat), wp.array(r, dtype=wp.quat),
              wp.array(big, dtype=wp.mat44)]
    out_s = wp.zeros((len(SCALAR_OUT), count))
    out_v = wp.zeros((len(VECTOR_OUT), count), dtype=wp.vec3)
    out_m = wp.zeros((len(MATRIX_OUT), count), dtype=wp.mat33)
    out_q = wp.zeros((len(QUAT_OUT), count), dtype=wp.quat)
    wp.launch(linalg, dim=count, inputs=[*arrays, out_s, out_v, out_m, out_q, wp.zeros(count, dtype=wp.mat44)])
    v = dict(zip(VECTOR_OUT, out_v.numpy()))
    m = dict(zip(MATRIX_OUT, out_m.numpy()))
    two, four = np.float32(2), np.float32(4)
    for name, expected in [("add", x + y), ("sub", x - y), ("mul_s", x * two), ("s_mul", two * x),
                           ("div_s", x / four), ("neg", -x), ("cw_mul", x * y), ("cw_div", x / y),
                           ("abs", np.abs(x)), ("min", np.minimum(x, y)), ("max", np.maximum(x, y)),
                           ("cast_back", x)]:
        np.testing.assert_array_equal(v[name], expected, err_msg=name)
    for name, expected in [("outer", x[:, :, None] * y[:, None, :]), ("transpose", A.transpose(0, 2, 1)),
                           ("add", A + B), ("scale", A * np.float32(3)), ("neg", -A),
                           ("identity", np.broadcast_to(np.eye(3, dtype=np.float32), A.shape))]:
        np.testing.assert_array_equal(m[name], expected, err_msg=name)
    np.testing.assert_array_equal(out_s.numpy()[SCALAR_OUT.index("eq")], [1.0] + [0.0] * (count - 1))
    np.testing.assert_array_equal(out_s.numpy()[SCALAR_OUT.index("ne")], [0.0] + [1.0] * (count - 1))


@wp.kernel
def special_cases(out: wp.array(dtype=wp.vec3), mats: wp.array(dtype=wp.mat22), lens: wp.array(dtype=int)):
    out[0] = wp.normalize(wp.vec3(0.0, 0.0, 0.0))  # zero vector: zero result, as in Warp
    mats[0] = wp.inverse(wp.mat22(1.0, 2.0, 2.0, 4.0))  # singular: zero matrix, as in Warp
    mats[1] = wp.identity(2, wp.float32)
    mats[2] = wp.transpose(wp.mat22(1.0, 2.0, 3.0, 4.0))
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    m[0, 1] = 20.0
    m[1] = wp.vec2(30.0, 40.0)
    mats[3] = m
    lens[0] = len(wp.vec4())
    lens[1] = len(wp.mat22())
    lens[2] = len(out)
    lens[3] = out.shape[0] + mats.shape[0]
    r = wp.matrix(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape=(2, 3))  # a non-square matrix value
    v = r * wp.vec3(1.0, 1.0, 1.0)
    out[1] = wp.vec3(v[0], v[1], wp.transpose(r)[2, 1])
    out[2] = wp.vector(1.0, 2.0, 3.0)
    out[3] = wp.vec3(wp.vec3i(1, -2, 3))


def test_special_cases():
    out = wp.zeros(4, dtype=wp.vec3)
    mats = wp.zeros(4, dtype=wp.mat22)
    lens = wp.zeros(4, dtype=wp.int32)
    wp.launch(special_cases, dim=1, inputs=[out, mats, lens])
    assert out.numpy().tolist() == [[0.0, 0.0, 0.0], [6.0, 15.0, 6.0], [1.0, 2.0, 3.0], [1.0, -2.0, 3.0]]
    assert mats.numpy().tolist() == [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 3.0], [2.0, 4.0]],
                                     [[1.0, 20.0], [30.0, 40.0]]]
    assert lens.numpy().tolist() == [4, 2, 4, 8]


@wp.kernel
def elementwise_and_extras(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat)):
    x = v[0]
    out[0] = wp.floor(x)
    out[1] = wp.sqrt(wp.abs(x))
    out[2] = wp.pow(wp.abs(x), wp.vec3(2.0, 0.5, 1.0))
    out[3] = wp.sign(x)
    out[4] = wp.lerp(x, wp.vec3(0.0), 0.25)
    out[5] = wp.vec3(wp.degrees(3.14159265), wp.radians(180.0), wp.rint(2.5))
    out[6] = wp.quat_rotate_inv(wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.5707964),
                                wp.quat_rotate(wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.5707964), x))
    out[7] = wp.quat_rotate(wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 2.0), 1.5707964), wp.vec3(1.0, 0.0, 0.0))
    q[0] = wp.quat_identity(dtype=wp.float32)
    q[1] = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.0)


def test_elementwise_vector_math_and_quaternion_helpers():
    x = np.array([1.5, -2.25, 4.0], dtype=np.float32)
    out = wp.zeros(8, dtype=wp.vec3)
    q = wp.zeros(2, dtype=wp.quat)
    wp.launch(elementwise_and_extras, dim=1, inputs=[wp.array([x], dtype=wp.vec3), out, q])
    got = out.numpy()
    np.testing.assert_array_equal(got[0], np.floor(x))
    np.testing.assert_array_equal(got[1], np.sqrt(np.abs(x)))
    np.testing.assert_allclose(got[2], np.abs(x) ** np.array([2.0, 0.5, 1.0], np.float32), rtol=1e-6)
    np.testing.assert_array_equal(got[3], [1.0, -1.0, 1.0])
    np.testing.assert_array_equal(got[4], x + (np.float32(0) - x) * np.float32(0.25))
    np.testing.assert_allclose(got[5], [180.0, np.pi, 2.0], rtol=1e-6)
    np.testing.assert_allclose(got[6], x, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[7], [0.0, 2.0, 0.0], atol=1e-6)  # as in Warp, the axis is used as given
    np.testing.assert_allclose(q.numpy(), [[0, 0, 0, 1], [0, 0, np.sin(0.5), np.cos(0.5)]], rtol=1e-6, atol=1e-7)
