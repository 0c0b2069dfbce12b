"""Typing rules of tiles: construction, loads and stores, element access, arithmetic and ``tile_map``.

A block of a ``launch_tiled`` grid is one thread here (``wp.block_dim()`` is 1, as on Warp's CPU), so a
tile is that thread's own small array and each operation is a loop over its elements (``tile_build``).
Reductions, scans and sorting are in ``tile_reductions``; shapes and linear algebra in ``tile_shapes``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..builtins.atomics import ATOMIC_ADD_TEXT, has_atomic_add
from ..builtins.functions import BuiltinFunction
from ..builtins.tiles import TILE_FUNCTIONS
from ..errors import KernelTypeError, KernelUnsupportedTypeError, KernelValueError
from ..types.arrays import ArrayType, type_name
from ..types.composite import is_composite_type, matrix, vector
from ..types.scalars import bool_, int32, is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .tile_build import TileCall, atom, constant, element, fill, loop_nest, new_tile, zero_value
from .tile_structs import element_update, struct_operator

T = TILE_FUNCTIONS


def rule(name: str, params: list, required: int = 0):
    """Register ``body(call)`` as the typing rule of tile function ``name`` with Warp's parameter names."""

    def register(body):
        INTRINSICS.register(T[name], call=lambda typer, f, node: body(TileCall(typer, node, name, params, required)))
        return body

    return register


# -- construction ----------------------------------------------------------------------------------


def _filled(call: TileCall, value_of_dtype):
    shape, dtype = call.shape(), call.dtype()
    call.storage(shape, dtype)
    value = value_of_dtype(dtype)
    return fill(call.typer, shape, lambda idx: value, dtype)


rule("tile_zeros", ["shape", "dtype", "storage"], 1)(lambda call: _filled(call, zero_value))
rule("tile_empty", ["shape", "dtype", "storage"], 1)(lambda call: _filled(call, zero_value))
rule("tile_ones", ["shape", "dtype", "storage"], 1)(lambda call: _filled(call, lambda d: constant(1, d, call)))


@rule("tile_full", ["shape", "value", "dtype", "storage"], 2)
def _tile_full(call: TileCall):
    node = call.nodes["value"]
    static = call.typer.try_static(node)
    number = isinstance(static, (int, float)) and not isinstance(static, bool)
    default = (float if isinstance(static, float) else int32) if number else call.value("value").type
    shape, dtype = call.shape(), call.dtype(default=default)
    call.storage(shape, dtype)
    if number:
        value = constant(static, dtype, call)
    else:
        value = atom(call.typer, call.value("value"))
        if value.type is not dtype:
            if not (is_scalar_type(value.type) and is_scalar_type(dtype)):
                raise call.error(f"value of type {type_name(value.type)} does not fill a tile of {type_name(dtype)}")
            value = atom(call.typer, ir.IRCast(value, dtype))
    return fill(call.typer, shape, lambda idx: value, dtype)


_ARANGE_NAMES = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}


