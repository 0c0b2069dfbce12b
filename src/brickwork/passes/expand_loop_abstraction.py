"""expand_loop_abstraction: slices and cells of an outer body become grid indices and loops.

The CPU mapping (``mapping="cpu_rows"``) of docs/reference/loop_abstraction_semantics.md §6-§12:
the kernel's grid is the slices — blocks (bvoi), (block, chunk) (bovi) or (block, k, j[, i])
(boiv) — and one thread runs a slice. Every ``IRLAInner`` becomes loops over the cells of
semantics §8: contiguous rows with a simd innermost loop and one division per row, merged halo
spans, one visit per halo offset for boiv. Both backends (``raw``, ``team``) map to the same loops
here; a slice barrier is program order. Per-point scratch lives in the slice's team arena (a local
buffer for boiv), views index pack storage with the space's memory layout. ``get_kji`` of a loop
index reuses the loop's (k, j, i) unless the index is reassigned in the body.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import ir
from ..types.arrays import ArrayType
from ..types.composite import vector
from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int32, int64, uint32, uint64
from . import ring_rows, row_fusion
from .build import Locals, i32, op, pad_length, wide
from .build import la_geom as _geom
from .build import la_mflat as _mflat
from .ring_schedule import RingRows
from .row_fusion_schedule import WHOLE_ROW_CHUNKS, FusedRows

VEC3I = vector(3, int32)
VEC4I = vector(4, int32)
MAPPINGS = ("cpu_rows", "gpu_teams")



@dataclass(frozen=True)
class ExpandLoopAbstraction:
    """``mapping``: "cpu_rows" (this module) or "gpu_teams" (``gpu_teams.py``: a slice per thread
    block; ``shared_limit`` bytes of scratch arena per block may live in shared memory)."""

    mapping: str = "cpu_rows"
    shared_limit: int = 48 * 1024
    name: str = "expand_loop_abstraction"

    @property
    def needs(self):
        """What ``run_passes`` skips the pass without (an unknown mapping runs, to be refused)."""
        return ir.IRLAOuter if self.mapping in MAPPINGS else None

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if self.mapping not in MAPPINGS:
            raise ValueError(f"unknown loop-abstraction mapping {self.mapping!r} (known: {', '.join(MAPPINGS)})")
        if not ir.contains(fn.body, ir.IRLAOuter):
            return fn
        out = replace(fn, locals=dict(fn.locals), buffers=dict(fn.buffers))
        if self.mapping == "cpu_rows":
            _CpuRows(out).expand()
        else:
            from .gpu_teams import GpuTeams  # the GPU mapping builds on this module's _CpuRows

            GpuTeams(out, self.shared_limit).expand()
        return out


class _Slice:
    """Runtime geometry of the slice: first and last logical cell, mflat of the first, boiv point."""

    def __init__(self, start, end, mem0, point=None):
        self.start, self.end, self.mem0, self.point = start, end, mem0, point


class _Scratch:
    def __init__(self, storage, size, first, dims, box=None):
        self.storage, self.size, self.first, self.dims, self.box = storage, size, first, dims, box


class _CpuRows(FusedRows, RingRows, ir.Rewriter):
    def __init__(self, fn: ir.IRFunction):
        self.fn = fn
        self.locals = Locals(fn)
        self.kji: dict = {}  # index local -> its (k, j, i) in the visit being expanded
        self.point_kji = None  # the cell of the current visit (folds record it)
        self.scratch: dict = {}  # storage name -> _Scratch
        self.team = None
        self.counts: dict = {}
        self.row = None  # the RowFusion plan of the outer body being expanded row by row
        self.row_base = None  # per k plane: mflat(k, 0, 0) + the plan's smallest scratch offset

    # -- small helpers ----------------------------------------------------------------------------
    def tmp(self, value, out):
        return self.locals.assign(value, out, "_la_t")

    def decode(self, f, box, out):
        """(k, j, i) locals of flat index ``f`` of a box (ks, js, is, nj, ni)."""
        ks, js, is_, nj, ni = box
        plane = op("mul", nj, ni)
        q = self.tmp(op("div", f, plane), out)
        r = self.tmp(op("sub", f, op("mul", q, plane)), out)
        jj = self.tmp(op("div", r, ni), out)
        ii = op("sub", r, op("mul", jj, ni))
        return self.tmp(op("add", q, ks), out), self.tmp(op("add", jj, js), out), self.tmp(op("add", ii, is_), out)

    @staticmethod
    def lazy_kji(m):
        plane = op("mul", _geom("NJ"), _geom("NI"))
        k = op("div", m, plane)
        r = op("sub", m, op("mul", k, plane))
        j = op("div", r, _geom("NI"))
        return k, j, op("sub", r, op("mul", j, _geom("NI")))

    def decode_fast(self, f, box, before, out):
        """``decode`` of a non-negative flat index ``f`` below 2^31 in a loop: the reciprocals of the box's
        plane and row are computed in ``before`` (once per loop), the cell in ``out``. An integer division
        does not vectorize and costs a GPU some twenty instructions; a multiplication does neither."""
        ks, js, is_, nj, ni = box
        plane = self.tmp(op("mul", nj, ni), before)
        q, r = self.divmod_by(f, plane, self.reciprocal(plane, before), out)
        jj, ii = self.divmod_by(r, ni, self.reciprocal(ni, before), out)
        return self.tmp(op("add", q, ks), out), self.tmp(op("add", jj, js), out), self.tmp(op("add", ii, is_), out)

    def reciprocal(self, d, out):
        """``floor((2^32 - 1) / d)`` (uint32) of an int32 divisor ``d`` >= 1 (1 where it is not: an empty box)."""
        return self.tmp(ir.IRCast(op("div", ir.IRConst(2**32 - 1, uint64), ir.IRCast(op("max", d, i32(1)), uint64)),
                                  uint32), out)

    def divmod_by(self, n, d, m, out):
        """``(n // d, n % d)`` of int32 ``0 <= n < 2^31``, ``d >= 1`` with ``m = reciprocal(d)``: the estimate
        ``n * m >> 32`` is the quotient or one less (``n * (2^32 - d * m) / (d * 2^32) < 1/2``), one
        correction makes it exact."""
        # both factors zero-extended from 32 bits: the high half of one 32 x 32-bit product (a GPU's
        # IMAD.HI, a vector pmuludq), not a 64-bit multiplication of a sign-extended index
        wide = op("mul", ir.IRCast(ir.IRCast(n, uint32), uint64), ir.IRCast(m, uint64))
        estimate = ir.IRCast(op("rshift", wide, ir.IRConst(32, uint64)), int32)
        q = self.tmp(estimate, out)
        r = self.tmp(op("sub", n, op("mul", q, d)), out)
        over = op("ge", r, d)
        return (self.tmp(ir.IRSelect(over, op("add", q, i32(1)), q, int32), out),
                self.tmp(ir.IRSelect(over, op("sub", r, d), r, int32), out))

    def span_kji(self, s, m, before, out):
        """(k, j, i) of memory index ``m`` in a loop over a span: decoded into locals at the top of the
        loop's body ``out`` (``decode_fast``) when the body reads its cell (``get_kji``, a location a
        reduction folds), else ``lazy_kji``'s expressions, which nothing evaluates."""
        if not any(isinstance(n, (ir.IRLAGetKJI, ir.IRLAFold)) for n in ir.walk(s.body)):
            return self.lazy_kji(m)
        return self.decode_fast(m, (i32(0), i32(0), i32(0), _geom("NJ"), _geom("NI")), before, out)

    @staticmethod
    def l_box():
        g = _geom
        nj = op("add", op("sub", g("je"), g("js")), i32(1))
        ni = op("add", op("sub", g("ie"), g("is")), i32(1))
        return g("ks"), g("js"), g("is"), nj, ni

    def loop(self, var, lo, hi_incl, body, simd=False, short=False):
        return ir.IRFor(var, lo, op("add", hi_incl, i32(1)), i32(1), body, 1, simd=simd, short=short)

    def row_loop(self, var, lo, hi_incl, body, simd):
        """The loop over the i cells of one row (``short`` when the space's rows are short)."""
        return self.loop(var, lo, hi_incl, body, simd, short=simd and self.cfg.rows == "short")

    # -- the outer body ---------------------------------------------------------------------------
    def expand(self):
        self.counts = ir.assignment_counts(self.fn.body)
        self.fn.body = self.stmts(self.fn.body)

    def r_IRLAOuter(self, s: ir.IRLAOuter):
        cfg = self.cfg = s.config
        self.block = s.block
        reduce = cfg.reducer is not None
        self.fn.tid_dims = {"bvoi": 1, "bovi": 2, "boiv": 3 if reduce else 4}[cfg.loop]
        out = [ir.IRAssign(s.block, ir.IRTid(0, int32))]
        g = _geom
        point_out = out
        if cfg.loop == "boiv":
            # A reduction walks i inside the kernel (one partial per row); else i is a grid index.
            pi = self.locals.named("_la_pi", int32) if reduce else None
            point_out = [] if reduce else out
            i_index = pi if reduce else op("add", g("is"), ir.IRTid(3, int32))
            p = (self.tmp(op("add", g("ks"), ir.IRTid(1, int32)), point_out),
                 self.tmp(op("add", g("js"), ir.IRTid(2, int32)), point_out),
                 self.tmp(i_index, point_out))
            self.slice = _Slice(p, p, self.tmp(_mflat(*p), point_out), point=p)
        elif cfg.loop == "bvoi":
            start = (g("ks"), g("js"), g("is"))
            self.slice = _Slice(start, (g("ke"), g("je"), g("ie")), self.tmp(_mflat(*start), out))
        elif cfg.chunk in WHOLE_ROW_CHUNKS:
            self.slice = self.whole_rows_slice(out)
        else:
            o = ir.IRTid(1, int32)
            nk = op("add", op("sub", g("ke"), g("ks")), i32(1))
            _, _, _, nj, ni = self.l_box()
            size = op("mul", op("mul", nk, nj), ni)
            lo = self.tmp(op("mul", o, g("ninner")), out)
            hi = self.tmp(op("sub", op("min", op("mul", op("add", o, i32(1)), g("ninner")), size), i32(1)), out)
            start = self.decode(lo, self.l_box(), out)
            end = self.decode(hi, self.l_box(), out)
            self.slice = _Slice(start, end, self.tmp(_mflat(*start), out))
        if cfg.loop != "boiv" and ir.contains(s.body, ir.IRLAScratch):
            self.team = self.locals.named("_la_team", TEAM_MEMBER)
            out.append(ir.IRAssign(self.team, ir.IRTeamBegin(ir.IRConst(0, int64), TEAM_MEMBER)))
        fusion = self.row_plan(s)  # row fusion takes no folds; the ring of rows folds in unfused order
        if isinstance(fusion, row_fusion.RowFusion):
            body = self.fused_rows(fusion)
        elif isinstance(fusion, ring_rows.RingPlan):
            body = self.ring_rows(fusion)
        else:
            body = self.stmts(s.body)
        if not reduce:
            return out + body
        user = [ir.IRRegion("_la_end", body)]
        if cfg.loop == "boiv":
            user = [self.loop(pi, g("is"), g("ie"), point_out + user, simd=True)]
        partials = ir.IRLocal("_la_partials", ArrayType(cfg.reducer.value_type, 1))
        return out + [ir.IRSliceReduction(cfg.reducer, partials, self.slice_id(), user)]

    def whole_rows_slice(self, out) -> _Slice:
        """A ``bovi`` slice whose chunk is a row, a plane or the box (``ninner`` of its tag): whole rows
        from its first cell to its last, found without the division the general chunk's decode
        does, and without the partial first and last rows the general chunk's loops test for."""
        g, o = _geom, ir.IRTid(1, int32)
        if self.cfg.chunk == "kji_cube":
            start, end = (g("ks"), g("js"), g("is")), (g("ke"), g("je"), g("ie"))
        elif self.cfg.chunk == "ij_slab":
            k = self.tmp(op("add", g("ks"), o), out)
            start, end = (k, g("js"), g("is")), (k, g("je"), g("ie"))
        else:  # i_pencil
            dk, dj = self.pencil_row(out)
            k = self.tmp(op("add", g("ks"), dk), out)
            j = self.tmp(op("add", g("js"), dj), out)
            start, end = (k, j, g("is")), (k, j, g("ie"))
        return _Slice(start, end, self.tmp(_mflat(*start), out))

    def pencil_row(self, out) -> tuple:
        """``(plane, row)`` of an ``i_pencil`` slice in the block's box: its outer index divided by the rows
        of a plane (the GPU mapping reads them from its grid where it can)."""
        o, nj = ir.IRTid(1, int32), self.l_box()[3]
        # o >= 0 and nj >= 1: an unsigned division (a GPU's takes half the instructions of a signed one)
        dk = self.tmp(ir.IRCast(op("div", ir.IRCast(o, uint32), ir.IRCast(nj, uint32)), int32), out)
        return dk, op("sub", o, op("mul", dk, nj))

    def row_plan(self, s: ir.IRLAOuter):
        """How to run the body row by row: every stage on the same row (``row_fusion``), else each
        stage a few rows behind those it waits for (``ring_rows``), else None."""
        return row_fusion.plan(s, self.counts) or ring_rows.plan(s, self.counts)

    def slice_id(self):
        g, b = _geom, ir.IRTid(0, int32)
        if self.cfg.loop == "bvoi":
            return b
        if self.cfg.loop == "bovi":
            return op("add", op("mul", b, g("nouter")), ir.IRTid(1, int32))
        nk = op("add", op("sub", g("ke"), g("ks")), i32(1))
        nj = op("add", op("sub", g("je"), g("js")), i32(1))
        return op("add", op("mul", op("add", op("mul", b, nk), ir.IRTid(1, int32)), nj), ir.IRTid(2, int32))

    def r_IRReturn(self, s):
        if self.cfg.reducer is not None and s.value is None:
            return ir.IRExitRegion("_la_end")  # a return ends the slice: its partial is still stored
        return self.copy(s)

    def r_IRTeamBarrier(self, s):
        if s.member is None:
            return None  # one thread runs a slice: program order is the barrier
        return self.copy(s)

    def r_IRAssign(self, s: ir.IRAssign):
        out = self.copy(s)
        t, v = s.target, s.value
        if isinstance(t, ir.IRLocal) and isinstance(v, ir.IRLocal) and v.name in self.kji \
                and self.counts.get(t.name, 0) == 1:
            self.kji[t.name] = self.kji[v.name]  # an inlined body's parameter: the same cell
        return out

    def r_IRLAFold(self, s: ir.IRLAFold):
        return ir.IRLAFold(self.expr(s.value), (self.block, *self.point_kji))

    # -- get_kji ------------------------------------------------------------------------------------
    def r_IRLAGetKJI(self, e: ir.IRLAGetKJI):
        return ir.IRConstruct(list(self.kji_of(e.index)), e.type)

    def kji_of(self, index):
        if isinstance(index, ir.IRLocal) and index.name in self.kji:
            return self.kji[index.name]
        index = self.expr(index)
        if index.type is VEC3I:
            return tuple(ir.IRComponent(index, [i32(c)], int32) for c in range(3))
        if index.type is VEC4I:
            return tuple(op("add", self.slice.point[c], ir.IRComponent(index, [i32(c)], int32)) for c in range(3))
        return self.lazy_kji(op("add", index, self.slice.mem0))

    # -- la.inner: the cells of a (halo) range ---------------------------------------------------------
    def r_IRLAInner(self, s: ir.IRLAInner):
        out: list = []
        offsets = s.halo.reduced(self.cfg.ndim)
        loop, inner = self.cfg.loop, s.inner
        if loop == "boiv":
            for h in offsets:  # one visit per reduced offset, in order
                kji = tuple(op("add", p, i32(d)) for p, d in zip(self.slice.point, h))
                out.extend(self.visit(s, kji))
        elif loop == "bvoi" and inner != "memory":
            self.box_loops(s, self.grown_box(offsets), out)
        elif loop == "bvoi":
            self.bvoi_memory(s, offsets, out)
        else:
            self.bovi_spans(s, offsets, out)
        return out

    def visit(self, s: ir.IRLAInner, kji, memory_index=None) -> list:
        """The body of ``s`` at cell ``kji``: its names bound, then its statements."""
        out: list = []
        self.point_kji = kji
        if len(s.params) == 3:
            for p, v in zip(s.params, kji):
                out.append(ir.IRAssign(p, v))
        else:
            (p,) = s.params
            k, j, i = kji
            if s.inner == "logical_coords":
                value = ir.IRConstruct([k, j, i], VEC3I)
            elif self.cfg.loop == "boiv":
                d = [op("sub", a, b) for a, b in zip(kji, self.slice.point)]
                value = ir.IRConstruct(d + [op("sub", _mflat(k, j, i), self.slice.mem0)], VEC4I)
            else:
                m = memory_index if memory_index is not None else _mflat(k, j, i)
                value = op("sub", m, self.slice.mem0)
            out.append(ir.IRAssign(p, value))
            if self.counts.get(p.name, 0) == 0:
                self.kji[p.name] = kji
            else:  # the body reassigns the index: get_kji decodes its value
                self.kji.pop(p.name, None)
        return out + self.stmts(s.body)

    def grown_box(self, offsets):
        lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
        hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
        return [(op("add", st, i32(a)), op("add", e, i32(z)))
                for st, e, a, z in zip(self.slice.start, self.slice.end, lo, hi)]

    def box_loops(self, s, box, out):
        kv, jv, iv = (self.locals.new(f"_la_{c}", int32) for c in "kji")
        inner = self.visit(s, (kv, jv, iv))
        iloop = self.row_loop(iv, box[2][0], box[2][1], inner, s.simd)
        jloop = self.loop(jv, box[1][0], box[1][1], [iloop])
        out.append(self.loop(kv, box[0][0], box[0][1], [jloop]))

    def piece_cell(self, f, box, before, out):
        """The cell of flat index ``f`` (``0 <= f < 2^31``) of a ``bvoi`` memory piece's ``box``, decoded in
        ``out`` by division (once per piece on the CPU; the GPU mapping multiplies by reciprocals computed in
        ``before``)."""
        return self.decode(f, box, out)

    def memory_span(self, s, m0, m1, out):
        """Visit every memory cell of [m0, m1] (contiguous: one simd loop)."""
        m = self.locals.new("_la_m", int32)
        body: list = []
        kji = self.span_kji(s, m, out, body)
        body += self.visit(s, kji, memory_index=m)
        out.append(self.loop(m, m0, m1, body, simd=s.simd))

    def bvoi_memory(self, s, offsets, out):
        box = self.grown_box(offsets)
        nk = op("add", op("sub", box[0][1], box[0][0]), i32(1))
        nj = op("add", op("sub", box[1][1], box[1][0]), i32(1))
        ni = op("add", op("sub", box[2][1], box[2][0]), i32(1))
        size = self.tmp(op("mul", op("mul", nk, nj), ni), out)
        chunk = {"i_pencil": ni, "ij_slab": op("mul", ni, nj), "kji_cube": size}.get(self.cfg.chunk, _geom("ninner"))
        chunk = self.tmp(chunk, out)
        piece = self.locals.new("_la_piece", int32)
        body: list = []
        dbox = (box[0][0], box[1][0], box[2][0], nj, ni)
        first = self.piece_cell(piece, dbox, out, body)
        last = self.piece_cell(op("sub", op("min", op("add", piece, chunk), size), i32(1)), dbox, out, body)
        m0 = self.tmp(_mflat(*first), body)
        m1 = self.tmp(_mflat(*last), body)
        self.memory_span(s, m0, m1, body)
        out.append(ir.IRFor(piece, i32(0), size, chunk, body, 1))

    def bovi_spans(self, s, offsets, out):
        memory = s.inner == "memory"
        ext = None
        if not memory:  # the range indexer: L grown by the reduced halo
            lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
            hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
            g = _geom
            ks = op("add", g("ks"), i32(lo[0]))
            js = op("add", g("js"), i32(lo[1]))
            is_ = op("add", g("is"), i32(lo[2]))
            nj = op("add", op("sub", op("add", g("je"), i32(hi[1])), js), i32(1))
            ni = op("add", op("sub", op("add", g("ie"), i32(hi[2])), is_), i32(1))
            ext = tuple(self.tmp(x, out) for x in (ks, js, is_, nj, ni))
        prev = None
        for lo_h, hi_h in self.span_offsets(offsets):
            s_kji = [op("add", a, i32(d)) for a, d in zip(self.slice.start, lo_h)]
            e_kji = [op("add", a, i32(d)) for a, d in zip(self.slice.end, hi_h)]
            first = unmerged = self.tmp(self.flat_in(s_kji, ext), out)
            last = self.tmp(self.flat_in(e_kji, ext), out)
            if prev is not None:  # merge: never visit a cell twice
                first = self.tmp(op("max", first, op("add", prev, i32(1))), out)
            if memory:
                self.memory_span(s, first, last, out)
            else:
                # a pencil's slice is one row, and so is each of its spans: its first cell is known; a
                # slab's slice is one k plane, and so is each of its spans: its k is known
                cell = None if self.cfg.chunk != "i_pencil" else \
                    (s_kji[0], s_kji[1], op("add", s_kji[2], op("sub", first, unmerged)))
                plane = s_kji[0] if self.cfg.chunk == "ij_slab" else None
                self.rows(s, first, last, ext, out, cell, plane)
            prev = last if prev is None else self.tmp(op("max", prev, last), out)

    def span_offsets(self, offsets) -> list:
        """The spans ``bovi_spans`` visits, as the offsets of their first and last cells from the slice's first
        and last: one span per offset, in order (the GPU mapping merges spans that meet)."""
        return [(h, h) for h in offsets]

    @staticmethod
    def flat_in(kji, ext):
        if ext is None:
            return _mflat(*kji)
        ks, js, is_, nj, ni = ext
        k, j, i = kji
        return op("add", op("mul", op("add", op("mul", op("sub", k, ks), nj), op("sub", j, js)), ni), op("sub", i, is_))

    def rows(self, s, first, last, ext, out, cell=None, plane=None):
        """Visit logical flat span [first, last] of box ``ext`` row by row: the first cell (``cell``
        where the caller knows it) decoded once, then (k, j) step to the next row of the box (no
        division per row). ``plane``: the k of every cell of the span, where the caller knows it (the GPU
        mapping's threads then decode j and i only)."""
        ks, js, is_, nj, ni = ext
        f = self.locals.new("_la_f", int32)
        out.append(ir.IRAssign(f, first))
        k, j, i0 = (self.locals.new(f"_la_r{c}", int32) for c in "kji")
        for var, value in zip((k, j, i0), cell or self.decode(f, ext, out)):
            out.append(ir.IRAssign(var, value))
        body: list = []
        col = op("sub", i0, is_)
        length = self.tmp(op("min", op("sub", ni, col), op("add", op("sub", last, f), i32(1))), body)
        iv = self.locals.new("_la_i", int32)
        inner = self.visit(s, (k, j, iv))
        body.append(self.row_loop(iv, i0, op("sub", op("add", i0, length), i32(1)), inner, s.simd))
        body.append(ir.IRAssign(f, op("add", f, length)))
        next_j = self.tmp(op("add", j, i32(1)), body)
        wraps = op("eq", next_j, op("add", js, nj))  # past the box's last row: the next plane
        body.append(ir.IRAssign(k, ir.IRSelect(wraps, op("add", k, i32(1)), k, int32)))
        body.append(ir.IRAssign(j, ir.IRSelect(wraps, js, next_j, int32)))
        body.append(ir.IRAssign(i0, is_))
        out.append(ir.IRWhile(op("le", f, last), body))

    # -- per-point scratch ---------------------------------------------------------------------------
    def r_IRLAScratch(self, s: ir.IRLAScratch):
        out: list = []
        dtype = s.storage.type.dtype
        ncomp = math.prod(s.dims) if s.dims else 1
        if s.halo is None:  # one value per slice (shared by a slice's threads on a GPU): slot 0
            out.append(ir.IRAssign(s.storage, ir.IRTeamScratch(self.team, [i32(ncomp)], s.storage.type)))
            self.scratch[s.storage.name] = _Scratch(s.storage, i32(1), i32(0), s.dims)
            return out
        if self.row is not None:
            # One k plane, from mflat(k, 0, 0) + cmin, plus a row (a memory span runs on to the next
            # row) and the reach of the offsets. Not one row: a row-sized buffer whose slots every row
            # reuses made the kernel 2x slower for some placements of the arrays (measured; a
            # plane-sized buffer, 10 KB for 32^3 blocks, showed no such case and stays in L1).
            size = self.tmp(op("add", op("mul", op("add", _geom("NJ"), i32(1)), _geom("NI")),
                               i32(self.row.cmax - self.row.cmin + 1)), out)
            out.append(ir.IRAssign(s.storage, ir.IRTeamScratch(self.team, [pad_length(size, ncomp)], s.storage.type)))
            self.scratch[s.storage.name] = _Scratch(s.storage, size, self.row_base, s.dims)
            return out
        offsets = s.halo.reduced(self.cfg.ndim)
        if self.cfg.loop == "boiv":  # a small box around the point, in a thread-local buffer
            box = s.halo.box(offsets)
            count = math.prod(hi - lo + 1 for lo, hi in box)
            name = self.locals.new("_la_buf", int32).name
            del self.fn.locals[name]
            self.fn.buffers[name] = (dtype, count * ncomp)
            out.append(ir.IRAssign(s.storage, ir.IRLocalArray(name, s.storage.type)))
            self.scratch[s.storage.name] = _Scratch(s.storage, i32(count), None, s.dims, box)
            return out
        # hierarchical tags: the scratch span of the range (semantics §7, §9)
        lo_h, hi_h = offsets[0], offsets[-1]
        if self.cfg.loop == "bvoi" and not s.halo.is_none:  # PROPOSED (semantics §14): the halo box
            lo_h = tuple(min(0, min(h[d] for h in offsets)) for d in range(3))
            hi_h = tuple(max(0, max(h[d] for h in offsets)) for d in range(3))
        first = self.tmp(_mflat(*[op("add", a, i32(d)) for a, d in zip(self.slice.start, lo_h)]), out)
        end = _mflat(*[op("add", a, i32(d)) for a, d in zip(self.slice.end, hi_h)])
        size = self.tmp(op("add", op("sub", end, first), i32(1)), out)
        alloc = ir.IRTeamScratch(self.team, [pad_length(size, ncomp)], s.storage.type)
        out.append(ir.IRAssign(s.storage, alloc))
        self.scratch[s.storage.name] = _Scratch(s.storage, size, first, s.dims)
        return out

    def bind_scratch(self, s: ir.IRLAScratch, size, first):
        """Index ``s`` from memory-flat index ``first`` (a cell's slot: its index less ``first``),
        ``size`` slots per component."""
        self.scratch[s.storage.name] = _Scratch(s.storage, size, first, s.dims)

    def r_IRLAScratchElem(self, e: ir.IRLAScratchElem):
        sc = self.scratch[e.storage.name]
        slot = self.scratch_slot(sc, [self.expr(p) for p in e.point]) if e.point else i32(0)
        if sc.dims:
            flat_c = i32(0)
            for c, d in zip(e.comps, sc.dims):
                flat_c = op("add", op("mul", flat_c, i32(d)), self.expr(c))
            if sc.box is None and math.prod(sc.dims) > 1:  # a pad of the slice's span per component: see pad_length
                slot = op("add", wide(slot), op("mul", wide(sc.size), wide(flat_c)))
            else:
                slot = op("add", slot, op("mul", sc.size, flat_c))
        return ir.IRArrayElem(sc.storage, [slot], e.type, e.where)

    def scratch_slot(self, sc: _Scratch, point):
        if len(point) == 3:
            kji = point
        elif point[0].type is VEC3I:
            kji = [ir.IRComponent(point[0], [i32(c)], int32) for c in range(3)]
        elif point[0].type is VEC4I:
            kji = [op("add", self.slice.point[c], ir.IRComponent(point[0], [i32(c)], int32)) for c in range(3)]
        else:  # ScratchIndex(m) = m - scratch_index_start, scratch_index_start = first - mem0
            return op("sub", op("add", point[0], self.slice.mem0), sc.first)
        if self.slice.point is not None:
            box = sc.box
            nj = box[1][1] - box[1][0] + 1
            ni = box[2][1] - box[2][0] + 1
            rel = [op("sub", op("sub", q, p), i32(lo)) for q, p, (lo, _) in zip(kji, self.slice.point, box)]
            return op("add", op("mul", op("add", op("mul", rel[0], i32(nj)), rel[1]), i32(ni)), rel[2])
        return op("sub", _mflat(*kji), sc.first)

    def r_IRLAScratchZero(self, s: ir.IRLAScratchZero):
        sc = self.scratch[s.storage.name]
        n = sc.storage
        zero = i32(0) if n.type.dtype is int32 else ir.IRCast(i32(0), n.type.dtype)
        if sc.box is None and sc.dims and math.prod(sc.dims) > 1:  # its length and slots are int64 (pad_length)
            var = self.locals.new("_la_z", int64)
            body = [ir.IRAssign(ir.IRArrayElem(n, [var], n.type.dtype), zero)]
            return ir.IRFor(var, ir.IRConst(0, int64), pad_length(sc.size, math.prod(sc.dims)), ir.IRConst(1, int64),
                            body, 1, simd=True)
        var = self.locals.new("_la_z", int32)
        body = [ir.IRAssign(ir.IRArrayElem(n, [var], n.type.dtype), zero)]
        return ir.IRFor(var, i32(0), ir.IRArrayShape(n, 0, int32), i32(1), body, 1, simd=True)

    # -- views ---------------------------------------------------------------------------------------
    def r_IRLAViewElem(self, e: ir.IRLAViewElem):
        v = e.view
        pack = self.expr(v.pack)
        var = ir.PackVar(e.var.position, self.expr(e.var.offset))
        flux = self.expr(v.direction) if v.kind == "flux" else None
        point = e.point
        if self.cfg.inner == "logical_coords":  # thin forwarders to the pack
            return ir.IRPackElem(pack, self.block, var, e.element, flux, list(self.view_kji(point, wide=True)), None,
                                 e.type, e.where)
        # flat and memory tags: the storage shares the space's memory layout M (semantics §11)
        if len(point) == 1 and point[0].type is int32:
            offset = op("add", self.slice.mem0, self.expr(point[0]))
        elif len(point) == 1 and point[0].type is VEC4I:
            offset = op("add", self.slice.mem0, ir.IRComponent(self.expr(point[0]), [i32(3)], int32))
        else:
            offset = _mflat(*self.view_kji(point))
        return ir.IRPackElem(pack, self.block, var, e.element, flux, None, offset, e.type, e.where)

    def view_kji(self, point, wide: bool = False):
        """The (k, j, i) of a view's ``point``; ``wide``: sums of Index3 values in 64 bits (see ``component``)."""
        if len(point) == 3:
            return [self.expr(p) for p in point]
        if point[0].type is VEC3I:
            index = self.expr(point[0])
            return [self.component(index, c, wide) for c in range(3)]
        return list(self.kji_of(point[0]))

    def component(self, index, c: int, wide: bool = False):
        """Component ``c`` of the Index3 ``index``, worked out where the expression says it (the cell's k, j, i for
        an unchanged body index, ``k - 0``, ``j + 1``, ``i``... for ``idx - d1``): a vector local read in the
        innermost loop kept g++ from vectorizing (logical_coords stencils ran 2.5x longer than flat ones).
        ``wide``: a sum is computed in 64 bits (a pack element's offset is), so that it stays affine in the loop
        counter for the vectorizer, and one beyond int32 is out of the block rather than wrapped back into it."""
        if isinstance(index, ir.IRLocal) and index.name in self.kji:
            return self.kji[index.name][c]
        if isinstance(index, ir.IRConstruct) and len(index.args) == 3:
            return index.args[c]
        if isinstance(index, ir.IRConst) and index.type is VEC3I:
            return i32(int(index.value[c]))
        if wide and isinstance(index, ir.IRCall) and index.type is VEC3I and index.op in ("add", "sub") and \
                len(index.args) == 2 and all(a.type is VEC3I for a in index.args):
            a, b = (self.component(x, c, wide) for x in index.args)
            return op(index.op, *(x if x.type is int64 else ir.IRCast(x, int64) for x in (a, b)))
        return ir.IRComponent(index, [i32(c)], int32)
