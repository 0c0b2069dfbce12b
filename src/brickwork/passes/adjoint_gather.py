"""adjoint_gather: the gather (transposed-stencil) form of a split backward kernel's interior (CPU).

The backward kernel of a stencil scatters: each point reads its neighbours, so its reverse sweep adds
into its neighbours' adjoints, one read-modify-write per stencil read (``adj_u[tid + d] += e`` for each
offset ``d``), against one store per point in the forward kernel. The transposed stencil gathers
instead: each point ``q`` sums what every offset sends it, ``adj_u[q] += sum over d of e(tid = q - d)``,
one read-modify-write per written array and point, no condition, a vector loop.

The pass applies to a kernel that ``split_interior`` split (the interior box ``I``) and whose backward
scatters are plain phased adds (``scatter_radius``), when it can prove from the IR that

* the interior (the statements before the split and its interior version, with the guard known true) is
  straight-line code of local assignments and writes;
* every write is ``adj_X[tid(0) + c0, ..., tid(n-1) + cn-1] = adj_X[same] + e`` (one index per launch
  dimension, each the same dimension's ``tid`` plus a constant, through single-assignment locals), on an
  array parameter that the interior reads nowhere else, with no array locals (aliases) about;
* each contribution ``e`` is cheap to recompute at ``q - d``: its backward slice (the assignments it
  depends on) holds only loads of float values from parameters no write targets, constants, ``tid()``,
  shapes and the arithmetic of ``CHEAP_OPS``, at most ``MAX_SLICE_OPS`` calls and loads each and
  ``MAX_TOTAL_OPS`` for all writes together (a hydro flux's Riemann solver keeps its scatter form).

The result (``IRGather`` on the ``IRInteriorSplit``) has the gather body over the gather box ``G`` (the
points ``q`` with ``q - d`` in ``I`` for every write offset ``d``: every pair of an interior point and a
write that lands in ``G`` is summed there exactly once) and the shell: the interior with each write done
only where ``tid + d`` falls outside ``G`` (the pairs the gather does not sum). The CPU target runs the
gather over ``G`` in a parallel loop of its own (each point writes only its own elements), then, as
before, its phases over the points of ``I`` whose writes can leave ``G`` (the shell) and over the boundary
version (the points outside ``I``, their contributions not part of the gather; they may add into ``G``,
after the gather is done). It runs the plain scatter form instead when a written array may overlap an
array the gather reads or another written array. The sums equal the scatter form's up to the order of
the float additions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import ir
from ..ir.printer import expr as show
from ..types.arrays import ArrayType
from ..types.kernel_params import KEEP_PARAM
from ..types.scalars import bool_, float16, float32, float64, int32, int64
from .build import Locals, i32, op
from .split_interior import fold_flags

#: Builtins a contribution's slice may use (per component, a few cycles each).
CHEAP_OPS = frozenset({"add", "sub", "mul", "neg", "div", "min", "max", "abs", "cw_mul", "cw_div"})
#: Calls and loads in one contribution's slice, and in all of them together.
MAX_SLICE_OPS = 32
MAX_TOTAL_OPS = 256

_FLOATS = (float16, float32, float64)


@dataclass(frozen=True)
class AdjointGather:
    name: str = "adjoint_gather"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not fn.is_kernel or fn.scatter_radius is None or not fn.body:
            return fn
        split = fn.body[-1]
        if not isinstance(split, ir.IRInteriorSplit) or split.gather is not None:
            return fn
        fn = ir.Rewriter().function(fn)
        split = fn.body[-1]
        plan = _Plan.of(fn, split)
        if plan is None:
            return fn
        gather = plan.build(Locals(fn))
        fn.body[-1] = replace(split, gather=gather)
        return fn


@dataclass
class _Write:
    pos: int  # position in the interior program
    array: ir.IRLocal
    offsets: tuple  # d, per launch dimension
    value: ir.IRExpr  # e
    slice: list  # positions of the assignments e depends on


class _Plan:
    """The interior program's writes and their slices, or None (``of``) when the rule does not apply."""

    def __init__(self, fn, interior, program, writes, low, high, reads, clears):
        self.fn, self.interior, self.program, self.writes = fn, interior, program, writes
        self.low, self.high, self.reads = low, high, reads
        self.clears = clears  # (array, offsets, zero, keep test or None) of the interior's adjoint clears

    @classmethod
    def of(cls, fn: ir.IRFunction, split: ir.IRInteriorSplit) -> "_Plan | None":
        dims = fn.tid_dims
        prefix = fn.body[:-1]
        program = fold_flags(prefix + split.interior)  # an exit guard's flags are known in the interior
        if not all(a is b for a, b in zip(prefix, program)):
            return None
        params = {name: t for name, t in fn.params}
        arrays = {name for name, t in fn.params if isinstance(t, ArrayType)}
        if any(isinstance(t, ArrayType) for t in fn.locals.values()):
            return None  # an array alias could reach a written array unseen
        # the adjoints of stored elements, cleared after their read: out of the program, run after the gather
        cleared = [s for s in program[len(prefix):] if _clear(s, arrays)]
        program = [s for s in program if not any(s is c for c in cleared)]
        interior = program[len(prefix):]
        offsets = _Offsets(program)
        clears = []
        for c in cleared:
            cond, c = (c.cond, c.body[0]) if isinstance(c, ir.IRIf) else (None, c)
            d = offsets.of(c.target.indices, dims)
            if d is None:
                return None
            clears.append((c.target.array, d, c.value, cond))
        writes: list[_Write] = []
        for pos, s in enumerate(program):
            if not isinstance(s, ir.IRAssign):
                return None
            if isinstance(s.target, ir.IRLocal):
                if s.target.name in params:
                    return None  # a parameter reassigned: a copy of the slice could not start from its value
                continue
            w = _plain_add(s, arrays)
            if w is None or pos < len(prefix):
                return None
            array, indices, value = w
            d = offsets.of(indices, dims)
            if d is None:
                return None
            writes.append(_Write(pos, array, d, value, []))
        if not writes:
            return None
        written = {w.array.name for w in writes}
        # the interior reads no written array but in its writes' own read-modify-write
        for s in program:
            value = s.value
            if not isinstance(s.target, ir.IRLocal):
                value = s.value.args[1]
            for n in ir.walk(value):
                if isinstance(n, (ir.IRArrayElem, ir.IRSubarray)) and _root(n.array) in written:
                    return None
                if isinstance(n, ir.IRCall) and n.op.startswith("atomic_"):
                    return None
        every = [w.offsets for w in writes]
        low = [min(d[k] for d in every) for k in range(dims)]
        high = [max(d[k] for d in every) for k in range(dims)]
        total, reads = 0, {}
        for w in writes:
            w.slice, cost = _slice(program, w.pos, w.value)
            if cost is None or cost > MAX_SLICE_OPS:
                return None
            total += cost
            for q in w.slice:
                for n in ir.walk(program[q].value):
                    if isinstance(n, ir.IRArrayElem):
                        reads.setdefault(n.array.name, n.array)
            for n in ir.walk(w.value):
                if isinstance(n, ir.IRArrayElem):
                    reads.setdefault(n.array.name, n.array)
        if total > MAX_TOTAL_OPS or any(name not in arrays or name in written for name in reads):
            return None
        if any(array.name in written for array, _, _, _ in clears):
            return None  # an array both cleared and summed into: its order matters, the scatter form keeps it
        return cls(fn, interior, program, writes, low, high, list(reads.values()), clears)

    def build(self, locals_: Locals) -> ir.IRGather:
        dims = self.fn.tid_dims
        box = []
        for d in range(dims):
            box += [locals_.new(f"_bw_i{d}_lo", int32), locals_.new(f"_bw_i{d}_hi", int32)]
        writes = list({w.array.name: w.array for w in self.writes}.values())
        here = [ir.IRCast(ir.IRTid(d, int32), int64) for d in range(dims)]
        # inside G: every contribution, the first one starting each array's sum
        body: list = []
        sums: dict = {}  # written array name -> its sum local
        for w in self.writes:
            e = self.contribution(w, locals_, body)
            if w.array.name not in sums:
                sums[w.array.name] = locals_.assign(e, body, "_ad_sum")
            else:
                acc = sums[w.array.name]
                body.append(ir.IRAssign(acc, ir.IRCall("add", [acc, e], acc.type)))
        # on the rim (the points outside G that interior points write): the contributions whose point is in I
        rim: list = []
        rim_sums = {a.name: locals_.new("_ad_sum", a.type.dtype) for a in writes}
        for a in writes:
            rim.append(ir.IRAssign(rim_sums[a.name], _zero(a.type.dtype)))
        for w in self.writes:
            stmts: list = []
            e = self.contribution(w, locals_, stmts)
            acc = rim_sums[w.array.name]
            stmts.append(ir.IRAssign(acc, ir.IRCall("add", [acc, e], acc.type)))
            rim.append(ir.IRIf(_inside(w.offsets, box), stmts, []))
        for version, table in ((body, sums), (rim, rim_sums)):
            for a in writes:
                acc = table[a.name]
                place = ir.IRArrayElem(a, list(here), acc.type)
                version.append(ir.IRAssign(place, ir.IRCall("add", [ir.IRArrayElem(a, list(here), acc.type), acc],
                                                            acc.type)))
        clears = []
        for array, offsets, value, cond in self.clears:
            at = [ir.IRCast(ir.IRTid(d, int32) if c == 0 else op("add", ir.IRTid(d, int32), i32(c)), int64)
                  for d, c in enumerate(offsets)]
            clear = ir.IRAssign(ir.IRArrayElem(array, at, value.type), value)
            clears.append(clear if cond is None else ir.IRIf(cond, [clear], []))
        return ir.IRGather(self.low, self.high, body, rim, box, writes, self.reads, clears)

    def contribution(self, w: _Write, locals_: Locals, out: list) -> ir.IRExpr:
        """Appends to ``out`` a copy of the slice of ``w`` at ``tid - offsets`` (its locals fresh) and returns
        the contribution there."""
        stmts = [self.program[q] for q in w.slice]
        renamed: dict = {}
        for a in stmts:
            if a.target.name not in renamed:
                renamed[a.target.name] = locals_.new(f"{a.target.name}_q", a.target.type)
        shift = _Shift(w.offsets, renamed)
        out += shift.stmts(stmts)
        return shift.expr(w.value)


