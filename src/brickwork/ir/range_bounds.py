"""What the ranges of a loop body's launch must satisfy so that its unconditional accesses stay in bounds.

A release build checks no index: ``par_for((0, 200), body)`` with ``body(i)`` writing ``x[i]`` of a 20-element
``x`` writes past its end. Most such launches are one mistake, a range larger than the array, and it shows
before the body runs: an access that the body makes at every point of its index space, indexed by loop indices
plus constants (or by constants), bounds the range by the array's shape. ``range_bounds`` finds those accesses
(the plain kernel's ``ir/launch_bounds.py`` does the same for ``tid()``); the launch's packer tests each one
(``runtime/packing``, ``runtime/range_checks``) and refuses the launch before anything is written.

The loop indices it knows, each with the values it takes over a launch:

* a ``par_for`` / ``par_for_outer`` index: ``tid(c) + lo_c``, from the range's start to its end;
* an outer body's block ``b`` (``la.outer``, ``la.outer_reduce``): 0 to the space's block count - 1;
* the cells an ``la.inner`` loop visits with a logical tag (``logical_coords``' ``k, j, i``, or
  ``rng.get_kji(idx)`` of ``logical_flat``'s ``idx``): over all slices, the logical box (grown by the
  halo's least and greatest offset on each axis, for a range grown by one), from its start to its end on
  each axis; a body ``fn(k, j, i)`` of either logical tag takes the same cells. The cells of inner loops
  with the memory tag are left unchecked (their bodies' accesses by the block ``b`` are checked).

Only what runs at every point counts, as for ``tid_bounds``: statements of the body's top level (and of an
outer body's top-level inner loops) up to the first one that may leave early (``return``, ``break``,
``continue``), not the inside of branches or other loops, nor the lazy parts of an expression. An index is a
known loop index (a local bound as above and not assigned since), one plus or minus an integer constant, or a
non-negative constant; a pack access ``pack[b, var, k, j, i]`` checks its block against the pack's block count,
a flat variable index against the width of its table, and the cell indices against the storage of the variable
named (of every variable, for a flat index) where all blocks' storage is the same (``runtime/range_checks``).
Anything else is left unchecked: the analysis never refuses a launch that is in bounds.
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.indexed_arrays import IndexedArrayType
from ..types.kernel_params import is_pack_type
from . import vocabulary as ir
from .launch_bounds import _Scan
from .walk import children, walk

#: the logical inner tags, whose visits over all slices are the logical box
_LOGICAL = ("logical_coords", "logical_flat")
#: statements that may leave the statement list they are in early
_EXITS = (ir.IRReturn, ir.IRExitRegion, ir.IRBreak, ir.IRContinue)
#: constants beyond this are left alone (int32 index arithmetic could wrap where Python's would not)
_LIMIT = 2 ** 30


def range_bounds(fn: ir.IRFunction) -> list:
    """``[param position, extent, low, high, "file:line", index text, loop indices]`` for each unconditional
    access of an array or pack parameter of loop body ``fn``, on each axis a known loop index (plus a
    constant) or a constant indexes. ``low`` and ``high`` are terms ``[c, p, k]`` (the value ``d[c] + a[p] + k``
    at a launch of extents ``d`` and arguments ``a``; ``c`` or ``p`` -1 where absent), the least and greatest
    index the access takes; ``extent`` says what they must stay inside: ``["array", axis]``, ``["blocks"]`` (a
    pack's block count), ``["vars"]`` (the width of its table of flat variable indices) or ``["cells", var
    position or -1 for any, element, axis]`` (a pack variable's storage) or ``["comps", var position, var
    name]`` (its component count: ``u(n)`` with ``n`` an integer parameter of the body). ``loop
    indices`` is ``[[name, low, high], ...]`` of the body's ranges, for the message. Deduplicated, in program
    order."""
    params = {name: i for i, (name, _) in enumerate(fn.params)}
    assigned = set(_assigned_in(fn.body))
    arrays = {name: i for i, (name, t) in enumerate(fn.params)
              if (type(t) in (ArrayType, IndexedArrayType) or is_pack_type(t)) and name not in assigned}
    scan = _RangeScan(arrays, {}, [], params, assigned)
    scan.body(fn.body, {})
    out, seen = [], set()
    for entry in scan.found:
        key = repr(entry[:5])
        if key not in seen:
            seen.add(key)
            out.append(entry)
    return out


def component_arguments(fn: ir.IRFunction, found: list) -> list:
    """``range_bounds``' ``["comps", var position, var name, "any"]`` entries of the pack accesses ``u(n)`` of
    kernel or loop body ``fn`` wherever they stand (in a branch, a loop; a plain kernel's too), for each integer
    parameter ``n`` the body uses as pack components only: it never tests ``n``, so an ``n`` out of the
    variable's components is a mistake whichever branch runs (a body that compares ``n`` or computes with it
    keeps only its unconditional accesses' tests, ``found``, so that a guarded access is never refused)."""
    if not any(is_pack_type(t) for _, t in fn.params):
        return []  # most kernels: no walk
    params = {name: i for i, (name, _) in enumerate(fn.params)}
    assigned = set(_assigned_in(fn.body))
    packs = {name for name, t in fn.params if is_pack_type(t) and name not in assigned}
    uses: dict = {}
    accesses = []
    for n in walk(fn.body):
        if isinstance(n, ir.IRLocal):
            uses[n.name] = uses.get(n.name, 0) + 1
        elif isinstance(n, ir.IRPackElem) and n.var.position is not None and isinstance(n.var.offset, ir.IRLocal):
            accesses.append(n)
    as_component: dict = {}
    for e in accesses:
        as_component[e.var.offset.name] = as_component.get(e.var.offset.name, 0) + 1
    known = {(entry[0], entry[1][1], entry[4]) for entry in found if entry[1][0] == "comps"}
    out = []
    for e in accesses:
        n = e.var.offset
        if (not isinstance(e.pack, ir.IRLocal) or e.pack.name not in packs or not e.where or n.name not in params
                or n.name in assigned or not getattr(n.type, "is_int", False)
                or uses.get(n.name) != as_component[n.name]):
            continue
        position = params[e.pack.name]
        if (position, e.var.position, e.where) in known:
            continue
        known.add((position, e.var.position, e.where))
        name = e.pack.type._bw_pack["vars"][e.var.position]
        term = _term(-1, params[n.name])
        out.append([position, ["comps", e.var.position, name, "any"], term, term, e.where, f"{name}({n.name})", []])
    return out


def _term(component: int = -1, param: int = -1, constant: int = 0) -> list:
    return [component, param, constant]


def _shifted(bound: tuple, constant: int) -> tuple:
    (name, low, high) = bound
    return name, [*low[:2], low[2] + constant], [*high[:2], high[2] + constant]


def _may_exit(s) -> bool:
    """Whether statement ``s`` may leave the statement list it is in early (an inlined function's ``return``
    ends that function only)."""
    stack = [s]
    while stack:
        n = stack.pop()
        if isinstance(n, _EXITS):
            return True
        if not isinstance(n, ir.IRInlineBody):
            stack.extend(c for c in children(n) if not isinstance(c, list))
            stack.extend(x for c in children(n) if isinstance(c, list) for x in c)
    return False


def _assigned_in(s) -> list:
    """The locals statement ``s`` assigns or binds anywhere inside (a loop's variable, inlined parameters)."""
    found = []
    for n in walk(s):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal):
            found.append(n.target.name)
        elif isinstance(getattr(n, "var", None), ir.IRLocal):  # for, par_for_inner
            found.append(n.var.name)
        elif isinstance(n, (ir.IRLAInner, ir.IRInlineBody)):
            found += [p.name for p in n.params if isinstance(p, ir.IRLocal)]
    return found


