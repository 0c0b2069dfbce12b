"""Typing rules of tile reductions, scans and sorting (``tile_sum``, ``tile_reduce``, ``tile_scan_*``,
``tile_sort``, ...): loops over a tile's elements in row-major order (``tile_build``).

A block is one thread here, so every reduction is a sequential fold in row-major order starting from the
first element: the result is exact for integers and deterministic for floats (Warp leaves the order of a
floating-point sum unspecified). Argument checks follow Warp 1.19's (dtypes, shapes), except that a
negative ``axis`` counts from the end.
"""

from __future__ import annotations

import math

from .. import ir
from ..builtins.functions import BuiltinFunction
from ..errors import KernelError
from ..types.arrays import type_name
from ..types.composite import is_composite_type, is_matrix_type, is_vector_type
from ..types.scalars import bool_, float32, int32, int64, is_scalar_type, uint32, uint64
from ..types.structs import is_struct_type
from .tile_build import TileCall, element, loop_nest, new_tile, zero_value
from .tile_structs import fieldwise
from .tiles import apply, function_argument, rule

# Warp's dtypes of scans and of sort keys
_SCAN_DTYPES = (float32, int32, uint32)
_SORT_KEY_DTYPES = (float32, int32, uint32, int64, uint64)


# -- building blocks -------------------------------------------------------------------------------


def _i32(v: int) -> ir.IRConst:
    return ir.IRConst(v, int32)


def _flat(idx: list, shape: tuple) -> ir.IRExpr:
    """The row-major position of index ``idx`` in ``shape`` (int32; a tile is far smaller than 2**31)."""
    flat = None
    for d, i in enumerate(idx):
        stride = math.prod(shape[d + 1:])
        term = i if stride == 1 else ir.IRCall("mul", [i, _i32(stride)], int32, no_wrap=True)
        flat = term if flat is None else ir.IRCall("add", [flat, term], int32, no_wrap=True)
    return flat


def _all_zero(idx: list) -> ir.IRExpr:
    cond = None
    for i in idx:
        part = ir.IRCall("eq", [i, _i32(0)], bool_)
        cond = part if cond is None else ir.IRCall("logical_and", [cond, part], bool_)
    return cond


def _rest_loops(typer, shape: tuple, body_of) -> list:
    """Loops over every index of ``shape`` but the first (all zeros), in row-major order: a fold that starts
    from the first element. The innermost loop starts at 1 when the outer indices are all 0 (no branch in
    the body)."""
    idx = [typer.new_temp(int32) for _ in shape]
    body = body_of(idx)
    start = _i32(1) if len(shape) == 1 else ir.IRSelect(_all_zero(idx[:-1]), _i32(1), _i32(0), int32)
    body = [ir.IRFor(idx[-1], start, _i32(shape[-1]), _i32(1), body)]
    for d in reversed(range(len(shape) - 1)):
        body = [ir.IRFor(idx[d], _i32(0), _i32(shape[d]), _i32(1), body)]
    return body


def _typed(call: TileCall, make):
    """``make()`` (a builtin call on elements), its type errors reworded to name the tile function."""
    try:
        return make()
    except KernelError as e:
        raise call.error(e.message, type(e)) from None


def _fold_all(call: TileCall, shape: tuple, value_of, step, dtype) -> ir.IRLocal:
    """A shape-(1,) tile holding ``step(...step(v0, v1)..., vn)`` over ``value_of(idx)`` in row-major order."""
    typer = call.typer
    acc = typer.new_temp(dtype)
    typer.pending.append(ir.IRAssign(acc, value_of([_i32(0)] * len(shape))))
    typer.pending.extend(_rest_loops(typer, shape, lambda idx: [ir.IRAssign(acc, step(acc, value_of(idx)))]))
    out = new_tile(typer, dtype, (1,))
    typer.pending.append(ir.IRAssign(element(out, [_i32(0)]), acc))
    return out


