"""lower_reductions: a slice of an ``outer_reduce`` folds into one accumulator, then stores it.

``IRSliceReduction`` -> ``acc = identity``, the body, ``partials[slice] = acc``; each ``IRLAFold``
updates ``acc`` with the reducer's join (MinLoc/MaxLoc keep the first best cell). A unit-step simd
loop that folds (sum, prod, min, max of a type other than float16 and bool) folds into ``n``
accumulators (``lane_count``) that live across the slice's rows: the loop runs in blocks of ``n``,
cell ``start + n * b + l`` into lane ``l`` (a vector register), the row's remainder into lane 0, and
the lanes join ``acc`` in order after the slice's loops. A simd reduction per row would sum its
vector into ``acc`` at the end of every row, a chain of dependent additions that made a 32-cell row
cost as much as its loads. Either way a slice folds in a fixed order, so results do not depend on
the thread count (nor, with the lanes, on the machine's vector width). Other simd loops that fold
get a simd reduction clause where the join allows one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace

from .. import ir
from ..types.fixed_arrays import FixedArrayType
from ..types.scalars import bool_, float16, int32
from .build import Locals, i32, op

ACC = "_la_acc"
LANE_BYTES = 64  # one AVX-512 register; on narrower machines the compiler splits a block of lanes


@dataclass(frozen=True)
class LowerReductions:
    """``mapping`` "cpu" (here) or "gpu" (per-block slices combine by a tree: ``gpu_lowering.py``)."""

    mapping: str = "cpu"
    name: str = "lower_reductions"

    @property
    def needs(self):
        """What ``run_passes`` skips the pass without (the GPU's lowering decides for itself)."""
        return None if self.mapping == "gpu" else ir.IRSliceReduction

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if self.mapping == "gpu":
            from .gpu_lowering import lower_reductions_gpu

            return lower_reductions_gpu(fn)
        if not ir.contains(fn.body, ir.IRSliceReduction):
            return fn
        return _Lower(fn).function(fn)


def lane_count(dtype) -> int:
    """Accumulators of a laned fold: one 64-byte vector of ``dtype`` (4 to 16)."""
    return max(4, min(16, LANE_BYTES // dtype._size))


class _Lower(ir.Rewriter):
    def __init__(self, fn):
        self.fn = fn
        self.reducer = None
        self.lane = None  # the lane the folds being rewritten go to (an int32 expression), or None: acc
        self.lanes = None  # the slice's lane accumulators (a local fixed array), once a loop uses them
        self.locals = None

    def function(self, fn):
        out = dataclasses.replace(fn, locals=dict(fn.locals), buffers=dict(fn.buffers))
        self.locals = Locals(out, first=0)  # the lanes' locals are declared in the output function
        out.body = self.stmts(fn.body)
        return out

    def acc(self):
        return self.locals.named(ACC, self.reducer.value_type)

    def r_IRSliceReduction(self, s: ir.IRSliceReduction):
        r = self.reducer = s.reducer
        identity = ir.IRConst(r.identity(), r.dtype)
        if r.with_location:
            minus = ir.IRConst(-1, int32)
            identity = ir.IRConstruct([identity, minus, minus, minus, minus], r.value_type)
        store = ir.IRAssign(ir.IRArrayElem(s.partials, [self.expr(s.slice_id)], r.value_type), self.acc())
        self.lanes = None
        body = self.stmts(s.body)
        out = [ir.IRAssign(self.acc(), identity)]
        if self.lanes is not None:  # lanes start at the identity and join acc in order at the end
            count = self.lanes.type.shape[0]
            init, fold = self.locals.new("_la_lane", int32), self.locals.new("_la_lane", int32)
            lane = ir.IRArrayElem(self.lanes, [init], r.dtype)
            start = ir.IRConst(r.identity(), r.dtype)
            out.append(ir.IRFor(init, i32(0), i32(count), i32(1), [ir.IRAssign(lane, start)], 1))
            body.append(ir.IRFor(fold, i32(0), i32(count), i32(1),
                                 [self.join(self.acc(), ir.IRArrayElem(self.lanes, [fold], r.dtype))], 1))
        return [*out, *body, store]

    def r_IRFor(self, s: ir.IRFor):
        r = self.reducer
        clause_allowed = r is not None and not r.with_location and r.dtype not in (float16, bool_)
        if not (clause_allowed and s.simd and ir.contains(s.body, ir.IRLAFold)):
            return self.copy(s)
        if self.lane is None and s.step_sign == 1 and isinstance(s.step, ir.IRConst) and s.step.value == 1:
            return self.laned(s)
        return replace(self.copy(s), reduction=ir.SimdReduction(r.join, ACC))

    def laned(self, s: ir.IRFor) -> list:
        """``for i in [start, stop)`` folding into lanes: blocks of ``count`` cells (a simd loop over
        the lanes), then the remainder into lane 0."""
        r = self.reducer
        if self.lanes is None:
            self.lanes = self.locals.new("_la_lanes", FixedArrayType(r.dtype, (lane_count(r.dtype),)))
        count = self.lanes.type.shape[0]
        start, stop = self.locals.new("_la_lane_start", int32), self.locals.new("_la_lane_stop", int32)
        block, lane = self.locals.new("_la_lane_block", int32), self.locals.new("_la_lane", int32)
        out = [ir.IRAssign(start, self.expr(s.start)),
               ir.IRAssign(stop, op("max", self.expr(s.stop), start))]  # an empty row has no cells

        def whole():  # the end of the last whole block
            return op("sub", stop, op("mod", op("sub", stop, start), i32(count)))

        self.lane = lane
        cell = [ir.IRAssign(self.expr(s.var), op("add", block, lane)), *self.stmts(s.body)]
        self.lane = i32(0)
        tail = self.stmts(s.body)
        self.lane = None
        out.append(ir.IRFor(block, start, whole(), i32(count), [
            ir.IRFor(lane, i32(0), i32(count), i32(1), cell, 1, simd=True)], 1))
        out.append(ir.IRFor(self.expr(s.var), whole(), stop, i32(1), tail, 1))
        return out

    def join(self, target, value):
        """``target = target <join> value`` for the reducers without a location."""
        r = self.reducer
        if r.join in ("sum", "prod"):
            return ir.IRAssign(target, op("add" if r.join == "sum" else "mul", target, value))
        return ir.IRAssign(target, op(r.join, target, value))

    def r_IRLAFold(self, s: ir.IRLAFold):
        r, acc, value = self.reducer, self.acc(), self.expr(s.value)
        if self.lane is not None:
            return self.join(ir.IRArrayElem(self.lanes, [self.expr(self.lane)], r.dtype), value)
        if not r.with_location:
            return self.join(acc, value)
        if r.fold == "located":  # a partial that keeps its own location (la/device_fold.py)
            partial = self.locals.named("_la_partial", r.value_type)
            better = op("lt" if r.join == "min" else "gt", ir.IRField(partial, "value", r.dtype),
                        ir.IRField(acc, "value", r.dtype))
            return [ir.IRAssign(partial, value), ir.IRIf(better, [ir.IRAssign(acc, partial)], [])]
        better = op("lt" if r.join == "min" else "gt", value, ir.IRField(acc, "value", r.dtype))
        loc = ir.IRConstruct([value, *(self.expr(x) for x in s.location)], r.value_type)
        return ir.IRIf(better, [ir.IRAssign(acc, loc)], [])
