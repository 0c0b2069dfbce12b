"""Slices of arrays in kernels: ``a[1:, ::-2]``, ``a2d[:2, j]`` are views (the same memory) as in Warp.

Each index position is a slice (start, stop, step: runtime integers, any of them left out) or an
index (a runtime integer, negative counting from the end), and dimensions left out are kept. The
view is an ``array_slice`` builtin call: the array, a mask of the slice positions, then the bounds
(``SLICE_DEFAULT`` for a bound left out), with Python's clamping of out-of-range bounds; a zero step
is an error: a constant one when the kernel is typed; one known at run time is recorded as the launch
runs (the view it makes is empty) and raised after it with the kernel's file and line, as a bounds error
of debug mode is. Only a slice whose step is a runtime value keeps its ``where`` (the call can fail).
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelTypeError, KernelValueError
from ..types.arrays import ArrayType, type_name
from ..types.fixed_arrays import view_type
from ..types.scalars import int64

#: A slice bound left out (``a[:3]``, ``a[::-1]``): the C++ side takes Python's default for the step's sign.
SLICE_DEFAULT = -(2**63)


def array_slice(typer, base, index_nodes: list, node) -> ir.IRCall:
    t: ArrayType = base.type
    if type(view_type(t)) is not ArrayType:  # an indexed array: its views are taken with integer indices (a[i])
        raise typer.error(KernelTypeError, f"an {type_name(t)} cannot be sliced in a kernel; index it with "
                          f"integers (a[i] is the view of the remaining dimensions)", node)
    if len(index_nodes) > t.ndim:
        raise typer.error(KernelTypeError, f"an array of {t.ndim} dimensions takes at most {t.ndim} indices, got "
                          f"{len(index_nodes)}", node)
    mask, values, may_fail = 0, [], False
    for d, inode in enumerate(index_nodes):
        if isinstance(inode, ast.Slice):
            mask |= 1 << d
            if inode.step is not None and _constant(inode.step) == 0:
                raise typer.error(KernelValueError, "Slice step cannot be zero", node)
            may_fail = may_fail or (inode.step is not None and _constant(inode.step) is None)
            for bound in (inode.lower, inode.upper, inode.step):
                values.append(_bound(typer, bound, node))
        else:
            values.append(_bound(typer, inode, node))
    ndim = t.ndim - len(index_nodes) + bin(mask).count("1")
    if ndim == 0:  # every position an index: an element, not a view
        raise typer.error(KernelTypeError, "a slice needs at least one ':' position", node)
    args = [base, ir.IRConst(ndim, int64), ir.IRConst(mask, int64), *values]
    return ir.IRCall("array_slice", args, ArrayType(t.dtype, ndim), where=typer.where(node) if may_fail else "")


def _constant(bound):
    return bound.value if isinstance(bound, ast.Constant) else None


def _bound(typer, bound, node) -> ir.IRExpr:
    if bound is None:
        return ir.IRConst(SLICE_DEFAULT, int64)
    value = typer.value(bound)
    if not getattr(value.type, "is_int", False) or value.type.__name__ == "bool":
        raise typer.error(KernelTypeError, f"slice bounds and indices of arrays must be integers, got "
                          f"{type_name(value.type)} '{ast.unparse(bound)}'", node)
    return value
