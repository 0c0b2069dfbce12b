"""select_branches: an ``if`` that only computes values becomes computed values and selects.

In a vectorized loop (the innermost loop of a launch, every ``la.inner`` loop) a vector of
iterations runs both sides of each ``if`` anyway. When the branches may run under a false
condition, g++ still keeps them apart with masked arithmetic (every operation under a mask, the
masks combined for nested ``if``\\ s), which costs more than computing both sides plainly and
selecting; written as selects, a PLM limiter's loop took 205 instead of 286 instructions per
vector and a 2-D hydro stage 14 % less time. So::

    slope = 0.0                       slope = 0.0
    if dl * dr > 0.0:                 _c = dl * dr > 0.0
        slope = mag           ->      _t = mag
        if centred < 0.0:             _u = -_t
            slope = -mag              _t = select(centred < 0.0, _u, _t)   (the inner if, first)
                                      slope = select(_c, _t, slope)

An ``if`` qualifies when its condition and every statement of both branches can be evaluated
where the program would not (``ir.speculatable``: arithmetic, comparisons, min/max/abs over
scalars, float division; no memory access, no integer division, no call), every statement
assigns a scalar local, and the branches hold at most ``max_ops`` operations (the speculated work
stays small). Each branch's assignments go to fresh locals in order (a later one reads the
earlier ones' values), then every local either branch assigns takes ``select(cond, then, else)``:
the values are the branching program's, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..types.scalars import is_scalar_type


@dataclass(frozen=True)
class SelectBranches:
    name: str = "select_branches"
    max_ops: int = 32

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not ir.contains(fn.body, ir.IRIf):
            return fn  # no branch to turn into selects
        rewriter = _Selects(fn, self.max_ops)
        out = rewriter.function(fn)
        out.locals.update(rewriter.new_locals)
        return out


def _operations(e) -> int:
    return sum(1 for n in ir.walk(e) if isinstance(n, ir.IRCall))


class _Renamed(ir.Rewriter):
    """Reads of the locals in ``names`` replaced by the fresh locals holding their new values."""

    def __init__(self, names: dict):
        self.names = names

    def r_IRLocal(self, e):
        return self.names.get(e.name, e)


class _Selects(ir.Rewriter):
    def __init__(self, fn: ir.IRFunction, max_ops: int):
        self.max_ops = max_ops
        self.taken = set(fn.locals) | {name for name, _ in fn.params}
        self.new_locals: dict = {}

    def fresh(self, t) -> ir.IRLocal:
        n = len(self.new_locals)
        while f"_sel{n}" in self.taken:
            n += 1
        name = f"_sel{n}"
        self.taken.add(name)
        self.new_locals[name] = t
        return ir.IRLocal(name, t)

    def qualifies(self, s: ir.IRIf) -> bool:
        if not (is_scalar_type(s.cond.type) and ir.speculatable(s.cond)):
            return False
        ops = 0
        for a in s.body + s.orelse:
            if not (isinstance(a, ir.IRAssign) and isinstance(a.target, ir.IRLocal) and is_scalar_type(a.target.type)
                    and ir.speculatable(a.value)):
                return False
            ops += _operations(a.value)
        return 0 < len(s.body) + len(s.orelse) and ops <= self.max_ops

    def r_IRIf(self, s):
        s = self.copy(s)  # nested ifs first: a qualifying inner if is assignments by now
        if not self.qualifies(s):
            return s
        out: list = []
        cond = s.cond
        if not isinstance(cond, (ir.IRLocal, ir.IRConst)):  # evaluated once, before either branch
            held = self.fresh(cond.type)
            out.append(ir.IRAssign(held, cond))
            cond = held
        values: list[dict] = []
        order: dict = {}  # every local either branch assigns -> its type, in first-assignment order
        for branch in (s.body, s.orelse):
            new: dict = {}
            for a in branch:
                temp = self.fresh(a.target.type)
                out.append(ir.IRAssign(temp, _Renamed(new).expr(a.value)))
                new[a.target.name] = temp
                order.setdefault(a.target.name, a.target.type)
            values.append(new)
        for name, t in order.items():
            if name in self.new_locals:  # an inner if's own temporary: read only inside this branch
                continue
            old = ir.IRLocal(name, t)
            then, other = values[0].get(name, old), values[1].get(name, old)
            out.append(ir.IRAssign(ir.IRLocal(name, t), ir.IRSelect(cond, then, other, t)))
        return out
