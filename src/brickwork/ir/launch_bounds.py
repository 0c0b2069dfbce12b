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

So does an array field of an element of an array-of-structs parameter (``ss[i].points[j]``, or ``s.points[j]``
after ``s = ss[i]``), when the kernel writes no element of ``ss`` and the element's index counts as above: the
launch tests, element by element over the ones the launch points reach, that the field is set and that its
shape reaches the access (an element from ``wp.zeros`` or ``wp.empty`` holds a null array; reading it crashed).
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.indexed_arrays import IndexedArrayType
from ..types.structs import is_struct_type
from . import nodes as ir
from .analysis import written_params
from .walk import children, contains, walk

#: ops whose arguments after the first may not be evaluated (short-circuit, or rendered as ``c ? a : b``)
_LAZY_OPS = ("logical_and", "logical_or", "select", "where")


def tid_bounds(fn: ir.IRFunction, tested: set | None = None) -> list:
    """``[param position, axis, tid component or -1, offset, "file:line"]`` for each unconditional access of
    an array parameter of kernel ``fn``: the launch needs ``d[component] + offset <= shape[axis]`` (with
    component -1, a constant index: ``offset <= shape[axis]``); an access of an array field of a struct
    parameter adds its field path (``[..., "file:line", ["mesh", "points"]]``). Deduplicated, in program
    order. After them, for each unconditional access of an array field of an element of an array-of-structs
    parameter: ``[param position, "elements", [[component or -1, offset] per axis of the parameter], 0,
    "file:line", [field names], [[component or -1, offset] per axis of the field]]``: each element the launch
    reaches must hold the field, with ``shape[axis] >= d[component] + offset`` (``runtime/element_fields``).
    ``tested`` gets the ids of the access nodes of array fields that these entries test for an unset field
    (``ir/field_checks`` leaves them out)."""
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
    # an array of structs whose elements the kernel stores may hold, at an access, what the kernel put there
    structs = {name: i for name, i in arrays.items()
               if type(fn.params[i][1]) is ArrayType and is_struct_type(fn.params[i][1].dtype)}
    if structs:  # (the walk of written_params for them only)
        written = written_params(fn)
        structs = {name: i for name, i in structs.items() if name not in written}
    found: list = []
    scan = _Scan(arrays, assigned, found, structs)
    scan.statements(fn.body)
    if tested is not None:
        tested.update(scan.tested)
    out, seen = [], set()
    for entry in found + scan.element_fields:
        key = repr(entry[:4] + entry[5:])
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
    def __init__(self, arrays: dict, assigned: dict, found: list, structs: dict | None = None):
        self.arrays, self.assigned, self.found = arrays, assigned, found
        self.tids: dict = {}  # local name -> tid component, for locals assigned once, from tid(), seen so far
        self.structs = structs or {}  # array-of-structs parameters whose elements the kernel never stores
        self.elements: dict = {}  # local name -> (param position, index terms), for ``s = ss[i]`` seen so far
        self.element_fields: list = []  # the "elements" entries of ``tid_bounds``
        self.tested: set = set()  # ids of the accesses of struct array fields that an entry tests

    def statements(self, body: list) -> bool:
        """Scan ``body`` in order; False once a statement may end the kernel early (nothing after it counts)."""
        for s in body:
            if isinstance(s, ir.IRReturn) or contains(s, ir.IRReturn):
                return False
            if isinstance(s, ir.IRBlock):
                if not self.statements(s.body):
                    return False
            elif isinstance(s, ir.IRAssign):
                if (isinstance(s.target, ir.IRLocal) and isinstance(s.value, ir.IRTid)
                        and self.assigned.get(s.target.name) == 1):
                    self.tids[s.target.name] = s.value.dim
                if isinstance(s.target, ir.IRLocal) and self.assigned.get(s.target.name) == 1:
                    element = self.element_of(s.value)
                    if element is not None:
                        self.elements[s.target.name] = element
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
            self.access(e.array, e.indices, e.where, e)
        elif isinstance(e, ir.IRCall) and e.op.startswith("atomic_") and e.args:
            ndim = getattr(e.args[0].type, "ndim", 0)
            self.access(e.args[0], e.args[1:1 + ndim], e.where, e)
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

    def access(self, array, indices: list, where: str, node=None) -> None:
        if type(array.type) not in (ArrayType, IndexedArrayType):
            return
        if not isinstance(array, ir.IRLocal) and type(array.type) in (ArrayType, IndexedArrayType) and where:
            if self.element_field(array, indices, where):
                self.tested.add(id(node))
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
                if path:  # an unset field (shape 0) fails the entry's test
                    self.tested.add(id(node))

    def element_of(self, e):
        """(param position, [[component or -1, offset] per axis]) when ``e`` is ``ss[...]`` of an array-of-structs
        parameter whose every index counts (``index_term``), or a local assigned once from one; else None."""
        if isinstance(e, ir.IRLocal):
            return self.elements.get(e.name)
        if not isinstance(e, ir.IRArrayElem) or not isinstance(e.array, ir.IRLocal) or e.array.name not in self.structs:
            return None
        terms = [self.index_term(index) for index in e.indices]
        if None in terms or len(terms) != e.array.type.ndim:
            return None
        return self.structs[e.array.name], [list(t) for t in terms]

    def element_field(self, array, indices: list, where: str) -> bool:
        """Record an access of array field ``ss[...].a.b`` (``array``) of an element of an array of structs (True
        when it is one)."""
        path: list = []
        while isinstance(array, ir.IRField):
            path.insert(0, array.name)
            array = array.base
        element = self.element_of(array) if path else None
        if element is None:
            return False
        # any access of an axis of 0 elements is out of bounds, whatever its index: a reach of 1 at least
        reach = [list(self.index_term(index) or (-1, 1)) for index in indices]
        self.element_fields.append([element[0], "elements", element[1], 0, where, path, reach])
        return True

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
