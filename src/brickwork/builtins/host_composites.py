"""Vector, matrix, quaternion and transform builtins called from Python (outside kernels), with the
kernels' formulas.

Values are computed in float64 from the arguments' components and returned as the arguments' types.
"""

from __future__ import annotations

import numpy as np

from ..types.composite import is_quat_type, matrix, quaternion, transformation, vector
from ..types.scalars import float32, float64
from .host_typing import typed_result


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
    return (p * (2 * w * w - 1) + v * (2 * np.dot(v, p))) + np.cross(v, p) * (sign * 2 * w)  # Warp's order


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


def transform_set_translation(t, p):
    """Set components 0-2 of transform ``t`` (in place) to 3-vector ``p``."""
    for i in range(3):
        t[i] = p[i]


def transform_set_rotation(t, q):
    """Set components 3-6 of transform ``t`` (in place) to quaternion ``q`` (not normalized)."""
    for i in range(4):
        t[3 + i] = q[i]


def _xform_or_mat(xform, mat, name: str):
    """The transform or 4x4 matrix of ``transform_point``/``transform_vector``, given positionally, as
    ``xform=`` or as ``mat=`` (Warp's parameter names of the two overloads)."""
    if (xform is None) == (mat is None):
        raise TypeError(f"{name}() takes one transform (xform=) or 4x4 matrix (mat=)")
    return xform if xform is not None else mat


def transform_point(xform=None, point=None, *, mat=None):
    t, x = _xform_or_mat(xform, mat, "transform_point"), point
    (ta, dtype), (xa, _) = _parts(t), _parts(x)
    if ta.shape == (4, 4):  # a matrix on homogeneous coordinates, w = 1
        return vector(3, dtype)(ta[:3, :3] @ xa + ta[:3, 3])
    return vector(3, dtype)(ta[:3] + _rotate(ta[3:], xa, 1.0))


def transform_vector(xform=None, vec=None, *, mat=None):
    t, x = _xform_or_mat(xform, mat, "transform_vector"), vec
    (ta, dtype), (xa, _) = _parts(t), _parts(x)
    if ta.shape == (4, 4):  # w = 0
        return vector(3, dtype)(ta[:3, :3] @ xa)
    return vector(3, dtype)(_rotate(ta[3:], xa, 1.0))


def transform_multiply(a, b):
    (aa, dtype), (ba, _) = _parts(a), _parts(b)
    return transformation(dtype)(aa[:3] + _rotate(aa[3:], ba[:3], 1.0), _hamilton(aa[3:], ba[3:]))


def transform_inverse(t):
    ta, dtype = _parts(t)
    qi = np.array([-ta[3], -ta[4], -ta[5], ta[6]])
    return transformation(dtype)(-_rotate(qi, ta[:3], 1.0), qi)


def quat_to_matrix(q):
    qa, dtype = _parts(q)
    cols = [_rotate(qa, e, 1.0) for e in np.eye(3)]
    return matrix((3, 3), dtype)(np.stack(cols, axis=1))


def quat_from_matrix(m):
    """Shepperd's method on the trace or the largest diagonal entry, normalized (as in kernels); of a 4x4
    matrix, its upper-left 3x3 block."""
    a, dtype = _parts(m)
    a = a[:3, :3]
    tr = np.trace(a)
    if tr >= 0:
        h = np.sqrt(tr + 1)
        q = [(a[2, 1] - a[1, 2]) * 0.5 / h, (a[0, 2] - a[2, 0]) * 0.5 / h, (a[1, 0] - a[0, 1]) * 0.5 / h, 0.5 * h]
    else:
        i = int(np.argmax(np.diag(a)))
        j, k = (i + 1) % 3, (i + 2) % 3
        h = np.sqrt(a[i, i] - (a[j, j] + a[k, k]) + 1)
        q = [0.0] * 4
        q[i] = 0.5 * h
        q[j] = (a[i, j] + a[j, i]) * 0.5 / h
        q[k] = (a[k, i] + a[i, k]) * 0.5 / h
        q[3] = (a[k, j] - a[j, k]) * 0.5 / h
    q = np.asarray(q)
    return quaternion(dtype)(q / np.linalg.norm(q))


def quat_between_vectors(a, b):
    (av, dtype), (bv, _) = _parts(a), _parts(b)
    an, bn = av / np.linalg.norm(av), bv / np.linalg.norm(bv)
    q = np.append(np.cross(an, bn), 1.0 + an @ bn)
    return quaternion(dtype)(*(q / np.linalg.norm(q)))


def quat_rpy(roll, pitch, yaw):
    dtype = float32  # the host passes plain numbers (Python floats are float32, as in kernels)

    def cos_sin(angle):  # of the float32 half angle, each rounded to float32 as a kernel's cosf/sinf
        half = float(np.float32(angle) * np.float32(0.5))
        return np.float32(np.cos(half)), np.float32(np.sin(half))

    (cy, sy), (cr, sr), (cp, sp) = cos_sin(yaw), cos_sin(roll), cos_sin(pitch)
    # float32 products in Warp's order, as in kernels
    return quaternion(dtype)(cy * sr * cp - sy * cr * sp, cy * cr * sp + sy * sr * cp, sy * cr * cp - cy * sr * sp,
                             cy * cr * cp + sy * sr * sp)


