"""adjoint_wrap: the interior of a backward kernel whose array indices wrap around (periodic ``%``).

A periodic stencil reads ``u[(i + n - 1) % n]``; its backward kernel adds into
``adj_u[(i + n - 1) % n]``, which the row analysis of ``adjoint.py`` cannot bound, so every scatter
would be atomic. But where ``0 <= i - 1 < n`` that index is ``i - 1``. ``periodic_interior(fn)``
finds, in the normal form of a kernel, each top-level ``w = mod(x, m)`` (int32) used as an array
index whose operands are affine: ``x = tid(d) + c + k * m`` with an int constant ``c``, ``k >= 0``,
and ``m`` a launch-invariant value (a constant, an unassigned int parameter or an array parameter's
shape, possibly through single-assignment locals). In the box ``0 <= tid(d) + c < m`` (which also
makes ``m > 0`` and ``x >= 0``, so C's ``%`` is the mathematical one there) ``w == tid(d) + c``; the
box also stops short of the points where an int32 partial sum of ``x`` could wrap. The result is the
body with those definitions replaced by ``w = tid(d) + c`` and the box (per launch dimension, int64
bounds for ``IRInteriorSplit``).

The backward kernel then runs that body in the box with plain, phased adds (its reads are rows
``tid(0) + c`` again), and the original body, with atomic adds, at the few points outside it
(``adjoint_kernel``). Nothing here is assumed: each rewrite is the value of ``%`` in the box.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.analysis import assignment_counts
from ..types.arrays import ArrayType
from ..types.scalars import int32, int64
from .build import op

_INT32_LIMIT = 2**31  # int32 values are < 2**31


@dataclass
class PeriodicInterior:
    body: list  # the normal form's body with the wrapped indices of the box replaced
    lower: list  # per launch dimension: an int64 lower bound of the box, or None
    upper: list  # and the upper bound (exclusive), or None


@dataclass
class _Affine:
    """``tid(dim) + const + sum(coeff * atom)``: ``dim`` None for no tid, atoms keyed by name."""

    dim: int | None
    const: int
    atoms: dict  # key -> [invariant expression, coefficient]


def periodic_interior(fn: ir.IRFunction) -> PeriodicInterior | None:
    """The box where the wrapped array indices of ``fn`` (a kernel's normal form) are offsets of
    ``tid()``, and its body there; None when no index wraps that way."""
    return _Finder(fn).run()


class _Finder:
    def __init__(self, fn: ir.IRFunction):
        self.fn = fn
        counts = assignment_counts(fn.body)
        self.params = {n for n, t in fn.params if counts.get(n, 0) == 0}
        self.arrays = {n for n, t in fn.params if isinstance(t, ArrayType)}
        # single-assignment locals of top-level statements: their definitions (operands of affine indices)
        names = {n for n, _ in fn.params}  # a parameter assigned once holds two values
        self.defs = {s.target.name: s.value for s in fn.body if isinstance(s, ir.IRAssign)
                     and isinstance(s.target, ir.IRLocal) and counts.get(s.target.name) == 1
                     and s.target.name not in names}
        self.indices = {i.name for e in ir.walk(fn.body) if isinstance(e, ir.IRArrayElem)
                        for i in e.indices if isinstance(i, ir.IRLocal)}
        self.bounds: list = []  # (dim, "lower" | "upper", int64 expression)

    def run(self) -> PeriodicInterior | None:
        tids: dict = {}  # dim -> a top-level single-assignment local holding tid(dim), defined so far
        body, changed = [], False
        for s in self.fn.body:
            new = None
            if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and s.target.name in self.defs:
                if isinstance(s.value, ir.IRTid):
                    tids.setdefault(s.value.dim, s.target)
                elif s.target.name in self.indices:
                    new = self.rewrite(s, tids)
            changed = changed or new is not None
            body.append(s if new is None else new)
        if not changed:
            return None
        dims = self.fn.tid_dims
        lower: list = [None] * dims
        upper: list = [None] * dims
        for dim, side, value in self.bounds:
            into, join = (lower, "max") if side == "lower" else (upper, "min")
            into[dim] = value if into[dim] is None else op(join, into[dim], value)
        return PeriodicInterior(body, lower, upper)

    def rewrite(self, s: ir.IRAssign, tids: dict):
        """``w = tid + c`` for ``w = mod(x, m)`` with its box's bounds noted, or None."""
        v = s.value
        if not (isinstance(v, ir.IRCall) and v.op == "mod" and len(v.args) == 2 and s.target.type is int32
                and all(a.type is int32 for a in v.args)):
            return None
        x, m = self.affine(v.args[0]), self.affine(v.args[1])
        if x is None or m is None or x.dim is None or m.dim is not None or x.dim not in tids:
            return None
        if m.atoms:  # m is one invariant value
            if m.const != 0 or len(m.atoms) != 1:
                return None
            (key, (m_expr, coeff)), = m.atoms.items()
            if coeff != 1 or set(x.atoms) - {key} or x.atoms.get(key, [None, 0])[1] < 0:
                return None
            c, modulus = x.const, ir.IRCast(_copy(m_expr), int64)
        else:  # a constant modulus
            if m.const <= 0 or x.atoms:
                return None
            k, c = divmod(x.const, m.const)
            if k < 0:  # x < 0 somewhere in the box: C's % is not the mathematical one there
                return None
            key, m_expr, modulus = None, None, ir.IRConst(m.const, int64)
        partials = self.partials(v.args[0], key, x.dim)
        if partials is None:
            return None
        # 0 <= tid + c < m
        self.bounds += [(x.dim, "lower", ir.IRConst(-c, int64)),
                        (x.dim, "upper", op("sub", modulus, ir.IRConst(c, int64)))]
        for pc, pk in partials:  # tid + pc + pk * m <= 2**31 - 1
            limit = ir.IRConst(_INT32_LIMIT - pc, int64)
            if pk:
                limit = op("sub", limit, op("mul", ir.IRConst(pk, int64), ir.IRCast(_copy(m_expr), int64)))
            self.bounds.append((x.dim, "upper", limit))
        offset = ir.IRCall("add", [tids[x.dim], ir.IRConst(c, int32)], int32, no_wrap=True)
        return ir.IRAssign(s.target, offset if c else tids[x.dim])

    def affine(self, e) -> _Affine | None:
        if isinstance(e, ir.IRTid):
            return _Affine(e.dim, 0, {})
        if isinstance(e, ir.IRConst) and e.type in (int32, int64) and isinstance(e.value, int):
            return _Affine(None, e.value, {})
        if isinstance(e, ir.IRLocal) and e.name in self.defs:
            return self.affine(self.defs[e.name])
        if isinstance(e, ir.IRLocal) and e.name in self.params and e.type is int32:
            return _Affine(None, 0, {("param", e.name): [e, 1]})
        if (isinstance(e, ir.IRArrayShape) and isinstance(e.array, ir.IRLocal) and e.array.name in self.params
                and e.array.name in self.arrays and e.type is int32):
            return _Affine(None, 0, {("shape", e.array.name, e.dim): [e, 1]})
        if isinstance(e, ir.IRCall) and e.op in ("add", "sub") and len(e.args) == 2 and e.type is int32:
            a, b = (self.affine(x) for x in e.args)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "add" else -1
            if b.dim is not None and (sign < 0 or a.dim is not None):
                return None
            atoms = {k: list(v) for k, v in a.atoms.items()}
            for k, (expr, coeff) in b.atoms.items():
                atoms.setdefault(k, [expr, 0])[1] += sign * coeff
            return _Affine(a.dim if a.dim is not None else b.dim, a.const + sign * b.const,
                           {k: v for k, v in atoms.items() if v[1]})
        return None

    def partials(self, e, key, dim) -> list | None:
        """``(c, k)`` of every int32 add or sub in ``e`` (through definitions) whose value
        ``tid(dim) + c + k * m`` may reach the int32 limit in the box; None when one might wrap in
        a way no upper bound of the box excludes."""
        out: list = []
        stack = [e]
        while stack:
            e = stack.pop()
            if isinstance(e, ir.IRLocal) and e.name in self.defs:
                stack.append(self.defs[e.name])
                continue
            if not (isinstance(e, ir.IRCall) and e.op in ("add", "sub")):
                continue
            stack.extend(e.args)
            if e.no_wrap:
                continue
            a = self.affine(e)
            k = a.atoms.get(key, [None, 0])[1] if a is not None else 0
            if a is None or set(a.atoms) - {key} or k < 0 or abs(a.const) > 2**30:
                return None
            if a.dim is None:  # c + k * m with 1 <= m < 2**31: fits unless k > 1 or c > 0
                if k > 1 or (k == 1 and a.const > 0):
                    return None
                continue
            if a.dim != dim:
                return None
            if k or a.const > 0:  # the value is >= 0 in the box; only its upper end can wrap
                out.append((a.const, k))
        return out


def _copy(e):
    return ir.Rewriter().expr(e)
