"""Arithmetic, comparison, logical and bitwise operators (strict: operand types must match)."""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type, matrix, vector
from ..types.scalars import bool_, is_scalar_type
from .registry import (
    Mismatch,
    builtin,
    is_float_scalar,
    is_int_scalar,
    is_numeric_scalar,
    is_value_type,
    names,
    need,
    same,
    scalar_of,
)


def _numeric(t):
    need(is_value_type(t) and t is not bool_, f"needs numeric operands, got {names(t)}")
    return t


@builtin("add")
@builtin("sub")
def _additive(a, b):
    same(a, b)
    return _numeric(a)


@builtin("mul")
def _mul(a, b):
    if a is b and is_scalar_type(a):
        return _numeric(a)
    if is_scalar_type(a) and not is_scalar_type(b) and is_value_type(b):
        need(a is scalar_of(b), f"scalar and components must have one type, got {names(a, b)}")
        return b
    if is_scalar_type(b) and not is_scalar_type(a) and is_value_type(a):
        need(b is scalar_of(a), f"scalar and components must have one type, got {names(a, b)}")
        return a
    if (is_quat_type(a) or is_transform_type(a)) and a is b:  # Hamilton product; transform_multiply
        return a
    if is_matrix_type(a) and (is_matrix_type(b) or is_vector_type(b)) or is_vector_type(a) and is_matrix_type(b):
        return _matmul(a, b)
    if a is b and is_vector_type(a):  # the types match; there is no vector product under '*'
        raise Mismatch(f"there is no vector * vector product, got {names(a, b)}: use wp.dot(a, b), wp.cross(a, b) "
                       f"or the componentwise wp.cw_mul(a, b)")
    if is_vector_type(b) and b._length == 3 and (is_transform_type(a) or is_quat_type(a)):  # Warp has no '*' either
        how = ("wp.transform_point(t, p) moves a point, wp.transform_vector(t, v) turns a direction"
               if is_transform_type(a) else "wp.quat_rotate(q, v) rotates a vector")
        raise Mismatch(f"there is no {names(a)} * {names(b)} product: {how}")
    raise Mismatch(f"operand types must match, got {names(a, b)}")


@builtin("matmul")
def _matmul(a, b):
    need(scalar_of(a) is scalar_of(b), f"operand types must match, got {names(a, b)}")
    if is_matrix_type(a) and is_matrix_type(b):
        need(a._shape[1] == b._shape[0], f"matrix shapes do not chain: {names(a, b)}")
        return matrix((a._shape[0], b._shape[1]), a._dtype)
    if is_matrix_type(a) and is_vector_type(b):
        need(a._shape[1] == b._length, f"matrix and vector sizes differ: {names(a, b)}")
        return vector(a._shape[0], a._dtype)
    if is_vector_type(a) and is_matrix_type(b):
        need(b._shape[0] == a._length, f"vector and matrix sizes differ: {names(a, b)}")
        return vector(b._shape[1], a._dtype)
    raise Mismatch(f"needs matrices or a matrix and a vector, got {names(a, b)}")


@builtin("div")
def _div(a, b):
    if a is b and is_scalar_type(a):
        return _numeric(a)
    if is_scalar_type(b) and is_value_type(a):
        need(b is scalar_of(a), f"scalar and components must have one type, got {names(a, b)}")
        return a
    if is_scalar_type(a) and (is_vector_type(b) or is_matrix_type(b) or is_quat_type(b)):  # componentwise
        need(a is scalar_of(b), f"scalar and components must have one type, got {names(a, b)}")
        return b
    if a is b and is_vector_type(a):
        raise Mismatch(f"there is no vector / vector quotient, got {names(a, b)}: use the componentwise "
                       f"wp.cw_div(a, b)")
    raise Mismatch(f"operand types must match, got {names(a, b)}")


@builtin("floordiv")
def _floordiv(a, b):
    same(a, b)
    need(is_numeric_scalar(a), f"needs scalar operands, got {names(a, b)}")
    return a


@builtin("mod")
def _mod(a, b):
    same(a, b)
    need(is_numeric_scalar(a) or is_vector_type(a) and is_numeric_scalar(a._dtype),
         f"needs scalar or vector operands, got {names(a, b)}")
    return a


def _int_components(t) -> bool:
    """An integer vector or matrix: bitwise operators work on its components."""
    return (is_vector_type(t) or is_matrix_type(t)) and is_int_scalar(t._dtype)


@builtin("pow")
def _pow(a, b):
    same(a, b)
    need(is_float_scalar(a) or is_vector_type(a) and is_float_scalar(a._dtype),
         f"needs floating-point operands, got {names(a, b)}")
    return a


@builtin("neg")
@builtin("pos")
def _unary(a):
    return _numeric(a)


@builtin("bit_and")
@builtin("bit_or")
@builtin("bit_xor")
@builtin("lshift")
@builtin("rshift")
def _bitwise(a, b):
    same(a, b)
    need(is_int_scalar(a) or a is bool_ or _int_components(a), f"needs integer operands, got {names(a, b)}")
    return a


@builtin("invert")
def _invert(a):
    need(is_int_scalar(a) or _int_components(a), f"needs an integer operand, got {names(a)}")
    return a


@builtin("lt")
@builtin("le")
@builtin("gt")
@builtin("ge")
def _order(a, b):
    same(a, b)
    need(is_scalar_type(a), f"needs scalar operands, got {names(a, b)}")
    return bool_


@builtin("eq")
@builtin("ne")
def _equality(a, b):
    same(a, b)
    need(is_value_type(a), f"cannot compare {names(a, b)}")
    return bool_


@builtin("logical_not")
def _not(a):
    need(is_scalar_type(a), f"needs a scalar operand, got {names(a)}")
    return bool_


@builtin("logical_and")
@builtin("logical_or")
def _logic(a, b):
    need(is_scalar_type(a) and is_scalar_type(b), f"needs scalar operands, got {names(a, b)}")
    return bool_
