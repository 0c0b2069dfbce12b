"""lower_reductions: a slice of an ``outer_reduce`` folds into one accumulator, then stores it.

``IRSliceReduction`` -> ``acc = identity``, the body, ``partials[slice] = acc``; each ``IRLAFold``
updates ``acc`` with the reducer's join (MinLoc/MaxLoc keep the first best cell). A simd loop that
folds gets a simd reduction clause where the join allows one (not for locations, float16, bool),
so a slice still folds in a fixed order and results do not depend on the thread count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir
from ..types.scalars import bool_, float16, int32
from .build import op

ACC = "_la_acc"


@dataclass(frozen=True)
class LowerReductions:
    """``mapping`` "cpu" (here) or "gpu" (per-block slices combine by a tree: ``gpu_lowering.py``)."""

    mapping: str = "cpu"
    name: str = "lower_reductions"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if self.mapping == "gpu":
            from .gpu_lowering import lower_reductions_gpu

            return lower_reductions_gpu(fn)
        if not ir.contains(fn.body, ir.IRSliceReduction):
            return fn
        return _Lower(fn).function(fn)


class _Lower(ir.Rewriter):
    def __init__(self, fn):
        self.fn = fn
        self.reducer = None

    def function(self, fn):
        out = super().function(fn)
        out.locals[ACC] = self.reducer.value_type
        return out

    def acc(self):
        return ir.IRLocal(ACC, self.reducer.value_type)

    def r_IRSliceReduction(self, s: ir.IRSliceReduction):
        r = self.reducer = s.reducer
        identity = ir.IRConst(r.identity(), r.dtype)
        if r.with_location:
            minus = ir.IRConst(-1, int32)
            identity = ir.IRConstruct([identity, minus, minus, minus, minus], r.value_type)
        store = ir.IRAssign(ir.IRArrayElem(s.partials, [self.expr(s.slice_id)], r.value_type), self.acc())
        return [ir.IRAssign(self.acc(), identity), *self.stmts(s.body), store]

    def r_IRFor(self, s: ir.IRFor):
        loop = self.copy(s)
        r = self.reducer
        clause_allowed = r is not None and not r.with_location and r.dtype not in (float16, bool_)
        if clause_allowed and s.simd and ir.contains(s.body, ir.IRLAFold):
            loop = replace(loop, reduction=ir.SimdReduction(r.join, ACC))
        return loop

    def r_IRLAFold(self, s: ir.IRLAFold):
        r, acc, value = self.reducer, self.acc(), self.expr(s.value)
        if r.join in ("sum", "prod"):
            return ir.IRAssign(acc, op("add" if r.join == "sum" else "mul", acc, value))
        if not r.with_location:
            return ir.IRAssign(acc, op(r.join, acc, value))
        better = op("lt" if r.join == "min" else "gt", value, ir.IRField(acc, "value", r.dtype))
        loc = ir.IRConstruct([value, *(self.expr(x) for x in s.location)], r.value_type)
        return ir.IRIf(better, [ir.IRAssign(acc, loc)], [])
