"""When the stages of a ``bvoi`` or ``bovi`` outer body may run row by row: the legality of row fusion.

An outer body of the form ``scratch and values...; inner; barrier; inner; ...`` whose inner ranges all have
halos along i only (the x1 pattern: reconstruct into scratch, barrier, fluxes from scratch) can run
per row (k, j): every stage over the row's i span, in order (each stage a row behind the one before:
``expand_loop_abstraction.skewed_rows``). Per-point scratch
then needs one k plane, not the whole block (it stays in L1), and the producer's values are consumed
while they are hot. ``expand_loop_abstraction`` does that when :func:`plan` says it is legal:

- the slice is a block (``bvoi``), or a chunk of logical cells (``bovi`` with a logical inner tag:
  a chunk's rows are whole rows but the first and last, which the fused loops cut as the chunk does);
- every stage is an ``la.inner`` (no fold) over the slice grown by offsets (0, 0, di) only, and for
  ``bovi`` the di of a stage are consecutive (its unfused cells, the union of the chunk's shifted
  spans, are then one span per row: a chunk of one short row shifted by -2 and 0 would leave a gap);
- before the first stage come scratch declarations and assignments of locals whose values have no
  effect besides themselves (``gamma = coef[5]``): they run once, before the rows, and no stage
  may assign those locals;
- a stage writes only scratch at its own cell, locals no other stage reads without assigning, and
  pack views of a kind (cell variables, or fluxes of one direction) no other stage reads or writes;
- a scratch value is read at (k, j, i + c) with a constant c (in the index, or through a local the
  stage sets once, at its top level, before any use: ``m = idx - dx1``), by a later stage than the
  one that writes it, and the writer's row span covers every cell the reader reaches;
- nothing else: no arrays written, no atomics, no prints, no functions given arrays or that print,
  no folds, no return, break or continue (they could end more than the current cell).

Under these rules each stage reads only values that the fused order has already produced, as in
the unfused one (semantics §8: a body writes only its own cell, and reads what was written before
the last barrier), so every logical cell gets the same result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from .. import ir
from ..ir.printer import expr as show
from ..types.arrays import ArrayType
from ..types.composite import vector
from ..types.scalars import int32

VEC3I = vector(3, int32)
_MEMORY_CHUNKS = ("i_pencil", "ij_slab")  # pieces that are rows or planes: spans split into rows


@dataclass
class RowFusion:
    """The stages of a fusable outer body, the i extent of each, and the scratch read offsets."""

    stages: list  # IRLAInner, in order
    spans: list  # (lo, hi): the i offsets each stage's range grows by
    cmin: int = 0  # smallest and largest i offset of a scratch access (0 included)
    cmax: int = 0
    head: list = field(default_factory=list)  # IRLAScratch and local assignments before the first stage


def plan(outer: ir.IRLAOuter, counts: dict) -> RowFusion | None:
    """A row-fusion plan for ``outer``, or None when fusing could change a result."""
    cfg = outer.config
    if cfg.loop not in ("bvoi", "bovi") or cfg.reducer is not None:
        return None
    if cfg.inner == "memory" and (cfg.loop == "bovi" or cfg.chunk not in _MEMORY_CHUNKS):
        return None
    head, stages, expect_inner = [], [], True
    for s in outer.body:
        if isinstance(s, ir.IRLAScratch) and not stages:
            head.append(s)
        elif not stages and plain_local_assign(s):
            head.append(s)  # runs once before the rows, as before the first stage
        elif isinstance(s, ir.IRLAInner) and expect_inner and not s.reduce:
            stages.append(s)
            expect_inner = False
        elif isinstance(s, ir.IRTeamBarrier) and s.member is None and not expect_inner:
            expect_inner = True
        else:
            return None
    if len(stages) < 2 or expect_inner:
        return None
    spans = []
    for st in stages:
        offsets = st.halo.reduced(cfg.ndim)
        if any(h[0] != 0 or h[1] != 0 for h in offsets):
            return None
        if any(counts.get(p.name, 0) for p in st.params):
            return None  # a reassigned index: its cell is not known statically
        di = {h[2] for h in offsets}
        if cfg.loop == "bovi" and (st.inner == "memory" or di != set(range(min(di), max(di) + 1))):
            return None
        spans.append((min(0, min(di)), max(0, max(di))))
    found = _Accesses(stages)
    if not found.ok:
        return None
    writers: dict[str, int] = {}
    for name, stage, c in found.scratch_writes:
        if c != 0 or writers.setdefault(name, stage) != stage:
            return None  # written off its own cell, or by two stages
    for name, stage, c in found.scratch_reads:
        w = writers.get(name)
        if w is None or w > stage or (w == stage and c != 0):
            return None
        if w < stage and not (spans[stage][0] + c >= spans[w][0] and spans[stage][1] + c <= spans[w][1]):
            return None  # reaches a cell of the row its writer does not visit
    for stage, kinds in enumerate(found.view_writes):
        for other, used in enumerate(found.view_uses):
            if other != stage and kinds & used:
                return None
    if not found.locals_private(head):
        return None
    offsets = [c for _, _, c in found.scratch_reads + found.scratch_writes]
    return RowFusion(stages, spans, min([0, *offsets]), max([0, *offsets]), head)


def plain_local_assign(s) -> bool:
    """A local's assignment from an expression whose only effect is its value (a constant read from
    an array, ``gamma = coef[5]``): it may run once before the rows."""
    if not (isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal)):
        return False
    for n in ir.walk([s.value]):
        if isinstance(n, ir.IRCall) and n.op.startswith("atomic"):
            return False
        if isinstance(n, ir.IRFuncCall) and not pure_call(n, set()):
            return False
        if isinstance(n, (ir.IRLAScratchElem, ir.IRLAViewElem, ir.IRLAGetKJI)):
            return False
    return True


class StageAccesses(ABC):
    """What each stage of an outer body reads and writes: the locals each stage assigns and uses
    (here), scratch and pack views (``scratch`` and ``view``, per schedule). ``ok`` turns False at
    anything a row schedule could reorder observably: output (prints, checks), atomics, folds,
    nested parallelism, control that ends more than the cell, writes to arrays or other storage."""

    #: whether a stage may fold (``inner_reduce``): a schedule that keeps each stage's cells in their
    #: unfused order folds them in that order (the ring of rows); row fusion does not take folds
    folds = False

    def __init__(self, stages, offset=None):
        self.ok = True
        self.local_writes = [set() for _ in stages]
        self.local_uses = [set() for _ in stages]
        for n, st in enumerate(stages):
            self.params = st.params
            self.aliases = index_aliases(st, offset)
            for s in ir.walk(st.body):
                self.node(s, n)
                if not self.ok:
                    return

    @abstractmethod
    def scratch(self, e: ir.IRLAScratchElem, n: int, write: bool):
        """Record stage ``n``'s read or write of a per-point scratch element (each schedule its way)."""

    @abstractmethod
    def view(self, e: ir.IRLAViewElem, n: int, write: bool):
        """Record stage ``n``'s read or write of a pack-view element."""

    def node(self, s, n):
        if isinstance(s, ir.IRAssign):
            t = s.target
            if isinstance(t, ir.IRLocal):
                self.local_writes[n].add(t.name)
            elif isinstance(t, ir.IRLAScratchElem):
                self.scratch(t, n, True)
            elif isinstance(t, ir.IRLAViewElem):
                self.view(t, n, True)
            else:
                self.ok = False
        elif isinstance(s, ir.IRFor):
            self.local_writes[n].add(s.var.name)
        elif isinstance(s, ir.IRLocal):
            self.local_uses[n].add(s.name)
        elif isinstance(s, ir.IRLAScratchElem):
            self.scratch(s, n, False)
        elif isinstance(s, ir.IRLAViewElem):
            self.view(s, n, False)
        elif isinstance(s, ir.IRCall) and s.op.startswith("atomic"):
            self.ok = False
        elif isinstance(s, ir.IRFuncCall):
            self.ok = self.ok and pure_call(s, set())
        elif isinstance(s, ir.IRLAFold) and self.folds:
            pass
        elif isinstance(s, (ir.IRPrint, ir.IRExpect, ir.IRLAFold, ir.IRLAInner, ir.IRLAScratch, ir.IRLAScratchZero,
                            ir.IRTeamBarrier, ir.IRTeamBegin, ir.IRTeamLoop, ir.IRSliceReduction, ir.IRReturn,
                            ir.IRBreak, ir.IRContinue)):
            self.ok = False  # output order, folds, nesting, or control that leaves more than the cell

    def locals_private(self, head: list) -> bool:
        """No stage assigns a value set before the first (``head``), and a local a stage assigns is
        private to its cell (semantics §8): no other stage reads it without assigning it (a value
        carried over the barrier)."""
        before = {s.target.name for s in head if isinstance(s, ir.IRAssign)}
        if any(before & names for names in self.local_writes):
            return False
        for stage, names in enumerate(self.local_writes):
            for other, used in enumerate(self.local_uses):
                if other != stage and names & (used - self.local_writes[other]):
                    return False
        return True


