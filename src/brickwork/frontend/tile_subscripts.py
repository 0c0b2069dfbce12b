"""Parts of a tile by subscript: ``t[i]`` of a 2-D tile is its row ``i``, ``t[1:3, :]`` a block, as in Warp.

Reading a part gives a new tile (a copy, like ``tile_view``); assigning to one (``t[0:2, :] = u``,
``t[i] = row``) stores the value's elements into the tile's, or one value into each of them. Slice bounds
and steps are compile-time constants (they make the part's shape); an integer index may be a runtime value.
An index for every dimension is an element, typed as any array element.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelError, KernelTypeError
from ..types.arrays import type_name
from ..types.scalars import int32
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .tile_build import atom, element, fill, loop_nest


def _is_part(t, index_nodes) -> bool:
    return any(isinstance(n, ast.Slice) for n in index_nodes) or len(index_nodes) < t.ndim


def _bound(typer, n, what: str, node):
    if n is None:
        return None
    try:
        v = typer.static_value(n)
    except KernelError:
        v = None
    if isinstance(v, bool) or not isinstance(v, int):
        raise typer.error(KernelTypeError, f"a tile slice's {what} must be a compile-time int, got "
                          f"'{ast.unparse(n)}'", node)
    return v


def _selection(typer, tile, index_nodes, node):
    """Per dimension of ``tile``: ("at", index) or ("range", start, count, step); and the part's shape."""
    t = tile.type
    if len(index_nodes) > t.ndim:
        raise typer.error(KernelTypeError, f"a tile of {t.ndim} dimensions takes at most {t.ndim} indices, got "
                          f"{len(index_nodes)}", node)
    picks, shape = [], []
    for d in range(t.ndim):
        n = index_nodes[d] if d < len(index_nodes) else ast.Slice()
        extent = t.shape[d]
        if isinstance(n, ast.Slice):
            start, stop, step = (_bound(typer, b, w, node) for b, w in ((n.lower, "start"), (n.upper, "stop"),
                                                                        (n.step, "step")))
            if step == 0:
                raise typer.error(KernelTypeError, "a tile slice's step must not be zero", node)
            start, stop, step = slice(start, stop, step).indices(extent)
            count = len(range(start, stop, step))
            if count == 0:
                raise typer.error(KernelTypeError, f"the slice '{ast.unparse(n)}' of an extent of {extent} selects "
                                  f"nothing", node)
            picks.append(("range", start, count, step))
            shape.append(count)
            continue
        v = typer.value(n)
        if not getattr(v.type, "is_int", False):
            raise typer.error(KernelTypeError, f"tile indices must be integers, got {type_name(v.type)}", node)
        if isinstance(v, ir.IRConst) and v.value < 0:  # counted from the end, as for arrays
            v = ir.IRConst(v.value + extent, int32)
        picks.append(("at", atom(typer, v if v.type is int32 else ir.IRCast(v, int32))))
    return picks, tuple(shape)


def _source_index(picks, idx: list) -> list:
    out, k = [], 0
    for p in picks:
        if p[0] == "at":
            out.append(p[1])
            continue
        _, start, _, step = p
        i = idx[k]
        k += 1
        scaled = i if step == 1 else ir.IRCall("mul", [i, ir.IRConst(step, int32)], int32, no_wrap=True)
        out.append(scaled if start == 0 else ir.IRCall("add", [scaled, ir.IRConst(start, int32)], int32,
                                                       no_wrap=True))
    return out


def _read_part(typer, base, index_nodes, node):
    if not _is_part(base.type, index_nodes):
        return None  # an element: typed as any array element
    tile = atom(typer, base)
    picks, shape = _selection(typer, tile, index_nodes, node)
    return fill(typer, shape, lambda idx: element(tile, _source_index(picks, idx)), tile.type.dtype)


def is_tile_part(typer, target) -> bool:
    """Whether an assignment target is a part of a tile (a slice, or fewer indices than dimensions)."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):  # a tile is a variable
        return False
    base = typer.expr(target.value)
    nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return isinstance(base, ir.IRLocal) and is_tile_type(base.type) and _is_part(base.type, nodes)


def assign_tile_part(typer, target, value, node, out) -> None:
    """``t[part] = value``: a tile of the part's shape and the tile's dtype, or one value of its dtype."""
    tile = typer.expr(target.value)
    nodes = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    saved, typer.pending = typer.pending, []
    picks, shape = _selection(typer, tile, nodes, node)
    dtype = tile.type.dtype
    if is_tile_type(value.type):
        if value.type.shape != shape or value.type.dtype is not dtype:
            raise typer.error(KernelTypeError, f"cannot assign a {value.type!r} to '{ast.unparse(target)}', a part "
                              f"of shape {shape} of a tile of {type_name(dtype)}", node)
    elif value.type is not dtype:
        raise typer.error(KernelTypeError, f"cannot assign a value of type {type_name(value.type)} to "
                          f"'{ast.unparse(target)}', a part of a tile of {type_name(dtype)}", node)
    value = atom(typer, value)

    def body(idx):
        v = element(value, idx) if is_tile_type(value.type) else value
        return [ir.IRAssign(element(tile, _source_index(picks, idx)), v)]

    typer.pending.extend(loop_nest(typer, shape, body))
    out.extend(typer.pending)
    typer.pending = saved


INTRINSICS.register_type(is_tile_type, value_subscript=_read_part)
