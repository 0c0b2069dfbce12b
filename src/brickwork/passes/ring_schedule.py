"""The loops of a ring-of-rows body (``ring_rows``): each stage a few memory rows behind the stages it
waits for, all of them in one loop over steps of rows, with per-point scratch for a window of rows.

A mixin of the CPU mapping's rewriter (``expand_loop_abstraction._CpuRows``). Step t covers memory
rows ``t * P .. t * P + P - 1`` (P rows: about ``_STEP_CELLS`` cells); stage s visits, of the cells
it visits unfused and in their unfused order, those of rows ``t * P - lag[s] ..`` (P rows). The
lags (``ring_lags``, once per slice: a flat offset's reach in rows depends on NI) satisfy the
plan's dependences row by row, so they hold for steps of P rows too: a stage has done every row
a later stage reads from it, and has not yet overwritten a row an earlier one still reads. A
stage's cells in rows a..z are:

- a ``bvoi`` body's box (logical inner tags, or memory with ``i_pencil`` pieces): rows (k, j) of
  the grown box, ``i`` over its i range;
- ``bvoi`` memory with ``ij_slab`` pieces: each plane's part of that plane's span; with
  ``kji_cube``: the part of the box's one span;
- ``bovi`` memory: the part of each merged span of the chunk shifted by the halo's offsets (a few
  spans at most: one per offset, a select per span and step).

Scratch (``folded_scratch``) holds the rows the stages can reach within a few steps, not the slice.
"""

from __future__ import annotations

import math

from .. import ir
from ..types.scalars import int32
from .build import i32, la_geom, la_mflat, op, pad_length, wide
from .ring_rows import RingPlan, box_slices


class _StageRows:
    """The rows a stage visits (first, last: memory rows, per slice) and how it visits one."""

    def __init__(self, first, last, visit_rows):
        self.first, self.last, self.visit_rows = first, last, visit_rows


