"""prove_no_overflow: mark the integer arithmetic that provably cannot overflow.

User arithmetic on int32/int64 wraps around (two's complement); a target pays for that where its
native operations leave overflow undefined (C++), and, worse, wrap-around hides from the
vectorizer that ``i + 1`` is affine in ``i``. This pass computes an interval for every int32/int64
expression it can and sets ``IRCall.no_wrap`` on ``add``/``sub``/``mul``/``neg`` whose result
interval fits the type. Known intervals come from:

- constants; ``tid()`` in ``[0, 2**31 - 2]`` (launch checks every extent); array shapes;
- loop-body and index-space indices (``IRFunction.index_ranges``, checked at launch), while no
  other assignment changes them;
- a local assigned exactly once, from its value (and zero, its value before), after that
  assignment in program order;
- a ``for`` variable over a range with a constant step, and a ``par_for_inner`` variable, from
  their bounds (and zero);
- the parameters of an inlined local function, from their arguments.

Everything else is unknown, and its arithmetic keeps wrapping. Run it first: the passes after it
build index arithmetic that is ``no_wrap`` by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir
from ..types.scalars import bool_, is_scalar_type

_LIMITS = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
           "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
           "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}
TID_MAX = 2**31 - 2  # launch requires each extent to be below 2**31
_ARITH = ("add", "sub", "mul", "neg")


@dataclass(frozen=True)
class ProveNoOverflow:
    name: str = "prove_no_overflow"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        return _Prover(fn).function(fn)


def _limits(t):
    return _LIMITS.get(getattr(t, "__name__", None)) if is_scalar_type(t) else None


class _Prover(ir.Rewriter):
    def __init__(self, fn: ir.IRFunction):
        self.counts = ir.assignment_counts(fn.body)
        self.ranges: dict = {}
        for name, (lo, hi, bindings) in fn.index_ranges.items():
            if self.counts.get(name, 0) <= bindings:
                self.ranges[name] = (lo, hi)
        self.fixed = set(self.ranges)  # facts of the launch, not of an assignment

    # -- intervals --------------------------------------------------------------------------------
    def interval(self, e):
        """(lo, hi) of an int expression already rewritten, or None when unknown."""
        if isinstance(e, ir.IRConst) and _limits(e.type) is not None and e.type is not bool_:
            return int(e.value), int(e.value)
        if isinstance(e, ir.IRTid):
            return 0, TID_MAX
        if isinstance(e, ir.IRArrayShape):
            return 0, 2**31 - 1
        if isinstance(e, ir.IRLocal):
            return self.ranges.get(e.name)
        if isinstance(e, ir.IRCast):
            span = self.interval(e.arg) or _limits(e.arg.type)
            return span if self._fits(span, e.type) else None
        if isinstance(e, ir.IRCall) and e.op in _ARITH and e.no_wrap:
            return self.arith(e.op, [self.interval(a) for a in e.args])
        return None

    @staticmethod
    def arith(op, spans):
        if any(s is None for s in spans):
            return None
        if op == "neg":
            (lo, hi), = spans
            return -hi, -lo
        (a, b), (c, d) = spans
        if op == "add":
            return a + c, b + d
        if op == "sub":
            return a - d, b - c
        products = (a * c, a * d, b * c, b * d)
        return min(products), max(products)

    @staticmethod
    def _fits(span, t) -> bool:
        limits = _limits(t)
        return span is not None and limits is not None and limits[0] <= span[0] and span[1] <= limits[1]

    # -- rules ---------------------------------------------------------------------------------------
    def r_IRCall(self, e: ir.IRCall):
        out = self.copy(e)
        if out.no_wrap or e.op not in _ARITH or _limits(e.type) is None:
            return out
        span = self.arith(e.op, [self.interval(a) for a in out.args])
        return replace(out, no_wrap=True) if self._fits(span, e.type) else out

    def r_IRAssign(self, s: ir.IRAssign):
        out = self.copy(s)
        t = out.target
        if isinstance(t, ir.IRLocal) and t.name not in self.fixed and self.counts.get(t.name) == 1:
            span = self.interval(out.value)
            if span is not None:  # locals start at zero until assigned
                self.ranges[t.name] = (min(0, span[0]), max(0, span[1]))
        return out

    def r_IRFor(self, s: ir.IRFor):
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        name = s.var.name
        if name not in self.fixed and self.counts.get(name) == 1 and isinstance(step, ir.IRConst):
            a, b = self.interval(start), self.interval(stop)
            if a is not None and b is not None:
                if s.step_sign > 0:  # zero too: the variable's value before (or without) an iteration
                    self.ranges[name] = (min(0, a[0]), max(0, a[0], b[1] - 1))
                elif s.step_sign < 0:
                    self.ranges[name] = (min(0, a[1], b[0] + 1), max(0, a[1]))
        return replace(s, start=start, stop=stop, step=step, var=s.var, body=self.stmts(s.body))

    def r_IRTeamLoop(self, s: ir.IRTeamLoop):
        lo, hi = self.expr(s.lo), self.expr(s.hi)
        a, b = self.interval(lo), self.interval(hi)
        if s.var.name not in self.fixed and not self.counts.get(s.var.name) and a is not None and b is not None:
            self.ranges[s.var.name] = (min(0, a[0]), max(0, a[0], b[1]))
        return replace(s, member=self.expr(s.member), lo=lo, hi=hi, body=self.stmts(s.body))

    def r_IRInlineBody(self, s: ir.IRInlineBody):
        args = [self.expr(a) for a in s.args]
        for p, a in zip(s.params, args):
            span = self.interval(a)
            if p.name not in self.fixed and not self.counts.get(p.name) and span is not None:
                self.ranges[p.name] = (min(0, span[0]), max(0, span[1]))
        return replace(s, args=args, body=self.stmts(s.body))
