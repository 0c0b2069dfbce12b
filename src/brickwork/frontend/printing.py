"""How ``print(...)`` in a kernel prints values Warp's way.

A single vector or matrix prints as Warp does: each component followed by a space, a matrix one row
per line; a quaternion's components with spaces between them, a transform as ``(p) (q)``
(``print(a, b, ...)`` with several values keeps ``[x, y, z]``). Structs and arrays, which have
no printed form, print ``<type without print implementation>``. The backward kernel of a kernel that
prints prints each value's adjoint after ``adj: `` (``passes/adjoint.py``).
"""

from __future__ import annotations

from .. import ir
from ..types.scalars import int32

UNPRINTABLE = "<type without print implementation>"


def composite_print(typer, value) -> ir.IRPrint:
    """``print(v)`` of one vector or matrix: its components, each followed by a space, a matrix row per
    line; ``v`` is evaluated once (a temporary unless it is a local)."""
    if not isinstance(value, ir.IRLocal):
        tmp = typer.new_temp(value.type)
        typer.pending.append(ir.IRAssign(tmp, value))
        value = tmp
    t = value.type
    if t._kind == "quat":  # Warp: components between spaces, none after the last
        parts = _spaced([ir.IRComponent(value, [ir.IRConst(c, int32)], t._dtype) for c in range(4)])
        return ir.IRPrint(parts, sep="")
    if t._kind == "transform":  # Warp: "(p) (q)"
        comps = [ir.IRComponent(value, [ir.IRConst(c, int32)], t._dtype) for c in range(7)]
        parts = ["(", *_spaced(comps[:3]), ") (", *_spaced(comps[3:]), ")"]
        return ir.IRPrint(parts, sep="")
    rows, cols = (1, t._shape[0]) if len(t._shape) == 1 else t._shape
    parts: list = []
    for r in range(rows):
        if r:
            parts.append("\n")
        for c in range(cols):
            at = [ir.IRConst(c, int32)] if len(t._shape) == 1 else [ir.IRConst(r, int32), ir.IRConst(c, int32)]
            parts += [ir.IRComponent(value, at, t._dtype), " "]
    return ir.IRPrint(parts, sep="")


def _spaced(values: list) -> list:
    """``values`` with a space between each two."""
    out: list = []
    for i, v in enumerate(values):
        out += [" ", v] if i else [v]
    return out