def quat_to_rpy(q):
    (x, y, z, w), dtype = _parts(q)
    return vector(3, dtype)(np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
                            np.arcsin(np.clip(2 * (w * y - z * x), -1, 1)),
                            np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def _axis_matrix(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    a, b = (axis + 1) % 3, (axis + 2) % 3
    r = np.eye(3)
    r[a, a] = r[b, b] = c
    r[b, a], r[a, b] = s, -s
    return r


def quat_from_euler(e, i, j, k):
    ea, dtype = _parts(e)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    for axis in (int(i), int(j), int(k)):  # rotations about the fixed axes, in order: q = r q
        r = np.zeros(4)
        r[axis], r[3] = np.sin(ea[axis] / 2), np.cos(ea[axis] / 2)
        q = np.array([*(r[3] * q[:3] + q[3] * r[:3] + np.cross(r[:3], q[:3])), r[3] * q[3] - r[:3] @ q[:3]])
    return quaternion(dtype)(q)


def quat_to_euler(q, i, j, k):
    """As the kernel builtin: the first angle is 0 at gimbal lock; for i == k the third angle is in e[3 - i - j]."""
    (x, y, z, w), dtype = _parts(q)
    i, j, k = int(i), int(j), int(k)
    r = np.asarray(quat_to_matrix(quaternion(float64)(x, y, z, w)), dtype=np.float64)
    s = 1.0 if j == (i + 1) % 3 else -1.0
    m = k if i != k else 3 - i - j
    if i != k:
        beta = np.arcsin(np.clip(-s * r[k, i], -1, 1))
        alpha = 0.0 if np.hypot(r[k, j], r[k, k]) < 1e-6 else np.arctan2(s * r[k, j], r[k, k])
    else:
        beta = np.arccos(np.clip(r[i, i], -1, 1))
        alpha = 0.0 if np.hypot(r[i, j], r[i, m]) < 1e-6 else np.arctan2(r[i, j], s * r[i, m])
    rest = r @ _axis_matrix(i, -alpha) @ _axis_matrix(j, -beta)  # the third rotation
    a, b = (k + 1) % 3, (k + 2) % 3
    e = np.zeros(3)
    e[i], e[j], e[m] = alpha, beta, np.arctan2(rest[b, a], rest[a, a])
    return vector(3, dtype)(e)


def quat_twist(axis, q):
    (aa, _), (qa, dtype) = _parts(axis), _parts(q)
    t = np.array([*(qa[:3] @ aa * aa), qa[3]])
    n = np.linalg.norm(t)
    return quaternion(dtype)(t / n if n > 0 else [0.0, 0.0, 0.0, 1.0])


def quat_twist_angle(axis, q):
    (aa, _), (qa, dtype) = _parts(axis), _parts(q)
    return dtype(2 * np.arctan2(abs(qa[:3] @ aa), qa[3]))


def quat_twist_angle_signed(axis, q):
    (aa, _), (qa, dtype) = _parts(axis), _parts(q)
    return dtype(2 * np.arctan2(qa[:3] @ aa, qa[3]))


HOST_ROTATIONS = {name: globals()[name] for name in (
    "quat_to_matrix", "quat_from_matrix", "quat_between_vectors", "quat_rpy", "quat_to_rpy", "quat_from_euler",
    "quat_to_euler",
    "quat_twist", "quat_twist_angle", "quat_twist_angle_signed",
    "quat_identity", "transform_identity", "quat_from_axis_angle", "quat_rotate", "quat_rotate_inv", "quat_inverse",
    "transform_get_translation", "transform_get_rotation", "transform_set_translation", "transform_set_rotation",
    "transform_point", "transform_vector",
    "transform_multiply", "transform_inverse")}


# -- vectors and matrices on the host ---------------------------------------------------------------------


def _like(value, arg):
    """``value`` (numpy) as a value of the composite family of ``arg``, or a Python number."""
    dtype = getattr(type(arg), "_dtype", float32)
    value = np.asarray(value)
    if value.ndim == 0:  # rounded once to (integers: wrapped into) the arguments' component type, as in kernels
        return typed_result(value, dtype)
    if value.ndim == 1:
        return vector(value.shape[0], dtype)(value)
    return matrix(value.shape, dtype)(value)


def _vector_host(fn):
    def host(*args):
        exact = _exact_type(args[0])
        return _like(fn(*(np.asarray(a).astype(exact) if hasattr(a, "_data") else a for a in args)), args[0])

    return host


def _exact_type(arg):
    """The numpy type the host computes ``arg``'s family in: float64 for floats, Python ints (object) for
    integers, which wrap into their type once, at the result (as the kernel's modular arithmetic gives)."""
    return object if getattr(getattr(type(arg), "_dtype", None), "is_int", False) else np.float64


def _normalize(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


_ROUNDED_IN_ORDER = {float32: np.float32, float64: np.float64}


def _in_kernel_order(fn, fallback):
    """``fn`` of float32 or float64 vectors and quaternions computed in their components' type, each product and
    sum rounded in the kernels' order (their bits, and Warp's, whose host runs the same C++); other arguments
    through ``fallback``."""
    def host(*args):
        dtypes = {getattr(type(a), "_dtype", None) for a in args}
        exact = _ROUNDED_IN_ORDER.get(dtypes.pop()) if len(dtypes) == 1 else None
        if exact is None or not all(hasattr(a, "_data") and np.ndim(a) == 1 for a in args):
            return fallback(*args)
        return _like(fn(*(np.asarray(a).astype(exact) for a in args)), args[0])

    return host


def _ordered_dot(a, b):
    total = a[0] * b[0]
    for x, y in zip(a[1:], b[1:]):
        total = total + x * y
    return total


def _ordered_normalize(v, quat: bool = False):
    """The kernels' normalize: ``v`` over its length (a quaternion times the length's reciprocal), zero when the
    length is not above 0."""
    n = np.sqrt(_ordered_dot(v, v))
    if not n > 0:
        return np.zeros_like(v)
    return v * (n.dtype.type(1) / n) if quat else v / n


def _normalize_host(v):
    """A zero quaternion normalizes to the identity rotation, as in kernels and in Warp."""
    quat = is_quat_type(type(v))
    if quat and not np.linalg.norm(np.asarray(v._data, dtype=np.float64)) > 0:
        return type(v)(0, 0, 0, 1)
    return _in_kernel_order(lambda x: _ordered_normalize(x, quat), _vector_host(_normalize))(v)


def _det_cofactors(a):
    """The kernels' determinant: a*d - b*c for 2x2, else the cofactor expansion along the first row, in
    float64 (the LU of numpy's det is off by an ulp or so: det [[1, 2], [3, 4]] = -2.0000000000000004)."""
    n = a.shape[0]
    if n == 1:
        return a[0, 0]
    if n == 2:
        return a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    s = 0.0
    for j in range(n):
        term = a[0, j] * _det_cofactors(np.delete(a[1:], j, axis=1))
        s = s - term if j % 2 else s + term
    return s


def _inverse_cofactors(a):
    """The kernels' inverse: the adjugate over the determinant, and the zero matrix for a singular one (as in
    Warp; numpy's inv raises LinAlgError)."""
    d = _det_cofactors(a)
    n = a.shape[0]
    if d == 0:
        return np.zeros_like(a)
    if n == 1:
        return np.array([[1.0 / d]])
    return np.array([[(-1) ** (i + j) * _det_cofactors(np.delete(np.delete(a, j, axis=0), i, axis=1)) / d
                      for j in range(n)] for i in range(n)])


def _expect(equal):
    def host(a, b):
        if bool(np.array_equal(np.asarray(a), np.asarray(b))) != equal:
            print(f"Error: {'expect_eq' if equal else 'expect_neq'} failed: {a} {'!=' if equal else '=='} {b}")

    return host


def _expect_near(a, b, tol=1e-6):
    if np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))) > tol:
        print(f"Error: expect_near failed: {a} and {b} differ by more than {tol}")