class _Accesses(StageAccesses):
    """Scratch (name, stage, i offset) read and written, view kinds written and used, per stage."""

    def __init__(self, stages):
        self.scratch_reads: list = []
        self.scratch_writes: list = []
        self.view_writes = [set() for _ in stages]
        self.view_uses = [set() for _ in stages]
        super().__init__(stages)

    def scratch(self, e: ir.IRLAScratchElem, n, write):
        c = _i_offset(e.point, self.params, self.aliases)
        if c is None:
            self.ok = False
        else:
            (self.scratch_writes if write else self.scratch_reads).append((e.storage.name, n, c))

    def view(self, e: ir.IRLAViewElem, n, write):
        (self.view_writes if write else self.view_uses)[n].add(view_kind(e.view))


def pure_call(call: ir.IRFuncCall, seen: set) -> bool:
    """Whether a user function's effects stay in its result: no array argument, and neither it
    nor what it calls prints, checks (``expect_*``) or uses atomics."""
    if any(isinstance(a.type, ArrayType) for a in call.args):
        return False
    fn = call.func
    if id(fn) in seen:
        return True
    seen.add(id(fn))
    for n in ir.walk(getattr(fn, "body", [])):
        if isinstance(n, (ir.IRPrint, ir.IRExpect)) or (isinstance(n, ir.IRCall) and n.op.startswith("atomic")):
            return False
        if isinstance(n, ir.IRFuncCall) and not pure_call(n, seen):
            return False
    return True