def _shown(name: str) -> str:
    """A local's name as the user wrote it (an inlined function's ``k__inl1`` is its ``k``)."""
    return name.split("__inl")[0]


def _constant(e) -> int | None:
    if isinstance(e, ir.IRConst) and type(e.value) is int and abs(e.value) < _LIMIT:
        return e.value
    return None


class _RangeScan(_Scan):
    """The scan of ``tid_bounds`` over a loop body: its statements in order, with the loop indices bound so
    far (``self.bound``: local name -> (name, low term, high term))."""

    def __init__(self, arrays: dict, assigned: dict, found: list, params: dict, rebound: set):
        super().__init__(arrays, assigned, found)
        self.params, self.rebound = params, rebound
        self.bound: dict = {}
        self.ndim = 0  # of the outer body's space (its halos are reduced to it)

    def body(self, stmts: list, bound: dict) -> bool:
        """Scan ``stmts`` with ``bound`` the loop indices known on entry; False once one may leave early."""
        outer, self.bound = self.bound, dict(bound)
        try:
            return self._statements(stmts)
        finally:
            self.bound = outer

    def _statements(self, stmts: list, inline: bool = False) -> bool:
        """``inline``: the body of an inlined function, whose ``return value`` ends it after the value."""
        for s in stmts:
            if inline and isinstance(s, ir.IRReturn) and s.value is not None:
                self.expression(s.value)
                return False
            if _may_exit(s):
                return False
            if isinstance(s, ir.IRBlock):
                if not self._statements(s.body, inline):
                    return False
                continue
            if isinstance(s, ir.IRLAOuter):  # runs once per slice, with b bound to the block
                self.ndim = s.config.ndim
                self.bound[s.block.name] = (s.block.name, _term(), _term(0, -1, -1))
                return self.body(s.body, self.bound)
            if isinstance(s, ir.IRLAInner):
                self._inner(s)
            elif isinstance(s, ir.IRInlineBody):
                self._inline(s)
            elif isinstance(s, ir.IRAssign):
                self.expression(s.value)
                self.expression(s.target)
            elif isinstance(s, ir.IRExprStmt):
                self.expression(s.expr)
            # a name assigned anywhere in the statement (or bound by a loop there) is no longer the index it was
            for name in _assigned_in(s):
                self.bound.pop(name, None)
            if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal):
                self._bind(s.target.name, s.value)
        return True

    def _inline(self, s) -> None:
        """A local function applied once (an ``inner_reduce`` body): its parameters are what it is given."""
        inside = dict(self.bound)
        for p, arg in zip(s.params, s.args):
            found = self.bound.get(arg.name) if isinstance(arg, ir.IRLocal) else None
            inside.pop(p.name, None)
            if found is not None and found[0].startswith("<"):
                inside[p.name] = found  # get_kji's index, or its (k, j, i)
            elif found is not None:
                inside[p.name] = (_shown(p.name), *found[1:])
        outer, self.bound = self.bound, inside
        try:
            self._statements(s.body, inline=True)
        finally:
            self.bound = outer

    def _bind(self, name: str, value) -> None:
        """A par_for index ``tid(c) + _bw_lo<c>``, or a cell coordinate of ``get_kji`` (``_tmp.0``)."""
        if (isinstance(value, ir.IRCall) and value.op == "add" and len(value.args) == 2
                and isinstance(value.args[0], ir.IRTid) and isinstance(value.args[1], ir.IRLocal)):
            lo = value.args[1].name
            if lo == f"_bw_lo{value.args[0].dim}" and lo in self.params and lo not in self.rebound:
                p = self.params[lo]
                self.bound[name] = (name, _term(-1, p), _term(value.args[0].dim, p, -1))
        elif isinstance(value, ir.IRLAGetKJI) and isinstance(value.index, ir.IRLocal):
            cells = self.bound.get(value.index.name)
            if cells is not None and cells[0] == "<cells>":
                self.bound[name] = ("<kji>", cells[1])
        elif isinstance(value, ir.IRTupleGet) and isinstance(value.base, ir.IRLocal):
            kji = self.bound.get(value.base.name)
            if kji is not None and kji[0] == "<kji>" and 0 <= value.index < 3:
                self.bound[name] = (_shown(name), *self._axis(value.index, kji[1]))

    def _axis(self, axis: int, grow: tuple) -> tuple:
        """(low, high) of the cells on ``axis`` (k, j, i) of the logical box (the geometry's ``_la_ks`` ...)
        grown by ``grow[axis]`` (least and greatest offset)."""
        s, e = (f"_la_{'kji'[axis]}s", f"_la_{'kji'[axis]}e")
        return _term(-1, self.params[s], grow[axis][0]), _term(-1, self.params[e], grow[axis][1])

    def _inner(self, s) -> None:
        """An ``la.inner`` loop at the top level of an outer body: its body runs at every cell of the slice, or
        of the slice grown by a halo (over all slices, the logical box grown by the halo's least and greatest
        offset on each axis: docs/loop_abstraction.md, what ``la.inner(hr)`` visits)."""
        names = ("_la_ks", "_la_ke", "_la_js", "_la_je", "_la_is", "_la_ie")
        offsets = s.halo.reduced(self.ndim) if hasattr(s.halo, "reduced") else ()
        if not offsets:
            return
        inside = dict(self.bound)
        for p in s.params:  # unknown unless bound below (memory-relative cells): their axes are not checked
            inside.pop(p.name, None)
        if s.inner in _LOGICAL and all(n in self.params for n in names):
            grow = tuple((min(o[axis] for o in offsets), max(o[axis] for o in offsets)) for axis in range(3))
            if len(s.params) == 3:  # logical_coords' k, j, i, or logical_flat's get_kji(idx) given to fn(k, j, i)
                for axis, p in enumerate(s.params):
                    inside[p.name] = (_shown(p.name), *self._axis(axis, grow))
            elif s.inner == "logical_flat" and len(s.params) == 1:
                inside[s.params[0].name] = ("<cells>", grow)
        # the body runs in every slice (the outer body's block b, say, takes all its values), whatever the tag
        self.body(s.body, inside)

    def expression(self, e) -> None:
        if isinstance(e, ir.IRPackElem):
            self._pack(e)
            for part in (e.block, *(e.kji or ())):
                self.expression(part)
            return
        super().expression(e)

    def access(self, array, indices: list, where: str, node=None) -> None:
        if type(array.type) not in (ArrayType, IndexedArrayType) or not isinstance(array, ir.IRLocal):
            return
        if array.name not in self.arrays or not where or len(indices) != getattr(array.type, "ndim", -1):
            return
        for axis, index in enumerate(indices):
            self._record(self.arrays[array.name], ["array", axis], index, where)

    def _pack(self, e) -> None:
        if not isinstance(e.pack, ir.IRLocal) or e.pack.name not in self.arrays or not e.where:
            return
        position = self.arrays[e.pack.name]
        self._record(position, ["blocks"], e.block, e.where)
        if e.var.position is None and e.flux_dir is None:  # a flat variable index: a row of the pack's table
            self._record(position, ["vars"], e.var.offset, e.where)
        elif e.var.position is not None:  # a component a launch argument gives (u(n)): its variable's count
            self._component(position, e)
        if e.kji is not None and e.flux_dir is None and len(e.kji) == 3:  # -1: any variable (a flat index)
            var = -1 if e.var.position is None else e.var.position
            for axis, index in enumerate(e.kji):
                self._record(position, ["cells", var, e.element, axis], index, e.where)

    def _component(self, position: int, e) -> None:
        """``u(n)`` with ``n`` an integer parameter of the body (a kernel's, or a captured ``wp.int32``) not
        assigned in it: ``["comps", variable position, variable name]``, tested at each launch."""
        n = e.var.offset
        if (not isinstance(n, ir.IRLocal) or n.name not in self.params or n.name in self.rebound
                or n.name in self.bound or not getattr(n.type, "is_int", False)):
            return
        name = e.pack.type._bw_pack["vars"][e.var.position]
        term = _term(-1, self.params[n.name])
        self.found.append([position, ["comps", e.var.position, name], term, term, e.where, f"{name}({n.name})",
                           self._loops()])

    def _record(self, position: int, extent: list, index, where: str) -> None:
        term = self._index(index)
        if term is not None:
            text, low, high = term
            self.found.append([position, extent, low, high, where, text, self._loops()])

    def _loops(self) -> list:
        """``[[name, low, high], ...]`` of the loop indices known here, for the message: the ranges or box."""
        shown: dict = {}
        for name, *span in self.bound.values():
            if not name.startswith(("<", "_arg_inl")):
                shown.setdefault(name, [name, *span])
        return list(shown.values())

    def _index(self, index):
        """(text, low, high) of ``index``: a loop index, one plus or minus a constant, or a constant >= 0."""
        c = _constant(index)
        if c is not None:
            return (str(c), _term(-1, -1, c), _term(-1, -1, c)) if c >= 0 else None
        if isinstance(index, ir.IRLocal):
            found = self.bound.get(index.name)
            return found if found is not None and not found[0].startswith("<") else None
        if isinstance(index, ir.IRCall) and index.op in ("add", "sub") and len(index.args) == 2:
            a, b = index.args
            if index.op == "add" and _constant(a) is not None:
                a, b = b, a
            c = _constant(b)
            base = self._index(a) if isinstance(a, ir.IRLocal) else None
            if c is not None and base is not None:
                c = c if index.op == "add" else -c
                name, low, high = _shifted(base, c)
                return f"{name} {'+' if c >= 0 else '-'} {abs(c)}", low, high
        return None
