"""Subscripts of a tile: ``t[i]`` of a 2-D tile is its row ``i``, ``t[1:3, :]`` a block, ``t[idx, :]`` the
rows an integer index tile lists, as in Warp.

Fewer indices than dimensions, or slices, name a part (``tile_views``): read, it is a new tile (written by its
statement, its writes reach the tile: ``tile_maps.read_unnamed``); bound to a name, a view that shares the
tile's elements (``tile_aliases``); assigned to (``t[0:2, :] = u``,
``t[i] = row``), the value's elements are stored into the tile's. Slice bounds and steps
(``a:b:c`` or ``slice(a, b, c)``) are compile-time constants, which make the part's shape; an integer index
may be a runtime value, negative counted from the end. An index for every dimension is an element, typed as
any array element. An index tile gathers along its axis (``tile_gathers``).
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelError, KernelTypeError, KernelValueError
from ..types.arrays import type_name
from ..types.scalars import bool_, int32
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .tile_build import atom, element
from .tile_gathers import gather
from .tile_maps import read_unnamed, write
from .tile_views import at, part_shape, span


def as_slice(typer, n):
    """``n`` as an ``ast.Slice`` when it is one or a call ``slice(...)``; else None."""
    if isinstance(n, ast.Slice):
        return n
    if isinstance(n, ast.Call) and not n.keywords and 1 <= len(n.args) <= 3 and typer.try_static(n.func) is slice:
        args = [None if isinstance(a, ast.Constant) and a.value is None else a for a in n.args]
        args = args if len(args) > 1 else [None, args[0]]
        return ast.Slice(*args, *([None] * (3 - len(args))))
    return None


def index_items(typer, nodes) -> list:
    """Per index node: its ``ast.Slice``, or its typed value."""
    return [as_slice(typer, n) or typer.value(n) for n in nodes]


def _bound(typer, n, what: str, node):
    if n is None:
        return None
    try:
        v = typer.static_value(n)
    except KernelError:
        v = None
    if isinstance(v, bool) or not isinstance(v, int):
        raise typer.error(KernelValueError, f"a tile slice's {what} must be a compile-time constant int, got "
                          f"'{ast.unparse(n)}'", node)
    return v


def slice_pick(typer, s: ast.Slice, extent: int, node) -> tuple:
    """The ``("range", ...)`` pick of a slice of an axis of ``extent`` (numpy's bounds)."""
    start, stop, step = (_bound(typer, b, w, node) for b, w in ((s.lower, "start"), (s.upper, "stop"),
                                                                (s.step, "step")))
    if step == 0:
        raise typer.error(KernelTypeError, "a tile slice's step must not be zero", node)
    start, stop, step = slice(start, stop, step).indices(extent)
    count = len(range(start, stop, step))
    if count == 0:
        raise typer.error(KernelValueError, f"the slice '{ast.unparse(s)}' of an extent of {extent} selects nothing: "
                          f"a zero-length axis (a tile cannot be an empty tile)", node)
    return span(ir.IRConst(start, int32), count, step)


def index_pick(typer, v, extent: int, axis: int, shape: tuple, node) -> tuple:
    """The ``("at", index)`` pick of an integer index: a constant checked, a runtime one counted from the end
    when negative (numpy's)."""
    if isinstance(v, ir.IRConst):
        if not -extent <= v.value < extent:
            raise typer.error(KernelValueError, f"index {v.value} is out of bounds for axis {axis} of a tile of "
                              f"shape {shape}", node)
        return at(ir.IRConst(v.value % extent, int32))
    v = atom(typer, v if v.type is int32 else ir.IRCast(v, int32))
    negative = ir.IRCall("lt", [v, ir.IRConst(0, int32)], bool_)
    wrapped = ir.IRCall("add", [v, ir.IRConst(extent, int32)], int32, no_wrap=True)
    return at(atom(typer, ir.IRSelect(negative, wrapped, v, int32)))


def picks_of(typer, shape: tuple, items: list, node) -> list:
    """The part of a tile of ``shape`` that index ``items`` (slices and integer values) name."""
    if len(items) > len(shape):
        raise typer.error(KernelTypeError, f"a tile of {len(shape)} dimensions takes at most {len(shape)} indices, "
                          f"got {len(items)}", node)
    picks = []
    for d, extent in enumerate(shape):
        item = items[d] if d < len(items) else ast.Slice()
        if isinstance(item, ast.Slice):
            picks.append(slice_pick(typer, item, extent, node))
            continue
        if item.type is bool_ or not getattr(item.type, "is_int", False):
            raise typer.error(KernelTypeError, f"tile indices must be integers or slices, got "
                              f"{type_name(item.type)}", node)
        picks.append(index_pick(typer, item, extent, d, shape, node))
    return picks


def _is_part(t, items) -> bool:
    return len(items) < t.ndim or any(isinstance(i, ast.Slice) or is_tile_type(i.type) for i in items)


def _read_part(typer, base, index_nodes, node):
    saved, typer.pending = typer.pending, []
    items = index_items(typer, index_nodes)
    if not _is_part(base.type, items):
        typer.pending = saved  # an element: typed as any array element (which types its indices again)
        return None
    saved.extend(typer.pending)
    typer.pending = saved
    tile = atom(typer, base)
    if any(not isinstance(i, ast.Slice) and is_tile_type(i.type) for i in items):
        return gather(typer, tile, items, node)
    return read_unnamed(typer, tile, [picks_of(typer, tile.type.shape, items, node)])


def subscript(typer, tile, index_nodes, node) -> ir.IRExpr:
    """``tile[index_nodes]`` of a tile local: a part, a gather or an element."""
    found = _read_part(typer, tile, index_nodes, node)
    if found is not None:
        return found
    picks = picks_of(typer, tile.type.shape, index_items(typer, index_nodes), node)
    return element(tile, [p[1] for p in picks])


def _nodes(target) -> list:
    return target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]


