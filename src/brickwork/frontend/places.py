"""Places: expressions that name storage, which assignments, ``wp.ref[T]`` arguments and ``wp.address_of``
take: a local, an array element, a struct field, or a component of one of these.

A component of a transform's translation or rotation (``t.p.x``, ``t.q[3]``) is a component of the
transform itself (``t`` holds p in components 0-2 and q in 3-6), so it is typed as one: it is then a place
whenever ``t`` is, and reads of it are the same value.
"""

from __future__ import annotations

import ast

from .. import ir

PLACE_NODES = (ir.IRLocal, ir.IRArrayElem, ir.IRField, ir.IRComponent)

#: the getter a transform's ``.p`` / ``.q`` types to, and where that part starts in the transform
_TRANSFORM_PARTS = {"transform_get_translation": 0, "transform_get_rotation": 3}


def is_place(e) -> bool:
    """Whether ``e`` names storage: a local, an array element, or a field or component of a place."""
    if isinstance(e, (ir.IRLocal, ir.IRArrayElem)):
        return True
    return isinstance(e, (ir.IRField, ir.IRComponent)) and is_place(e.base)


def names_a_place(source, value) -> bool:
    """Whether the argument expression ``source`` (typed ``value``) names storage that a reference can
    name: a name, subscript or attribute that types to a place (not ``x + y``, nor a call's result)."""
    return isinstance(source, (ast.Name, ast.Subscript, ast.Attribute)) and is_place(value)


def bound_constant(typer, source, value):
    """The Python number that the local ``source`` names is still bound to (``x = 0``: a constant, with no
    storage until it is declared as a variable), or None."""
    known = typer.symbols.known.get(value.name) if isinstance(value, ir.IRLocal) else None
    return known if isinstance(source, ast.Name) and type(known) in (int, float) else None


def part_component(base, index, dtype):
    """Component ``index`` (a typed int expression, already in range) of vector or quaternion ``base``: when
    ``base`` is ``t.p`` or ``t.q`` of a transform held in a place, the component of ``t`` itself."""
    first = _TRANSFORM_PARTS.get(base.op) if isinstance(base, ir.IRCall) else None
    if first is None or not is_place(base.args[0]):
        return ir.IRComponent(base, [index], dtype)
    if isinstance(index, ir.IRConst):
        index = ir.IRConst(index.value + first, index.type)
    elif first:
        index = ir.IRCall("add", [index, ir.IRConst(first, index.type)], index.type)
    return ir.IRComponent(base.args[0], [index], dtype)