def _zero(t) -> ir.IRExpr:
    if t in _FLOATS:
        return ir.IRConst(0.0, t)
    return ir.IRConstruct([ir.IRConst(0.0, t._dtype)] * math.prod(t._shape), t)


def _inside(offsets, box) -> ir.IRExpr:
    """``tid - offsets`` is in the box ``[box[2d], box[2d + 1])`` of every dimension ``d``."""
    cond = None
    for d, c in enumerate(offsets):
        point = ir.IRTid(d, int32) if c == 0 else op("sub" if c > 0 else "add", ir.IRTid(d, int32), i32(abs(c)))
        for test in (ir.IRCall("ge", [point, box[2 * d]], bool_), ir.IRCall("lt", [point, box[2 * d + 1]], bool_)):
            cond = test if cond is None else ir.IRCall("logical_and", [cond, test], bool_)
    return cond


def _clear(s, arrays: set) -> bool:
    """``s`` is ``a[idx] = 0`` on an array parameter ``a``, or that under the test of the launch's keep mask
    (the reverse of a store clears its adjoint, ``adjoint.KEEP_PARAM``)."""
    if isinstance(s, ir.IRIf) and not s.orelse and len(s.body) == 1 and _names(s.cond) == {KEEP_PARAM}:
        s = s.body[0]
    if not (isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRArrayElem)):
        return False
    t, v = s.target, s.value
    if not (isinstance(t.array, ir.IRLocal) and t.array.name in arrays):
        return False
    parts = v.args if isinstance(v, ir.IRConstruct) else [v]
    return all(isinstance(p, ir.IRConst) and p.value == 0 for p in parts)


