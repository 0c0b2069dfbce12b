"""Warp's fast-math spellings of division and inversion: ``div_approx`` and ``inverse_approx``.

Warp computes them with the GPU's approximate reciprocal; on the CPU its results are the exact ones.
brickwork gives the exact results on every target (within any tolerance the approximation allows),
so these rules accept what Warp accepts and type the result as ``div`` and ``inverse`` do.
"""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_quat_type, is_vector_type
from ..types.scalars import is_scalar_type
from .registry import builtin, is_float_scalar, names, need, scalar_of


def _composite(t) -> bool:
    return is_vector_type(t) or is_matrix_type(t) or is_quat_type(t)


@builtin("div_approx")
def _div_approx(a, b):
    if is_scalar_type(a) and is_scalar_type(b):
        need(a is b and is_float_scalar(a), f"needs two floats of one type, got {names(a, b)}")
        return a
    composite, scalar = (a, b) if is_scalar_type(b) else (b, a)
    need(_composite(composite) and is_scalar_type(scalar) and is_float_scalar(scalar)
         and scalar is scalar_of(composite),
         f"needs floats, or a float vector, matrix or quaternion and a float of its component type, got "
         f"{names(a, b)}")
    return composite


@builtin("inverse_approx")
def _inverse_approx(m):
    need(is_matrix_type(m) and m._shape[0] == m._shape[1] and 2 <= m._shape[0] <= 4 and is_float_scalar(m._dtype),
         f"needs a square float matrix of size 2 to 4, got {names(m)}")
    return m
