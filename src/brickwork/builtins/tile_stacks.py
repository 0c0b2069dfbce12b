"""Tile stacks (``wp.tile_stack``): push, pop, count and clear. The typing rules of the builtins the
frontend's ``tile_stack_*`` calls become (``frontend/tile_stacks.py``); the C++ is in
include/brickwork_tile_stack.h."""

from __future__ import annotations

from ..types.opaque import TupleType
from ..types.scalars import bool_, int32
from ..types.tile_stacks import is_tile_stack_type
from .registry import builtin, names, need

NAMES = ("tile_stack_push", "tile_stack_pop", "tile_stack_count", "tile_stack_clear")


@builtin("tile_stack_push")
def _push(stack, value, has_value):
    need(is_tile_stack_type(stack) and value is stack.dtype and has_value is bool_,
         f"needs a tile stack, a value of its dtype and a bool, got {names(stack, value, has_value)}")
    return int32


@builtin("tile_stack_pop")
def _pop(stack):
    need(is_tile_stack_type(stack), f"needs a tile stack, got {names(stack)}")
    return TupleType((stack.dtype, int32))


@builtin("tile_stack_count")
@builtin("tile_stack_clear")
def _count_or_clear(stack):
    need(is_tile_stack_type(stack), f"needs a tile stack, got {names(stack)}")
    return int32
