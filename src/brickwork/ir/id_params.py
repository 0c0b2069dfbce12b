"""Which ``uint64`` parameters of a kernel are ids of a mesh, a BVH, a hash grid or a volume.

A parameter counts when it is passed, unchanged, as the first argument of a builtin of the family
(``mesh_*``, ``bvh_*``, ``hash_grid_*``, ``volume_*``), in the kernel or in a ``wp.func`` it calls with the
parameter. The launch checks that such an argument is the id of a live object of the kind
(``runtime/live_ids``); a parameter used for two kinds, or never passed to a query, is not checked. A
``uint64`` field of a struct parameter (``s.grid``, ``s.inner.mesh``) passed so counts the same way, and so
does an array parameter of ``uint64`` whose elements are passed (``ids[i]``, or a local assigned only such
elements: ``m = ids[i]``): the launch then looks up every id the array holds (``runtime/live_ids.bad_element``).
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.scalars import uint64
from ..types.structs import is_struct_type
from . import nodes as ir
from .walk import walk

#: builtin name prefix -> the kind of object its first argument is the id of
_FAMILIES = (("mesh_", "mesh"), ("bvh_", "bvh"), ("hash_grid_", "hash_grid"), ("volume_", "volume"))


def id_params(fn: ir.IRFunction) -> list:
    """``[param position, kind, builtin]`` (the first builtin it is passed to) for each ``uint64`` parameter of
    ``fn`` used as the id of one kind of object, in parameter order; ``[position, kind, builtin, [field, ...]]``
    for a ``uint64`` field of a struct parameter so used; ``[position, kind, builtin, [], "array"]`` for a ``uint64``
    array parameter whose elements are so used."""
    uses = _uses(fn, {})
    out = []
    for i, (name, t) in enumerate(fn.params):
        for path, kinds in uses.items():
            if path[0] != name or len(kinds) != 1:
                continue
            (kind, op), = kinds.items()
            if path[1:] == (_ELEMENT,) and _is_id_array(t):
                out.append([i, kind, op, [], "array"])
            elif _ELEMENT not in path and (t is uint64) == (len(path) == 1):
                out.append([i, kind, op] + ([list(path[1:])] if len(path) > 1 else []))
    return out


#: the path step of an element of a ``uint64`` array parameter (``ids[i]``)
_ELEMENT = "[]"


def _is_id_array(t) -> bool:
    return isinstance(t, ArrayType) and t.dtype is uint64


def _uses(fn: ir.IRFunction, memo: dict) -> dict:
    """(param name, field, ...) -> {kind: builtin} for the unchanged ``uint64`` parameters of ``fn``, and the
    ``uint64`` fields of its unchanged struct parameters, passed as ids."""
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = {}  # a call cycle (refused by the frontend) ends here
    params = {name for name, t in fn.params if t is uint64 or is_struct_type(t) or _is_id_array(t)}
    if not params:  # no argument can hold an id (nor reach a callee's): the walks below would find none
        return {}
    reassigned = set()
    for n in walk(fn.body):
        if isinstance(n, ir.IRAssign):
            if isinstance(n.target, ir.IRLocal):
                reassigned.add(n.target.name)
            elif isinstance(n.target, ir.IRField):
                # a struct parameter's field assigned in the body (s.grid = ...) is a local copy's: not the
                # argument's value
                reassigned.add(_root(n.target))
        elif isinstance(n, ir.IRFor):
            reassigned.add(n.var.name)
    params -= reassigned
    if not params:
        return {}
    elements = _element_locals(fn.body, params)
    uses: dict = {}
    for node in walk(fn.body):
        path = _path(node.args[0], params, elements) if isinstance(node, ir.IRCall) and node.args and \
            getattr(node.args[0], "type", None) is uint64 else None
        if path is not None:
            kind = next((k for prefix, k in _FAMILIES if node.op.startswith(prefix)), None)
            if kind is not None:
                uses.setdefault(path, {}).setdefault(kind, node.op)
        elif isinstance(node, ir.IRFuncCall):
            inner = _uses(node.func, memo)
            for (callee_param, _), arg in zip(node.func.params, node.args):
                outer = _path(arg, params, elements)
                if outer is None:
                    continue
                for inner_path, kinds in inner.items():
                    if inner_path[0] == callee_param:
                        for kind, op in kinds.items():
                            uses.setdefault(outer + inner_path[1:], {}).setdefault(kind, op)
    memo[id(fn)] = uses
    return uses


def _element_locals(body: list, params: set) -> dict:
    """Local name -> the ``IRArrayElem`` of a ``uint64`` array parameter it is assigned, for the locals assigned
    nothing but elements of one such parameter (``m = ids[i]``)."""
    found: dict = {}
    for n in walk(body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal):
            elem = n.value if _array_of(n.value, params) is not None else None
            held = found.setdefault(n.target.name, elem)
            if elem is None or held is None or _array_of(held, params) != _array_of(elem, params):
                found[n.target.name] = None
    return {name: elem for name, elem in found.items() if elem is not None}


def _array_of(e, params: set) -> str | None:
    """The name of the ``uint64`` array parameter of ``params`` that ``e`` is an element of, else None."""
    if isinstance(e, ir.IRArrayElem) and isinstance(e.array, ir.IRLocal) and e.array.name in params \
            and _is_id_array(e.array.type):
        return e.array.name
    return None


def _path(e, params: set, elements: dict) -> tuple | None:
    """``(param, field, ...)`` of a parameter of ``params`` or a field chain of one, ``(param, "[]")`` of an element
    of a ``uint64`` array parameter (or a local of ``elements``), else None."""
    if isinstance(e, ir.IRLocal) and e.name in elements:
        e = elements[e.name]
    array = _array_of(e, params)
    if array is not None:
        return (array, _ELEMENT)
    fields = []
    while isinstance(e, ir.IRField):
        fields.append(e.name)
        e = e.base
    if isinstance(e, ir.IRLocal) and e.name in params:
        return (e.name, *reversed(fields))
    return None


def _root(e) -> str | None:
    while isinstance(e, ir.IRField):
        e = e.base
    return e.name if isinstance(e, ir.IRLocal) else None
