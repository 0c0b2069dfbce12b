"""The type two scalars of different types are compared in: C++'s usual arithmetic conversions, which
Warp's comparisons follow (it compiles ``a == b`` of any two scalar types to C++'s own comparison)."""

from __future__ import annotations

import numpy as np

from .scalars import bfloat16, float16, int32, is_scalar_type


def _bits(t) -> int:
    return np.dtype(t._np).itemsize * 8


def comparison_type(a, b):
    """The scalar type C++ converts scalars of types ``a`` and ``b`` to before comparing them; None when
    the two are not both scalars, or one is a half-precision float and the other differs (C++ finds no
    single conversion for those)."""
    if not (is_scalar_type(a) and is_scalar_type(b)):
        return None
    if a is b:
        return a
    if a in (float16, bfloat16) or b in (float16, bfloat16):
        return None
    if a.is_float or b.is_float:  # an integer converts to the float; two floats: the wider one
        if a.is_float and b.is_float:
            return a if _bits(a) >= _bits(b) else b
        return a if a.is_float else b
    # integer promotion: bool and integers narrower than int convert to int first
    a, b = (int32 if _bits(t) < 32 else t for t in (a, b))
    if a is b:
        return a
    if a.is_signed == b.is_signed:
        return a if _bits(a) >= _bits(b) else b
    unsigned, signed = (a, b) if not a.is_signed else (b, a)
    if _bits(unsigned) >= _bits(signed):
        return unsigned
    return signed  # the signed type is wider: it holds every value of the unsigned one
