"""What the tile rules share: reading a tile call's arguments, and building the loops over a tile's elements.

Every tile operation is typed into plain IR: the result is a new tile local (``TileType``), filled by a nest
of loops with constant bounds that the call leaves in ``typer.pending`` (run just before the statement), so
every target compiles tiles as it compiles loops over a fixed-size local array, and the backward kernel
replays them as such.
"""

from __future__ import annotations

import ast
import math

from .. import ir
from ..errors import KernelError, KernelTypeError, KernelValueError
from ..types.arrays import type_name
from ..types.composite import is_composite_type
from ..types.scalars import bool_, int32, is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from ..types.tiles import TileType, is_tile_type
from ..types.type_sizes import type_size_in_bytes

# Warp's CPU gives the shared tiles of a block one arena of this many bytes (a tile here is a local array
# wherever it is stored, but a kernel brickwork runs should not be one Warp aborts)
SHARED_ARENA_BYTES = 256 * 1024


class TileCall:
    """The arguments of one tile call, bound to the function's parameter names (Warp's names)."""

    def __init__(self, typer, node, name: str, params: list, required: int):
        self.typer, self.node, self.name = typer, node, name
        if len(node.args) > len(params):
            raise typer.error(KernelTypeError, f"{name}() takes at most {len(params)} positional arguments "
                              f"({', '.join(params)}), got {len(node.args)}", node)
        bound = dict(zip(params, node.args))
        for k in node.keywords:
            if k.arg is None or k.arg not in params:
                raise typer.error(KernelTypeError, f"{name}() got an unexpected keyword argument '{k.arg}' "
                                  f"(it takes {', '.join(params)})", node)
            if k.arg in bound:
                raise typer.error(KernelTypeError, f"{name}() got multiple values for argument '{k.arg}'", node)
            bound[k.arg] = k.value
        missing = [p for p in params[:required] if p not in bound]
        if missing:
            raise typer.error(KernelTypeError, f"{name}() missing required argument '{missing[0]}'", node)
        refused = typer.hoisting_refused()
        if refused is not None:
            raise typer.error(KernelTypeError, f"{name}() cannot be called in {refused}: a tile operation runs "
                              f"before its statement; assign its result to a variable first", node)
        self.nodes = bound

    def has(self, param: str) -> bool:
        return param in self.nodes

    def error(self, message: str, cls=KernelTypeError) -> KernelError:
        return self.typer.error(cls, f"{self.name}(): {message}", self.nodes.get("__node__", self.node))

    def static(self, param: str, default=None):
        node = self.nodes.get(param)
        if node is None:
            return default
        try:
            return self.typer.static_value(node)
        except KernelError:
            raise self.error(f"'{param}' must be known at compile time, got '{ast.unparse(node)}'") from None

    def static_or_none(self, node):
        """The compile-time value of argument ``node``, or None when it is a runtime value."""
        try:
            return self.typer.static_value(node)
        except KernelError:
            return None

    def value(self, param: str) -> ir.IRExpr:
        return self.typer.value(self.nodes[param])

    def tile(self, param: str) -> ir.IRLocal:
        """A tile argument, as a local (a tile computed in the argument is held in a temporary)."""
        v = self.value(param)
        if not is_tile_type(v.type):
            raise self.error(f"'{param}' must be a tile, got a value of type {type_name(v.type)}")
        return atom(self.typer, v)

    def shape(self, param: str = "shape") -> tuple:
        shape = self.static(param)
        return checked_shape(self, shape, param)

    def dtype(self, param: str = "dtype", default=float):
        dtype = python_annotation_type(self.static(param, default))
        if not (is_scalar_type(dtype) or is_composite_type(dtype) or is_struct_type(dtype)):
            raise self.error(f"'{param}' must be a scalar, vector, matrix or struct type, got {type_name(dtype)}")
        return dtype

    def storage(self, shape: tuple | None = None, dtype=None) -> None:
        """Warp's ``storage`` argument: where a GPU keeps the tile ("register" or "shared"). A tile here lives
        in its thread's frame either way, so it is checked, and a shared tile of ``shape`` and ``dtype`` (when
        given) that is larger than Warp's CPU arena by itself is refused (Warp aborts on it)."""
        storage = self.static("storage", "register")
        if storage not in ("register", "shared"):
            raise self.error(f"storage must be 'register' or 'shared', got {storage!r}")
        if storage != "shared" or shape is None:
            return
        size = math.prod(shape) * type_size_in_bytes(dtype)
        if size > SHARED_ARENA_BYTES:
            raise self.error(f"a shared tile of shape {shape} and dtype {type_name(dtype)} takes {size} bytes, which "
                             f"exceeds the 256 KiB arena Warp's CPU gives a block's shared tiles; use "
                             f"storage='register' or a smaller tile", KernelValueError)

    def indices(self, param: str, ndim: int, default=0) -> list:
        """An offset or index argument of ``ndim`` int32 entries: an int or a tuple (constants or values)."""
        node = self.nodes.get(param)
        if node is None:
            return [ir.IRConst(default, int32)] * ndim
        items = node.elts if isinstance(node, ast.Tuple) else None
        if items is None:
            v = self.typer.expr(node)
            static = getattr(v, "value", None) if not isinstance(v, ir.IRExpr) else None
            if isinstance(static, tuple):
                items = list(static)
            elif isinstance(v, ir.IRExpr) and isinstance(v.type, ir.TupleType):
                items = [ir.IRTupleGet(v, k, t) for k, t in enumerate(v.type.types)]
            else:
                items = [node]
        if len(items) != ndim:
            raise self.error(f"'{param}' needs {ndim} entries (one per dimension), got {len(items)}")
        return [self.index(item, param) for item in items]

    def index(self, item, param: str) -> ir.IRExpr:
        if isinstance(item, int) and not isinstance(item, bool):
            return ir.IRConst(item, int32)
        v = item if isinstance(item, ir.IRExpr) else self.typer.to_value(self.typer.expr(item), item)
        if v.type is int32:
            return v
        if is_scalar_type(v.type) and v.type.is_int:
            return ir.IRCast(v, int32)
        raise self.error(f"'{param}' entries must be integers, got {type_name(v.type)}")


