"""Host arithmetic of vector, matrix, quaternion and transform values as kernels compute it: products (matrix,
matrix-vector, quaternion, transform), componentwise remainders, the scalar type of a scalar operand, and the
operators with a scalar on the left (``2.0 + v``, ``1.0 - v``, ``2.0 @ m``) that Warp's host values take."""

from __future__ import annotations

import numpy as np

from .scalars import ScalarBase, bool_, float32, int32, scalar_from_numpy


def product(a, b):
    """``a * b`` of host values as in kernels: matrix products, matrix-vector, quaternion (w last)."""
    # the types of results, and the error (composite imports this module: it is loaded by the first call)
    from .composite import NoOverloadError, matrix, quaternion, vector

    if a._dtype is not b._dtype:  # Warp's words (a RuntimeError there)
        raise NoOverloadError(f"Couldn't find a function 'mul' compatible with the arguments "
                              f"'{type(a).__name__}, {type(b).__name__}'")
    if a._kind == "quat" and b._kind == "quat":
        (x1, y1, z1, w1), (x2, y2, z2, w2) = a._data.tolist(), b._data.tolist()
        return type(a)(w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                       w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2)
    if a._kind == "transform" and b._kind == "transform":  # transform_multiply: a's rotation, then translation
        p1, q1, p2, q2 = a._data[:3], a._data[3:], b._data[:3], b._data[3:]
        qv, w = q1[:3], q1[3]  # Warp's rotation formula, which also holds for quaternions of other lengths
        p = p2 * (2 * w * w - 1) + np.cross(qv, p2) * (2 * w) + qv * (2 * np.dot(qv, p2)) + p1
        q = product(quaternion(a._dtype)(*q1), quaternion(a._dtype)(*q2))._data
        return type(a)(*p.tolist(), *q.tolist())
    if "matrix" in (a._kind, b._kind) and "quat" not in (a._kind, b._kind):
        if a._shape[-1] == b._shape[0]:
            data = a._data @ b._data
            kind = matrix(data.shape, a._dtype) if data.ndim == 2 else vector(data.shape[0], a._dtype)
            return kind(data)
    raise TypeError(f"cannot multiply {type(a).__name__} and {type(b).__name__}")


def scalar_plus(value, other):
    """``other + value`` of a scalar and a host value: as ``value + other`` (refused for the same types)."""
    if scalar_operand(other) is None:
        return NotImplemented
    value._refuse_mixed(other, "add", reflected=True)
    return value._new(other + value._data)


def scalar_minus(value, other):
    """``other - value`` of a scalar and a host value: the scalar minus each component."""
    if scalar_operand(other) is None:
        return NotImplemented
    value._refuse_mixed(other, "sub", reflected=True)
    return value._new(other - value._data)


def matmul(value, other):
    """``value @ other`` (and ``other @ value``): the product of two host values as ``*`` gives it, and a matrix
    and a scalar scaled, as Warp's host computes ``m @ 2.0``."""
    if hasattr(other, "_kind"):
        return product(value, other)
    if value._kind == "matrix" and scalar_operand(other) is not None:
        return value * other
    return NotImplemented


def scalar_operand(x):
    """The scalar type of a scalar operand of a host operator (a Python int counts as int32, a float as float32,
    a numpy scalar as its dtype, as in scalar arithmetic), or None."""
    if isinstance(x, ScalarBase):
        return type(x)
    if isinstance(x, np.generic):  # before float: np.float64 is a float too
        return scalar_from_numpy(x.dtype)
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int32
    return float32 if isinstance(x, float) else None


def remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a % b`` of components as a kernel computes it: fmod for floats; for integers the dividend's sign,
    and 0 where ``b`` is 0."""
    with np.errstate(all="ignore"):
        if np.issubdtype(a.dtype, np.integer):
            return np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b))).astype(a.dtype)
        return np.fmod(a, b)
