"""Arrays and raw addresses in kernels, as Warp has them: ``a.ptr`` (the address of the first element,
a ``uint64``) and ``wp.array(ptr=p, shape=(m, n), dtype=T)``, a contiguous array over memory the
caller owns (no bounds are known but the given shape; nothing is allocated or freed).
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelTypeError
from ..types.arrays import ArrayType, array, type_name
from ..types.composite import is_composite_type
from ..types.scalars import int32, int64, is_scalar_type, python_annotation_type, uint64
from ..types.structs import is_struct_type
from .intrinsics import INTRINSICS


def _pointer_attribute(typer, base, attr, node):
    if attr == "ptr":
        return ir.IRCall("array_ptr", [base], uint64)
    return None


def global_array(ptr, shape, dtype):
    """Kernel-only, brickwork's own kernels (the box copies of mesh/copies.py): ``wp.array(ptr=...)`` over an
    address known to be global device memory, which a GPU then loads and stores as such (LDG/STG, not the
    generic forms that ``wp.array(ptr=...)`` needs: its address may be a local's, ``wp.address_of``)."""
    raise RuntimeError("global_array can only be used inside a kernel")


def _array_over(made: str, what: str):
    def call(typer, f, node):
        if node.args or {k.arg for k in node.keywords} - {"ptr", "shape", "dtype"}:
            raise typer.error(KernelTypeError, f"{what} in a kernel takes the keywords ptr, shape and dtype only "
                              "(an array over existing memory)", node)
        kw = {k.arg: k.value for k in node.keywords}
        missing = [k for k in ("ptr", "shape", "dtype") if k not in kw]
        if missing:
            raise typer.error(KernelTypeError, f"{what} in a kernel needs {', '.join(missing)}", node)
        dtype = python_annotation_type(typer.static_value(kw["dtype"]))
        if not (is_scalar_type(dtype) or is_composite_type(dtype) or is_struct_type(dtype)):
            raise typer.error(KernelTypeError, f"{what} dtype must be a scalar, vector, matrix or struct type, got "
                              f"{dtype!r}", node)
        ptr = typer.value(kw["ptr"])
        if ptr.type not in (uint64, int64):
            raise typer.error(KernelTypeError, f"{what} ptr must be a uint64 address (a.ptr), got "
                              f"{type_name(ptr.type)}", node)
        shape_nodes = kw["shape"].elts if isinstance(kw["shape"], ast.Tuple) else [kw["shape"]]
        shape = [typer.value(s) for s in shape_nodes]
        if not 1 <= len(shape) <= 4 or any(s.type not in (int32, int64) for s in shape):
            raise typer.error(KernelTypeError, f"{what} shape must be 1 to 4 integers, got "
                              f"'{ast.unparse(kw['shape'])}'", node)
        return ir.IRCall(made, [ptr, *shape], ArrayType(dtype, len(shape)))

    return call


INTRINSICS.register_type(lambda t: isinstance(t, ArrayType), value_attribute=_pointer_attribute)
INTRINSICS.register_object(array, call=_array_over("array_from_ptr", "array()"))
INTRINSICS.register_object(global_array, call=_array_over("array_from_global_ptr", "global_array()"))
