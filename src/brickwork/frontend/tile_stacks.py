"""Typing rules of tile stacks: ``wp.tile_stack(capacity, dtype)`` makes an empty one in a kernel, and
``tile_stack_push(s, value, has_value)``, ``tile_stack_pop(s)`` (``value, slot``), ``tile_stack_count(s)``,
``tile_stack_clear(s)`` become builtins that update the stack variable in place (``builtins/tile_stacks.py``)."""

from __future__ import annotations

from .. import ir
from ..builtins.tiles import TILE_FUNCTIONS
from ..errors import KernelUnsupportedTypeError, KernelValueError
from ..types.arrays import type_name
from ..types.tile_stacks import TileStackType, is_tile_stack_type
from .intrinsics import INTRINSICS
from .tile_build import TileCall


def _new(typer, obj, node):
    call = TileCall(typer, node, "tile_stack", ["capacity", "dtype"], 2)
    capacity = call.static("capacity")
    if isinstance(capacity, bool) or not isinstance(capacity, int):  # no overload of Warp's takes it
        raise call.error(f"capacity must be a positive integer, got {capacity!r} of type "
                         f"{type(capacity).__name__}", KernelUnsupportedTypeError)
    if capacity <= 0:
        raise call.error(f"capacity must be a positive integer, got {capacity!r}", KernelValueError)
    t = TileStackType(call.dtype(), capacity)
    return ir.IRCall("tile_stack_new", [], t)


def _stack(call: TileCall) -> ir.IRLocal:
    s = call.value("s")
    if not is_tile_stack_type(s.type) or not isinstance(s, ir.IRLocal):
        raise call.error(f"'s' must be a variable holding a tile stack (from wp.tile_stack), got a value of type "
                         f"{type_name(s.type)}")
    return s


def _rule(name: str, params: list):
    def typing(typer, obj, node):
        call = TileCall(typer, node, name, params, len(params))
        s = _stack(call)
        args = [s]
        if "value" in params:
            value = call.value("value")
            if value.type is not s.type.dtype:
                raise call.error(f"the value's type {type_name(value.type)} does not match the stack's dtype "
                                 f"{type_name(s.type.dtype)}")
            args += [value, call.value("has_value")]
        return typer.builtin_call(name, args, node)

    INTRINSICS.register(TILE_FUNCTIONS[name], call=typing)


INTRINSICS.register(TILE_FUNCTIONS["tile_stack"], call=_new)
_rule("tile_stack_push", ["s", "value", "has_value"])
for _name in ("tile_stack_pop", "tile_stack_count", "tile_stack_clear"):
    _rule(_name, ["s"])
