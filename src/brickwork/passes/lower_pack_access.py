"""lower_pack_access: pack elements and bounds become loads from the pack's address tables.

A pack argument is a struct of tables built on the host (``mesh.kernel_pack``): ``ptrs[b, idx,
element]`` and ``fluxes[b, idx, dir - 1]`` hold (address, k stride, j stride) of a variable
component's storage, ``bounds[b, var]`` its flat index range, ``ptr_shapes``/``flux_shapes`` the
storage's (nk, nj, ni) for bounds checks. An element at (k, j, i) is
``raw(address)[k * sk + j * sj + i]``; at a flat memory offset ``m`` it is ``raw(address)[m]``.

A component computed at run time (``u(c[0])``, ``u(n)``) is tested against the variable's flat indices in the
block, a flux direction computed at run time against the variable's flux directions, and a run-time flat
variable index against the tables' rows, unless their values are known to be in range (constants, and loop
counters with constant bounds, give or take a constant): the access's bounds begin with those (index, extent)
pairs, and its table row is read at an index clamped into the tables, so that the test names the component
rather than a row past the tables. In debug mode (``checked``) those pairs, then the cell's indices, are tested
as the access runs. A release build tests nothing (a test in a vectorized loop, a branch to the error record, stops
the vectorization: 2.5-10x on 32^3 blocks, even with its index and extent hoisted out of the loop) but keeps the
clamp: the table row is always one of the variable's own (of the pack's for a flat index, and a flux direction
one the variable has), so an out-of-range component reads or writes the nearest component of the same variable in
the same block, never another variable, another block or an address read from past the tables (which wrote
another block's data, or crashed the process). The clamp is two integer operations, hoisted with the table load
when the component is slice-invariant.

Table loads inside loops whose indices are the same for the whole slice (constants, parameters,
the block index: locals assigned once at the top of the kernel) are hoisted to the top of the
kernel, one local per distinct load: the innermost loop then walks ``raw(base)[offset]`` with a
loop-invariant base and strides, a unit-stride pointer walk the C++ compiler vectorizes, instead
of re-reading the tables at every point. The tables are read-only in kernels and those indices
are in range for every slice, so loading them once, earlier, changes no result.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.analysis import assignment_counts
from ..ir.printer import expr as show
from ..types.scalars import int32, int64
from .build import Locals, i32, op


@dataclass(frozen=True)
class LowerPackAccess:
    name: str = "lower_pack_access"
    checked: bool = False  # debug mode: test components and flux directions computed at run time

    needs = (ir.IRPackElem, ir.IRPackBound)  # (run_passes skips the pass without one)

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not ir.contains(fn.body, (ir.IRPackElem, ir.IRPackBound)):
            return fn  # no pack access: no table to read or hoist
        lower = _Lower(_constant_locals(fn.body), _written_elements(fn.body))
        fn = lower.function(fn)
        return _Hoist(fn, lower.tables).function()


def _written_elements(body: list) -> set:
    """The ids of the pack elements ``body`` stores to (an assignment's target, an atomic's first argument)."""
    found = set()
    for n in ir.walk(body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRPackElem):
            found.add(id(n.target))
        elif isinstance(n, ir.IRCall) and n.op.startswith("atomic") and n.args and isinstance(n.args[0], ir.IRPackElem):
            found.add(id(n.args[0]))
    return found


def _table(pack, name, indices, where="", made=None):
    field = ir.IRField(pack, name, pack.type._field_types[name])
    elem = ir.IRArrayElem(field, indices, field.type.dtype, where)
    if made is not None:
        made.add(id(elem))
    return elem


def _int64(x):
    return x if x.type is int64 else ir.IRCast(x, int64)


class _Lower(ir.Rewriter):
    def __init__(self, constants: dict, written: set = frozenset()):
        self.tables: set[int] = set()  # ids of the table loads made (candidates for hoisting)
        self.written = written  # ids of the pack elements stored to
        self.constants = constants  # locals only ever assigned int constants (an unrolled loop's counter)
        self.loops: dict[str, tuple[int, int]] = {}  # counters of the enclosing loops with constant bounds

    def r_IRFor(self, s: ir.IRFor):
        # a counter its body does not assign holds the loop's value there (the loop sets it at every trip)
        span = _counter_span(s)
        if span is not None and s.var.name in assignment_counts(s.body):  # bounds first: the walk is the cost
            span = None
        if span is None:
            return self.copy(s)
        self.loops[s.var.name] = span
        try:
            return self.copy(s)
        finally:
            del self.loops[s.var.name]

    def _span(self, e) -> tuple[int, int] | None:
        """The least and greatest value of int expression ``e`` when they are known at compile time."""
        if isinstance(e, ir.IRConst) and isinstance(e.value, int):
            return e.value, e.value
        if isinstance(e, ir.IRLocal):
            return self.loops.get(e.name) or (self.constants or {}).get(e.name)
        if isinstance(e, ir.IRCast):
            return self._span(e.arg)
        if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2:
            a, b = self._span(e.args[0]), self._span(e.args[1])
            if a is None or b is None:
                return None
            return (a[0] + b[0], a[1] + b[1]) if e.op == "add" else (a[0] - b[1], a[1] - b[0])
        return None

    def _tested(self, index, low: int, count, pairs: list, notes: list, note: str, known: int | None = None):
        """``index`` (an int32 expression, which must lie in ``[low, low + count)``; ``count`` an int or an int32
        expression, ``known`` the int it is when the kernel is compiled, if it is not one): when it may not,
        append (index - low, count) to ``pairs`` and ``note`` to ``notes``, and return it clamped into the range
        (the index a table row is read at), else ``index``."""
        span = self._span(index)
        known = count if isinstance(count, int) else known
        if span is not None and known is not None and low <= span[0] and span[1] < low + known:
            return index
        extent = i32(count) if isinstance(count, int) else count
        notes.append(note)
        pairs += [op("sub", _int64(index), ir.IRConst(low, int64)) if low else _int64(index), _int64(extent)]
        top = i32(count + low - 1) if isinstance(count, int) else op("sub", op("add", extent, i32(low)), i32(1))
        return op("max", op("min", index, top), i32(low))

    def r_IRPackBound(self, e: ir.IRPackBound):
        which = 0 if e.which == "lower" else 1
        return self._table(self.expr(e.pack), "bounds", [self.expr(e.block), i32(e.position), i32(which)])

    def r_IRPackElem(self, e: ir.IRPackElem):
        pack, b = self.expr(e.pack), self.expr(e.block)
        info = pack.type._bw_pack
        null_read = False  # a read that may reach a null row of the tables
        pairs: list = []  # (index, extent) pairs tested before the access's own (debug mode)
        notes: list = []  # what each of them is
        flat = self.expr(e.var.offset)
        name = info["vars"][e.var.position] if e.var.position is not None else None
        if name is not None:  # a component of the variable at that position: 0 to its flat indices' count - 1
            # (a constant's size, or for a sparse view's s * size + c, its sparse ids' in this block: from the tables)
            lower = self._table(pack, "bounds", [b, i32(e.var.position), i32(0)], e.where)
            count = op("add", op("sub", self._table(pack, "bounds", [b, i32(e.var.position), i32(1)], e.where),
                                 self._table(pack, "bounds", [b, i32(e.var.position), i32(0)], e.where)), i32(1))
            flat = self._tested(flat, 0, count, pairs, notes, f"the component of '{name}' (pack.get_size(b, "
                                f"{name}) in this block)", known=info["sizes"][e.var.position])
            flat = op("add", lower, flat)
        else:  # a flat variable index: a row of the tables
            rows = ir.IRArrayShape(ir.IRField(pack, "ptrs", pack.type._field_types["ptrs"]), 1, int32)
            known = len(notes)
            flat = self._tested(flat, 0, rows, pairs, notes, "the flat variable index (the pack's flat indices)")
            # a run-time flat index may name a row without storage (a null row): a read takes its address from
            # the column whose null rows point at a slab no access writes, so that it reads zero
            null_read = len(notes) > known and id(e) not in self.written
        if e.flux_dir is not None:  # a direction the variable has fluxes in: 1 to its count (3 when not known)
            fluxes = info.get("fluxes")
            stored = fluxes[e.var.position] if fluxes is not None and name is not None else None
            count = len(stored) if stored is not None else 3
            what = f"'{name}' has fluxes in directions 1 to {count}" if stored else "directions are 1 to 3"
            direction = self._tested(self.expr(e.flux_dir), 1, count, pairs, notes,
                                     f"the flux direction less 1 ({what})")
            table, slot = "fluxes", op("sub", direction, i32(1))
        else:
            table, slot = "ptrs", i32(e.element)
        where = f"{e.where} (computed at run time: {'; '.join(notes)})" if notes else e.where
        row = [b, flat, slot]
        address = self._table(pack, table, row + [i32(3 if null_read else 0)], e.where)
        shapes = "flux_shapes" if e.flux_dir is not None else "ptr_shapes"
        nk, nj, ni = (self._table(pack, shapes, row + [i32(c)], e.where) for c in range(3))  # used by bounds checks
        if e.kji is None:  # a view's flat offset: say what the one index of the message is
            memory = _int64(self.expr(e.memory))
            where = (f"{where} (the index is the cell's flat offset into the block's storage of the variable, ghost "
                     f"cells included: an offset added to a view's index, such as idx + 2 * d, reaches past the "
                     f"ghost layers)")
            return ir.IRRawElem(address, memory, e.type, [*pairs, memory, _int64(op("mul", op("mul", nk, nj), ni))],
                                where)
        sk = self._table(pack, table, row + [i32(1)], e.where)
        sj = self._table(pack, table, row + [i32(2)], e.where)
        k, j, i = (_int64(self.expr(x)) for x in e.kji)
        offset = op("add", op("add", op("mul", k, sk), op("mul", j, sj)), i)
        return ir.IRRawElem(address, offset, e.type, [*pairs, k, nk, j, nj, i, ni], where)

    def _table(self, pack, name, indices, where=""):
        return _table(pack, name, indices, where, self.tables)


# builtins a slice-invariant local may be computed with (its assignment stays where it is); the comparisons
# choose a GPU slice's coordinates by its grid (gpu_grid.pencil_coords)
_DEFINING_OPS = ("add", "sub", "mul", "div", "mod", "min", "max", "neg", "eq", "ne", "logical_and")


def _constant_locals(body: list) -> dict:
    """Local -> (least, greatest) of the int constants it is assigned, for the locals that are assigned nothing
    else (no loop counts them, no builtin writes them): the counter of a loop the frontend unrolled."""
    values: dict = {}
    for n in ir.walk(body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal):
            v = n.value
            known = isinstance(v, ir.IRConst) and isinstance(v.value, int) and not isinstance(v.value, bool)
            values.setdefault(n.target.name, []).append(v.value if known else None)
    counts = assignment_counts(body)
    return {name: (min(vs), max(vs)) for name, vs in values.items()
            if None not in vs and counts.get(name) == len(vs)}


def _counter_span(s: ir.IRFor) -> tuple[int, int] | None:
    """The values of the counter of a loop over constant bounds with a constant positive step."""
    start, stop, step = s.start, s.stop, s.step
    if not all(isinstance(x, ir.IRConst) and isinstance(x.value, int) for x in (start, stop, step)):
        return None
    if step.value <= 0 or stop.value <= start.value:
        return None
    return start.value, stop.value - 1


class _Hoist(ir.Rewriter):
    """Table loads inside loops with slice-invariant indices -> locals assigned at the top level."""

    def __init__(self, fn: ir.IRFunction, tables: set):
        self.fn, self.tables = fn, tables
        self.params = {name for name, _ in fn.params}
        counts = assignment_counts(fn.body)
        # slice-invariant locals -> the first top-level position before which they hold their value
        self.ready: dict[str, int] = {}
        for pos, s in enumerate(fn.body):
            if (isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and counts.get(s.target.name) == 1
                    and self._invariant(s.value, _DEFINING_OPS)):
                self.ready[s.target.name] = pos + 1
        self.locals = Locals(fn)
        self.hoisted: dict[str, ir.IRLocal] = {}  # printed load -> its local
        self.inserts: dict[int, list] = {}  # top-level position -> assignments to insert before it
        self.loops = 0

    def function(self) -> ir.IRFunction:
        body = self.stmts(self.fn.body)  # one statement per top-level statement (none is dropped or split)
        if not self.hoisted:
            return self.fn
        self.fn.body = [s for pos, stmt in enumerate(body) for s in [*self.inserts.get(pos, []), stmt]]
        return self.fn

    def _invariant(self, e, ops=("add", "sub", "mul", "min", "max")) -> bool:
        """Built from constants, ``tid()`` (on a GPU: the block index and the launch's extents), parameters,
        slice-invariant locals, table loads and ``ops``."""
        for n in ir.walk(e):
            if isinstance(n, ir.IRLocal):
                ok = n.name in self.params or n.name in self.ready
            elif isinstance(n, ir.IRArrayElem):
                ok = id(n) in self.tables
            elif isinstance(n, ir.IRCall):
                ok = n.op in ops
            elif isinstance(n, ir.IRGpuIndex):  # a GPU block is one slice (or team): its index is the slice's
                ok = n.axis == "block"
            else:
                ok = isinstance(n, (ir.IRConst, ir.IRCast, ir.IRField, ir.IRTid, ir.IRLaunchExtent, ir.IRGpuDim,
                                    ir.IRSelect, ir.IRArrayShape))
            if not ok:
                return False
        return True

    def _loop(self, s):
        self.loops += 1
        try:
            return self.copy(s)
        finally:
            self.loops -= 1

    r_IRFor = _loop
    r_IRWhile = _loop

    def r_IRRawElem(self, e: ir.IRRawElem):
        # the bounds (nk, nj, ni of the storage) serve debug-mode checks only: not hoisted
        return ir.IRRawElem(self.expr(e.address), self.expr(e.offset), e.type,
                            [ir.Rewriter().expr(b) for b in e.bounds], e.where, e.checked)

    def r_IRArrayElem(self, e: ir.IRArrayElem):
        out = self.copy(e)
        if id(e) not in self.tables:
            return out
        self.tables.add(id(out))
        if self.loops == 0 or not self._invariant(out):
            return out
        key = show(out)
        local = self.hoisted.get(key)
        if local is None:
            local = self.hoisted[key] = self.locals.new("_pk", out.type)
            names = {n.name for n in ir.walk(out) if isinstance(n, ir.IRLocal)}
            pos = max((self.ready[n] for n in names if n in self.ready), default=0)
            self.inserts.setdefault(pos, []).append(ir.IRAssign(local, out))
            self.ready[local.name] = pos
        return ir.IRLocal(local.name, local.type)
