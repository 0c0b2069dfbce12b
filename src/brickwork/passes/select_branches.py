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

A conditional accumulate in a sequential loop (a ``while``, a ``for`` that is not a vector loop), a
float local that one branch adds to or subtracts from and the other leaves alone (``if r2 < h2:
s += w * w * w``), becomes ``s = s + blend(c, x, -0.0)`` (``s - blend(c, x, +0.0)`` for ``-=``),
where ``blend`` selects with bit operations: written as a select, g++ moved ``x``'s arithmetic into
the taken side and branched on ``c`` outside vector loops, mispredicted when ``c`` is data (a
neighbour search's distance test), while a plain sum stays a reduction it vectorizes. Adding -0.0 or
subtracting +0.0 leaves every value as it is, so the results are still the branching program's bits
(a signalling NaN comes back quiet). Elsewhere (code per point, a vector loop) the select stays:
g++ vectorizes it as a masked add, one operation where the blend takes two (the hydro stage's HLLC
flux ran 3 % slower with blends).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from ..types.scalars import float32, float64, is_scalar_type

#: accumulating operations and the operand that leaves the accumulator's bits as they are
_IDENTITY = {"add": -0.0, "sub": 0.0}


@dataclass(frozen=True)
class SelectBranches:
    name: str = "select_branches"
    max_ops: int = 32

    needs = ir.IRIf  # (run_passes skips the pass without one)

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
        self.loops: list = []  # the loops around the statement being rewritten: simd or not, innermost last

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

    def r_IRFor(self, s):
        return self.in_loop(s, s.simd)

    def r_IRWhile(self, s):
        return self.in_loop(s, False)

    def in_loop(self, s, simd: bool):
        self.loops.append(simd)
        try:
            return self.copy(s)
        finally:
            self.loops.pop()

    def r_IRIf(self, s):
        s = self.copy(s)  # nested ifs first: a qualifying inner if is assignments by now
        if not self.qualifies(s):
            return s
        out: list = []
        cond = s.cond
        assigned = {a.target.name for a in s.body + s.orelse}
        if not isinstance(cond, ir.IRConst) and not (isinstance(cond, ir.IRLocal) and cond.name not in assigned):
            # evaluated once, before either branch; held apart from a local the selects below overwrite
            held = self.fresh(cond.type)
            out.append(ir.IRAssign(held, cond))
            cond = held
        values: list[dict] = []
        order: dict = {}  # every local either branch assigns -> its type, in first-assignment order
        last = [{a.target.name: k for k, a in enumerate(branch)} for branch in (s.body, s.orelse)]
        blended: dict = {}  # a local one branch ends by accumulating and the other leaves -> its new value
        sequential = bool(self.loops) and not self.loops[-1]  # in a scalar loop (a vector loop keeps its select)
        for side, branch in enumerate((s.body, s.orelse)):
            new: dict = {}
            for k, a in enumerate(branch):
                name = a.target.name
                value = _Renamed(new).expr(a.value)
                operand = _accumulated(a.target, value) if sequential else None
                if operand is not None and last[side][name] == k and name not in last[1 - side]:
                    value = self.held_operand(value, operand, out)
                    blended[name] = _blended(value, operand, cond, side)
                temp = self.fresh(a.target.type)
                out.append(ir.IRAssign(temp, value))
                new[name] = temp
                order.setdefault(name, a.target.type)
            values.append(new)
        for name, t in order.items():
            if name in self.new_locals:  # an inner if's own temporary: read only inside this branch
                continue
            old = ir.IRLocal(name, t)
            then, other = values[0].get(name, old), values[1].get(name, old)
            out.append(ir.IRAssign(old, blended.get(name) or ir.IRSelect(cond, then, other, t)))
        return out

    def held_operand(self, value: ir.IRCall, operand: int, out: list) -> ir.IRCall:
        """``value`` with its operand ``operand`` in a fresh local assigned in ``out``, unless it is one or a
        constant: the accumulate after the branches reads it after the selects have overwritten the locals it
        reads (``if c: y = 1.0 else: s += y; y = 5.0`` selects y before s)."""
        x = value.args[operand]
        if isinstance(x, ir.IRConst) or isinstance(x, ir.IRLocal) and x.name in self.new_locals:
            return value
        held = self.fresh(x.type)
        out.append(ir.IRAssign(held, x))
        args = list(value.args)
        args[operand] = held
        return dataclasses.replace(value, args=args)


def _accumulated(target: ir.IRLocal, value) -> int | None:
    """Which operand (0 or 1) is ``x`` in ``target = target + x`` (or ``x + target``, ``target - x``), where
    ``target`` is a float32/float64 local, ``x`` does not read it and the right side reads ``target``'s value
    from before the branch; else None."""
    if not (target.type in (float32, float64) and isinstance(value, ir.IRCall) and value.op in _IDENTITY
            and len(value.args) == 2 and all(a.type == target.type for a in value.args)):
        return None
    mine = [isinstance(a, ir.IRLocal) and a.name == target.name for a in value.args]
    if mine[0] and not _reads(value.args[1], target.name):
        return 1
    if value.op == "add" and mine[1] and not _reads(value.args[0], target.name):
        return 0
    return None


def _reads(e, name: str) -> bool:
    return any(isinstance(n, ir.IRLocal) and n.name == name for n in ir.walk(e))


def _blended(value: ir.IRCall, operand: int, cond, side: int) -> ir.IRCall:
    """``value`` (an accumulate) with its operand ``x`` (index ``operand``) replaced by ``blend(cond, x,
    identity)`` (``side`` 0: the accumulate is the if's body) or ``blend(cond, identity, x)`` (its else)."""
    t, x = value.type, value.args[operand]
    identity = ir.IRConst(_IDENTITY[value.op], t)
    args = list(value.args)
    args[operand] = ir.IRCall("blend", [cond, x, identity] if side == 0 else [cond, identity, x], t)
    return dataclasses.replace(value, args=args)
