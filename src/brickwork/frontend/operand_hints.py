"""What an operator's type error adds when its operands are scalars of two types and neither is a Python number
(``_python_number_hint`` covers those): the conversion that makes them match, written out with the operand's
own text, so that ``a[i] + i`` of a float32 array says ``write wp.float32(i)``."""

from __future__ import annotations

import ast

from ..types.arrays import type_name
from ..types.scalars import bool_, is_scalar_type

LEAD = "; kernels convert no operand implicitly: write"


def conversion_hint(left_src: ast.expr, left, right_src: ast.expr, right) -> str:
    """``"; ...: write wp.T(x)"`` for the operand to convert (the integer beside a float, else the narrower of two
    floats or of two integers), or "" when the operands are not two scalar numbers of different types."""
    a, b = left.type, right.type
    if not (is_scalar_type(a) and is_scalar_type(b)) or a is b or bool_ in (a, b):
        return ""
    if a.is_float != b.is_float:  # the integer takes the float's type
        src, to = (right_src, a) if a.is_float else (left_src, b)
    elif a._size != b._size:  # the narrower takes the wider type, losing nothing
        src, to = (left_src, b) if a._size < b._size else (right_src, a)
    else:  # a signed and an unsigned integer of one size: either conversion may change a value
        return f"{LEAD} wp.{type_name(a)}({ast.unparse(right_src)}) or wp.{type_name(b)}({ast.unparse(left_src)})"
    return f"{LEAD} wp.{type_name(to)}({ast.unparse(src)})"
