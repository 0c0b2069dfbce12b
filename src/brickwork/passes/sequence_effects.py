"""sequence_effects: operands evaluated left to right where the order can be seen (the first pass).

Python, and Warp's kernels, evaluate the operands of a call or an operator left to right. The
targets render an expression as nested C++ calls, whose arguments C++ evaluates in no set order
(g++ on x86-64: right to left). The order shows when one operand has an effect (an atomic returns
the old value and writes memory, ``randf(state)`` advances the state, a function writes an array
or prints) and another reads memory or has an effect: ``wp.vec3(wp.randf(s), wp.randf(s),
wp.randf(s))`` must hold the three numbers in the order they were drawn, and
``wp.atomic_add(c, 0, 1.0) + c[0]`` must read ``c[0]`` after the increment.

For such an operator or call (or the bounds of a ``range`` loop), each operand that reads memory
or has an effect is computed, in order, into a new local before the statement (its own operands
first, by the same rule), and the operation reads those locals. Operands that are pure values
stay in place (their order cannot be seen), and so does every expression without such a mix, so
other code is unchanged. A branch of
``x if c else y`` that holds such a mix becomes an ``if`` statement computing the branch taken into
a new local (the other branch must not run). The right of ``and``/``or``, the condition of a
``while`` loop (evaluated every iteration) and the target of a store stay as they are.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from ..ir.walk import owned_fields
from ..types.arrays import ArrayType
from .build import Locals

_LAZY_OPS = ("logical_and", "logical_or")  # the second operand runs only as the first decides


@dataclass(frozen=True)
class SequenceEffects:
    name: str = "sequence_effects"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not ir.has_effect(fn.body):
            return fn  # nothing has an effect: nothing to order (most kernels)
        out = dataclasses.replace(fn, locals=dict(fn.locals), buffers=dict(fn.buffers))
        out.body = _Sequence(out).stmts(fn.body)
        return out


def _operands(e) -> list:
    """(field, index or None, operand) of every expression operand of ``e``, in evaluation order."""
    found = []
    for name in owned_fields(type(e)):
        value = getattr(e, name)
        if isinstance(value, ir.IRExpr):
            found.append((name, None, value))
        elif isinstance(value, list):
            found.extend((name, i, v) for i, v in enumerate(value) if isinstance(v, ir.IRExpr))
    return found


def _visible(e) -> bool:
    """Whether the moment ``e`` is evaluated can be seen: it reads memory or has an effect."""
    return not ir.cannot_fault(e)


class _Sequence(ir.Rewriter):
    def __init__(self, fn: ir.IRFunction):
        self.locals = Locals(fn)
        self.out: list | None = None  # where operands computed ahead of the current statement go

    def ordered(self, e, out: list):
        saved, self.out = self.out, out
        try:
            return self.expr(e)
        finally:
            self.out = saved

    def in_place(self, e):
        saved, self.out = self.out, None
        try:
            return self.expr(e)
        finally:
            self.out = saved

    # -- statements whose expressions run once, before anything else of the statement ---------------
    def r_IRAssign(self, s: ir.IRAssign):
        out: list = []
        value = self.ordered(s.value, out)
        return [*out, ir.IRAssign(self.in_place(s.target), value)]

    def r_IRExprStmt(self, s: ir.IRExprStmt):
        out: list = []
        e = self.ordered(s.expr, out)
        return [*out, ir.IRExprStmt(e)]

    def r_IRReturn(self, s: ir.IRReturn):
        if s.value is None:
            return self.copy(s)
        out: list = []
        value = self.ordered(s.value, out)
        return [*out, ir.IRReturn(value)]

    def r_IRIf(self, s: ir.IRIf):
        out: list = []
        cond = self.ordered(s.cond, out)
        return [*out, ir.IRIf(cond, self.stmts(s.body), self.stmts(s.orelse))]

    def r_IRFor(self, s: ir.IRFor):
        """``range(start, stop, step)``: the bounds run once, in that order, before the loop."""
        out: list = []
        bounds = [("start", None, s.start), ("stop", None, s.stop), ("step", None, s.step)]
        if _mixes(bounds):
            values = {name: self.locals.assign(self.ordered(e, out), out, "_seq") if _visible(e) else self.in_place(e)
                      for name, _, e in bounds}
        else:
            values = {name: self.ordered(e, out) for name, _, e in bounds}
        return [*out, dataclasses.replace(s, var=self.in_place(s.var), body=self.stmts(s.body), **values)]

    # -- expressions -------------------------------------------------------------------------------
    def expr(self, e):
        if self.out is None or not isinstance(e, ir.IRExpr):
            return super().expr(e)
        if isinstance(e, ir.IRSelect):
            if _storable(e) and (_needs_order(e.if_true) or _needs_order(e.if_false)):
                return self.branches(e)
            return dataclasses.replace(e, cond=self.expr(e.cond), if_true=self.in_place(e.if_true),
                                       if_false=self.in_place(e.if_false))
        if isinstance(e, ir.IRCall) and e.op in _LAZY_OPS:
            return dataclasses.replace(e, args=[self.expr(e.args[0]), *map(self.in_place, e.args[1:])])
        operands = _operands(e)
        if not _mixes(operands):
            return super().expr(e)
        lists = {name: list(getattr(e, name)) for name, index, _ in operands if index is not None}
        changes = {}
        for name, index, o in operands:
            value = self.expr(o)
            if _visible(o) and _storable(o):
                value = self.locals.assign(value, self.out, "_seq")
            if index is None:
                changes[name] = value
            else:
                lists[name][index] = value
        return dataclasses.replace(e, **changes, **lists)

    def branches(self, e: ir.IRSelect):
        """``c ? x : y`` whose branch needs an order: an ``if`` that computes the branch taken, in
        order, into a new local."""
        cond = self.locals.assign(self.expr(e.cond), self.out, "_seq")
        result = self.locals.new("_seq", e.type)
        arms = []
        for branch in (e.if_true, e.if_false):
            arm: list = []
            arm.append(ir.IRAssign(result, self.ordered(branch, arm)))
            arms.append(arm)
        self.out.append(ir.IRIf(cond, *arms))
        return result


def _mixes(operands: list) -> bool:
    """Whether one operand has an effect and another reads memory or has one."""
    effects = [ir.has_effect(o) for _, _, o in operands]
    visible = [_visible(o) for _, _, o in operands]  # effects are visible too
    return any(effects[i] and any(visible[:i] + visible[i + 1:]) for i in range(len(operands)))


def _needs_order(e) -> bool:
    """Whether some operation in ``e`` mixes an effect with a read or another effect."""
    return any(isinstance(n, ir.IRExpr) and _mixes(_operands(n)) for n in ir.walk(e))


def _storable(e) -> bool:
    """Whether a local may hold ``e``'s value (arrays and tuples stay where they are)."""
    return not isinstance(e.type, (ArrayType, ir.TupleType))