class RingRows:
    """The ring-of-rows schedule for ``_CpuRows`` (uses its ``visit``, ``memory_span``, ``tmp``...)."""

    def ring_rows(self, plan: RingPlan) -> list:
        out: list = []
        for s in plan.head:
            if not isinstance(s, ir.IRLAScratch):
                out.extend(self.stmts([s]))
        stages = [self.stage_rows(st, out) for st in plan.stages]
        lags = self.ring_lags(plan, out)
        ni = la_geom("NI")
        # rows per step: a few hundred cells, so that each stage's loops are long enough to vectorize well
        per = self.tmp(op("max", i32(1), op("div", op("add", i32(_STEP_CELLS - 1), ni), ni)), out)
        t0 = self.tmp(op("div", _fold("min", [op("add", r.first, _value(lag)) for r, lag in zip(stages, lags)]), per),
                      out)
        t1 = self.tmp(op("div", _fold("max", [op("add", r.last, _value(lag)) for r, lag in zip(stages, lags)]), per),
                      out)
        t = self.locals.new("_la_ring", int32)
        body: list = []
        row0 = self.tmp(op("mul", t, per), body)
        for s in plan.head:
            if not isinstance(s, ir.IRLAScratch):
                continue
            if s.storage.name in plan.scratch:
                self.folded_scratch(s, plan.scratch[s.storage.name], lags, (row0, per, t0, t1), out, body)
            else:  # declared, never used
                out.extend(self.r_IRLAScratch(s))
        for st, rows, lag in zip(plan.stages, stages, lags):
            r0 = row0 if lag is None else self.tmp(op("sub", row0, lag), body)
            r1 = self.tmp(op("sub", op("add", r0, per), i32(1)), body)
            cells: list = []
            rows.visit_rows(st, self.tmp(op("max", r0, rows.first), cells), self.tmp(op("min", r1, rows.last), cells),
                            cells)
            body.append(ir.IRIf(op("logical_and", op("ge", r1, rows.first), op("le", r0, rows.last)), cells, []))
        out.append(self.loop(t, t0, t1, body))
        return out

    def ring_lags(self, plan: RingPlan, out: list) -> list:
        """lag[b] = max(lag[b - 1], what each dependence of b asks), per slice (rows depend on NI)."""
        ni, nj = la_geom("NI"), la_geom("NJ")
        lags = [None]  # None: 0
        for b in range(1, len(plan.stages)):
            terms = [_value(lags[b - 1])]
            for a, sense, (dk, dj, di) in dict.fromkeys(plan.waits[b]):  # many accesses, few distinct waits
                rows = op("add", op("mul", i32(dk), nj), i32(dj))
                if sense == "true":  # the last row a cell of b's row reaches
                    terms.append(op("add", _value(lags[a]), op("add", rows, _hi_rows(di, ni))))
                else:  # the first row a cell of a's row reaches
                    terms.append(op("sub", _value(lags[a]), op("add", rows, _lo_rows(di, ni))))
            lags.append(lags[b - 1] if len(terms) == 1 else self.tmp(_fold("max", terms), out))
        return lags

    # -- scratch: a window of rows --------------------------------------------------------------------
    def folded_scratch(self, s: ir.IRLAScratch, accesses: list, lags: list, steps, out: list, slide: list):
        """Per-point scratch for the rows the ring can touch at once, not for the slice: at the step
        whose first row is ``row0`` the stages reach rows ``row0 + lo .. row0 + hi`` of it (their lags
        and offsets, ``hi`` including the step's P rows), a window of ``w`` rows moving P rows a step.
        The buffer holds ``rows`` (4 w, or every row the ring touches when fewer) from row ``base``;
        a cell's slot is its memory-flat index less ``base * NI``, so the loops index it as they
        index the slice's buffer, with unit stride. When the window would pass the buffer's end,
        its live rows (fewer than w) are copied to the start, source and destination apart (the
        window has moved at least 3 w + 1 rows since the last copy), and ``base`` moves on: the
        copies cost under a third of the stages' writes to the buffer."""
        row0, per, t0, t1 = steps
        ni, nj = la_geom("NI"), la_geom("NJ")
        reach_lo, reach_hi = [], []
        for stage, (dk, dj, di) in accesses:
            rows = op("add", op("mul", i32(dk), nj), i32(dj))
            reach_lo.append(op("sub", op("add", rows, _lo_rows(di, ni)), _value(lags[stage])))
            reach_hi.append(op("sub", op("add", rows, _hi_rows(di, ni)), _value(lags[stage])))
        lo = self.tmp(_fold("min", reach_lo), out)
        hi = self.tmp(op("add", _fold("max", reach_hi), op("sub", per, i32(1))), out)  # a step's last row
        window = op("add", op("sub", hi, lo), i32(1))
        every = op("add", op("mul", op("sub", t1, t0), per), window)  # rows touched over the whole ring
        rows = self.tmp(op("min", op("mul", window, i32(4)), every), out)
        size = self.tmp(op("mul", rows, ni), out)
        ncomp = math.prod(s.dims) if s.dims else 1
        out.append(ir.IRAssign(s.storage, ir.IRTeamScratch(self.team, [pad_length(size, ncomp)], s.storage.type)))
        base = self.locals.new("_la_base", int32)
        first = self.locals.new("_la_first", int32)
        out.append(ir.IRAssign(base, op("add", op("mul", t0, per), lo)))
        out.append(ir.IRAssign(first, op("mul", base, ni)))
        self.bind_scratch(s, size, first)
        # the slide, at the top of a step
        move: list = []
        new_base = self.tmp(op("add", row0, lo), move)
        keep = self.tmp(op("mul", op("sub", op("add", base, rows), new_base), ni), move)
        shift = self.tmp(op("mul", op("sub", new_base, base), ni), move)
        dtype = s.storage.type.dtype
        for c in range(ncomp):  # a loop per component: g++ tries no outer-loop vectorization then
            e = self.locals.new("_la_e", int32)
            if ncomp == 1:
                at = op("mul", i32(c), size)
                to, source = op("add", at, e), op("add", op("add", at, shift), e)
            else:  # int64 slots, as the accesses' (pad_length)
                at = op("mul", wide(i32(c)), wide(size))
                to, source = op("add", at, wide(e)), op("add", op("add", at, wide(shift)), wide(e))
            copy = ir.IRAssign(ir.IRArrayElem(s.storage, [to], dtype), ir.IRArrayElem(s.storage, [source], dtype))
            move.append(self.loop(e, i32(0), op("sub", keep, i32(1)), [copy], simd=True))
        move.append(ir.IRAssign(base, new_base))
        move.append(ir.IRAssign(first, op("mul", new_base, ni)))
        slide.append(ir.IRIf(op("ge", op("add", row0, hi), op("add", base, rows)), move, []))

    # -- the cells of a stage, by row ---------------------------------------------------------------
    def stage_rows(self, st: ir.IRLAInner, out: list) -> _StageRows:
        offsets = st.halo.reduced(self.cfg.ndim)
        if not box_slices(self.cfg):
            if st.inner != "memory":  # a fold of a bovi chunk (ring_rows takes no other)
                return self.chunk_rows(out)
            return self.span_rows(self.bovi_merged_spans(offsets, out), out)
        box = [(self.tmp(lo, out), self.tmp(hi, out)) for lo, hi in self.grown_box(offsets)]
        (k0, k1), (j0, j1), (i0, i1) = box
        if st.inner == "memory" and self.cfg.chunk == "kji_cube":
            return self.span_rows([(self.tmp(la_mflat(k0, j0, i0), out), self.tmp(la_mflat(k1, j1, i1), out))], out)
        ni, nj = la_geom("NI"), la_geom("NJ")
        first = self.tmp(op("add", op("mul", k0, nj), j0), out)
        last = self.tmp(op("add", op("mul", k1, nj), j1), out)
        slab = st.inner == "memory" and self.cfg.chunk == "ij_slab"

        def visit_rows(stage, a, z, cells):
            if slab:  # each plane's part of its span, ghost cells between rows included
                k = self.locals.new("_la_k", int32)
                plane: list = []
                end = op("sub", op("mul", op("add", z, i32(1)), ni), i32(1))  # the last cell of row z
                self.clipped_span(stage, op("max", la_mflat(k, j0, i0), op("mul", a, ni)),
                                  op("min", la_mflat(k, j1, i1), end), plane)
                cells.append(self.loop(k, op("div", a, nj), op("div", z, nj), plane))
                return
            r = self.locals.new("_la_r", int32)
            one: list = []
            k = self.tmp(op("div", r, nj), one)
            j = self.tmp(op("sub", r, op("mul", k, nj)), one)
            row: list = []
            if st.inner == "memory":  # i_pencil pieces: the row's span of the box
                self.memory_span(stage, self.tmp(la_mflat(k, j, i0), row), self.tmp(la_mflat(k, j, i1), row), row)
            else:
                iv = self.locals.new("_la_i", int32)
                row.append(self.row_loop(iv, i0, i1, self.visit(stage, (k, j, iv)), stage.simd))
            one.append(ir.IRIf(op("logical_and", op("ge", j, j0), op("le", j, j1)), row, []))
            cells.append(self.loop(r, a, z, one))

        return _StageRows(first, last, visit_rows)

    def chunk_rows(self, out: list) -> _StageRows:
        """A ``bovi`` chunk's logical cells by memory row, as the unfused fold visits them: its first
        and last rows cut where the chunk starts and ends, the others over the box's i range, and no
        ghost rows or columns."""
        g, nj = la_geom, la_geom("NJ")
        start = [self.tmp(x, out) for x in self.slice.start]
        end = [self.tmp(x, out) for x in self.slice.end]
        first = self.tmp(op("add", op("mul", start[0], nj), start[1]), out)
        last = self.tmp(op("add", op("mul", end[0], nj), end[1]), out)

        def visit_rows(stage, a, z, cells):
            r = self.locals.new("_la_r", int32)
            one: list = []
            k = self.tmp(op("div", r, nj), one)
            j = self.tmp(op("sub", r, op("mul", k, nj)), one)
            row: list = []
            i0 = self.tmp(ir.IRSelect(op("eq", r, first), start[2], g("is"), int32), row)
            i1 = self.tmp(ir.IRSelect(op("eq", r, last), end[2], g("ie"), int32), row)
            iv = self.locals.new("_la_i", int32)
            row.append(self.loop(iv, i0, i1, self.visit(stage, (k, j, iv)), simd=stage.simd))
            one.append(ir.IRIf(op("logical_and", op("ge", j, g("js")), op("le", j, g("je"))), row, []))
            cells.append(self.loop(r, a, z, one))

        return _StageRows(first, last, visit_rows)

    def bovi_merged_spans(self, offsets, out) -> list:
        """The chunk's spans shifted by each offset, merged as the unfused loops merge them (a span
        starts after the last cell of those before it): disjoint, in increasing order."""
        spans, prev = [], None
        for h in offsets:
            first = self.tmp(la_mflat(*[op("add", a, i32(d)) for a, d in zip(self.slice.start, h)]), out)
            last = self.tmp(la_mflat(*[op("add", a, i32(d)) for a, d in zip(self.slice.end, h)]), out)
            if prev is not None:
                first = self.tmp(op("max", first, op("add", prev, i32(1))), out)
            spans.append((first, last))
            prev = last if prev is None else self.tmp(op("max", prev, last), out)
        return spans

    def span_rows(self, spans: list, out: list) -> _StageRows:
        """Rows of memory spans (absolute memory-flat indices, never negative): per row, each span's
        part of it, in order."""
        ni = la_geom("NI")
        first = self.tmp(_fold("min", [op("div", f, ni) for f, _ in spans]), out)
        last = self.tmp(_fold("max", [op("div", lst, ni) for _, lst in spans]), out)

        def visit_rows(stage, a, z, cells):
            m0 = self.tmp(op("mul", a, ni), cells)
            m1 = self.tmp(op("sub", op("mul", op("add", z, i32(1)), ni), i32(1)), cells)
            if len(spans) == 1:
                self.clipped_span(stage, op("max", spans[0][0], m0), op("min", spans[0][1], m1), cells)
                return
            q = self.locals.new("_la_q", int32)
            body: list = []
            lo, hi = spans[-1]
            for n in range(len(spans) - 2, -1, -1):  # span q's bounds: a select per span
                lo = ir.IRSelect(op("eq", q, i32(n)), spans[n][0], lo, int32)
                hi = ir.IRSelect(op("eq", q, i32(n)), spans[n][1], hi, int32)
            self.clipped_span(stage, op("max", lo, m0), op("min", hi, m1), body)
            cells.append(self.loop(q, i32(0), i32(len(spans) - 1), body))

        return _StageRows(first, last, visit_rows)

    def clipped_span(self, stage, m0, m1, out):
        """Visit the cells of memory span [m0, m1] (none when m1 < m0)."""
        self.memory_span(stage, self.tmp(m0, out), self.tmp(m1, out), out)


# Cells a stage visits per step (rounded to whole rows): one row of a 64-cell block is too short a
# loop (its vector prologue and remainder cost more than the ring saves), a few hundred cells keep
# the window of rows in L1/L2 (measured on the hydro stage: 256-2048 alike, whole block no better).
_STEP_CELLS = 512


def _value(lag):
    return i32(0) if lag is None else lag


def _fold(name, values):
    """``values`` combined pairwise by ``name`` as a balanced tree: a 3-D stage can wait on a few
    dozen offsets, and a chain that deep would exhaust the recursion of the IR walkers."""
    while len(values) > 1:
        values = [op(name, values[i], values[i + 1]) if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


def _lo_rows(di: int, ni):
    """floor(di / NI): the row offset of the first cell of a row shifted by di (C division truncates)."""
    if di >= 0:
        return op("div", i32(di), ni)
    return op("sub", i32(0), op("div", op("add", i32(-di - 1), ni), ni))


def _hi_rows(di: int, ni):
    """floor((di + NI - 1) / NI): the row offset of the last cell of a row shifted by di."""
    if di >= 0:
        return op("div", op("add", i32(di - 1), ni), ni)
    return op("sub", i32(0), op("div", i32(-di), ni))