def view_kind(view: ir.LAView) -> tuple:
    """Cell variables, or fluxes of one direction (any pack: two packs may share storage)."""
    return (view.kind, None if view.direction is None else show(view.direction))


def index_aliases(stage, offset=None) -> dict:
    """Locals that name the visited cell shifted along i, ``m = idx - 1``: {name: c}. Only a local
    assigned once in the stage, by a statement of its top level that comes before any use of it,
    so that every read of it sees that value. ``offset(point, params, aliases)``: the shift a point
    names (default: along i only, for one index)."""
    offset = offset or _i_offset
    if offset is _i_offset and len(stage.params) != 1:
        return {}
    assigned: dict = {}
    for n in ir.walk(stage.body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal):
            assigned[n.target.name] = assigned.get(n.target.name, 0) + 1
        elif isinstance(n, ir.IRFor):
            assigned[n.var.name] = assigned.get(n.var.name, 0) + 2
    aliases, used = {}, set()
    for s in stage.body:
        if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal):
            name = s.target.name
            c = offset([s.value], stage.params, aliases)
            if c is not None and assigned.get(name) == 1 and name not in used:
                aliases[name] = c
        used |= {n.name for n in ir.walk([s]) if isinstance(n, ir.IRLocal)}
    return aliases


def _i_offset(point: list, params: list, aliases: dict | None = None):
    """c when ``point`` names the visited cell shifted by (0, 0, c) (c constant), else None.
    ``aliases``: locals known to name the visited cell shifted by c (``index_aliases``)."""
    if len(point) == 1 and isinstance(point[0], ir.IRLocal) and aliases and point[0].name in aliases:
        return aliases[point[0].name]
    if len(point) == 3:
        if len(params) != 3 or not all(isinstance(p, ir.IRLocal) and p.name == q.name
                                       for p, q in zip(point[:2], params[:2])):
            return None
        return shift(point[2], params[2].name)
    (p,) = point
    if len(params) != 1:
        return None
    if p.type is VEC3I:
        d = shift3(p, params[0].name)
        return d[2] if d is not None and d[0] == 0 and d[1] == 0 else None
    return shift(p, params[0].name)


def shift(e, name):
    """c when ``e`` is ``name``, ``name + c`` or ``name - c`` (int constants), else None."""
    if isinstance(e, ir.IRLocal) and e.name == name:
        return 0
    if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2:
        a, b = e.args
        if e.op == "add" and isinstance(a, ir.IRConst):
            a, b = b, a
        inner = shift(a, name)
        if inner is not None and isinstance(b, ir.IRConst) and isinstance(b.value, int) and abs(b.value) < 2**16:
            return inner + (b.value if e.op == "add" else -b.value)
    return None


def shift3(e, name):
    """(dk, dj, di) when ``e`` is the Index3 ``name`` shifted by a constant Index3, else None."""
    if isinstance(e, ir.IRLocal) and e.name == name:
        return (0, 0, 0)
    if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2:
        a, b = e.args
        if e.op == "add" and vec3_const(a) is not None:
            a, b = b, a
        inner, d = shift3(a, name), vec3_const(b)
        if inner is not None and d is not None and all(abs(x) < 2**16 for x in d):
            sign = 1 if e.op == "add" else -1
            return tuple(x + sign * y for x, y in zip(inner, d))
    return None


def vec3_const(e):
    if isinstance(e, ir.IRConst) and e.type is VEC3I:
        try:
            values = [int(v) for v in e.value]
        except (TypeError, ValueError):
            return None
        return values if len(values) == 3 else None
    if isinstance(e, ir.IRConstruct) and e.type is VEC3I and all(isinstance(a, ir.IRConst) for a in e.args):
        return [int(a.value) for a in e.args]
    return None
