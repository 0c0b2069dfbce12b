"""Assignment to a slice of a vector, quaternion, transform or matrix: ``v[1:] = ...``, ``m[0, :2] = ...``,
``m[:2, 1:] += ...``, and to the parts of a transform, ``t.p = ...``, ``t.q += ...`` (components 0-2, 3-6).

The slice's components are stored one by one from a value of the slice's shape (a vector for one kept
dimension, a matrix for two; no broadcasting of a scalar, as in Warp, except ``*=`` and ``/=`` by a
scalar), so the backward kernel sees plain component stores. A slice that selects nothing (``v[5:]`` of a
``vec4``) takes an empty vector (or the (0, 0) matrix) and stores nothing.
The place is evaluated once, before the value's components are read.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelSyntaxError, KernelTypeError, KernelValueError
from ..types.arrays import type_name
from ..types.composite import (
    is_composite_type,
    is_matrix_type,
    is_transform_type,
    is_vector_type,
    matrix,
    quaternion,
    vector,
)
from ..types.scalars import int32


def is_slice_target(target) -> bool:
    """Whether an assignment target is a subscript with at least one slice."""
    if not isinstance(target, ast.Subscript):
        return False
    nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return any(isinstance(n, ast.Slice) for n in nodes)


def is_transform_part(typer, target) -> bool:
    """Whether an assignment target is ``t.p`` or ``t.q`` of a transform value."""
    if not isinstance(target, ast.Attribute) or target.attr not in ("p", "q"):
        return False
    base = typer.expr(target.value)
    return isinstance(base, ir.IRExpr) and is_transform_type(base.type)


def assign_transform_part(typer, target, value, node, out, op=None) -> None:
    """``t.p = value`` / ``t.q = value`` (or ``op=``): the translation or rotation components of ``t``."""
    base = _place_base(typer, target, node, out)
    t = base.type
    part = vector(3, t._dtype) if target.attr == "p" else quaternion(t._dtype)
    first = 0 if target.attr == "p" else 3
    places = [ir.IRComponent(base, [ir.IRConst(first + k, int32)], t._dtype) for k in range(part._length)]
    if op is not None:
        value = typer.binary(op, ir.IRConstruct(list(places), part), value, node)
    if value.type is not part:
        raise typer.error(KernelTypeError, f"cannot assign a value of type {type_name(value.type)} to "
                          f"'{ast.unparse(target)}' of type {type_name(part)}", node)
    _store(typer, places, value, (part._length,), t._dtype, out)


def _place_base(typer, target, node, out):
    base = typer.expr(target.value)
    if not isinstance(base, (ir.IRLocal, ir.IRComponent, ir.IRField, ir.IRArrayElem)):
        raise typer.error(KernelSyntaxError, f"cannot assign to '{ast.unparse(target)}' (only parts of values held "
                          f"in a variable, an array element or a field can be assigned)", node)
    return typer._evaluate_once(base, out)


def is_composite_slice(typer, target) -> bool:
    """Whether a slice target slices a vector, quaternion, transform or matrix value (not an array)."""
    base = typer.expr(target.value)
    return isinstance(base, ir.IRExpr) and is_composite_type(base.type)


def slice_places(typer, target, node, out) -> tuple[list, tuple]:
    """The component places a slice target names, in the slice's order, and the shape of the value it takes
    (``(n,)`` for a vector, ``(rows, cols)`` for a matrix). The base is evaluated once into ``out``."""
    base = _place_base(typer, target, node, out)
    t = base.type
    index_nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    try:
        _, picks = typer.slice_picks(t, index_nodes, node)
    except ValueError as e:  # a step of zero
        raise typer.error(KernelValueError, f"Slice step cannot be zero ({e})", node) from None

    def place(*ix):
        return ir.IRComponent(base, [i if isinstance(i, ir.IRExpr) else ir.IRConst(i, int32) for i in ix], t._dtype)

    if len(picks) == 1:
        return [place(i) for i in picks[0]], (len(picks[0]),)
    rows, cols = picks
    if isinstance(rows, list) and isinstance(cols, list):
        return [place(r, c) for r in rows for c in cols], (len(rows), len(cols))
    if isinstance(rows, list):
        return [place(r, cols) for r in rows], (len(rows),)
    return [place(rows, c) for c in cols], (len(cols),)


def check_value(typer, value, shape, dtype, node) -> None:
    """Warp's checks of the value stored in a slice (its errors are ValueErrors with these words)."""
    vt = value.type
    dt = type_name(dtype)
    if len(shape) == 1:
        if not is_vector_type(vt):
            raise typer.error(KernelValueError, f"The provided value is expected to be a vector of length {shape[0]}, "
                              f"with dtype {dt}.", node)
        if vt._dtype is not dtype:
            raise typer.error(KernelValueError, f"The provided vector is expected to be of length {shape[0]} with "
                              f"dtype {dt}.", node)
        if vt._length != shape[0]:
            raise typer.error(KernelValueError, f"The length of the provided vector ({vt._length}) isn't compatible "
                              f"with the given slice (expected {shape[0]}).", node)
        return
    if not is_matrix_type(vt):
        raise typer.error(KernelValueError, f"The provided value is expected to be a matrix of shape {shape}, with "
                          f"dtype {dt}.", node)
    if vt._dtype is not dtype:
        raise typer.error(KernelValueError, f"The provided matrix is expected to be of shape {shape} with dtype "
                          f"{dt}.", node)
    if tuple(vt._shape) != shape:
        raise typer.error(KernelValueError, f"The shape of the provided matrix ({tuple(vt._shape)}) isn't compatible "
                          f"with the given slice (expected {shape}).", node)