def _matrix_from_vectors(as_rows: bool):
    def build(*vectors):
        if not vectors:
            raise TypeError("needs at least one vector")
        arrays, dtype = zip(*(_parts(v) for v in vectors))
        if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1 or len(set(dtype)) != 1:
            raise TypeError("needs vectors of one length and dtype")
        m = np.stack(arrays, axis=0 if as_rows else 1)
        return matrix(m.shape, dtype[0])(m)

    return build


HOST_LINALG = {
    "dot": _in_kernel_order(_ordered_dot, _vector_host(np.dot)), "cross": _vector_host(np.cross),
    "length": _in_kernel_order(lambda v: np.sqrt(_ordered_dot(v, v)), _vector_host(np.linalg.norm)),
    "length_sq": _in_kernel_order(lambda v: _ordered_dot(v, v), _vector_host(lambda v: np.dot(v, v))),
    "normalize": _normalize_host,
    "outer": _vector_host(np.outer), "transpose": _vector_host(np.transpose),
    "ddot": _vector_host(lambda a, b: np.sum(a * b)),
    "determinant": _vector_host(_det_cofactors), "inverse": _vector_host(_inverse_cofactors),
    "trace": _vector_host(np.trace),
    "cw_mul": _vector_host(np.multiply), "cw_div": _vector_host(np.divide),
    "expect_eq": _expect(True), "expect_neq": _expect(False), "expect_near": _expect_near,
    "matrix_from_rows": _matrix_from_vectors(True), "matrix_from_cols": _matrix_from_vectors(False),
}