def checked_shape(call: TileCall, shape, param: str = "shape") -> tuple:
    shape = shape if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise call.error(f"'{param}' must be a compile-time int or tuple of ints, got {shape!r}")
    if not 1 <= len(shape) <= 4 or any(s <= 0 for s in shape):
        raise call.error(f"'{param}' must have 1 to 4 positive extents, got {tuple(shape)}")
    return tuple(shape)


def atom(typer, value: ir.IRExpr) -> ir.IRExpr:
    """``value`` as a local, computed once before the statement (constants stay as they are)."""
    if isinstance(value, (ir.IRLocal, ir.IRConst)):
        return value
    tmp = typer.new_temp(value.type)
    typer.pending.append(ir.IRAssign(tmp, value))
    return tmp


def element(tile: ir.IRExpr, idx: list, where: str = "") -> ir.IRArrayElem:
    """An element of a tile; ``where`` ("file:line") names indices a user wrote in debug mode's report."""
    return ir.IRArrayElem(tile, list(idx), tile.type.dtype, where)


def loop_nest(typer, shape: tuple, body_of) -> list:
    """Loops over every index of ``shape`` (row-major); ``body_of(indices)`` gives the innermost body. An
    extent of 1 is no loop: its index is 0 (a backward kernel saves what a loop's iterations need, and the
    one iteration of a ``(1, n)`` tile's row loop would save every tile it writes)."""
    idx = [typer.new_temp(int32) for _ in shape]
    body = body_of(idx)
    for d in reversed(range(len(shape))):
        zero, extent = ir.IRConst(0, int32), ir.IRConst(shape[d], int32)
        if shape[d] == 1:
            body = [ir.IRAssign(idx[d], zero), *body]
        else:
            body = [ir.IRFor(idx[d], zero, extent, ir.IRConst(1, int32), body)]
    return body


def new_tile(typer, dtype, shape: tuple) -> ir.IRLocal:
    """A new tile local, assigned as a whole (zeros) before its elements are written: each assignment of a
    whole tile starts a new value of the local for the passes (the adjoint's normal form versions them)."""
    t = TileType(dtype, shape)
    tile = typer.new_temp(t)
    typer.pending.append(ir.IRAssign(tile, ir.IRCall("fixed_zeros", [], t)))
    return tile


def fill(typer, shape: tuple, value_of, dtype=None) -> ir.IRLocal:
    """A new tile of ``shape`` whose element at ``idx`` is ``value_of(idx)`` (its type: the tile's dtype, or
    ``dtype`` when given), computed by loops left in ``typer.pending``."""
    box: dict = {}

    def body(idx):
        value = value_of(idx)
        t = dtype or value.type
        box["tile"] = out = new_tile(typer, t, shape)
        return [ir.IRAssign(element(out, idx), value if value.type is t else ir.IRCast(value, t))]

    typer.pending.extend(loop_nest(typer, shape, body))
    return box["tile"]


def zero_value(dtype) -> ir.IRExpr:
    """The zero of a scalar, vector or matrix type."""
    if is_scalar_type(dtype):
        return ir.IRConst(False if dtype is bool_ else 0, dtype)
    if is_composite_type(dtype):
        return ir.IRConstruct([ir.IRConst(0, dtype._dtype)] * math.prod(dtype._shape), dtype)
    return ir.IRConstruct([None] * len(dtype._fields), dtype)  # a struct: its fields' zeros


def constant(value, dtype, call: TileCall) -> ir.IRExpr:
    """A Python number as a value of ``dtype`` (a vector or matrix: every component)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise call.error(f"needs a number, got {value!r}")
    if is_scalar_type(dtype):
        if dtype.is_int and isinstance(value, float) and not value.is_integer():
            raise call.error(f"{value!r} is not a value of {type_name(dtype)}")
        return ir.IRConst(int(value) if dtype.is_int else float(value), dtype)
    if is_composite_type(dtype):
        comp = dtype._dtype
        return ir.IRConstruct([ir.IRConst(int(value) if comp.is_int else float(value), comp)]
                              * math.prod(dtype._shape), dtype)
    if is_struct_type(dtype):
        raise call.error(f"a tile of the Warp struct {type_name(dtype)} cannot be filled with the number "
                         f"{value!r} (a Warp struct dtype has no such value); use tile_full() with a "
                         f"{type_name(dtype)} value")
    raise call.error(f"cannot fill a tile of {type_name(dtype)} with a number")
