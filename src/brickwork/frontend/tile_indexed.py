"""Typing rules of tile gathers and scatters, per-thread writes and random tiles: ``tile_load_indexed``,
``tile_store_indexed``, ``tile_atomic_add_indexed``, ``tile_scatter_add``, ``tile_scatter_masked``,
``tile_add_inplace``, ``tile_sub_inplace``, ``tile_from_thread``, ``tile_randi``, ``tile_randf``.

A block is one thread here, so the per-thread forms (scatters, ``tile_from_thread``) are that thread's
own writes, as on Warp's CPU.
"""

from __future__ import annotations

from .. import ir
from ..builtins.tiles import TILE_FUNCTIONS
from ..types.arrays import type_name
from ..types.scalars import bool_, float32, int32, uint32
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .tile_build import TileCall, atom, element, fill, loop_nest, new_tile
from .tile_structs import element_update
from .tiles import _at, array_and_tile, load_source, load_tile, rule, store_tile

_INDEX_PARAMS = ("i", "j", "k", "l")


def _gathered_at(indices, offsets: list, axis: int, idx: list) -> list:
    """The array index of tile element ``idx``: ``offset + idx`` except along ``axis``, where the index tile
    picks the row (``offset[axis] + indices[idx[axis]]``)."""
    at = _at(offsets, idx)
    picked = ir.IRArrayElem(indices, [idx[axis]], int32)
    at[axis] = ir.IRCall("add", [offsets[axis], picked], int32)
    return at


def _indexed_args(call: TileCall, a, shape: tuple):
    indices = call.tile("indices")
    if indices.type.dtype is not int32 or indices.type.ndim != 1:
        raise call.error(f"'indices' must be a 1-D tile of int32, got {indices.type!r}")
    axis = call.static("axis", 0)
    if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        raise call.error(f"axis {axis!r} is out of range for {len(shape)} dimensions")
    axis %= len(shape)
    if indices.type.shape[0] != shape[axis]:
        raise call.error(f"the indices tile has {indices.type.shape[0]} entries, the tile {shape[axis]} along "
                         f"axis {axis}")
    offsets = [atom(call.typer, o) for o in call.indices("offset", len(shape))]
    return indices, axis, offsets


@rule("tile_load_indexed", ["a", "indices", "shape", "offset", "axis", "storage"], 3)
def _tile_load_indexed(call: TileCall):
    a, shape = load_source(call)
    indices, axis, offsets = _indexed_args(call, a, shape)
    return load_tile(call, a, shape, lambda idx: _gathered_at(indices, offsets, axis, idx))


def _store_indexed(call: TileCall, atomic: bool):
    a, t = array_and_tile(call)
    indices, axis, offsets = _indexed_args(call, a, t.type.shape)
    return store_tile(call, a, t, atomic, lambda idx: _gathered_at(indices, offsets, axis, idx))


@rule("tile_store_indexed", ["a", "indices", "t", "offset", "axis"], 3)
def _tile_store_indexed(call: TileCall):
    _store_indexed(call, atomic=False)
    return ir.IRConst(0, int32)  # a statement: its value is not used


@rule("tile_atomic_add_indexed", ["a", "indices", "t", "offset", "axis"], 3)
def _tile_atomic_add_indexed(call: TileCall):
    return _store_indexed(call, atomic=True)


