"""Arithmetic on the elements of tiles of ``@struct`` types, as Warp defines it: field by field.

``a + b`` and ``a - b`` of two tiles of one struct type, ``t += u``, ``t[i] += s``, ``tile_sum`` and
``tile_scatter_add`` combine each field that accumulates (a number of 32 or 64 bits or a float, a vector,
matrix, quaternion or transform of one, a nested struct: field by field again) and carry the others
(bools, 8- and 16-bit integers, arrays) from the left operand; ``tile_atomic_add`` treats the array's
elements alike (the C++ targets give each struct its field-wise atomic add).
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.composite import is_composite_type
from ..types.scalars import bfloat16, float16, float32, float64, int32, int64, is_scalar_type, uint32, uint64
from ..types.structs import is_struct_type
from ..types.tiles import is_tile_type
from .operators import _SYMBOL

# the scalar types whose values add up (Warp's atomic_add types); other fields ride along unchanged
_ACCUMULATING = (int32, int64, uint32, uint64, float16, bfloat16, float32, float64)
_BITWISE = frozenset({"bit_and", "bit_or", "bit_xor", "lshift", "rshift"})


def accumulates(t) -> bool:
    """Whether a struct field of type ``t`` takes part in field-wise sums (see the module's docstring)."""
    if is_struct_type(t):
        return True
    if is_composite_type(t):
        return t._dtype in _ACCUMULATING
    return is_scalar_type(t) and t in _ACCUMULATING


def fieldwise(op: str, a: ir.IRExpr, b: ir.IRExpr) -> ir.IRExpr:
    """``a op b`` (``add`` or ``sub``) of two values of one struct type, field by field."""
    t = a.type
    parts = []
    for name, ft in t._fields:
        left, right = ir.IRField(a, name, ft), ir.IRField(b, name, ft)
        if is_struct_type(ft):
            parts.append(fieldwise(op, left, right))
        elif accumulates(ft):
            parts.append(ir.IRCall(op, [left, right], ft))
        else:
            parts.append(left)
    return ir.IRConstruct(parts, t)


def _refusal(typer, op: str, dtype, node, what: str):
    """The error for operator ``op`` on ``what`` ("a tile", "a tile element") of struct ``dtype``."""
    symbol, of = _SYMBOL.get(op, op), f"{what} of {type_name(dtype)}"
    if op in _BITWISE and isinstance(node, ast.AugAssign):
        problem = "bitwise inplace operators do not support Warp struct tile elements"
        return typer.error(KernelTypeError, f"'{symbol}=' of {of}: {problem}", node)
    if op in _BITWISE:  # Warp's words
        return typer.error(KernelTypeError, f"'{symbol}' of {of}: bitwise operators do not support Warp struct "
                           f"tile elements", node)
    if op in ("neg", "pos"):
        return typer.error(KernelTypeError, f"'{symbol}' of {of}: unary operators do not support Warp struct tile "
                           f"elements", node)
    return typer.error(KernelTypeError, f"'{symbol}' of {of}: Warp struct tile elements support only '+' and '-' "
                       f"(field by field, between tiles of the same struct)", node)


def struct_operator(typer, op: str, operands: list, node):
    """The element operation of ``op`` on tiles of structs (``operands``: tiles, or a non-tile value), or
    None when no operand is a tile of structs; refuses what Warp refuses."""
    dtypes = [o.type.dtype if is_tile_type(o.type) else None for o in operands]
    struct = next((d for d in dtypes if is_struct_type(d)), None)
    if struct is None:
        return None
    if op not in ("add", "sub") or len(operands) != 2 or any(d is not struct for d in dtypes):
        if op in ("add", "sub") and len(operands) == 2:
            names = " and ".join(f"a tile of {type_name(d)}" if d is not None else f"a {type_name(o.type)} value"
                                 for d, o in zip(dtypes, operands))
            raise typer.error(KernelTypeError, f"'{_SYMBOL[op]}' of {names}: Warp struct tile elements combine only "
                              f"with tiles of the same struct type", node)
        raise _refusal(typer, op, struct, node, "a tile")
    return lambda vals: fieldwise(op, *vals)


def element_update(typer, op: str, place: ir.IRExpr, value: ir.IRExpr, node):
    """``t[i] op= value`` for a tile of structs: ``+=`` and ``-=`` field by field, bitwise operators refused
    (as Warp); None for an element that is no struct or another operator (the operator's own rules)."""
    if not is_struct_type(place.type) or op not in ("add", "sub", *_BITWISE):
        return None
    if op in _BITWISE:
        raise _refusal(typer, op, place.type, node, "a tile element")
    if value.type is not place.type:
        raise typer.error(KernelTypeError, f"'{_SYMBOL[op]}=' of a tile element of Warp struct "
                          f"{type_name(place.type)}: the value must be a {type_name(place.type)}, got "
                          f"{type_name(value.type)}", node)
    return fieldwise(op, place, value)