def _tile_arange_rule(typer, obj, node):
    """``tile_arange(stop)``, ``(start, stop)``, ``(start, stop, step)``: compile-time bounds, rounded to the
    output type first (so the count is the one the filled values give), then counted as Warp does: exactly for
    an integer type, as the output type rounds the quotient for a float type."""
    if len(node.args) > 3:
        raise typer.error(KernelTypeError, f"tile_arange() accepts at most 3 positional arguments, got "
                          f"{len(node.args)}", node)
    call = TileCall(typer, node, "tile_arange", ["arg0", "arg1", "arg2", "dtype", "storage"], 1)
    names = _ARANGE_NAMES[len(node.args)] if node.args else ()
    values = []
    for name, arg in zip(names, node.args):
        v = call.static_or_none(arg)
        v = getattr(v, "value", v) if not isinstance(v, (int, float)) else v  # a typed constant: wp.float32(3.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise typer.error(KernelTypeError, f"tile_arange() arguments must be compile time constants, but {name} "
                              f"is not", node)
        values.append((name, v))
    default = float if any(isinstance(v, float) for _, v in values) else int32
    dtype = python_annotation_type(call.static("dtype", None) or default)
    if not is_scalar_type(dtype) or dtype is bool_:
        raise typer.error(KernelTypeError, f"tile_arange() requires a numeric scalar dtype, got {type_name(dtype)}",
                          node)
    bound = dict(start=0, step=1)
    for name, v in values:
        bound[name] = _arange_bound(typer, node, name, v, dtype)
    start, stop, step = bound["start"], bound["stop"], bound["step"]
    if step == 0:
        raise typer.error(KernelValueError, "tile_arange() step cannot be zero", node)
    if (start >= stop) if step > 0 else (start <= stop):
        raise typer.error(KernelValueError, f"tile_arange() needs a non-empty range, but start={start}, "
                          f"stop={stop}, step={step} give zero-length", node)
    if dtype.is_int:
        count = -((stop - start) // -step)  # exact ceiling division: no float64 quotient rounds the count
    else:
        # the quotient as the output type holds it, as Warp counts: (0.0, 0.3, 0.1) in float32 divides to a hair
        # above 3, which rounds to 3 (a count of 4 would put an element at the stop)
        with np.errstate(over="ignore"):
            quotient = dtype._convert((stop - start) / step)
        if not math.isfinite(quotient):
            raise typer.error(KernelValueError, f"tile_arange() start={start}, stop={stop}, step={step} spans more "
                              f"elements than can be counted (the step is too small for the range)", node)
        count = max(1, math.ceil(quotient))  # a non-empty range holds its start, whatever the quotient rounds to
    if count > 2**31 - 1:
        raise typer.error(KernelValueError, "tile_arange() spans more elements than can be counted", node)
    call.storage((count,), dtype)
    first, step = (ir.IRConst(b, dtype) for b in (start, step))

    def value_of(idx):
        return ir.IRCall("add", [first, ir.IRCall("mul", [ir.IRCast(idx[0], dtype), step], dtype)], dtype)

    return fill(typer, (count,), value_of, dtype)


def _arange_bound(typer, node, name: str, v, dtype) -> int | float:
    """A bound as the exact value the output type holds (a number rounded to it once; an integer checked)."""
    if isinstance(v, int) and not -2**63 <= v < 2**64:
        raise typer.error(KernelValueError, f"tile_arange() {name}={v} is too wide to use as an integer bound; "
                          f"spell it as a float ({float(v)!r}) for a floating-point range", node)
    if dtype.is_int:
        if isinstance(v, float) and not math.isfinite(v):
            raise typer.error(KernelValueError, f"tile_arange() {name}={v!r} is out of range for {type_name(dtype)}",
                              node)
        if isinstance(v, float) and not v.is_integer():
            raise typer.error(KernelValueError, f"tile_arange() {name}={v!r} has a fractional part", node)
        info = np.iinfo(dtype._np)
        if not info.min <= int(v) <= info.max:
            raise typer.error(KernelValueError, f"tile_arange() {name}={v!r} is out of range for "
                              f"{type_name(dtype)}", node)
        return int(v)
    exact = (np.int64(v) if v < 0 else np.uint64(v)) if isinstance(v, int) else v  # rounded once, not via a float64
    with np.errstate(over="ignore"):
        rounded = dtype._convert(exact)
    if not math.isfinite(rounded):
        raise typer.error(KernelValueError, f"tile_arange() {name}={v!r} is out of range for {type_name(dtype)}", node)
    return rounded


INTRINSICS.register(T["tile_arange"], call=_tile_arange_rule)


@rule("tile", ["x", "preserve_type", "storage"], 1)
def _tile(call: TileCall):
    call.storage()
    x = atom(call.typer, call.value("x"))
    t = x.type
    if call.static("preserve_type", False) or not is_composite_type(t):
        return fill(call.typer, (1,), lambda idx: x, t)
    shape = tuple(t._shape)
    return fill(call.typer, (*shape, 1), lambda idx: ir.IRComponent(x, idx[:-1], t._dtype), t._dtype)


@rule("untile", ["a"], 1)
def _untile(call: TileCall):
    a = call.tile("a")
    shape = a.type.shape
    if shape[-1] != 1:
        raise call.error(f"needs a tile whose last extent is the block's 1 thread (made by wp.tile), got shape "
                         f"{shape}")
    zero = ir.IRConst(0, int32)
    if len(shape) == 1:
        return element(a, [zero])
    lead = shape[:-1]
    if len(lead) > 2 or not is_scalar_type(a.type.dtype):
        raise call.error(f"cannot make a vector or matrix of a tile of shape {shape} and dtype "
                         f"{type_name(a.type.dtype)}")
    result = vector(lead[0], a.type.dtype) if len(lead) == 1 else matrix(lead, a.type.dtype)
    comps = [element(a, [ir.IRConst(k, int32), zero]) for k in range(lead[0])] if len(lead) == 1 else \
        [element(a, [ir.IRConst(r, int32), ir.IRConst(c, int32), zero]) for r in range(lead[0]) for c in range(lead[1])]
    return ir.IRConstruct(comps, result)


# -- arrays ----------------------------------------------------------------------------------------


def _array(call: TileCall, param: str = "a"):
    a = call.value(param)
    if not isinstance(a.type, ArrayType) or is_tile_type(a.type):
        raise call.error(f"'{param}' must be an array, got a value of type {type_name(a.type)}")
    return atom(call.typer, a)


def _inside(a, at: list):
    """The condition that index ``at`` lies within array ``a``."""
    cond = None
    for d, i in enumerate(at):
        part = ir.IRCall("logical_and", [ir.IRCall("ge", [i, ir.IRConst(0, int32)], bool_),
                                         ir.IRCall("lt", [i, ir.IRArrayShape(a, d, int32)], bool_)], bool_)
        cond = part if cond is None else ir.IRCall("logical_and", [cond, part], bool_)
    return cond


def _at(offsets: list, idx: list) -> list:
    return [ir.IRCall("add", [o, i], int32) for o, i in zip(offsets, idx)]


def _tile_shape_for(call: TileCall, a, shape: tuple):
    if len(shape) != a.type.ndim:
        raise call.error(f"a tile of {len(shape)} dimensions from an array of {a.type.ndim}: shape {shape} needs "
                         f"one extent per array dimension")


def load_tile(call: TileCall, a, shape: tuple, index_of, checked: bool = True):
    """A new tile of ``shape`` whose element ``idx`` is ``a[index_of(idx)]`` (zero outside the array when
    ``checked``)."""
    where = call.typer.where(call.node)
    out = new_tile(call.typer, a.type.dtype, shape)

    def body(idx):
        at = index_of(idx)
        load = ir.IRAssign(element(out, idx), ir.IRArrayElem(a, at, a.type.dtype, where=where))
        if not checked:
            return [load]
        return [ir.IRIf(_inside(a, at), [load], [ir.IRAssign(element(out, idx), zero_value(a.type.dtype))])]

    call.typer.pending.extend(loop_nest(call.typer, shape, body))
    return out


def load_source(call: TileCall) -> tuple:
    """``(a, shape)`` of a load: the array and the tile's shape, checked to agree, its storage checked."""
    a = _array(call)
    shape = call.shape()
    _tile_shape_for(call, a, shape)
    call.storage(shape, a.type.dtype)
    return a, shape


@rule("tile_load", ["a", "shape", "offset", "storage", "bounds_check", "aligned"], 2)
def _tile_load(call: TileCall):
    a, shape = load_source(call)
    offsets = [atom(call.typer, o) for o in call.indices("offset", len(shape))]
    return load_tile(call, a, shape, lambda idx: _at(offsets, idx), bool(call.static("bounds_check", True)))


def array_and_tile(call: TileCall):
    """The array ``a`` and the tile ``t`` of a store, checked to agree in dtype and rank."""
    a = _array(call)
    t = call.tile("t")
    if t.type.dtype is not a.type.dtype:
        raise call.error(f"the tile's dtype {type_name(t.type.dtype)} must be the array's "
                         f"{type_name(a.type.dtype)}")
    _tile_shape_for(call, a, t.type.shape)
    return a, t


def store_tile(call: TileCall, a, t, atomic: bool, index_of, checked: bool = True):
    """Store (or atomically add) tile ``t`` into array ``a``: element ``idx`` goes to ``index_of(idx)``, skipped
    outside the array when ``checked``; an atomic add returns the tile of the values it replaced (zero where
    skipped)."""
    dtype = t.type.dtype
    if atomic and not (is_struct_type(dtype) or has_atomic_add(dtype)):  # structs: their adding fields add
        raise call.error(f"only supports tiles with {ATOMIC_ADD_TEXT} as the underlying scalar type, but got "
                         f"{type_name(dtype)}", KernelUnsupportedTypeError)
    shape = t.type.shape
    where = call.typer.where(call.node)
    old = new_tile(call.typer, a.type.dtype, shape) if atomic else None

    def body(idx):
        at = index_of(idx)
        if atomic:
            add = ir.IRCall("atomic_add", [a, *at, element(t, idx)], a.type.dtype, where=where)
            stmt = ir.IRAssign(element(old, idx), add)
            other = [ir.IRAssign(element(old, idx), zero_value(a.type.dtype))]
        else:
            stmt = ir.IRAssign(ir.IRArrayElem(a, at, a.type.dtype, where=where), element(t, idx))
            other = []
        return [ir.IRIf(_inside(a, at), [stmt], other)] if checked else [stmt]

    call.typer.pending.extend(loop_nest(call.typer, shape, body))
    return old


def _store_at_offset(call: TileCall, atomic: bool):
    a, t = array_and_tile(call)
    offsets = [atom(call.typer, o) for o in call.indices("offset", t.type.ndim)]
    return store_tile(call, a, t, atomic, lambda idx: _at(offsets, idx), bool(call.static("bounds_check", True)))


@rule("tile_store", ["a", "t", "offset", "bounds_check", "aligned"], 2)
def _tile_store(call: TileCall):
    _store_at_offset(call, atomic=False)
    return ir.IRConst(0, int32)  # a statement: its value is not used


@rule("tile_atomic_add", ["a", "t", "offset", "bounds_check"], 2)
def _tile_atomic_add(call: TileCall):
    return _store_at_offset(call, atomic=True)


# -- elements --------------------------------------------------------------------------------------


@rule("tile_extract", ["a", "i", "j", "k", "l"], 2)
def _tile_extract(call: TileCall):
    a = call.tile("a")
    given = [p for p in ("i", "j", "k", "l") if call.has(p)]
    ndim = a.type.ndim
    if len(given) != ndim:
        raise call.error(f"a tile of {ndim} dimensions takes {ndim} indices, got {len(given)}")
    return element(a, [call.index(call.nodes[p], p) for p in given], call.typer.where(call.node))


@rule("tile_astype", ["t", "dtype"], 2)
def _tile_astype(call: TileCall):
    t = call.tile("t")
    dtype = call.dtype()
    if not (is_scalar_type(dtype) and is_scalar_type(t.type.dtype)):
        raise call.error(f"converts scalar tiles to a scalar type, got {type_name(t.type.dtype)} to "
                         f"{type_name(dtype)}")
    return fill(call.typer, t.type.shape, lambda idx: ir.IRCast(element(t, idx), dtype), dtype)


def apply(typer, f, args: list, node) -> ir.IRExpr:
    """``f(*args)`` for a builtin or ``@func`` passed by name (tile_map, tile_reduce)."""
    if isinstance(f, BuiltinFunction):
        return typer.builtin_call(f.name, args, node)
    if callable(getattr(f, "instantiate", None)):  # a @func (lang.function.Function, a layer above)
        return typer.call_function(f, args, node)
    raise typer.error(KernelTypeError, f"expects a builtin or a @func, got {f!r}", node)


def function_argument(call: TileCall, param: str):
    from .expressions import Static

    v = call.typer.expr(call.nodes[param])
    if not isinstance(v, Static):
        raise call.error(f"'{param}' must be a builtin or a @func, got a value of type {type_name(v.type)}")
    return v.value


def _map(typer, node, f, operands: list, what: str):
    tiles = [o for o in operands if is_tile_type(o.type)]
    shape = tiles[0].type.shape
    for o in tiles[1:]:
        if o.type.shape != shape:
            raise typer.error(KernelTypeError, f"{what}: tiles of shapes {shape} and {o.type.shape} (apply "
                              f"tile_broadcast first)", node)
    return fill(typer, shape, lambda idx: f([element(o, idx) if is_tile_type(o.type) else o for o in operands]))


def _tile_map_rule(typer, obj, node):
    if not node.args or node.keywords:
        raise typer.error(KernelTypeError, "tile_map(op, a, *args) takes a function and tiles, by position", node)
    call = TileCall(typer, node, "tile_map", ["op"] + [f"arg{k}" for k in range(1, len(node.args))], 2)
    f = function_argument(call, "op")
    operands = [atom(typer, typer.value(n)) for n in node.args[1:]]
    if not any(is_tile_type(o.type) for o in operands):
        raise call.error("needs at least one tile")
    return _map(typer, node, lambda vals: apply(typer, f, vals, node), operands, "tile_map")


INTRINSICS.register(T["tile_map"], call=_tile_map_rule)


@rule("block_dim", [], 0)
def _block_dim(call: TileCall):
    return ir.IRConst(1, int32)  # a block is one thread here


# -- operators ---------------------------------------------------------------------------------------

_TILE_OPERATORS = frozenset({"add", "sub", "mul", "div", "neg", "pos", "bit_and", "bit_or", "bit_xor"})


def _operator(typer, op: str, args: list, node):
    """``a + b``, ``a * 2.0``, ``-a`` with tiles: elementwise (a non-tile operand applies to every element);
    tiles of structs add and subtract field by field (``tile_structs``)."""
    struct_op = struct_operator(typer, op, args, node)
    if op not in _TILE_OPERATORS and struct_op is None:
        return None
    refused = typer.hoisting_refused()
    if refused is not None:
        raise typer.error(KernelTypeError, f"a tile operation cannot be in {refused}; assign it to a variable "
                          f"first", node)
    if struct_op is not None:
        return _map(typer, node, struct_op, [atom(typer, a) for a in args], f"'{op}' of tiles")
    if op in ("mul", "div") and not any(is_scalar_type(_element_type(a.type)) for a in args):
        verb = "multiply" if op == "mul" else "divide"
        # Warp's two wordings: of two tiles, of a tile and a vector or matrix value
        need = ("at least one element type must be scalar" if all(is_tile_type(a.type) for a in args) else
                "at least one operand must be a scalar type (or a tile of scalars)")
        raise typer.error(KernelTypeError, f"Cannot {verb} {_operand_name(args[0].type)} by "
                          f"{_operand_name(args[1].type)}: {need}", node)
    operands = [atom(typer, a) for a in args]

    def element_op(vals):
        try:
            return typer.operator_call(op, vals, node)
        except KernelTypeError as e:
            raise typer.error(KernelTypeError, f"tile operands: {e.message}", node) from None

    return _map(typer, node, element_op, operands, f"'{op}' of tiles")


def _element_type(t):
    return t.dtype if is_tile_type(t) else t


def _operand_name(t) -> str:
    return f"tile<{type_name(t.dtype)}, {t.shape}>" if is_tile_type(t) else type_name(t)


INTRINSICS.register_type(is_tile_type, value_operator=_operator, element_update=element_update)


from . import (  # noqa: E402, F401 - register the other families' rules
    tile_fft,
    tile_indexed,
    tile_queries,
    tile_reductions,
    tile_shapes,
    tile_stacks,
    tile_view_rules,
)
