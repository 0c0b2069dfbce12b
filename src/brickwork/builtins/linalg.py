"""Vectors, matrices and quaternions: products, norms, inverses, constructors of special forms."""

from __future__ import annotations

from ..types.composite import (
    is_matrix_type,
    is_quat_type,
    is_transform_type,
    is_vector_type,
    matrix,
    quaternion,
    transformation,
    vector,
)
from ..types.scalars import uint32
from .registry import builtin, is_float_scalar, names, need, same


def _vec(a, what="a vector"):
    need(is_vector_type(a) or is_quat_type(a), f"needs {what}, got {names(a)}")
    return a


def _mat(a, square=False):
    need(is_matrix_type(a), f"needs a matrix, got {names(a)}")
    if square:
        need(a._shape[0] == a._shape[1], f"needs a square matrix, got {names(a)}")
    return a


@builtin("dot")
def _dot(a, b):
    same(_vec(a), b)
    return a._dtype


@builtin("cross")
def _cross(a, b):
    same(_vec(a), b)
    need(is_vector_type(a) and a._length == 3, f"needs 3-vectors, got {names(a, b)}")
    return a


@builtin("length")
@builtin("length_sq")
def _length(a):
    _vec(a)
    need(is_float_scalar(a._dtype), f"needs a floating-point vector, got {names(a)}")
    return a._dtype


@builtin("normalize")
def _normalize(a):
    _length(a)
    return a


@builtin("outer")
def _outer(a, b):
    need(is_vector_type(a) and is_vector_type(b) and a._dtype is b._dtype,
         f"needs two vectors of one dtype, got {names(a, b)}")
    return matrix((a._length, b._length), a._dtype)


@builtin("transpose")
def _transpose(m):
    _mat(m)
    return matrix((m._shape[1], m._shape[0]), m._dtype)


@builtin("determinant")
@builtin("trace")
def _det(m):
    _mat(m, square=True)
    return m._dtype


@builtin("inverse")
def _inverse(m):
    _mat(m, square=True)
    need(m._shape[0] <= 4 and is_float_scalar(m._dtype), f"needs a float matrix of size 2 to 4, got {names(m)}")
    return m


@builtin("diag")
def _diag(v):
    need(is_vector_type(v), f"needs a vector, got {names(v)}")
    return matrix((v._length, v._length), v._dtype)


@builtin("ddot")
def _ddot(a, b):
    same(_mat(a), b)
    return a._dtype


@builtin("skew")
def _skew(v):
    need(is_vector_type(v) and v._length == 3, f"needs a 3-vector, got {names(v)}")
    return matrix((3, 3), v._dtype)


@builtin("quat_rotate")
@builtin("quat_rotate_inv")
def _quat_rotate(q, v):
    need(is_quat_type(q) and is_vector_type(v) and v._length == 3 and v._dtype is q._dtype,
         f"needs a quaternion and a 3-vector of one dtype, got {names(q, v)}")
    return v


@builtin("quat_inverse")
def _quat_inverse(q):
    need(is_quat_type(q), f"needs a quaternion, got {names(q)}")
    return q


@builtin("quat_between_vectors")
def _quat_between_vectors(a, b):
    need(is_vector_type(a) and a._length == 3 and b is a and is_float_scalar(a._dtype),
         f"needs two floating-point 3-vectors of one dtype, got {names(a, b)}")
    return quaternion(a._dtype)


@builtin("quat_from_axis_angle")
def _quat_from_axis_angle(axis, angle):
    need(is_vector_type(axis) and axis._length == 3 and angle is axis._dtype and is_float_scalar(angle),
         f"needs a floating-point 3-vector and an angle of its dtype, got {names(axis, angle)}")
    return quaternion(angle)



def _transform(t):
    need(is_transform_type(t), f"needs a transform, got {names(t)}")
    return t


@builtin("transform_point")
@builtin("transform_vector")
def _transform_apply(t, v):
    """A rigid transform, or a 4x4 matrix acting on homogeneous coordinates (w = 1 for a point, 0 for a
    vector; no division by w), applied to a 3-vector."""
    is_mat44 = is_matrix_type(t) and tuple(t._shape) == (4, 4)
    need((is_transform_type(t) or is_mat44) and is_vector_type(v) and v._length == 3 and v._dtype is t._dtype,
         f"needs a transform or a 4x4 matrix and a 3-vector of one dtype, got {names(t, v)}")
    return v


@builtin("transform_multiply")
def _transform_multiply(a, b):
    need(is_transform_type(a) and a is b, f"needs two transforms of one dtype, got {names(a, b)}")
    return a


@builtin("transform_inverse")
def _transform_inverse(t):
    return _transform(t)


@builtin("transform_get_translation")
def _transform_get_translation(t):
    return vector(3, _transform(t)._dtype)


@builtin("transform_get_rotation")
def _transform_get_rotation(t):
    return quaternion(_transform(t)._dtype)


def _float_vec(v):
    need(is_vector_type(v) and is_float_scalar(v._dtype), f"needs a floating-point vector, got {names(v)}")
    return v


@builtin("norm_l1")
@builtin("norm_l2")
def _norm(v):
    return _float_vec(v)._dtype


@builtin("norm_huber")
@builtin("norm_pseudo_huber")
def _norm_delta(v, delta=None):
    need(delta in (None, _float_vec(v)._dtype), f"needs a vector and a delta of its dtype, got {names(v, delta)}")
    return v._dtype


@builtin("smooth_normalize")
def _smooth_normalize(v, delta=None):
    need(delta in (None, _float_vec(v)._dtype), f"needs a vector and a delta of its dtype, got {names(v, delta)}")
    return v