def _plain_add(s: ir.IRAssign, arrays: set):
    """``(array, indices, e)`` when ``s`` is ``a[idx] = a[idx] + e`` on an array parameter ``a``."""
    t, v = s.target, s.value
    if not (isinstance(t, ir.IRArrayElem) and isinstance(t.array, ir.IRLocal) and t.array.name in arrays):
        return None
    if not (isinstance(v, ir.IRCall) and v.op == "add" and len(v.args) == 2 and v.type == t.type):
        return None
    place, e = v.args
    if not (isinstance(place, ir.IRArrayElem) and show(place) == show(t)):
        return None
    if t.type not in _FLOATS and getattr(t.type, "_dtype", None) not in _FLOATS:
        return None
    return t.array, t.indices, e


def _root(e):
    while isinstance(e, ir.IRSubarray):
        e = e.array
    return e.name if isinstance(e, ir.IRLocal) else None


class _Offsets:
    """Which int expressions are ``tid(d) + c``, through single-assignment locals of a program."""

    def __init__(self, stmts: list):
        counts = ir.assignment_counts(stmts)
        self.defs = {s.target.name: s.value for s in ir.walk(stmts)
                     if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal)
                     and counts.get(s.target.name) == 1}

    def of(self, indices: list, dims: int):
        """The offsets ``(c_0, ..., c_{dims-1})`` when index ``k`` is ``tid(k) + c_k`` for every ``k``."""
        if len(indices) != dims:
            return None
        out = []
        for k, index in enumerate(indices):
            found = self.affine(index)
            if found is None or found[0] != k:
                return None
            out.append(found[1])
        return tuple(out)

    def affine(self, e, depth: int = 0):
        if depth > 64:
            return None
        if isinstance(e, ir.IRCast) and e.type in (int32, int64) and e.arg.type in (int32, int64):
            return self.affine(e.arg, depth + 1)
        if isinstance(e, ir.IRTid):
            return e.dim, 0
        if isinstance(e, ir.IRLocal) and e.name in self.defs:
            return self.affine(self.defs[e.name], depth + 1)
        if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2 and e.type in (int32, int64):
            a, b = e.args
            if e.op == "add" and _int(a) is not None:
                a, b = b, a
            c, inner = _int(b), self.affine(a, depth + 1)
            if c is None or inner is None or abs(c) >= 2**20:
                return None
            return inner[0], inner[1] + (c if e.op == "add" else -c)
        return None


