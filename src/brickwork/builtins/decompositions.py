"""Builtins with several results: svd3, svd2, qr3, eig3, quat_to_axis_angle, transform_decompose.

Each returns a tuple (``U, sigma, V = wp.svd3(A)``); as in Warp, a kernel may also pass variables
to receive the results (``wp.svd3(A, U, sigma, V)``): ``OUTPUT_ARGUMENTS`` says how many leading
arguments are inputs, the frontend turns such a call into the tuple form and assignments.
"""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_quat_type, quaternion, vector
from ..types.opaque import TupleType
from .registry import builtin, is_float_scalar, names, need

#: builtin -> number of input arguments; the results follow as output arguments.
OUTPUT_ARGUMENTS = {"svd3": 1, "svd2": 1, "qr3": 1, "eig3": 1, "quat_to_axis_angle": 1, "transform_decompose": 1}


def _float_matrix(m, n: int):
    need(is_matrix_type(m) and m._shape == (n, n) and is_float_scalar(m._dtype),
         f"needs a {n}x{n} floating-point matrix, got {names(m)}")
    return m._dtype


@builtin("svd3")
def _svd3(a):
    dtype = _float_matrix(a, 3)
    return TupleType((a, vector(3, dtype), a))


@builtin("svd2")
def _svd2(a):
    dtype = _float_matrix(a, 2)
    return TupleType((a, vector(2, dtype), a))


@builtin("qr3")
def _qr3(a):
    _float_matrix(a, 3)
    return TupleType((a, a))


@builtin("eig3")
def _eig3(a):
    dtype = _float_matrix(a, 3)
    return TupleType((a, vector(3, dtype)))


@builtin("quat_to_axis_angle")
def _quat_to_axis_angle(q):
    need(is_quat_type(q) and is_float_scalar(q._dtype), f"needs a quaternion, got {names(q)}")
    return TupleType((vector(3, q._dtype), q._dtype))


@builtin("transform_decompose")
def _transform_decompose(m):
    dtype = _float_matrix(m, 4)
    return TupleType((vector(3, dtype), quaternion(dtype), vector(3, dtype)))
