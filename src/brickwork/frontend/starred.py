"""Starred arguments of calls in kernels: ``wp.vec4(*v3, 1.0)``, ``wp.max(*v)``, ``wp.vec3i(*arr[:3])``.

A starred argument stands for its components, as in Warp: the components of a vector, quaternion or
transform, the rows of a matrix, the items of a tuple, or the elements ``a[i]`` that a slice with
constant bounds selects from a 1-D array. The call is rewritten into one with each component as an
argument of its own, so every kind of call (builtins, constructors, ``@func``) takes them alike.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelError, KernelTypeError, KernelValueError
from ..types.arrays import ArrayType, type_name
from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type, vector
from ..types.opaque import TupleType
from ..types.scalars import int32
from .static_value import Static

#: The attribute of a synthetic ``v[i]`` argument node that holds its already typed value.
TYPED_COMPONENT = "bw_unpacked"

_SUPPORTED = "arrays (with slice), vectors, quaternions, transforms, matrices and tuples"


def expand_starred(typer, node: ast.Call) -> ast.Call:
    """``node`` itself when no argument is starred, otherwise an equal call with each starred argument
    replaced by its components (``v[0], v[1], ...``)."""
    if not any(isinstance(a, ast.Starred) for a in node.args):
        return node
    args = []
    for a in node.args:
        args.extend(_components(typer, a) if isinstance(a, ast.Starred) else [a])
    return ast.copy_location(ast.Call(func=node.func, args=args, keywords=node.keywords), node)


def _components(typer, starred: ast.Starred) -> list:
    source = starred.value
    if isinstance(source, ast.Subscript) and _has_slice(source):
        base = typer.expr(source.value)
        if not isinstance(base, Static) and isinstance(base.type, ArrayType):
            return _array_elements(typer, base.type, source, starred)
    value = typer.expr(source)
    if isinstance(value, Static):
        value = typer.to_value(value, starred) if value.is_number() else None
    if value is None:
        raise typer.error(KernelTypeError, f"Starred expressions are only supported for {_SUPPORTED}; "
                          f"'{ast.unparse(source)}' is a compile-time value", starred)
    parts = _parts(value)
    if parts is None:
        raise typer.error(KernelTypeError, f"Starred expressions are only supported for {_SUPPORTED}. Got "
                          f"{type_name(value.type)}.", starred)
    if ir.has_effect(value):  # each component reads the value again: it must not write or print
        raise typer.error(KernelTypeError, f"the starred value '{ast.unparse(source)}' has an effect (it writes "
                          f"memory, prints or draws random numbers); assign it to a variable first", starred)
    return [_typed_node(source, i, part) for i, part in enumerate(parts)]


def _parts(value) -> list | None:
    """The components of a runtime value that ``*value`` spreads, or None when it has none."""
    t = value.type
    if isinstance(t, TupleType):
        return [ir.IRTupleGet(value, i, it) for i, it in enumerate(t.types)]
    if is_matrix_type(t):
        rows, cols = t._shape
        return [ir.IRComponent(value, [ir.IRConst(r, int32)], vector(cols, t._dtype)) for r in range(rows)]
    if is_vector_type(t) or is_quat_type(t) or is_transform_type(t):
        if isinstance(value, ir.IRConstruct) and len(value.args) == t._length:  # v[1:3]: the components as built
            return list(value.args)
        return [ir.IRComponent(value, [ir.IRConst(i, int32)], t._dtype) for i in range(t._length)]
    return None


def _array_elements(typer, t: ArrayType, source: ast.Subscript, starred) -> list:
    """``*a[lo:hi:step]`` of a 1-D array: the elements ``a[lo], a[lo + step], ...`` (bounds known at compile
    time, so the number of arguments is)."""
    if t.ndim != 1:
        raise typer.error(KernelValueError, f"Starred expressions with slices are only supported for 1D arrays, "
                          f"got {t.ndim}D array.", starred)
    index = source.slice
    if not isinstance(index, ast.Slice):
        raise typer.error(KernelValueError, f"Starred expressions of a 1D array take one slice, got "
                          f"'{ast.unparse(source)}'", starred)
    bounds = []
    for part, bound in (("start", index.lower), ("stop", index.upper), ("step", index.step)):
        if bound is None:
            bounds.append(None)
            continue
        value = typer.expr(bound)
        if not isinstance(value, Static) or not isinstance(value.value, int) or isinstance(value.value, bool):
            raise typer.error(KernelValueError, f"Slice component must be a compile-time constant: the {part} "
                              f"'{ast.unparse(bound)}' of '{ast.unparse(source)}' is not", starred)
        bounds.append(value.value)
    lower, upper, step = bounds
    if upper is None:  # the array's length is known only at run time
        raise typer.error(KernelValueError, f"Starred expression of an array slice requires explicit upper bound: "
                          f"'{ast.unparse(source)}'", starred)
    if step == 0:
        raise typer.error(KernelValueError, "Slice step cannot be zero.", starred)
    if step is not None and step < 0:
        raise typer.error(KernelValueError, f"Slice step cannot be negative for arrays: '{ast.unparse(source)}'",
                          starred)
    if (lower is not None and lower < 0) or upper < 0:
        raise typer.error(KernelValueError, f"Slice bounds cannot be negative for arrays (their length is known "
                          f"only at run time): '{ast.unparse(source)}'", starred)
    indices = range(lower or 0, upper, step or 1)
    if not indices:
        raise typer.error(KernelError, f"Starred expression results in empty sequence: '{ast.unparse(source)}'",
                          starred)
    return [ast.copy_location(ast.Subscript(value=source.value, slice=ast.Constant(i), ctx=ast.Load()), starred)
            for i in indices]


def _has_slice(node: ast.Subscript) -> bool:
    index = node.slice
    return isinstance(index, ast.Slice) or isinstance(index, ast.Tuple) and any(
        isinstance(e, ast.Slice) for e in index.elts)


def _typed_node(source, i: int, value) -> ast.Subscript:
    """A ``source[i]`` node (for messages and locations) whose value is already typed."""
    node = ast.copy_location(ast.Subscript(value=source, slice=ast.Constant(i), ctx=ast.Load()), source)
    setattr(node, TYPED_COMPONENT, value)
    return node