def is_tile_part(typer, target) -> bool:
    """Whether an assignment target is a part of a tile (a slice, or fewer indices than dimensions)."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):  # a tile is a variable
        return False
    base = typer.expr(target.value)
    nodes = _nodes(target)
    return isinstance(base, ir.IRLocal) and is_tile_type(base.type) and (
        len(nodes) < base.type.ndim or any(as_slice(typer, n) is not None for n in nodes))


def assign_tile_part(typer, target, value, node, out) -> None:
    """``t[part] = value``: a tile of the part's shape and the tile's dtype (as Warp, no scalar broadcast)."""
    if isinstance(node, ast.AugAssign):
        raise typer.error(KernelValueError, f"Compound assignment to a tile view is not supported: "
                          f"'{ast.unparse(target)}' names a part of a tile; write "
                          f"'{ast.unparse(target)} = {ast.unparse(target)} + ...' or use wp.tile_assign", node)
    tile = typer.expr(target.value)
    saved, typer.pending = typer.pending, []
    items = index_items(typer, _nodes(target))
    if any(not isinstance(i, ast.Slice) and is_tile_type(i.type) for i in items):
        raise typer.error(KernelTypeError, f"cannot assign to '{ast.unparse(target)}': an integer index tile "
                          f"gathers a copy (use tile_scatter_add or a loop)", node)
    picks = picks_of(typer, tile.type.shape, items, node)
    shape, dtype = part_shape(picks), tile.type.dtype
    if not is_tile_type(value.type):
        raise typer.error(KernelValueError, f"assigning to the tile view '{ast.unparse(target)}' requires a tile "
                          f"of matching shape {shape} on the right-hand side, got a value of type "
                          f"{type_name(value.type)}", node)
    if value.type.shape != shape or value.type.dtype is not dtype:
        raise typer.error(KernelValueError, f"shape mismatch: cannot assign a {value.type!r} to "
                          f"'{ast.unparse(target)}', a part of shape {shape} of a tile of {type_name(dtype)}", node)
    value = atom(typer, value)
    typer.pending.extend(write(typer, tile, [picks], lambda idx: element(value, idx)))
    out.extend(typer.pending)
    typer.pending = saved


INTRINSICS.register_type(is_tile_type, value_subscript=_read_part)


def tile_view_picks(call, shape: tuple) -> list:
    """The part ``tile_view(t, offset, shape=None)`` names in a tile of ``shape``: without ``shape``, each
    integer offset fixes (and drops) a leading dimension and each ``slice(a, b, c)`` keeps its positions;
    with ``shape``, the offsets are the block's first element."""
    typer, node = call.typer, call.nodes["offset"]
    entries = node.elts if isinstance(node, ast.Tuple) else None
    if entries is None:
        static = typer.try_static(node) if not isinstance(node, ast.Call) else None
        entries = list(static) if isinstance(static, tuple) else [node]
    if not 1 <= len(entries) <= len(shape):
        raise call.error(f"'offset' needs 1 to {len(shape)} entries for a tile of {len(shape)} dimensions, got "
                         f"{len(entries)}")
    items = []
    for e in entries:
        s = as_slice(typer, e) if isinstance(e, ast.AST) else None
        v = s if s is not None else (ir.IRConst(e, int32) if isinstance(e, int) and not isinstance(e, bool)
                                     else typer.value(e) if isinstance(e, ast.AST) else None)
        if v is None or not isinstance(v, ast.Slice) and (v.type is bool_ or not getattr(v.type, "is_int", False)):
            what = type_name(v.type) if v is not None else repr(e)
            raise call.error(f"'offset' entries must be integers or slices, got {what}", KernelValueError)
        items.append(v)
    if not call.has("shape"):
        picks = []
        for d, extent in enumerate(shape):
            item = items[d] if d < len(items) else ast.Slice()
            if isinstance(item, ast.Slice):
                picks.append(slice_pick(typer, item, extent, call.node))
                continue
            if isinstance(item, ir.IRConst) and not 0 <= item.value < extent:
                raise call.error(f"offset {item.value} is out of bounds for axis {d} of a tile of shape {shape}",
                                 KernelValueError)
            picks.append(at(atom(typer, item if item.type is int32 else ir.IRCast(item, int32))))
        if not part_shape(picks):
            raise call.error(f"an offset of {len(items)} entries into a tile of shape {shape} names one element "
                             f"(use tile_extract)")
        return picks
    if any(isinstance(i, ast.Slice) for i in items):
        raise call.error("'shape' together with a slice offset is not supported: a slice gives the view's extent "
                         "along its axis (leave 'shape' out)", KernelValueError)
    extents = call.shape()
    if len(extents) != len(shape):
        raise call.error(f"'shape' must have one extent per dimension of the tile ({len(shape)}), got {extents}")
    items += [ir.IRConst(0, int32)] * (len(shape) - len(items))
    picks = []
    for d, (o, n) in enumerate(zip(items, extents)):
        if isinstance(o, ir.IRConst) and not (0 <= o.value and o.value + n <= shape[d]):
            raise call.error(f"a view of shape {extents} at offset {o.value} is out of bounds: it does not fit axis "
                             f"{d} of a tile of shape {shape}", KernelValueError)
        picks.append(span(atom(typer, o if o.type is int32 else ir.IRCast(o, int32)), n))
    return picks
