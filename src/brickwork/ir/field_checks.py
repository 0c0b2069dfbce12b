"""Which array accesses of an instance reach an array held in a struct's field, and may find it unset.

An array field of a struct is a null array (a null address, shape 0) until it is set: in an element of
``wp.zeros(n, dtype=S)`` or ``wp.empty``, in a struct value that left it None, in ``S()`` built in a kernel.
The launch refuses the accesses that every launch point makes (``ir/launch_bounds``); one in a branch or a loop
(``if c: ss[i].values[0]``), or through a local or a ``@func`` parameter the field was passed to, ran at the
null address and crashed the process. ``check_field_accesses`` marks each of those accesses ``checked``: the
target tests its indices against the array's shape as a debug build does (shape 0 fails any index), touches a
dummy element instead of memory, and the launch raises ``BoundsError`` naming the access. Other accesses, and
kernels without such accesses, are left as they are (no test, no cost).

An array counts as a field's when it is one (``s.a``, ``ss[i].a.b``), a view or slice of one, a local assigned
one anywhere in its function, or a ``@func`` parameter that some call of the instance passes one.
"""

from __future__ import annotations

import re

from ..types.arrays import ArrayType
from ..types.fixed_arrays import FixedArrayType
from . import nodes as ir
from .walk import walk

#: what a checked access says after its "file:line" (the access's array may be a local or a parameter)
NOTE = ("an array held in a struct's field: one never set is None, shape (0,), as in the elements of wp.zeros "
        "or wp.empty; set it, or test its shape before the access")


_SHAPE = re.compile(r"out of bounds for shape \(([^)]*)\)")


def without_note_for_set_arrays(message: str) -> str:
    """A checked access's out-of-bounds ``message`` without ``NOTE`` when the array it names has elements: a
    field that was set, indexed past its end, is a plain out-of-bounds access, which the note about unset
    fields would only confuse."""
    found = _SHAPE.search(message) if NOTE in message else None
    if found is None or "0" in (d.strip() for d in found.group(1).split(",")):
        return message
    return message.replace(f" ({NOTE})", "")


def check_field_accesses(functions: list, tested: set = frozenset(), line=lambda where: where) -> bool:
    """Mark ``checked`` (in place: the instance's own typed IR) each access of ``functions`` (a kernel and the
    functions it calls) whose array may be a struct's array field, except the accesses in ``tested`` (ids of
    the nodes the launch tests already), with ``line(where)`` and ``NOTE`` as the access's location. True when
    one was marked."""
    if not any(isinstance(n, ir.IRField) and _is_array(n.type) for f in functions for n in walk(f.body)):
        return False  # no array field is read anywhere: every local's holding starts there (one walk, not two)
    held = {id(f): set() for f in functions}  # per function: the locals and parameters that may hold a field
    changed = True
    while changed:  # locals assigned from locals, and parameters of functions called with them: to a fixed point
        changed = False
        for f in functions:
            names = held[id(f)]
            for node in walk(f.body):
                if isinstance(node, ir.IRAssign) and isinstance(node.target, ir.IRLocal):
                    if node.target.name not in names and _holds_field(node.value, names):
                        names.add(node.target.name)
                        changed = True
                elif isinstance(node, ir.IRFuncCall) and id(node.func) in held:
                    params = held[id(node.func)]
                    for (name, _), arg in zip(node.func.params, node.args):
                        if name not in params and _holds_field(arg, names):
                            params.add(name)
                            changed = True
    marked = False
    for f in functions:
        names = held[id(f)]
        for node in walk(f.body):
            if isinstance(node, (ir.IRArrayElem, ir.IRSubarray)):
                array = node.array
            elif isinstance(node, ir.IRCall) and node.op.startswith("atomic_") and node.args:
                array = node.args[0]
            else:
                continue
            if id(node) in tested or node.checked or not _holds_field(array, names):
                continue
            node.checked = True
            node.where = f"{line(node.where) or '?'} ({NOTE})"
            marked = True
    return marked


def _is_array(t) -> bool:
    """An array held by reference (a descriptor that may be null), not one whose elements are inline."""
    return isinstance(t, ArrayType) and not isinstance(t, FixedArrayType)


def _holds_field(e, names: set) -> bool:
    """Whether array expression ``e`` may be (a view of) a struct's array field: ``names`` are the locals and
    parameters known to hold one."""
    if not _is_array(getattr(e, "type", None)):
        return False
    if isinstance(e, ir.IRField):
        return True
    if isinstance(e, ir.IRLocal):
        return e.name in names
    if isinstance(e, ir.IRSubarray):
        return _holds_field(e.array, names)
    if isinstance(e, ir.IRSelect):
        return _holds_field(e.if_true, names) or _holds_field(e.if_false, names)
    if isinstance(e, ir.IRCall):  # a view, slice or reshape of an array: its address is the array's
        return any(_holds_field(a, names) for a in e.args)
    return False
