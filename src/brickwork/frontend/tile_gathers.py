"""Gathers by an integer index tile: ``t[idx, :]`` (or ``t[idx]``, ``t[:, idx]``) is the new tile whose
rows along the indexed axis are ``t``'s at the positions ``idx`` lists, as in Warp and numpy.

One 1-D tile of integers indexes one axis; every other axis takes ``:``. A negative index counts from the
end (numpy's); one still outside the axis reads zero. The gradient of an element read several times adds up
(each read is an element read of ``t``).
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelValueError
from ..types.arrays import type_name
from ..types.scalars import bool_, int32
from ..types.tiles import is_tile_type
from .tile_build import atom, element, loop_nest, new_tile, zero_value


def _index_tile(typer, items: list, node):
    """The axis and the index tile of a gather, checked."""
    found = [(d, i) for d, i in enumerate(items) if not isinstance(i, ast.Slice) and is_tile_type(i.type)]
    if len(found) > 1:
        raise typer.error(KernelValueError, "tile indexing takes one integer index tile, got several", node)
    axis, idx = found[0]
    if not getattr(idx.type.dtype, "is_int", False) or idx.type.dtype is bool_:
        raise typer.error(KernelValueError, f"tile indexing requires an integer index tile, got a tile of "
                          f"{type_name(idx.type.dtype)}", node)
    if idx.type.ndim != 1:
        raise typer.error(KernelValueError, f"tile indexing requires a 1D integer index tile, got "
                          f"{idx.type.ndim} dimensions", node)
    for d, i in enumerate(items):
        full = isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None
        if d != axis and not full:
            raise typer.error(KernelValueError, f"tile indexing by an integer index tile requires ':' on all other "
                              f"axes, got '{ast.unparse(node.slice)}'", node)
    return axis, atom(typer, idx)


def gather(typer, tile, items: list, node) -> ir.IRLocal:
    """``tile[items]`` where one item is an integer index tile and the others are ``:``."""
    axis, idx = _index_tile(typer, items, node)
    src = tile.type.shape
    extent = src[axis]
    shape = src[:axis] + idx.type.shape + src[axis + 1:]
    out = new_tile(typer, tile.type.dtype, shape)
    j = typer.new_temp(int32)

    def body(k):
        picked = element(idx, [k[axis]])
        picked = picked if picked.type is int32 else ir.IRCast(picked, int32)
        negative = ir.IRCall("lt", [j, ir.IRConst(0, int32)], bool_)
        within = ir.IRCall("logical_and", [ir.IRCall("ge", [j, ir.IRConst(0, int32)], bool_),
                                           ir.IRCall("lt", [j, ir.IRConst(extent, int32)], bool_)], bool_)
        at = list(k)
        at[axis] = j
        return [ir.IRAssign(j, picked),
                ir.IRAssign(j, ir.IRSelect(negative, ir.IRCall("add", [j, ir.IRConst(extent, int32)], int32,
                                                                  no_wrap=True), j, int32)),
                ir.IRIf(within, [ir.IRAssign(element(out, k), element(tile, at))],
                        [ir.IRAssign(element(out, k), zero_value(tile.type.dtype))])]

    typer.pending.extend(loop_nest(typer, shape, body))
    return out
