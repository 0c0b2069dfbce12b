"""``wp.cast(a, dtype)`` in kernels: the bits of ``a`` read as a value of type ``dtype``, as in Warp. Both
types must have the same size in bytes (a scalar, vector, matrix, quaternion, transform or struct, whose
layout is the C layout of ``types/layout.py``); nothing is converted and nothing is differentiated."""

from __future__ import annotations

from .. import ir
from ..builtins.bit_casts import cast
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.composite import is_composite_type
from ..types.layout import size_align
from ..types.scalars import is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from .intrinsics import INTRINSICS


def _is_plain_value(t) -> bool:
    """A type whose value is its bytes (no array handle inside)."""
    if is_scalar_type(t) or is_composite_type(t):
        return True
    return is_struct_type(t) and all(_is_plain_value(ft) for _, ft in t._fields)


def _bit_cast(typer, f, node):
    args = list(node.args)
    open_params = ("a", "dtype")[len(args):]  # keywords name the parameters not given by position
    for kw in node.keywords:
        if kw.arg not in open_params:
            raise typer.error(KernelTypeError, f"wp.cast() got an unexpected or repeated argument '{kw.arg}' (its "
                              f"parameters: a, dtype)", node)
    kw = {k.arg: k.value for k in node.keywords}
    args += [kw[k] for k in open_params if k in kw]
    if len(args) != 2:
        raise typer.error(KernelTypeError, "wp.cast() takes two arguments: the value and the type to read its "
                          "bits as", node)
    value = typer.value(args[0])
    dtype = python_annotation_type(typer.static_value(args[1]))
    if not isinstance(dtype, type) or not _is_plain_value(dtype):
        raise typer.error(KernelTypeError, f"wp.cast() dtype must be a scalar, vector, matrix, quaternion, "
                          f"transform or struct type, got {dtype!r}", node)
    if not _is_plain_value(value.type):
        raise typer.error(KernelTypeError, f"wp.cast() reinterprets values of scalar, vector, matrix or struct "
                          f"types, got {type_name(value.type)}", node)
    have, want = size_align(value.type)[0], size_align(dtype)[0]
    if have != want:
        raise typer.error(KernelTypeError, f"wp.cast() source and destination must have the same size: "
                          f"{type_name(value.type)} has {have} bytes, {type_name(dtype)} has {want}", node)
    if value.type is dtype:
        return value
    return ir.IRCall("bit_cast", [value], dtype)


INTRINSICS.register_object(cast, call=_bit_cast)