def _int(e):
    if isinstance(e, ir.IRConst) and e.type in (int32, int64) and isinstance(e.value, int):
        return e.value
    return None


def _slice(program: list, pos: int, value) -> tuple:
    """The positions of the assignments before ``pos`` that ``value`` depends on, and their cost (calls and
    loads of them and of ``value``), or cost None when one is not cheap (``CHEAP_OPS``)."""
    needed = _names(value)
    picked = []
    for q in range(pos - 1, -1, -1):
        s = program[q]
        if isinstance(s.target, ir.IRLocal) and s.target.name in needed:
            picked.append(q)
            needed.discard(s.target.name)
            needed |= _names(s.value)
    picked.reverse()
    cost = 0
    for e in [program[q].value for q in picked] + [value]:
        c = _cost(e)
        if c is None:
            return picked, None
        cost += c
    return picked, cost


def _names(e) -> set:
    return {n.name for n in ir.walk(e) if isinstance(n, ir.IRLocal)}


_FREE = (ir.IRConst, ir.IRLocal, ir.IRTid, ir.IRCast, ir.IRArrayShape, ir.IRComponent, ir.IRConstruct)


def _cost(e):
    """Calls and loads in ``e``, or None when it holds something else than cheap arithmetic and float loads."""
    cost = 0
    for n in ir.walk(e):
        if isinstance(n, ir.IRCall):
            if n.op not in CHEAP_OPS:
                return None
            cost += 1
        elif isinstance(n, ir.IRArrayElem):
            dtype = getattr(n.type, "_dtype", n.type)
            if dtype not in _FLOATS or not isinstance(n.array, ir.IRLocal):
                return None
            cost += 1
        elif not isinstance(n, _FREE):
            return None
    return cost


class _Shift(ir.Rewriter):
    """A copy of a slice evaluated at ``tid - offsets``, the locals it assigns renamed (fresh, zero at the
    start, as the originals are at the start of the body)."""

    def __init__(self, offsets: tuple, renamed: dict):
        self.offsets, self.renamed = offsets, renamed

    def r_IRLocal(self, e: ir.IRLocal):
        found = self.renamed.get(e.name)
        return ir.IRLocal(found.name, e.type) if found is not None else ir.IRLocal(e.name, e.type)

    def r_IRTid(self, e: ir.IRTid):
        c = self.offsets[e.dim]
        tid = ir.IRTid(e.dim, e.type)
        return tid if c == 0 else op("sub" if c > 0 else "add", tid, i32(abs(c)))
