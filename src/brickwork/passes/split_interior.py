"""split_interior: index-set splitting of a kernel whose body is guarded by affine tests of ``tid()``.

Warp-style stencils launch over the whole array and test each point::

    i, j = wp.tid()
    if i < 1 or i > n - 2 or j < 1 or j > a.shape[1] - 2:
        return
    ...

The first top-level ``if`` whose condition is a conjunction (``and``, or a negated ``or``) of
comparisons ``tid_d + c OP bound`` (``OP`` one of ``< <= > >=``, ``c`` an int constant, ``bound``
built from constants, int parameters and array shapes, none of them assigned in the kernel) is
known inside a box of the grid. The statements from that ``if`` on become an ``IRInteriorSplit``:
inside the box, the ``if`` is replaced by the branch it takes there; elsewhere the original
statements run. The target loops over the box without the test (see ``targets/cpu/unit.py``).

The condition may also be a local assigned once, by a top-level statement before the ``if``,
from such a conjunction (the flattened form of backward kernels: ``t = gt(i, 0)``, ``c = logical_and(t,
u)``, ``if c``); the pass looks through such locals, and since their value is known in the box,
every later ``if`` on the same local also runs only its taken branch there (a backward kernel tests
its guard once for the forward replay and once for the reverse sweep).

Only the interpretation of the condition changes, never its value: the bounds are the guard's
own expressions, evaluated once per launch in the same arithmetic, so both versions agree at
every point (where ``tid + c`` could wrap in int32, the box stops short of the points where it does).

Backward kernels with ``scatter_radius`` split too: the target runs their interior points in its
phases first, then the rest (``targets/cpu/unit.py``), so the interior's reverse sweep runs
without the guard.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.analysis import assignment_counts
from ..ir.printer import expr as show
from ..types.scalars import bool_, int32, int64
from .build import op

_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}  # a OP b == b FLIP[OP] a
_NEGATE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}  # not (a OP b) == a NEGATE[OP] b
_INVARIANT_OPS = ("add", "sub", "mul", "neg", "min", "max")


@dataclass(frozen=True)
class SplitInterior:
    name: str = "split_interior"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not fn.is_kernel or not any(isinstance(s, ir.IRIf) for s in fn.body):
            return fn  # no guard at the top level: nothing to split
        fn = ir.Rewriter().function(fn)
        analysis = _Guards(fn)
        for pos, s in enumerate(fn.body):
            if not isinstance(s, ir.IRIf):
                continue
            found = analysis.interior(s, fn.body[:pos])
            if found is None:
                continue
            taken, bounds = found
            rest = fn.body[pos + 1:]
            guard = s.cond.name if isinstance(s.cond, ir.IRLocal) else None
            # a backward kernel's tests that an adjoint array was passed are launch-invariant: the interior
            # assumes them, and is empty in a launch where one fails
            copy = _KnownGuard(guard, taken, analysis if fn.scatter_radius is not None else None)
            interior = copy.stmts((s.body if taken else s.orelse) + rest)
            if copy.assumed:
                bounds.append((0, "upper", _only_if(copy.assumed)))
            lower, upper = analysis.box(bounds)
            # outside the box the guard takes its other branch, unless the box stops short of int32 wrapping
            outside = _KnownGuard(guard, not taken).stmts((s.orelse if taken else s.body) + rest)
            # idle: a point outside the box has no effect (the statements before the guard run there too)
            idle = (not analysis.clipped and _assigns_only_locals(fold_flags(outside))
                    and _assigns_only_locals(fn.body[:pos]))
            split = ir.IRInteriorSplit(lower, upper, interior, fn.body[pos:], idle_outside=idle)
            fn.body = fn.body[:pos] + [split]
            break
        return fn


class _KnownGuard(ir.Rewriter):
    """Copies the interior's statements where the guard local ``name`` is known to be ``taken``:
    an ``if`` on it becomes its taken branch, any other read the constant. With ``invariant`` (the
    guard analysis), an ``if`` whose test is a launch-invariant comparison also becomes its body, the
    test kept in ``assumed`` (the box must be empty where one fails)."""

    def __init__(self, name: str | None, taken: bool, invariant: "_Guards | None" = None):
        self.name, self.taken, self.invariant = name, taken, invariant
        self.assumed: list = []

    def r_IRIf(self, s: ir.IRIf):
        if isinstance(s.cond, ir.IRLocal) and s.cond.name == self.name:
            return self.stmts(s.body if self.taken else s.orelse)
        cond = s.cond
        if (self.invariant is not None and isinstance(cond, ir.IRCall) and cond.op in _FLIP
                and all(self.invariant._invariant(a) for a in cond.args)):
            test = _Inline(self.invariant.defs).expr(cond)
            if all(show(test) != show(t) for t in self.assumed):
                self.assumed.append(test)
            return self.stmts(s.body)
        return self.copy(s)

    def r_IRLocal(self, e: ir.IRLocal):
        if e.name == self.name:
            return ir.IRConst(self.taken, e.type)
        return self.copy(e)


class _Guards:
    """Which top-level ``if`` conditions are affine in ``tid()``, and the box where they are known."""

    def __init__(self, fn: ir.IRFunction):
        self.fn = fn
        self.counts = assignment_counts(fn.body)
        self.params = {name: t for name, t in fn.params if self.counts.get(name, 0) == 0}
        self.tid_of: dict[str, int] = {}
        self.defs: dict = {}  # single-assignment locals of top-level statements before the if -> value
        self.clipped = False  # a bound stops the box short of where an int32 partial sum could wrap

    def interior(self, s: ir.IRIf, before: list):
        """``(taken, bounds)``: the branch the ``if`` takes in the box and the box's bounds, or None.

        An ``if`` that only returns is an exit guard: its box is where the condition is false;
        otherwise the box is where it is true (the branch that does the work), else where it is false.
        """
        # tid locals: assigned once in the kernel, from tid(d), by a top-level statement before the if
        param_names = {name for name, _ in self.fn.params}  # a parameter assigned once holds two values
        self.defs = {t.target.name: t.value for t in before
                     if isinstance(t, ir.IRAssign) and isinstance(t.target, ir.IRLocal)
                     and self.counts.get(t.target.name) == 1 and t.target.name not in param_names}
        self.tid_of = {name: v.dim for name, v in self.defs.items() if isinstance(v, ir.IRTid)}
        exit_guard = len(s.body) == 1 and isinstance(s.body[0], ir.IRReturn) and s.body[0].value is None
        for want in ((False,) if exit_guard else (True, False)):
            atoms = self._atoms(s.cond, want)
            if atoms:
                bounds = [self._bound(cmp, truth) for cmp, truth in atoms]
                if all(b is not None for b in bounds):
                    return want, [b for group in bounds for b in group]
        return None

    def _atoms(self, cond, want: bool):
        """Comparisons that must all have their given truth value for ``cond`` to be ``want``."""
        if isinstance(cond, ir.IRLocal) and cond.name in self.defs and cond.type is bool_:
            return self._atoms(self.defs[cond.name], want)
        if isinstance(cond, ir.IRCall):
            if cond.op == "logical_not" and len(cond.args) == 1:
                return self._atoms(cond.args[0], not want)
            if (cond.op, want) in (("logical_and", True), ("logical_or", False)):
                parts = [self._atoms(a, want) for a in cond.args]
                return None if any(p is None for p in parts) else [a for p in parts for a in p]
            if cond.op in _FLIP and len(cond.args) == 2:
                return [(cond, want)]
        return None

    def _bound(self, cmp: ir.IRCall, want: bool):
        """``[(dim, "lower" | "upper", int64 expression)]`` of one comparison, or None."""
        left, right = cmp.args
        if not all(a.type in (int32, int64) for a in (left, right)):
            return None
        relation = cmp.op
        tid_side, other = self._tid_side(left), right
        if tid_side is None:
            tid_side, other, relation = self._tid_side(right), left, _FLIP[relation]
        if tid_side is None or not self._invariant(other):
            return None
        if not want:
            relation = _NEGATE[relation]
        dim, offset, reach = tid_side
        out = [(dim, "upper", ir.IRConst(2**31 - reach, int64))] if reach > 0 else []
        self.clipped = self.clipped or reach > 0
        # tid + offset REL other  <=>  tid REL other - offset  (exact in int64: the tid side does not wrap)
        adjust = {"lt": 0, "le": 1, "gt": 1, "ge": 0}[relation] - offset
        side = "upper" if relation in ("lt", "le") else "lower"
        if _int_const(other) is not None:
            return out + [(dim, side, ir.IRConst(_int_const(other) + adjust, int64))]
        value = _Inline(self.defs).expr(other)
        if value.type != int64:
            value = ir.IRCast(value, int64)
        if adjust:
            value = op("add", value, ir.IRConst(adjust, int64))
        return out + [(dim, side, value)]

    def _tid_side(self, e):
        """``(dim, offset, reach)`` when ``e`` is ``tid_d + offset``, else None.

        ``reach`` is the largest partial offset added in int32 arithmetic that may wrap (0 if none):
        the equivalence with ``tid_d`` then needs ``tid_d + reach <= 2**31 - 1``, which the box adds.
        """
        if isinstance(e, ir.IRCast) and e.type == int64 and e.arg.type in (int32, int64):
            return self._tid_side(e.arg)
        if isinstance(e, ir.IRLocal) and e.name in self.tid_of:
            return self.tid_of[e.name], 0, 0
        if isinstance(e, ir.IRTid):
            return e.dim, 0, 0
        if isinstance(e, ir.IRLocal) and e.name in self.defs:
            return self._tid_side(self.defs[e.name])
        if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2:
            a, b = e.args
            if e.op == "add" and _int_const(a) is not None:
                a, b = b, a
            c = _int_const(b)
            inner = self._tid_side(a)
            if c is None or inner is None:
                return None
            dim, offset, reach = inner
            offset += c if e.op == "add" else -c
            if abs(offset) >= 2**30:
                return None
            if e.type == int32 and not e.no_wrap:
                reach = max(reach, offset)
            return dim, offset, reach
        return None

    def _invariant(self, e) -> bool:
        """Whether ``e`` is the same at every grid point: constants, unassigned parameters, their shapes."""
        if _int_const(e) is not None:
            return True
        if isinstance(e, ir.IRLocal) and e.name in self.defs:
            return e.type in (int32, int64) and self._invariant(self.defs[e.name])
        if isinstance(e, ir.IRLocal):
            return e.name in self.params and e.type in (int32, int64)
        if isinstance(e, ir.IRArrayShape):
            return isinstance(e.array, ir.IRLocal) and e.array.name in self.params
        if isinstance(e, ir.IRCast):
            return e.type in (int32, int64) and self._invariant(e.arg)
        if isinstance(e, ir.IRCall) and e.op in _INVARIANT_OPS:
            return all(self._invariant(a) for a in e.args)
        return False

    def box(self, bounds):
        """Per launch dimension: the greatest lower and least upper bound (None where there is none)."""
        lower: list = [None] * self.fn.tid_dims
        upper: list = [None] * self.fn.tid_dims
        for dim, side, value in bounds:
            into, join = (lower, "max") if side == "lower" else (upper, "min")
            into[dim] = value if into[dim] is None else op(join, into[dim], value)
        return lower, upper


class _Inline(ir.Rewriter):
    """A copy of a bound with the locals it reads replaced by their (invariant) definitions: bounds are
    evaluated once per launch, outside the body."""

    def __init__(self, defs: dict):
        self.defs = defs

    def r_IRLocal(self, e: ir.IRLocal):
        if e.name in self.defs:
            return self.expr(self.defs[e.name])
        return self.copy(e)


def fold_flags(stmts: list) -> list:
    """``stmts`` with every ``if`` on a bool local assigned once, from a constant or such a local, replaced by
    the branch it takes (the exit flags of the normal form), until none is left."""
    while True:
        folder = _FlagFolder(stmts)
        stmts = folder.fold(stmts)
        if not folder.changed:
            return stmts


class _FlagFolder:
    def __init__(self, stmts: list):
        counts = assignment_counts(stmts)
        self.defs = {n.target.name: n.value for n in ir.walk(stmts) if isinstance(n, ir.IRAssign)
                     and isinstance(n.target, ir.IRLocal) and n.target.type is bool_ and counts.get(n.target.name) == 1}
        self.changed = False

    def value(self, e, depth: int = 0):
        if isinstance(e, ir.IRConst) and isinstance(e.value, bool):
            return e.value
        if isinstance(e, ir.IRLocal) and e.name in self.defs and depth < 64:
            return self.value(self.defs[e.name], depth + 1)
        return None

    def fold(self, block: list) -> list:
        out = []
        for s in block:
            known = self.value(s.cond) if isinstance(s, ir.IRIf) else None
            if known is not None:
                self.changed = True
                out += self.fold(s.body if known else s.orelse)
            elif isinstance(s, ir.IRIf):
                out.append(ir.IRIf(s.cond, self.fold(s.body), self.fold(s.orelse)))
            else:
                out.append(s)
        return out


def _assigns_only_locals(stmts: list) -> bool:
    """Whether ``stmts`` only assign locals (under ``if``s) before a ``return``: no store, atomic, print, loop
    or call of a function."""
    for s in stmts:
        if isinstance(s, ir.IRReturn) and s.value is None:
            return True  # what follows does not run
        if isinstance(s, ir.IRIf):
            if not (_assigns_only_locals(s.body) and _assigns_only_locals(s.orelse)):
                return False
        elif not (isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal)):
            return False
        elif any(isinstance(n, ir.IRFuncCall) or isinstance(n, ir.IRCall) and n.op.startswith("atomic_")
                 for n in ir.walk(s.value)):
            return False
    return True


def _only_if(tests: list):
    """An upper bound of the box: no bound where every test holds, 0 (an empty box) otherwise."""
    cond = tests[0]
    for t in tests[1:]:
        cond = ir.IRCall("logical_and", [cond, t], bool_)
    return ir.IRSelect(cond, ir.IRConst(2**31, int64), ir.IRConst(0, int64), int64)


def _int_const(e):
    if isinstance(e, ir.IRConst) and e.type in (int32, int64) and isinstance(e.value, int):
        return e.value
    return None
