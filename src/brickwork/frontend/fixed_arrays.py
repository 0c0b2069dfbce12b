"""``wp.zeros(shape=..., dtype=...)`` in a kernel or ``@func``: a fixed-size local array
(types/fixed_arrays.py). The shape must be a compile-time constant (an int or a tuple of ints: literals,
module constants, ``wp.static`` values); the elements start at zero.
"""

from __future__ import annotations

from .. import ir
from ..errors import KernelError, KernelTypeError, KernelUnsupportedTypeError
from ..types.array_constructors import zeros
from ..types.composite import is_composite_type
from ..types.fixed_arrays import FixedArrayType
from ..types.scalars import is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from .intrinsics import INTRINSICS


def _local_zeros(typer, f, node):
    names = ("shape", "dtype")
    if len(node.args) > len(names) or {k.arg for k in node.keywords} - set(names):
        raise typer.error(KernelTypeError, "zeros() in a kernel takes shape and dtype only (a fixed-size "
                          "local array)", node)
    kw = dict(zip(names, node.args))
    kw.update({k.arg: k.value for k in node.keywords})
    if "shape" not in kw:
        raise typer.error(KernelTypeError, "zeros() in a kernel needs a shape and a dtype", node)
    try:
        shape = typer.static_value(kw["shape"])
    except KernelError:  # a run-time value
        shape = None
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise typer.error(KernelUnsupportedTypeError, "the `shape` argument must be specified as a constant when "
                          "zero-initializing an array", node)
    if not 1 <= len(shape) <= 4 or any(s <= 0 for s in shape):
        raise typer.error(KernelTypeError, f"zeros() in a kernel needs 1 to 4 positive dimensions, got shape "
                          f"{tuple(shape)}", node)
    if "dtype" not in kw:
        raise typer.error(KernelTypeError, "zeros() in a kernel needs a shape and a dtype", node)
    dtype = python_annotation_type(typer.static_value(kw["dtype"]))
    if not (is_scalar_type(dtype) or is_composite_type(dtype) or is_struct_type(dtype)):
        raise typer.error(KernelTypeError, f"zeros() dtype must be a scalar, vector, matrix or struct type, got "
                          f"{dtype!r}", node)
    return ir.IRCall("fixed_zeros", [], FixedArrayType(dtype, shape))


INTRINSICS.register_object(zeros, call=_local_zeros)
