"""The GPU mapping of the loop abstraction (``expand_loop_abstraction("gpu_teams")``).

With the ``team`` backend and the hierarchical tags (bvoi, bovi) a slice is a thread block (of 128 threads;
64 for a row of an ``i_pencil`` space whose rows are short: ``SHORT_ROW_TEAM``): the
block's index gives the slice (the launch's grid of slices, flattened), every ``la.inner`` visits
the cells of the CPU mapping (the same boxes, spans and pieces, in the same sequence; a ``bovi`` range's
spans of a halo along i, which meet, as one span) but shares
each box, span or piece out among the block's threads (thread t takes cells t, t + blockDim, ...; a short
body two per trip, ``gpu_cell_pairs``),
``team_barrier()`` is a block barrier, and per-point scratch comes from the block's arena (shared
memory when the launch's arena fits the limit, global memory otherwise). A thread finds the cell
of its flat index in a box by multiplying with the box's reciprocals, computed once per slice
(``divmod_by``): a GPU divides by a run-time value in about twenty instructions. Statements of the outer
body outside the inner loops run on every thread (they compute the slice's scalars); the ones
that write memory or print run on thread 0 only. ``boiv`` slices are single cells: one thread
each, the grid points of ``map_gpu_threads``. ``la.raw`` is host-only (semantics §12) and is
rejected.
"""

from __future__ import annotations

import math

from .. import ir
from ..errors import LaunchError, TargetUnsupportedError
from ..ir.printer import expr as show
from ..types.layout import size_align
from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int32
from .build import i32, op
from .build import la_geom as _geom
from .build import la_mflat as _mflat
from .expand_loop_abstraction import _CpuRows
from .gpu_cell_pairs import cell_loop
from .gpu_grid import (
    SHORT_ROW_TEAM,
    TEAM_BLOCK,
    OncePerTeam,
    TidToCoords,
    check_team_body,
    i64,
    pencil_coords,
    slice_coords,
    strided,
    wide,
)


class HostOnlyBackendError(TargetUnsupportedError, LaunchError):
    """An outer body with the ``la.raw`` backend for a device target (``raw`` is host-only)."""