def _fold_axis(call: TileCall, a: ir.IRLocal, axis: int, step) -> ir.IRLocal:
    """``a`` folded with ``step`` along ``axis`` (from the first element of each line): a tile without that
    dimension, or of shape (1,) when none is left."""
    typer, shape, dtype = call.typer, a.type.shape, a.type.dtype
    out_shape = shape[:axis] + shape[axis + 1:]
    out = new_tile(typer, dtype, out_shape or (1,))
    acc = typer.new_temp(dtype)

    def line(oidx):
        k = typer.new_temp(int32)
        at = lambda i: element(a, [*oidx[:axis], i, *oidx[axis:]])  # noqa: E731
        fold = ir.IRFor(k, _i32(1), _i32(shape[axis]), _i32(1), [ir.IRAssign(acc, step(acc, at(k)))])
        return [ir.IRAssign(acc, at(_i32(0))), fold, ir.IRAssign(element(out, oidx or [_i32(0)]), acc)]

    typer.pending.extend(loop_nest(typer, out_shape, line))
    return out


def _axis(call: TileCall, ndim: int):
    """The ``axis`` argument: None, or a compile-time int in [-ndim, ndim) made non-negative."""
    axis = call.static("axis")
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise call.error(f"'axis' must be a compile-time int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise call.error(f"axis {axis} is out of bounds for a tile of {ndim} dimension{'s' * (ndim != 1)}")
    return axis % ndim


def _scalar_tile(call: TileCall, param: str = "a", dtypes=None) -> ir.IRLocal:
    """A tile argument whose dtype is a (non-bool) scalar type, or one of ``dtypes``."""
    a = call.tile(param)
    dtype = a.type.dtype
    if dtypes is not None and dtype not in dtypes:
        names = ", ".join(type_name(t) for t in dtypes[:-1]) + " or " + type_name(dtypes[-1])
        raise call.error(f"'{param}' must be a tile of {names}, got a tile of {type_name(dtype)}")
    if is_struct_type(dtype):
        raise call.error(f"'{param}' must be a tile of a numeric scalar type: it does not support Warp struct "
                         f"tile elements ({type_name(dtype)}), which have no order")
    if not is_scalar_type(dtype) or dtype is bool_:
        raise call.error(f"'{param}' must be a tile of a numeric scalar type, got a tile of {type_name(dtype)}")
    return a


def _binary(call: TileCall, name: str):
    """``step(acc, x)``: builtin ``name`` of two elements."""
    return lambda acc, x: _typed(call, lambda: call.typer.builtin_call(name, [acc, x], call.node))


# -- whole-tile and axis reductions ----------------------------------------------------------------


@rule("tile_sum", ["a", "axis"], 1)
def _tile_sum(call: TileCall):
    a = call.tile("a")
    dtype = a.type.dtype
    if not (is_scalar_type(dtype) or is_composite_type(dtype) or is_struct_type(dtype)) or dtype is bool_:
        raise call.error(f"'a' must be a tile of numbers, vectors, matrices or structs, got a tile of "
                         f"{type_name(dtype)}")
    # componentwise for vectors and matrices; field by field for structs, as Warp (tile_structs)
    step = (lambda acc, x: fieldwise("add", acc, x)) if is_struct_type(dtype) else _binary(call, "add")
    axis = _axis(call, a.type.ndim)
    if axis is not None:
        return _fold_axis(call, a, axis, step)
    return _fold_all(call, a.type.shape, lambda idx: element(a, idx), step, dtype)


def _extremum(call: TileCall, name: str):
    a = _scalar_tile(call)
    # Warp's min/max: a NaN operand gives the other one (fmin/fmax), so NaN elements count as missing
    return _fold_all(call, a.type.shape, lambda idx: element(a, idx), _binary(call, name), a.type.dtype)


rule("tile_min", ["a"], 1)(lambda call: _extremum(call, "min"))
rule("tile_max", ["a"], 1)(lambda call: _extremum(call, "max"))


def _arg_extremum(call: TileCall, better: str, extremum: str):
    """The row-major index of the first element strictly ``better`` than the running min (max) of those before
    it, as Warp's CPU tracks it: the first of tied extrema; the running value skips NaNs as min/max do, but a
    NaN first in the tile keeps index 0 until a later element beats the running value."""
    a = _scalar_tile(call)
    typer, shape, dtype = call.typer, a.type.shape, a.type.dtype
    best, at = typer.new_temp(dtype), typer.new_temp(int32)
    typer.pending.extend([ir.IRAssign(best, element(a, [_i32(0)] * len(shape))), ir.IRAssign(at, _i32(0))])

    def body(idx):
        x = typer.new_temp(dtype)
        found = ir.IRIf(ir.IRCall(better, [x, best], bool_), [ir.IRAssign(at, _flat(idx, shape))], [])
        return [ir.IRAssign(x, element(a, idx)), found, ir.IRAssign(best, _binary(call, extremum)(best, x))]

    typer.pending.extend(_rest_loops(typer, shape, body))
    out = new_tile(typer, int32, (1,))
    typer.pending.append(ir.IRAssign(element(out, [_i32(0)]), at))
    return out


rule("tile_argmin", ["a"], 1)(lambda call: _arg_extremum(call, "lt", "min"))
rule("tile_argmax", ["a"], 1)(lambda call: _arg_extremum(call, "gt", "max"))


@rule("tile_reduce", ["op", "a", "axis"], 2)
def _tile_reduce(call: TileCall):
    f = function_argument(call, "op")
    if not (isinstance(f, BuiltinFunction) or hasattr(f, "instantiate")):  # a @func (lang is above frontend)
        raise call.error(f"'op' must be a builtin or a @func, got {f!r}")
    a = call.tile("a")
    dtype = a.type.dtype
    axis = _axis(call, a.type.ndim)
    if axis is not None and (not is_scalar_type(dtype) or dtype is bool_):
        raise call.error(f"with 'axis', 'a' must be a tile of a numeric scalar type (as in Warp), got a tile of "
                         f"{type_name(dtype)}")
    if isinstance(f, BuiltinFunction) and is_struct_type(dtype):  # no builtin takes structs
        raise call.error(f"'op' {f.name} has no overload accepting the Warp struct tile element type "
                         f"{type_name(dtype)} (pass a @func taking two and returning one)")

    def step(acc, x):
        # a builtin's type errors name tile_reduce; a @func's keep their own place in its body
        result = _typed(call, lambda: apply(call.typer, f, [acc, x], call.node)) if isinstance(f, BuiltinFunction) \
            else apply(call.typer, f, [acc, x], call.node)
        if result.type is not dtype:
            raise call.error(f"'op' must return the tile element type {type_name(dtype)}, got "
                             f"{type_name(result.type)}")
        return result

    if axis is not None:
        return _fold_axis(call, a, axis, step)
    return _fold_all(call, a.type.shape, lambda idx: element(a, idx), step, dtype)


@rule("tile_dot", ["a", "b"], 2)
def _tile_dot(call: TileCall):
    a, b = call.tile("a"), call.tile("b")
    if a.type.shape != b.type.shape:
        raise call.error(f"'a' and 'b' must have the same shape, got {a.type.shape} and {b.type.shape}")
    dtype = a.type.dtype
    if b.type.dtype is not dtype:
        raise call.error(f"'a' and 'b' must have the same dtype, got {type_name(dtype)} and "
                         f"{type_name(b.type.dtype)}")
    if is_vector_type(dtype):
        product, scalar = "dot", dtype._dtype
    elif is_matrix_type(dtype):
        product, scalar = "ddot", dtype._dtype  # the Frobenius inner product
    elif is_scalar_type(dtype) and dtype is not bool_:
        product, scalar = "mul", dtype
    else:
        raise call.error(f"'a' and 'b' must be tiles of scalars, vectors or matrices, got tiles of "
                         f"{type_name(dtype)}")

    def value_of(idx):
        return _typed(call, lambda: call.typer.builtin_call(product, [element(a, idx), element(b, idx)], call.node))

    return _fold_all(call, a.type.shape, value_of, _binary(call, "add"), scalar)


# -- scans -----------------------------------------------------------------------------------------


def _scan_inclusive(call: TileCall, name: str):
    """Running ``name`` (add, max, min) over the flattened row-major sequence; the result keeps the shape."""
    a = _scalar_tile(call, dtypes=_SCAN_DTYPES)
    typer, shape, dtype = call.typer, a.type.shape, a.type.dtype
    step = _binary(call, name)
    out = new_tile(typer, dtype, shape)
    acc = typer.new_temp(dtype)
    first = [_i32(0)] * len(shape)
    typer.pending.extend([ir.IRAssign(acc, element(a, first)), ir.IRAssign(element(out, first), acc)])
    typer.pending.extend(_rest_loops(typer, shape, lambda idx: [ir.IRAssign(acc, step(acc, element(a, idx))),
                                                                ir.IRAssign(element(out, idx), acc)]))
    return out


rule("tile_scan_inclusive", ["a"], 1)(lambda call: _scan_inclusive(call, "add"))
rule("tile_scan_max_inclusive", ["a"], 1)(lambda call: _scan_inclusive(call, "max"))
rule("tile_scan_min_inclusive", ["a"], 1)(lambda call: _scan_inclusive(call, "min"))


@rule("tile_scan_exclusive", ["a"], 1)
def _tile_scan_exclusive(call: TileCall):
    a = _scalar_tile(call, dtypes=_SCAN_DTYPES)
    typer, shape, dtype = call.typer, a.type.shape, a.type.dtype
    step = _binary(call, "add")
    out = new_tile(typer, dtype, shape)
    acc = typer.new_temp(dtype)
    typer.pending.append(ir.IRAssign(acc, zero_value(dtype)))
    typer.pending.extend(loop_nest(typer, shape, lambda idx: [ir.IRAssign(element(out, idx), acc),
                                                              ir.IRAssign(acc, step(acc, element(a, idx)))]))
    return out


# -- sorting ---------------------------------------------------------------------------------------


def _copy_flat(typer, src, dst, to_flat: bool) -> list:
    """Loops copying an N-D tile to the 1-D tile of its elements in row-major order, or back."""
    shape = (src if to_flat else dst).type.shape

    def body(idx):
        flat = [_flat(idx, shape)]
        if to_flat:
            return [ir.IRAssign(element(dst, flat), element(src, idx))]
        return [ir.IRAssign(element(dst, idx), element(src, flat))]

    return loop_nest(typer, shape, body)


def _insertion_sort(typer, keys, values, n: int) -> list:
    """Sort 1-D ``keys`` ascending, moving ``values`` along: stable, and right when both are the same tile
    (each move writes the same element twice)."""
    i, j = typer.new_temp(int32), typer.new_temp(int32)
    key, value = typer.new_temp(keys.type.dtype), typer.new_temp(values.type.dtype)
    after = lambda: ir.IRCall("add", [j, _i32(1)], int32, no_wrap=True)  # noqa: E731
    shift = [ir.IRAssign(element(keys, [after()]), element(keys, [j])),
             ir.IRAssign(element(values, [after()]), element(values, [j])),
             ir.IRAssign(j, ir.IRCall("sub", [j, _i32(1)], int32, no_wrap=True))]
    # while j >= 0 and keys[j] > key, without reading keys[-1]
    scan = ir.IRWhile(ir.IRCall("ge", [j, _i32(0)], bool_),
                      [ir.IRIf(ir.IRCall("gt", [element(keys, [j]), key], bool_), shift, [ir.IRBreak()])])
    body = [ir.IRAssign(key, element(keys, [i])), ir.IRAssign(value, element(values, [i])),
            ir.IRAssign(j, ir.IRCall("sub", [i, _i32(1)], int32, no_wrap=True)), scan,
            ir.IRAssign(element(keys, [after()]), key), ir.IRAssign(element(values, [after()]), value)]
    return [ir.IRFor(i, _i32(1), _i32(n), _i32(1), body)]


@rule("tile_sort", ["keys", "values"], 2)
def _tile_sort(call: TileCall):
    keys = _scalar_tile(call, "keys", _SORT_KEY_DTYPES)
    values = call.tile("values")
    shape = keys.type.shape
    if values.type.shape != shape:
        raise call.error(f"'keys' and 'values' must have the same shape, got {shape} and {values.type.shape}")
    typer, n = call.typer, math.prod(shape)
    if len(shape) == 1:  # in place
        typer.pending.extend(_insertion_sort(typer, keys, values, n))
        return ir.IRConst(0, int32)  # a statement: its value is not used
    # a tile of more dimensions sorts as its row-major sequence (as in Warp): sort a flat copy, copy back
    # (keys passed as values too: both copies sort alike, so copying both back is right)
    flat_keys, flat_values = new_tile(typer, keys.type.dtype, (n,)), new_tile(typer, values.type.dtype, (n,))
    typer.pending.extend(_copy_flat(typer, keys, flat_keys, True) + _copy_flat(typer, values, flat_values, True))
    typer.pending.extend(_insertion_sort(typer, flat_keys, flat_values, n))
    typer.pending.extend(_copy_flat(typer, flat_keys, keys, False) + _copy_flat(typer, flat_values, values, False))
    return ir.IRConst(0, int32)
