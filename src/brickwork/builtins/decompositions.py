"""Builtins with several results: svd3, svd2, qr3, eig3, quat_to_axis_angle, transform_decompose.

Each returns a tuple (``U, sigma, V = wp.svd3(A)``); as in Warp, a kernel may also pass variables
to receive the results (``wp.svd3(A, U, sigma, V)``): ``OUTPUT_ARGUMENTS`` says how many leading
arguments are inputs, the frontend turns such a call into the tuple form and assignments.
"""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_quat_type, matrix, quaternion, vector
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


# -- packed forms: every result as rows of one matrix -------------------------------------------------
#
# Backward kernels differentiate svd3, svd2, qr3 and eig3 through these (``adjoints.EXPANSIONS``): one
# call computes the decomposition, its result is an ordinary matrix value, so its adjoint rule reads
# the results and their adjoints as rows. Not kernel-language names (no ``wp.`` function reaches them).

#: builtin -> (its packed form, the size n of its n x n argument, how many rows each result takes)
PACKED = {"svd3": ("svd3_packed", 3, (3, 1, 3)), "svd2": ("svd2_packed", 2, (2, 1, 2)),
          "qr3": ("qr3_packed", 3, (3, 3)), "eig3": ("eig3_packed", 3, (3, 1))}


def _packed_rule(n: int, rows: int):
    def rule(a):
        return matrix((rows, n), _float_matrix(a, n))

    return rule


for _name, (_packed, _n, _rows) in PACKED.items():
    builtin(_packed, doc=f"``{_name}``'s results as the rows of one matrix (backward kernels).")(
        _packed_rule(_n, sum(_rows)))
