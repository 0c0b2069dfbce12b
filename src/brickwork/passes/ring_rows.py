"""When the stages of an outer body may run as a ring of rows: the legality and the dependences.

Row fusion (``row_fusion``) runs every stage on the same row, so its halos must extend along i only.
A body whose stages reach along j or k (the y sweep of a finite-volume stage: reconstruct from
primitives two rows away, solve the faces, update from the face above) can still run row by row if
each stage lags behind the stages it depends on: at step t, stage s visits memory row
``t - lag[s]`` (the cells of that row it visits unfused, in their unfused order). A producer's rows
are then consumed a few rows after they are written, while they are in the L1 cache, instead of
after the whole block. ``expand_loop_abstraction`` computes the lags once per slice, because the reach in
rows of a flat memory offset depends on the row length, from the plan's dependences:

- *true*: stage a writes a storage (a scratch buffer, or a kind of pack view) at its own cell and a
  later stage b reads it at offset c: ``lag[b] >= lag[a] + hi_rows(c)``, every row b reads is written;
- *anti*: a reads it at offset c and a later b writes it: ``lag[b] >= lag[a] - lo_rows(c)``, no cell is
  overwritten before a has read it;
- *output* (both write it at their own cells) and program order: lags never decrease.

A cell m of row R (``m = R * NI + i``, ``0 <= i < NI``) shifted by c lies in rows ``R + lo_rows(c)``
to ``R + hi_rows(c)`` (``floor(c / NI)``, ``floor((c + NI - 1) / NI)``). Within a stage the cells
keep their unfused order (rows in increasing order, a row's cells in increasing order), and a
scratch cell keeps one slot from its first write to its last read (``ring_schedule``: a window of
rows whose live rows move together), so every access sees the value it sees unfused: every result
is the same (semantics §8). Only reads of scratch cells no stage wrote, whose values the semantics
leave undefined, may differ.

Legal when
- the slice is a block (``bvoi``, or ``bovi`` with the logical tags and ``kji_cube`` chunks: one chunk,
  the whole box) or a chunk visited by memory spans (``bovi`` with the memory tag);
- the body holds scratch declarations (anywhere at its top level: they only bind storage, so they
  run before the first stage), local values set before the first stage as for row fusion
  (``gamma = coef[5]``), then two or more inner loops, with or without barriers between them; an
  ``inner_reduce`` is a stage like the others (it reads, and folds its cells in their unfused order,
  row by row as unfused, so a Sum keeps its bits);
- every write to scratch or a pack view is at the visited cell, every read at a constant offset from
  it (in the index, ``w[idx - dx2]``, or through a local set once at the stage's top: ``m = idx - dx2``);
- locals, arrays, calls, prints, atomics and control flow obey row fusion's rules: only scratch,
  views and the stage's own locals are written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..types.composite import vector
from ..types.scalars import int32
from .row_fusion import StageAccesses, plain_local_assign, shift, shift3, view_kind

VEC3I = vector(3, int32)
_MEMORY_PIECES = ("i_pencil", "ij_slab", "kji_cube")  # bvoi memory pieces: rows, planes, the box


@dataclass
class RingPlan:
    """The stages of a ring-of-rows body and what each must wait for."""

    stages: list  # IRLAInner, in order
    head: list  # IRLAScratch (hoisted) and local assignments that run before the rows
    # per stage b: (a, sense, (dk, dj, di)): lag[b] >= lag[a] + hi_rows(offset) ("true") or
    # lag[a] - lo_rows(offset) ("anti"); a flat offset c is (0, 0, c)
    waits: list = field(default_factory=list)
    scratch: dict = field(default_factory=dict)  # scratch name -> [(stage, offset)] of its accesses


def box_slices(cfg) -> bool:
    """Whether each slice is a block's whole logical box visited row by row, as ``bvoi``'s: ``bovi`` with a
    ``kji_cube`` chunk is the same slice (its memory-tag spans keep the chunk's own schedule)."""
    return cfg.loop == "bvoi" or (cfg.loop == "bovi" and cfg.chunk == "kji_cube" and cfg.inner != "memory")


def plan(outer: ir.IRLAOuter, counts: dict) -> RingPlan | None:
    """A ring-of-rows plan for ``outer``, or None when that schedule could change a result."""
    cfg = outer.config
    box = box_slices(cfg)
    if not (box or (cfg.loop == "bovi" and cfg.inner == "memory")):
        return None
    head, stages = [], []
    for s in outer.body:
        if isinstance(s, ir.IRLAScratch) and s.halo is not None:
            head.append(s)
        elif not stages and plain_local_assign(s):
            head.append(s)
        elif isinstance(s, ir.IRLAInner):
            stages.append(s)
        elif not (isinstance(s, ir.IRTeamBarrier) and s.member is None):
            return None
    if len(stages) < 2:
        return None
    for st in stages:
        if any(counts.get(p.name, 0) for p in st.params):
            return None  # a reassigned index: its cell is not known statically
        if st.inner == "memory" and cfg.loop == "bvoi" and cfg.chunk not in _MEMORY_PIECES:
            return None  # pieces of a count of cells: spans that start anywhere in a row
        if st.inner != "memory" and not box and not st.reduce:
            return None  # a chunk's logical cells, not memory spans (a fold's are cut into rows)
    found = _Accesses(stages)
    if not found.ok:
        return None
    if not found.locals_private(head):
        return None
    waits: list = [[] for _ in stages]
    for accesses in found.storage.values():
        for a, write_a, off_a in accesses:
            for b, write_b, off_b in accesses:
                if a >= b:
                    continue
                if write_a and not write_b:
                    waits[b].append((a, "true", off_b))
                elif write_b and not write_a:
                    waits[b].append((a, "anti", off_a))
    scratch = {key[1]: [(n, off) for n, _, off in accesses] for key, accesses in found.storage.items()
               if key[0] == "scratch"}
    return RingPlan(stages, head, waits, scratch)


class _Accesses(StageAccesses):
    """Per storage (scratch name, or view kind): (stage, is_write, offset) of every access."""

    folds = True  # a fold stage keeps its cells' unfused order, so it folds them in that order

    def __init__(self, stages):
        self.storage: dict = {}
        super().__init__(stages, offset)

    def scratch(self, e, n, write):
        self.access(("scratch", e.storage.name), e.point, n, write)

    def view(self, e, n, write):
        self.access(("view", view_kind(e.view)), e.point, n, write)

    def access(self, key, point, n, write):
        off = offset(point, self.params, self.aliases) if point else None
        if off is None or (write and off != (0, 0, 0)):
            self.ok = False  # a point not known statically, a slice-wide value, or a write off the cell
            return
        self.storage.setdefault(key, []).append((n, write, off))


def offset(point: list, params: list, aliases: dict):
    """(dk, dj, di) when ``point`` names the visited cell shifted by constants, else None. A flat
    index (memory or logical_flat tags: a memory offset from the slice's first cell) shifted by c
    gives (0, 0, c); ``aliases``: locals naming the visited cell shifted (``index_aliases``)."""
    if len(point) == 3:
        if len(params) != 3:
            return None
        parts = [shift(q, p.name) for q, p in zip(point, params)]
        return None if None in parts else tuple(parts)
    (p,) = point
    if isinstance(p, ir.IRLocal) and p.name in aliases:
        return aliases[p.name]
    if len(params) != 1:
        return None
    vec = p.type is VEC3I
    c = shift3(p, params[0].name) if vec else shift(p, params[0].name)
    if c is not None:
        return c if vec else (0, 0, c)
    for name, (dk, dj, di) in aliases.items():  # an alias shifted again (an inlined fold: x = idx; x - 1)
        c = shift3(p, name) if vec else shift(p, name)
        if c is not None:
            return (dk + c[0], dj + c[1], di + c[2]) if vec else (dk, dj, di + c)
    return None
