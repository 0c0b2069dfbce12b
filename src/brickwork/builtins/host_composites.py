"""Vector, matrix, quaternion and transform builtins called from Python (outside kernels), with the
kernels' formulas.

Values are computed in float64 from the arguments' components and returned as the arguments' types.
"""

from __future__ import annotations

import numpy as np

from ..types.composite import matrix, quaternion, transformation, vector
from ..types.scalars import float32


def _parts(x):
    return np.asarray(x, dtype=np.float64), getattr(type(x), "_dtype", float32)


def quat_identity(dtype=float32):
    return quaternion(dtype)(0, 0, 0, 1)


def transform_identity(dtype=float32):
    return transformation(dtype)()


def quat_from_axis_angle(axis, angle):
    a, dtype = _parts(axis)
    half = 0.5 * float(angle)
    return quaternion(dtype)(*(a * np.sin(half)), np.cos(half))


def _rotate(q, p, sign):
    """p (2 w^2 - 1) + sign 2 w (v x p) + 2 v (v . p): Warp's formula, exact rotation for unit q."""
    v, w = q[:3], q[3]
    return p * (2 * w * w - 1) + sign * 2 * w * np.cross(v, p) + 2 * v * np.dot(v, p)


def quat_rotate(q, p):
    (qa, dtype), (pa, _) = _parts(q), _parts(p)
    return vector(3, dtype)(_rotate(qa, pa, 1.0))


def quat_rotate_inv(q, p):
    (qa, dtype), (pa, _) = _parts(q), _parts(p)
    return vector(3, dtype)(_rotate(qa, pa, -1.0))


def quat_inverse(q):
    qa, dtype = _parts(q)
    return quaternion(dtype)(-qa[0], -qa[1], -qa[2], qa[3])


def _hamilton(p, q):
    return np.array([p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1],
                     p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0],
                     p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3],
                     p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]])


def transform_get_translation(t):
    ta, dtype = _parts(t)
    return vector(3, dtype)(ta[:3])


def transform_get_rotation(t):
    ta, dtype = _parts(t)
    return quaternion(dtype)(ta[3:])


def transform_point(t, x):
    (ta, dtype), (xa, _) = _parts(t), _parts(x)
    return vector(3, dtype)(ta[:3] + _rotate(ta[3:], xa, 1.0))


def transform_vector(t, x):
    (ta, dtype), (xa, _) = _parts(t), _parts(x)
    return vector(3, dtype)(_rotate(ta[3:], xa, 1.0))


def transform_multiply(a, b):
    (aa, dtype), (ba, _) = _parts(a), _parts(b)
    return transformation(dtype)(aa[:3] + _rotate(aa[3:], ba[:3], 1.0), _hamilton(aa[3:], ba[3:]))


def transform_inverse(t):
    ta, dtype = _parts(t)
    qi = np.array([-ta[3], -ta[4], -ta[5], ta[6]])
    return transformation(dtype)(-_rotate(qi, ta[:3], 1.0), qi)


HOST_ROTATIONS = {name: globals()[name] for name in (
    "quat_identity", "transform_identity", "quat_from_axis_angle", "quat_rotate", "quat_rotate_inv", "quat_inverse",
    "transform_get_translation", "transform_get_rotation", "transform_point", "transform_vector",
    "transform_multiply", "transform_inverse")}


# -- vectors and matrices on the host ---------------------------------------------------------------------


def _like(value, arg):
    """``value`` (numpy) as a value of the composite family of ``arg``, or a Python number."""
    dtype = getattr(type(arg), "_dtype", float32)
    value = np.asarray(value)
    if value.ndim == 0:  # rounded once to the arguments' component type, as the kernel's result
        return value.astype(getattr(dtype, "_np", np.float64)).item()
    if value.ndim == 1:
        return vector(value.shape[0], dtype)(value)
    return matrix(value.shape, dtype)(value)


def _vector_host(fn):
    def host(*args):
        return _like(fn(*(np.asarray(a, dtype=np.float64) if hasattr(a, "_data") else a for a in args)), args[0])

    return host


def _normalize(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def _expect(equal):
    def host(a, b):
        if bool(np.array_equal(np.asarray(a), np.asarray(b))) != equal:
            print(f"Error: {'expect_eq' if equal else 'expect_neq'} failed: {a} {'!=' if equal else '=='} {b}")

    return host


def _expect_near(a, b, tol=1e-6):
    if np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))) > tol:
        print(f"Error: expect_near failed: {a} and {b} differ by more than {tol}")


HOST_LINALG = {
    "dot": _vector_host(np.dot), "cross": _vector_host(np.cross), "length": _vector_host(np.linalg.norm),
    "length_sq": _vector_host(lambda v: np.dot(v, v)), "normalize": _vector_host(_normalize),
    "outer": _vector_host(np.outer), "transpose": _vector_host(np.transpose),
    "determinant": _vector_host(np.linalg.det), "inverse": _vector_host(np.linalg.inv), "trace": _vector_host(np.trace),
    "cw_mul": _vector_host(np.multiply), "cw_div": _vector_host(np.divide),
    "expect_eq": _expect(True), "expect_neq": _expect(False), "expect_near": _expect_near,
}
