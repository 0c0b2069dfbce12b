"""What a launch's ``dim`` must satisfy so that a kernel's unconditional array accesses stay in bounds.

A release build checks no index: ``x[i]`` with ``i = wp.tid()``, launched over more points than ``x`` has,
writes past its end and corrupts memory without a word (Warp does the same). Most such launches are one
mistake, ``dim`` larger than the array, and it shows before the kernel runs: an access that every launch
point makes, indexed by ``tid()`` components (plus a constant) and constants, bounds ``dim`` by the array's
shape. ``tid_bounds`` finds those accesses; the launch's packer tests each one (``runtime/packing``) and
refuses the launch, naming the access, before anything is written.

Only what runs at every point counts: statements of the kernel's top level up to its first ``return`` (or
a statement holding one), not the inside of branches or loops, and not the parts of an expression that
may not run (the right of ``and``/``or``, the branches of ``a if c else b``). An index counts when it is a
local assigned once, from ``tid()``, or ``tid()`` itself (``a[wp.tid()]``), or a non-negative constant, or
one of those plus a non-negative constant. Anything else is left unchecked, as before: the analysis never
refuses a launch that is in bounds.

An array field of a struct parameter (``s.points[i]``, nested ``s.mesh.points[i]``) counts too, unless the
kernel assigns a field of that parameter: an unset field (None) has no elements, so the launch refuses a
kernel that would read one at every point (it crashed on the null address).
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.indexed_arrays import IndexedArrayType
from ..types.structs import is_struct_type
from . import nodes as ir
from .walk import children, walk

#: ops whose arguments after the first may not be evaluated (short-circuit, or rendered as ``c ? a : b``)
_LAZY_OPS = ("logical_and", "logical_or", "select", "where")


def tid_bounds(fn: ir.IRFunction) -> list:
    """``[param position, axis, tid component or -1, offset, "file:line"]`` for each unconditional access of
    an array parameter of kernel ``fn``: the launch needs ``d[component] + offset <= shape[axis]`` (with
    component -1, a constant index: ``offset <= shape[axis]``); an access of an array field of a struct
    parameter adds its field path (``[..., "file:line", ["mesh", "points"]]``). Deduplicated, in program
    order."""
    arrays = {name: i for i, (name, t) in enumerate(fn.params)
              if type(t) in (ArrayType, IndexedArrayType) or is_struct_type(t)}
    assigned: dict = {}
    for node in walk(fn.body):
        if isinstance(node, ir.IRAssign) and isinstance(node.target, ir.IRLocal):
            assigned[node.target.name] = assigned.get(node.target.name, 0) + 1
        elif isinstance(node, ir.IRAssign) and isinstance(node.target, ir.IRField):  # a struct's field set
            root = _field_path(node.target)[0]
            if root is not None:
                assigned[root.name] = assigned.get(root.name, 0) + 2
        elif isinstance(node, ir.IRFor):  # a loop variable is assigned at every iteration
            assigned[node.var.name] = assigned.get(node.var.name, 0) + 2
    arrays = {name: i for name, i in arrays.items() if name not in assigned}  # a parameter rebound: not its array
    found: list = []
    _Scan(arrays, assigned, found).statements(fn.body)
    out, seen = [], set()
    for entry in found:
        key = (*entry[:4], *(tuple(p) for p in entry[5:6]))
        if key not in seen:
            seen.add(key)
            out.append(entry)
    return out


def _field_path(e) -> tuple:
    """(the parameter local, [field names]) of ``s.a.b``; (None, []) for anything not rooted at a local."""
    path: list = []
    while isinstance(e, ir.IRField):
        path.insert(0, e.name)
        e = e.base
    return (e, path) if isinstance(e, ir.IRLocal) else (None, [])


class _Scan:
    def __init__(self, arrays: dict, assigned: dict, found: list):
        self.arrays, self.assigned, self.found = arrays, assigned, found
        self.tids: dict = {}  # local name -> tid component, for locals assigned once, from tid(), seen so far

    def statements(self, body: list) -> bool:
        """Scan ``body`` in order; False once a statement may end the kernel early (nothing after it counts)."""
        for s in body:
            if isinstance(s, ir.IRReturn) or any(isinstance(n, ir.IRReturn) for n in walk(s)):
                return False
            if isinstance(s, ir.IRBlock):
                if not self.statements(s.body):
                    return False
            elif isinstance(s, ir.IRAssign):
                if (isinstance(s.target, ir.IRLocal) and isinstance(s.value, ir.IRTid)
                        and self.assigned.get(s.target.name) == 1):
                    self.tids[s.target.name] = s.value.dim
                self.expression(s.value)
                self.expression(s.target)
            elif isinstance(s, ir.IRExprStmt):
                self.expression(s.expr)
            # any other statement (a branch, a loop, a region, a print) runs conditionally or repeatedly, or
            # holds no access of its own: its insides do not count, and what follows it still runs
        return True

    def expression(self, e) -> None:
        if isinstance(e, ir.IRSelect):
            self.expression(e.cond)
            return
        if isinstance(e, ir.IRCall) and e.op in _LAZY_OPS:
            self.expression(e.args[0])
            return
        if isinstance(e, ir.IRArrayElem):
            self.access(e.array, e.indices, e.where)
        elif isinstance(e, ir.IRCall) and e.op.startswith("atomic_") and e.args:
            ndim = getattr(e.args[0].type, "ndim", 0)
            self.access(e.args[0], e.args[1:1 + ndim], e.where)
        elif not isinstance(e, (ir.IRCall, ir.IRCast, ir.IRConstruct, ir.IRComponent, ir.IRField, ir.IRTupleGet,
                                ir.IRFuncCall, ir.IRLocal, ir.IRConst)):
            return  # a node whose parts may run conditionally (or not at all): not descended
        for child in children(e):
            if isinstance(child, ir.IRExpr):
                self.expression(child)
            elif isinstance(child, list):
                for c in child:
                    if isinstance(c, ir.IRExpr):
                        self.expression(c)

    def access(self, array, indices: list, where: str) -> None:
        if type(array.type) not in (ArrayType, IndexedArrayType):
            return
        root, path = _field_path(array)
        if root is None or root.name not in self.arrays or not where or bool(path) != is_struct_type(root.type):
            return
        if len(indices) != getattr(array.type, "ndim", -1):
            return
        for axis, index in enumerate(indices):
            term = self.index_term(index)
            if term is not None:
                entry = [self.arrays[root.name], axis, term[0], term[1], where]
                self.found.append([*entry, path] if path else entry)

    def index_term(self, index):
        """(tid component or -1, offset) when ``index`` is ``tid + c``, ``c + tid``, ``tid`` or ``c`` (c >= 0)."""
        if isinstance(index, ir.IRConst) and _count(index.value) is not None:
            return -1, _count(index.value) + 1
        if isinstance(index, ir.IRTid):  # a[wp.tid()]: the component itself
            return index.dim, 0
        if isinstance(index, ir.IRLocal) and index.name in self.tids:
            return self.tids[index.name], 0
        if isinstance(index, ir.IRCall) and index.op == "add" and len(index.args) == 2:
            a, b = index.args
            if isinstance(a, ir.IRConst):
                a, b = b, a
            component = a.dim if isinstance(a, ir.IRTid) else self.tids.get(getattr(a, "name", None))
            if isinstance(a, (ir.IRLocal, ir.IRTid)) and component is not None and isinstance(b, ir.IRConst):
                c = _count(b.value)
                if c is not None:
                    return component, c
        return None


def _count(value) -> int | None:
    """``value`` as a non-negative int (a constant index), or None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value
