"""Scalar math: elementary functions, rounding, min/max/clamp, classification, select."""

from __future__ import annotations

from ..types.composite import is_vector_type, vector
from ..types.scalars import bool_, int32, is_scalar_type
from .registry import (
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

UNARY_FLOAT = ("sqrt cbrt exp exp2 log log2 log10 sin cos tan asin acos atan sinh cosh tanh "
               "floor ceil round trunc frac rint degrees radians erf erfc erfinv erfcinv").split()


def _float_arg(a):
    need(is_float_scalar(a) or is_vector_type(a) and is_float_scalar(a._dtype),
         f"needs a floating-point argument, got {names(a)}")
    return a


for _name in UNARY_FLOAT:
    builtin(_name)(_float_arg)


@builtin("atan2")
def _atan2(y, x):
    same(y, x)
    need(is_float_scalar(y), f"needs floating-point arguments, got {names(y, x)}")
    return y


@builtin("copysign")
def _copysign(a, b):
    same(a, b)
    return _float_arg(a)


@builtin("bit_count")
def _bit_count(a):
    need(is_int_scalar(a), f"needs an integer, got {names(a)}")
    return int32


@builtin("abs")
@builtin("sign")
def _abs(a):
    need(is_numeric_scalar(a) or is_vector_type(a), f"needs a number or vector, got {names(a)}")
    return a


@builtin("min")
@builtin("max")
def _minmax(a, b):
    same(a, b)
    need(is_numeric_scalar(a) or is_vector_type(a), f"needs numbers or vectors, got {names(a, b)}")
    return a


@builtin("min")
@builtin("max")
def _minmax_vector(v):
    need(is_vector_type(v), f"with one argument needs a vector, got {names(v)}")
    return v._dtype


@builtin("clamp")
def _clamp(x, lo, hi):
    same(x, lo, hi)
    need(is_numeric_scalar(x) or is_vector_type(x), f"needs numbers, got {names(x, lo, hi)}")
    return x


@builtin("isnan")
@builtin("isinf")
@builtin("isfinite")
def _classify(a):
    need(is_scalar_type(scalar_of(a)) and is_value_type(a), f"needs a number, got {names(a)}")
    return bool_


@builtin("select")
def _select(cond, if_false, if_true):
    """``select(cond, a, b)``: ``b`` if cond is true else ``a`` (Warp's argument order)."""
    need(is_scalar_type(cond), f"condition must be a scalar, got {names(cond)}")
    same(if_false, if_true)
    return if_false


@builtin("where")
def _where(cond, if_true, if_false):
    """``where(cond, a, b)``: ``a`` if cond is true else ``b``."""
    need(is_scalar_type(cond), f"condition must be a scalar, got {names(cond)}")
    same(if_true, if_false)
    return if_true


@builtin("step")
@builtin("nonzero")
def _step(x):
    need(is_numeric_scalar(x), f"needs a number, got {names(x)}")
    return x


@builtin("smoothstep")
def _smoothstep(a, b, x):
    same(a, b, x)
    need(is_float_scalar(x), f"needs floating-point numbers, got {names(a, b, x)}")
    return x


@builtin("lerp")
def _lerp(a, b, t):
    same(a, b)
    need(t is scalar_of(a) and is_float_scalar(t), f"needs floating-point arguments, got {names(a, b, t)}")
    return a


@builtin("cw_mul")
@builtin("cw_div")
def _componentwise(a, b):
    same(a, b)
    need(is_value_type(a), f"needs vectors or matrices, got {names(a, b)}")
    return a


_ = vector  # vector types come from arguments only