@builtin("argmin")
@builtin("argmax")
def _argminmax(v):
    need(is_vector_type(v), f"needs a vector, got {names(v)}")
    return uint32


@builtin("get_diag")
def _get_diag(m):
    _mat(m, square=True)
    return vector(m._shape[0], m._dtype)


def _same_vectors(vs):
    need(vs and is_vector_type(vs[0]) and all(v is vs[0] for v in vs), f"needs vectors of one type, got {names(*vs)}")
    return vs[0]


@builtin("matrix_from_cols")
def _matrix_from_cols(*vs):
    return matrix((_same_vectors(vs)._length, len(vs)), vs[0]._dtype)


@builtin("matrix_from_rows")
def _matrix_from_rows(*vs):
    return matrix((len(vs), _same_vectors(vs)._length), vs[0]._dtype)


def _quat(q):
    need(is_quat_type(q) and is_float_scalar(q._dtype), f"needs a quaternion, got {names(q)}")
    return q


@builtin("quat_to_matrix")
def _quat_to_matrix(q):
    return matrix((3, 3), _quat(q)._dtype)


@builtin("quat_from_matrix")
def _quat_from_matrix(m):
    # a 4x4 matrix: the rotation of its upper-left 3x3 block, as Warp
    need(is_matrix_type(m) and m._shape in ((3, 3), (4, 4)) and is_float_scalar(m._dtype),
         f"needs a 3x3 or 4x4 floating-point matrix, got {names(m)}")
    return quaternion(m._dtype)


@builtin("quat_rpy")
def _quat_rpy(roll, pitch, yaw):
    same(roll, pitch, yaw)
    need(is_float_scalar(roll), f"needs floating-point angles, got {names(roll, pitch, yaw)}")
    return quaternion(roll)


@builtin("quat_to_rpy")
def _quat_to_rpy(q):
    return vector(3, _quat(q)._dtype)


@builtin("quat_from_euler")
def _quat_from_euler(e, i, j, k):
    need(is_vector_type(e) and e._length == 3 and is_float_scalar(e._dtype), f"needs a floating-point 3-vector of "
         f"angles, got {names(e)}")
    need(all(getattr(t, "is_int", False) for t in (i, j, k)), f"needs integer axes, got {names(i, j, k)}")
    return quaternion(e._dtype)


@builtin("quat_to_euler")
def _quat_to_euler(q, i, j, k):
    need(all(getattr(t, "is_int", False) for t in (i, j, k)), f"needs integer axes, got {names(i, j, k)}")
    return vector(3, _quat(q)._dtype)


def _twist_args(axis, q):
    need(is_quat_type(q) and is_vector_type(axis) and axis._length == 3 and axis._dtype is q._dtype,
         f"needs an axis (3-vector) and a quaternion of one dtype, got {names(axis, q)}")


@builtin("quat_twist")
def _quat_twist(axis, q):
    _twist_args(axis, q)
    return q


@builtin("quat_twist_angle")
@builtin("quat_twist_angle_signed")
def _quat_twist_angle(axis, q):
    _twist_args(axis, q)
    return q._dtype


@builtin("quat_slerp")
def _quat_slerp(q0, q1, t):
    need(q0 is q1 and t is _quat(q0)._dtype, f"needs two quaternions and a parameter of one dtype, got "
         f"{names(q0, q1, t)}")
    return q0


def _spatial(a):
    need(is_vector_type(a) and a._length == 6 and is_float_scalar(a._dtype), f"needs a spatial vector "
         f"(a floating-point 6-vector), got {names(a)}")
    return a


@builtin("spatial_top")
@builtin("spatial_bottom")
def _spatial_part(a):
    return vector(3, _spatial(a)._dtype)


@builtin("spatial_dot")
def _spatial_dot(a, b):
    same(_spatial(a), b)
    return a._dtype


@builtin("spatial_cross")
@builtin("spatial_cross_dual")
def _spatial_cross(a, b):
    same(_spatial(a), b)
    return a


@builtin("velocity_at_point")
def _velocity_at_point(qd, r):
    need(r is vector(3, _spatial(qd)._dtype), f"needs a spatial vector and a 3-vector of its dtype, got {names(qd, r)}")
    return r


@builtin("spatial_adjoint")
def _spatial_adjoint(r, s):
    need(is_matrix_type(r) and r._shape == (3, 3) and s is r and is_float_scalar(r._dtype),
         f"needs two 3x3 floating-point matrices of one dtype, got {names(r, s)}")
    return matrix((6, 6), r._dtype)


@builtin("transform_twist")
@builtin("transform_wrench")
def _transform_spatial(t, x):
    need(is_transform_type(t) and x is vector(6, t._dtype), f"needs a transform and a spatial vector of its dtype, "
         f"got {names(t, x)}")
    return x


@builtin("transform_to_matrix")
def _transform_to_matrix(t):
    return matrix((4, 4), _transform(t)._dtype)


@builtin("transform_from_matrix")
def _transform_from_matrix(m):
    need(is_matrix_type(m) and m._shape == (4, 4) and is_float_scalar(m._dtype), f"needs a 4x4 floating-point "
         f"matrix, got {names(m)}")
    return transformation(m._dtype)


@builtin("transform_compose")
def _transform_compose(p, q, s):
    need(is_vector_type(p) and p._length == 3 and s is p and q is quaternion(p._dtype), f"needs a position, a "
         f"rotation and a scale of one dtype, got {names(p, q, s)}")
    return matrix((4, 4), p._dtype)