def _element_write(name: str, params: list, required: int, combine):
    """A write of one value into an element of a tile local, with Warp's overloads of 1 to 4 indices (the
    value and flags follow the indices, so the parameter names depend on how many are given)."""

    def typing(typer, obj, node):
        a = typer.value(node.args[0]) if node.args else None  # typed once: it decides the parameter names
        n = a.type.ndim if a is not None and is_tile_type(a.type) else 1
        call = TileCall(typer, node, name, ["a", *_INDEX_PARAMS[:n], *params], 1 + n + required)
        if not (isinstance(a, ir.IRLocal) and is_tile_type(a.type)):
            raise call.error("'a' must be a variable holding a tile (the element is written in place), got "
                             + ("nothing" if a is None else f"a value of type {type_name(a.type)}"))
        at = [atom(typer, call.index(call.nodes[p], p)) for p in _INDEX_PARAMS[:n]]
        value = atom(typer, call.value("value"))
        if value.type is not a.type.dtype:
            raise call.error(f"value of type {type_name(value.type)} for a tile of {type_name(a.type.dtype)}")
        place = element(a, at, typer.where(node))
        stmt = ir.IRAssign(place, combine(typer, place, value, node))
        if "has_value" in params:
            flag = call.value("has_value")
            if flag.type is not bool_:
                raise call.error(f"has_value must be a bool, got {type_name(flag.type)}")
            if "atomic" in params and not isinstance(call.static("atomic", True), bool):
                raise call.error("atomic must be a compile-time bool")
            stmt = ir.IRIf(flag, [stmt], [])
        typer.pending.append(stmt)
        return ir.IRConst(0, int32)

    INTRINSICS.register(TILE_FUNCTIONS[name], call=typing)


_element_write("tile_scatter_add", ["value", "has_value", "atomic"], 2,  # a struct's fields: as Warp, one by one
               lambda typer, place, value, node: element_update(typer, "add", place, value, node)
               or typer.operator_call("add", [place, value], node))
_element_write("tile_scatter_masked", ["value", "has_value"], 2, lambda typer, place, value, node: value)
_element_write("tile_add_inplace", ["value"], 1,
               lambda typer, place, value, node: typer.operator_call("add", [place, value], node))
_element_write("tile_sub_inplace", ["value"], 1,
               lambda typer, place, value, node: typer.operator_call("sub", [place, value], node))


@rule("tile_from_thread", ["shape", "value", "thread_idx", "storage"], 3)
def _tile_from_thread(call: TileCall):
    shape = call.shape()
    value = atom(call.typer, call.value("value"))
    call.storage(shape, value.type)
    lane = call.value("thread_idx")
    if lane.type is not int32:
        raise call.error(f"thread_idx must be an int32, got {type_name(lane.type)}")
    # a block is one thread: lane 0 is the only one, checked in debug mode (where a lane of 1 or more is a
    # BoundsError naming this line; -1 counts from the end, as a component index does)
    call.typer.pending.append(ir.IRAssign(call.typer.new_temp(int32), ir.IRCall(
        "component_index", [lane, ir.IRConst(1, int32)], int32, where=call.typer.where(call.node))))
    return fill(call.typer, shape, lambda idx: value, value.type)


def _random(name: str, dtype, draw: str):
    @rule(name, ["shape", "rng", "min", "max", "storage"], 2)
    def typing(call: TileCall):
        shape = call.shape()
        call.storage(shape, dtype)
        rng = call.value("rng")
        if rng.type is not uint32:
            raise call.error(f"rng must be a random state (uint32, from wp.rand_init), got {type_name(rng.type)}")
        bounds = [call.value(p) for p in ("min", "max") if call.has(p)]
        if len(bounds) == 1:
            raise call.error("takes both min and max, or neither")
        # the elements are the draws that follow one discarded draw of a copy of rng (rng itself is unchanged),
        # row-major: Warp's values on the CPU for the same state
        state = call.typer.new_temp(uint32)
        call.typer.pending.append(ir.IRAssign(state, rng))
        call.typer.pending.append(ir.IRExprStmt(call.typer.builtin_call(draw, [state], call.node)))
        out = new_tile(call.typer, dtype, shape)
        bounds = [atom(call.typer, b) for b in bounds]

        def body(idx):
            return [ir.IRAssign(element(out, idx), call.typer.builtin_call(draw, [state, *bounds], call.node))]

        call.typer.pending.extend(loop_nest(call.typer, shape, body))
        return out

    return typing


_random("tile_randi", int32, "randi")
_random("tile_randf", float32, "randf")
