"""The loops of a row-fused body (``row_fusion``): every stage over each row (k, j) of the slice, in
order, with per-point scratch for one k plane.

A mixin of the CPU mapping's rewriter (``expand_loop_abstraction._CpuRows``: it uses its ``visit``,
``memory_span``, ``row_loop``, ``tmp``..., and sets ``row`` and ``row_base``, which per-point scratch
reads to size and index one plane).
"""

from __future__ import annotations

from .. import ir
from ..types.scalars import int32
from . import row_fusion
from .build import i32, op
from .build import la_geom as _geom
from .build import la_mflat as _mflat

#: ``bovi`` chunks of whole rows (``ninner`` is a row's, a plane's or the box's cells)
WHOLE_ROW_CHUNKS = ("i_pencil", "ij_slab", "kji_cube")


class FusedRows:
    """The row-fusion schedule for ``_CpuRows``."""

    def fused_rows(self, plan: row_fusion.RowFusion) -> list:
        """Stages with i-only halos, fused per row (k, j): each stage over the row's i span, with scratch
        for one k plane (see ``row_fusion``). The cells each stage visits are those of the unfused loops:
        with the memory tag and ``ij_slab`` pieces (bvoi) each stage runs over its plane's one span, ghost
        cells between rows included, stage after stage per plane; a bovi chunk's rows are cut where the
        chunk starts and ends, and a stage grown by di in [lo, hi] visits [i0 + lo, i1 + hi] of each row,
        as the merged spans of the unfused loops do. Row by row, stage s runs one row behind stage s - 1
        (``skewed_rows``)."""
        out: list = []
        self.row = plan
        self.row_base = self.locals.new("_la_row", int32)
        for s in plan.head:
            out.extend(self.r_IRLAScratch(s) if isinstance(s, ir.IRLAScratch) else self.stmts([s]))
        kv = self.locals.new("_la_k", int32)
        start, end = self.slice.start, self.slice.end
        base = ir.IRAssign(self.row_base, op("add", _mflat(kv, i32(0), i32(0)), i32(plan.cmin)))
        if self.cfg.loop == "bvoi" and self.cfg.chunk == "ij_slab" and all(st.inner == "memory" for st in plan.stages):
            # Memory spans of whole planes: each stage over its plane's one span, as unfused (the rows'
            # spans run on to the next row, so their union is that span): no loop per row.
            plane = [base]
            for stage, (lo, hi) in zip(plan.stages, plan.spans):
                m0 = self.tmp(_mflat(kv, start[1], op("add", start[2], i32(lo))), plane)
                m1 = self.tmp(_mflat(kv, end[1], op("add", end[2], i32(hi))), plane)
                self.memory_span(stage, m0, m1, plane)
        else:
            plane = [base, *self.skewed_rows(plan, kv)]
        out.append(self.loop(kv, start[0], end[0], plane))
        self.row = None
        return out

    def skewed_rows(self, plan: row_fusion.RowFusion, kv) -> list:
        """The rows of plane ``kv``, stage s on row t - s at step t. A stage then reads scratch that the
        stage before wrote a step earlier, not the stores just made: a consumer whose cells are shifted
        from its producer's (face i reads cells i - 1 and i) loads vectors that straddle two of those
        stores, which the CPU forwards only once they have left its store buffer, and skewed, the two
        loops of a step are independent, so one's tail overlaps the other's start (PLM + HLL fluxes
        over rows of 33 faces: about 4 % less CPU time). Any order that runs each row's stages in order
        gives the fused order's results: stages share only scratch, written at their own cell, one slot
        per cell of the plane, and a reader finds every row the fused order has written before it."""
        start, end, g = self.slice.start, self.slice.end, _geom
        j0, j1, first_i, last_i = start[1], end[1], start[2], end[2]
        partial = self.cfg.loop == "bovi" and self.cfg.chunk not in WHOLE_ROW_CHUNKS
        out: list = []
        if partial:  # a chunk of logical cells: its first and last rows may be partial, the others are whole
            j0 = self.tmp(ir.IRSelect(op("eq", kv, start[0]), start[1], g("js"), int32), out)
            j1 = self.tmp(ir.IRSelect(op("eq", kv, end[0]), end[1], g("je"), int32), out)
        tv = self.locals.new("_la_step", int32)
        steps: list = []
        for n, (stage, (lo, hi)) in enumerate(zip(plan.stages, plan.spans)):
            jv = self.locals.new("_la_j", int32)
            row = [ir.IRAssign(jv, op("sub", tv, i32(n)) if n else tv)]
            if partial:
                first_i = self.tmp(ir.IRSelect(op("eq", kv, start[0]), ir.IRSelect(
                    op("eq", jv, start[1]), start[2], g("is"), int32), g("is"), int32), row)
                last_i = self.tmp(ir.IRSelect(op("eq", kv, end[0]), ir.IRSelect(
                    op("eq", jv, end[1]), end[2], g("ie"), int32), g("ie"), int32), row)
            i0, i1 = op("add", first_i, i32(lo)), op("add", last_i, i32(hi))
            if stage.inner == "memory":
                m0 = self.tmp(_mflat(kv, jv, i0), row)
                last = _mflat(kv, jv, i1)
                if self.cfg.chunk == "ij_slab":
                    to_next_row = op("sub", _mflat(kv, op("add", jv, i32(1)), i0), i32(1))
                    last = ir.IRSelect(op("lt", jv, end[1]), to_next_row, last, int32)
                self.memory_span(stage, m0, self.tmp(last, row), row)
            else:
                iv = self.locals.new("_la_i", int32)
                row.append(self.row_loop(iv, i0, i1, self.visit(stage, (kv, jv, iv)), stage.simd))
            # this stage's row is in the plane: t - n >= j0 (always for the first) and t - n <= j1 (the last)
            bounds = ([op("ge", tv, op("add", j0, i32(n)))] if n else []) + \
                ([op("le", tv, op("add", j1, i32(n)) if n else j1)] if n < len(plan.stages) - 1 else [])
            cond = bounds[0] if len(bounds) == 1 else op("logical_and", *bounds)
            steps.append(ir.IRIf(cond, row, []))
        out.append(self.loop(tv, j0, op("add", j1, i32(len(plan.stages) - 1)), steps))
        return out