class GpuTeams(_CpuRows):
    def __init__(self, fn: ir.IRFunction, shared_limit: int):
        super().__init__(fn)
        self.shared_limit = shared_limit
        self.in_cells = 0  # > 0 while expanding the body of an inner loop (per cell, per thread)
        self.team_slice = False  # the outer body being expanded runs as a thread block
        self.team_statement = OncePerTeam()  # the slice body's statements outside the inner loops
        self.pencil = None  # (plane, row) locals of an i_pencil slice, set from the grid (pencil_coords)

    def row_plan(self, s):
        return None  # rows of a slice are shared among threads, never fused per thread

    # -- the outer body ---------------------------------------------------------------------------
    def r_IRLAOuter(self, s: ir.IRLAOuter):
        cfg = s.config
        if cfg.backend == "raw":
            raise HostOnlyBackendError(
                f"{self.fn.label or self.fn.name}: la.raw is host-only (loop abstraction semantics §12): an outer "
                f"body of a ({cfg.loop}, {cfg.inner}) space with backend la.raw cannot run on a device target; "
                f"build the space with backend=la.team")
        if cfg.loop == "boiv":
            return super().r_IRLAOuter(s)  # a slice is a cell: one thread (map_gpu_threads)
        self.team_slice = True
        check_team_body(s.body, self.fn.label or self.fn.name, ir.IRLAInner)
        arena = self.arena_size(s)
        if cfg.loop == "bovi" and cfg.chunk == "i_pencil" and self.row_bounds_are_parameters():
            self.pencil = (self.locals.new("_gpu_dk", int32), self.locals.new("_gpu_dj", int32))
        body = super().r_IRLAOuter(s)
        pre: list = []
        if self.pencil is None:
            coords = slice_coords(self.locals, self.fn.tid_dims, pre)
        else:
            coords = pencil_coords(self.locals, self.l_box()[3], *self.pencil, pre)
        body = _ToBlocks(coords, arena, self.shared_limit).stmts(body)
        short_row = cfg.loop == "bovi" and cfg.chunk == "i_pencil" and cfg.rows == "short"
        self.fn.gpu_launch = {"grid": "slices", "block": SHORT_ROW_TEAM if short_row else TEAM_BLOCK, "shared_bytes": 0,
                              "arena": None if arena is None else show(arena),
                              "shared_limit": self.shared_limit}
        if self.pencil is not None:  # the host may launch a grid of rows (targets/cuda/geometry.row_grid)
            self.fn.gpu_launch["rows"] = [_geom("js").name, _geom("je").name]
        self.team_slice, self.pencil = False, None
        return pre + body

    def row_bounds_are_parameters(self) -> bool:
        """Whether the box's first and last row are parameters the kernel leaves as they are: the host then
        knows the rows of a plane, ``je - js + 1``, before a launch."""
        names = {n for n, _ in self.fn.params}
        counts = ir.assignment_counts(self.fn.body)
        return all(_geom(b).name in names and not counts.get(_geom(b).name) for b in ("js", "je"))

    def pencil_row(self, out) -> tuple:
        if self.pencil is None:
            return super().pencil_row(out)
        return self.pencil  # from the grid (pencil_coords)

    def arena_size(self, s: ir.IRLAOuter):
        """Bytes of scratch a slice may allocate (int64, launch-invariant): each scratch's span over
        the slice's cells -- a row or a k plane for a ``bovi`` slice of ``i_pencil`` or ``ij_slab``
        chunks (every one spans as many addresses as the first), else the whole logical box (a
        slice's span is never longer) -- 64-byte aligned as allocated."""
        for loop in (n for n in ir.walk(s.body) if isinstance(n, (ir.IRFor, ir.IRWhile))):
            if any(isinstance(n, ir.IRLAScratch) for n in ir.walk(loop.body)):
                # every call takes a new buffer from the block's arena, which cannot grow on a GPU: its size
                # counts each call once, so a call repeated by a loop would run past it (a trap at run time)
                raise TargetUnsupportedError(
                    f"{self.fn.label or self.fn.name}: la.get_per_point_scratch is called in a loop of the outer "
                    f"body; on a GPU target the slice's scratch is sized once per call in the code, so take "
                    f"the buffer once before the loop and reuse it in every iteration")
        total = None
        for sc in (n for n in ir.walk(s.body) if isinstance(n, ir.IRLAScratch)):
            count = math.prod(sc.dims) if sc.dims else 1
            if sc.halo is None:  # one value per slice
                size = i64(count * size_align(sc.storage.type.dtype)[0] + 64)
                total = size if total is None else op("add", total, size)
                continue
            offsets = sc.halo.reduced(s.config.ndim)
            lo_h, hi_h = offsets[0], offsets[-1]
            if s.config.loop == "bvoi" and not sc.halo.is_none:
                lo_h = tuple(min(0, min(h[d] for h in offsets)) for d in range(3))
                hi_h = tuple(max(0, max(h[d] for h in offsets)) for d in range(3))
            g = _geom
            last = (g("ke"), g("je"), g("ie"))
            if s.config.loop == "bovi" and s.config.chunk in ("i_pencil", "ij_slab"):
                last = (g("ks"), g("js") if s.config.chunk == "i_pencil" else g("je"), g("ie"))
            first = _mflat(*[op("add", a, i32(d)) for a, d in zip((g("ks"), g("js"), g("is")), lo_h)])
            end = _mflat(*[op("add", a, i32(d)) for a, d in zip(last, hi_h)])
            nbytes = count * size_align(sc.storage.type.dtype)[0]
            size = op("add", op("mul", wide(op("add", op("sub", end, first), i32(1))), i64(nbytes)), i64(64))
            total = size if total is None else op("add", total, size)
        return total

    def r_IRTeamBarrier(self, s):
        if s.member is None and self.team_slice:
            return ir.IRGpuBarrier()
        return super().r_IRTeamBarrier(s)

    # -- statements of the outer body: once per block when they write memory ----------------------
    def visit(self, s, kji, memory_index=None):
        self.in_cells += 1
        try:
            return super().visit(s, kji, memory_index)
        finally:
            self.in_cells -= 1

    def once(self, s, out):
        return self.team_statement(s, out) if self.team_slice and self.in_cells == 0 else out

    def r_IRAssign(self, s):
        return self.once(s, super().r_IRAssign(s))

    def r_IRExprStmt(self, s):
        return self.once(s, self.copy(s))

    def r_IRPrint(self, s):
        return self.once(s, self.copy(s))

    def r_IRAtomicAdd(self, s):  # a backward kernel's addition into an adjoint pack or scratch
        return self.once(s, self.copy(s))

    def r_IRExpect(self, s):
        return self.once(s, self.copy(s))

    # -- the cells of an inner loop, shared out among the threads ----------------------------------
    def box_loops(self, s, box, out):
        if not self.team_slice:
            return super().box_loops(s, box, out)
        (ks, ke), (js, je), (is_, ie) = box
        nj = self.tmp(op("add", op("sub", je, js), i32(1)), out)
        ni = self.tmp(op("add", op("sub", ie, is_), i32(1)), out)
        n = self.tmp(op("mul", op("mul", op("add", op("sub", ke, ks), i32(1)), nj), ni), out)
        c = self.locals.new("_la_c", int32)
        body: list = []
        kji = self.decode_fast(c, (ks, js, is_, nj, ni), out, body)
        body += self.visit(s, kji)
        out += cell_loop(self.locals, c, i32(0), op("sub", n, i32(1)), body)

    def piece_cell(self, f, box, before, out):
        if not self.team_slice:
            return super().piece_cell(f, box, before, out)
        return self.decode_fast(f, box, before, out)  # every thread decodes each piece: no divisions

    def memory_span(self, s, m0, m1, out):
        if not self.team_slice:
            return super().memory_span(s, m0, m1, out)
        m = self.locals.new("_la_m", int32)
        body: list = []
        kji = self.span_kji(s, m, out, body)
        out += cell_loop(self.locals, m, m0, m1, body + self.visit(s, kji, memory_index=m))

    def span_offsets(self, offsets) -> list:
        """A slice's spans of offsets along i only, consecutive (``la.halo.minus_i``: 0 and -1), are one span
        from the first's first cell to the last's last: each span is the slice shifted along i, so they meet
        or overlap, and their union is one range of the box. The threads then share one loop, where the CPU's
        merged spans gave a loop per span (the second of one cell for ``minus_i``)."""
        if not self.team_slice or len(offsets) < 2 or len({tuple(h[:2]) for h in offsets}) != 1:
            return super().span_offsets(offsets)
        steps = sorted(h[2] for h in offsets)
        if any(b - a != 1 for a, b in zip(steps, steps[1:])):
            return super().span_offsets(offsets)
        lo, hi = min(offsets, key=lambda h: h[2]), max(offsets, key=lambda h: h[2])
        return [(lo, hi)]

    def rows(self, s, first, last, ext, out, cell=None, plane=None):
        if not self.team_slice:
            return super().rows(s, first, last, ext, out, cell, plane)
        if cell is not None:  # one row from a known cell: the threads share its i, nothing to decode
            k, j, i0 = (self.tmp(c, out) for c in cell)
            iv = self.locals.new("_la_i", int32)
            out += cell_loop(self.locals, iv, i0, op("add", i0, op("sub", last, first)), self.visit(s, (k, j, iv)))
            return
        f = self.locals.new("_la_f", int32)
        body: list = []
        if plane is not None:  # one k plane of the box: f runs over offsets in it, which give j and i (one
            ks, js, is_, nj, ni = ext  # division per cell, not two)
            k = self.tmp(plane, out)
            before = self.tmp(op("mul", op("sub", k, ks), op("mul", nj, ni)), out)  # the box's cells before it
            first, last = op("sub", first, before), op("sub", last, before)
            jj, ii = self.divmod_by(f, ni, self.reciprocal(ni, out), body)
            kji = (k, self.tmp(op("add", jj, js), body), self.tmp(op("add", ii, is_), body))
        else:
            kji = self.decode_fast(f, ext, out, body)
        body += self.visit(s, kji)
        out += cell_loop(self.locals, f, first, last, body)

    def r_IRLAScratchZero(self, s: ir.IRLAScratchZero):
        if not self.team_slice:
            return super().r_IRLAScratchZero(s)
        n = self.scratch[s.storage.name].storage
        var = self.locals.new("_la_z", int32)
        zero = i32(0) if n.type.dtype is int32 else ir.IRCast(i32(0), n.type.dtype)
        body = [ir.IRAssign(ir.IRArrayElem(n, [var], n.type.dtype), zero)]
        # barriers on both sides: program order of the slice (writes before are done, zeros are seen after)
        return [ir.IRGpuBarrier(), strided(var, i32(0), op("sub", ir.IRArrayShape(n, 0, int32), i32(1)), body),
                ir.IRGpuBarrier()]


class _ToBlocks(ir.Rewriter):
    """A slice's grid indices -> the block's slice coordinates; the team arena -> the block's arena;
    the slice's reduction -> a per-block one."""

    def __init__(self, coords, arena, shared_limit):
        self.tids = TidToCoords(coords)
        self.arena, self.shared_limit = arena, shared_limit

    def r_IRTid(self, e):
        return self.tids.r_IRTid(e)

    def r_IRTeamBegin(self, e):
        size = self.arena if self.arena is not None else i64(0)
        return ir.IRGpuArena(size, self.shared_limit, TEAM_MEMBER)

    def r_IRSliceReduction(self, s):
        out = self.copy(s)
        out.per_block = True
        return out

