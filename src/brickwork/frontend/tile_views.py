"""Parts of a tile: which of its elements a subscript (``t[i]``, ``t[1:3, ::2]``) or ``tile_view`` names.

A part is a list of picks, one per dimension of the tile it is taken from: ``("at", index)`` fixes that
dimension (the part has one dimension fewer), ``("range", start, count, step)`` keeps ``count`` of its
positions from ``start`` on. Indices and starts are int32 IR values (a constant, or a local computed once);
counts and steps are compile-time ints, so a part has a constant shape. A part of a part is one part of the
first tile (``compose``). Parts are layers of a view's chain (``tile_maps``, which reads and writes them):
where a runtime index or start puts an element outside the tile, a read gives zero and a write skips it (a
local must not be read or written out of bounds; Warp leaves it undefined).
"""

from __future__ import annotations

from .. import ir
from ..types.scalars import bool_, int32


def at(index) -> tuple:
    return ("at", index)


def span(start, count: int, step: int = 1) -> tuple:
    return ("range", start, count, step)


def whole(shape: tuple) -> list:
    """The picks of a whole tile."""
    return [span(ir.IRConst(0, int32), n) for n in shape]


def part_shape(picks: list) -> tuple:
    return tuple(p[2] for p in picks if p[0] == "range")


def _add(a, b):
    if isinstance(a, ir.IRConst) and isinstance(b, ir.IRConst):
        return ir.IRConst(a.value + b.value, int32)
    if isinstance(b, ir.IRConst) and b.value == 0:
        return a
    if isinstance(a, ir.IRConst) and a.value == 0:
        return b
    return ir.IRCall("add", [a, b], int32, no_wrap=True)  # an index within a tile: no overflow


def _mul(a, step: int):
    if step == 1:
        return a
    if isinstance(a, ir.IRConst):
        return ir.IRConst(a.value * step, int32)
    return ir.IRCall("mul", [a, ir.IRConst(step, int32)], int32, no_wrap=True)


def compose(outer: list, inner: list) -> list:
    """The picks on ``outer``'s tile of the part ``inner`` of the part ``outer``."""
    out, k = [], 0
    for p in outer:
        if p[0] == "at":
            out.append(p)
            continue
        _, start, _, step = p
        q = inner[k]
        k += 1
        if q[0] == "at":
            out.append(at(_add(start, _mul(q[1], step))))
        else:
            out.append(span(_add(start, _mul(q[1], step)), q[2], step * q[3]))
    return out


def source_index(picks: list, idx: list) -> list:
    """The index in the tile of element ``idx`` of the part."""
    out, k = [], 0
    for p in picks:
        if p[0] == "at":
            out.append(p[1])
            continue
        out.append(_add(p[1], _mul(idx[k], p[3])))
        k += 1
    return out


def inside(picks: list, src_idx: list, extents: tuple):
    """The condition that ``src_idx`` lies in the tile along the dimensions a runtime value picks (None:
    every pick is a constant, checked when the kernel compiles)."""
    cond = None
    for p, i, n in zip(picks, src_idx, extents):
        if isinstance(p[1], ir.IRConst):
            continue
        part = ir.IRCall("logical_and", [ir.IRCall("ge", [i, ir.IRConst(0, int32)], bool_),
                                         ir.IRCall("lt", [i, ir.IRConst(n, int32)], bool_)], bool_)
        cond = part if cond is None else ir.IRCall("logical_and", [cond, part], bool_)
    return cond