def assign_slice(typer, target, value, node, out, op=None) -> None:
    """``target = value`` (or ``target op= value``) for a slice target; ``value`` is typed already."""
    places, shape = slice_places(typer, target, node, out)
    if not places:  # an empty slice (v[5:] of a vec4) takes an empty vector or (0, 0) matrix and stores nothing
        _check_empty(typer, target, value, shape, node)
        return
    dtype = places[0].type
    if op is not None and is_composite_type(value.type):  # the slice's current value, combined with the value
        check_value(typer, value, shape, dtype, node)
        value = typer.binary(op, _gather(places, shape, dtype), value, node)
    elif op is not None:  # m[:2, 1:] *= 2.0: a scalar scales the slice (the operator says which scalars it takes)
        value = typer.binary(op, _gather(places, shape, dtype), value, node)
    check_value(typer, value, shape, dtype, node)
    _store(typer, places, value, shape, dtype, out)


def _check_empty(typer, target, value, shape, node) -> None:
    """The value stored in a slice that selects nothing: a vector of length 0 (one kept dimension) or the
    (0, 0) matrix (two), as Warp's empty slices read."""
    vt = value.type
    want = is_vector_type(vt) and vt._length == 0 if len(shape) == 1 else is_matrix_type(vt) and vt._shape == (0, 0)
    if not want:
        expected = "a vector of length 0" if len(shape) == 1 else "a matrix of shape (0, 0)"
        raise typer.error(KernelValueError, f"the slice '{ast.unparse(target)}' selects no component: the value "
                          f"stored in it must be {expected}, got {type_name(vt)}", node)


def _store(typer, places, value, shape, dtype, out) -> None:
    """Component k of ``value`` (flat, row-major) into ``places[k]``."""
    if not isinstance(value, ir.IRLocal):
        value = typer.assign_temp(value, out)
    if len(shape) == 1:
        sources = [ir.IRComponent(value, [ir.IRConst(k, int32)], dtype) for k in range(shape[0])]
    else:
        sources = [ir.IRComponent(value, [ir.IRConst(r, int32), ir.IRConst(c, int32)], dtype)
                   for r in range(shape[0]) for c in range(shape[1])]
    for p, src in zip(places, sources):
        out.append(ir.IRAssign(p, src))


def _gather(places, shape, dtype) -> ir.IRExpr:
    t = vector(shape[0], dtype) if len(shape) == 1 else matrix(shape, dtype)
    return ir.IRConstruct(list(places), t)
