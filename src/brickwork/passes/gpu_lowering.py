"""The GPU variants of ``lower_teams`` and ``lower_reductions``.

Teams (``par_for_outer``): a team is a thread block. The block's index gives the outer index, a
``par_for_inner`` loop is shared out among the block's threads (128 of them, or fewer where every such
loop's extent is a constant: ``team_block``), a team barrier is a block barrier, team scratch comes
from the block's arena (shared memory when the launch's arena fits the limit, global memory
otherwise); statements outside the inner loops run on every thread, the ones that write memory or
print on thread 0 only.

Reductions: a slice run by a block (``IRSliceReduction.per_block``) folds each thread's cells into
the thread's accumulator, then the block combines the accumulators in shared memory by a tree
(thread t takes t + s for s = blockDim/2, ..., 1; MinLoc/MaxLoc keep the first cell in (b, k, j, i)
order among equal values, as the CPU's in-order fold does) and thread 0 stores the slice's partial.
The rounds across warps go through shared memory with a block barrier after each; warp 0 then takes
its values from the buffer and joins the rest by warp shuffles (``__shfl_down_sync``: lane t reads
lane t + s), in the same order as the shared-memory rounds, so the partial has the same bits. The
host combines the partials in slice order as on the CPU, so results are the same run to run.
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import ir
from ..ir.printer import expr as show
from ..types.arrays import ArrayType
from ..types.layout import size_align
from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int32
from .build import Locals, i32, op
from .gpu_cell_pairs import cell_loop
from .gpu_grid import (
    TEAM_BLOCK,
    OncePerTeam,
    TidToCoords,
    check_team_body,
    single_thread,
    slice_coords,
    thread,
    wide,
)
from .lower_reductions import _Lower as _CpuReductions
from .lower_teams import _Lower as _CpuTeams

_WARP = 32  # threads of a warp


def lower_teams_gpu(fn: ir.IRFunction, shared_limit: int) -> ir.IRFunction:
    if not fn.is_kernel or fn.gpu_launch is not None or not ir.contains(fn.body, ir.IRTeamBegin):
        return _CpuTeams().function(fn)
    out = replace(fn, locals=dict(fn.locals), buffers=dict(fn.buffers))
    pre: list = []
    check_team_body(fn.body, fn.label or fn.name, ir.IRTeamLoop)
    coords = slice_coords(Locals(out), fn.tid_dims, pre)
    assigned = ir.assignment_counts(fn.body)
    lowering = _Teams(coords, shared_limit, {n for n, _ in fn.params if not assigned.get(n, 0)}, Locals(out))
    out.body = pre + lowering.stmts(fn.body)
    block = team_block([constant_extent(s.lo, s.hi) for s in ir.walk(fn.body) if isinstance(s, ir.IRTeamLoop)])
    out.gpu_launch = {"grid": "slices", "block": block, "shared_bytes": 0,
                      "arena": lowering.arena, "shared_limit": shared_limit}
    if lowering.pads:
        out.gpu_launch["pads"] = lowering.pads
    return out


def constant_extent(lo, hi_incl) -> int | None:
    """The iterations of ``lo..hi_incl`` where both are integer expressions of constants (+, -, *), else None."""
    def value(e):
        if isinstance(e, ir.IRConst) and type(e.value) is int:
            return e.value
        if isinstance(e, ir.IRCall) and e.op in ("add", "sub", "mul") and len(e.args) == 2:
            a, b = (value(x) for x in e.args)
            if a is not None and b is not None:
                return a + b if e.op == "add" else a - b if e.op == "sub" else a * b
        return None

    first, last = value(lo), value(hi_incl)
    return None if first is None or last is None else max(last - first + 1, 0)


def team_block(extents: list) -> int:
    """Threads of a team whose ``par_for_inner`` loops have ``extents`` iterations (None: known only at run
    time): the smallest power of two from a warp up that covers the longest loop in one trip, at most
    ``TEAM_BLOCK``; ``TEAM_BLOCK`` where any extent is unknown. A team of 16 iterations then runs one warp,
    not four of which three idle, and more teams fit on a multiprocessor. The block is in the unit's source
    (``__launch_bounds__``, the reduction tree), so the compiled key holds it."""
    if not extents or any(n is None for n in extents):
        return TEAM_BLOCK
    block = _WARP
    while block < min(max(extents), TEAM_BLOCK):
        block *= 2
    return block


#: The most bytes a team's scratch pad may have (the CPU's runtime header stops past it; the CUDA host checks it).
MAX_PAD_BYTES = 2**61
#: Integer operations the host evaluates as the kernel does (``targets/cuda/geometry.arena_function``).
_HOST_OPS = ("add", "sub", "mul", "div", "mod", "max", "min")


def host_sizes(sizes: list, params: set) -> list | None:
    """The text of each of ``sizes`` (a scratch pad's) where every one is an integer expression of constants
    and the kernel's unassigned parameters ``params``, which the host can evaluate before a launch; else None."""
    for n in ir.walk(sizes):
        if isinstance(n, ir.IRConst) and type(n.value) is int or isinstance(n, ir.IRLocal) and n.name in params \
                or isinstance(n, ir.IRCast) or isinstance(n, ir.IRCall) and n.op in _HOST_OPS:
            continue
        return None
    return [show(e) for e in sizes]


class _Teams(TidToCoords):
    def __init__(self, coords, shared_limit, params: set, locals_: Locals):
        super().__init__(coords)
        self.locals = locals_  # a par_for_inner loop's pair copies (gpu_cell_pairs)
        self.shared_limit = shared_limit
        self.params = params  # the parameters a pad's sizes may name for the host to check them
        self.pads: list = []  # [element bytes, [size texts]] of each pad whose sizes the host can evaluate
        self.in_loop = 0
        self.arena = None
        self.team_statement = OncePerTeam()  # the team body's statements outside par_for_inner

    def r_IRTeamBegin(self, e):
        size = wide(self.expr(e.arena_bytes))
        self.arena = show(size)
        return ir.IRGpuArena(size, self.shared_limit, TEAM_MEMBER)

    def r_IRTeamScratch(self, e: ir.IRTeamScratch):
        # a GPU arena cannot grow: a pad whose byte count overflows would wrap to a small one that in-range
        # indices write past, so the host checks the sizes it can evaluate before the launch (LaunchPlan)
        texts = host_sizes(e.sizes, self.params)
        nbytes = size_align(e.type.dtype)[0]
        if all(isinstance(n, ir.IRConst) for n in e.sizes) and \
                math.prod(max(n.value, 0) for n in e.sizes) * nbytes <= MAX_PAD_BYTES:
            texts = None  # constant sizes that fit: nothing to check
        if texts is not None and [nbytes, texts] not in self.pads:
            self.pads.append([nbytes, texts])
        return self.copy(e)

    def r_IRTeamLoop(self, s: ir.IRTeamLoop):
        self.in_loop += 1
        try:
            body = self.stmts(s.body)
        finally:
            self.in_loop -= 1
        # two iterations per trip where the body allows, as the loop abstraction's cell loops (gpu_cell_pairs)
        return cell_loop(self.locals, s.var, self.expr(s.lo), self.expr(s.hi), body)

    def r_IRTeamBarrier(self, s):
        return ir.IRGpuBarrier()

    def once(self, s):
        out = self.copy(s)
        return self.team_statement(s, out) if self.in_loop == 0 else out

    r_IRAssign = r_IRExprStmt = r_IRPrint = r_IRExpect = once


def lower_reductions_gpu(fn: ir.IRFunction) -> ir.IRFunction:
    if not ir.contains(fn.body, ir.IRSliceReduction):
        return fn
    return _Reductions(fn).function(fn)


class _Reductions(_CpuReductions):
    def function(self, fn):
        self.launch = dict(fn.gpu_launch) if fn.gpu_launch is not None else None
        out = super().function(fn)
        out.gpu_launch = self.launch
        return out

    def r_IRSliceReduction(self, s: ir.IRSliceReduction):
        out = super().r_IRSliceReduction(s)
        if not s.per_block:
            return out  # a slice run by one thread (boiv): the CPU's fold
        *fold, _store = out
        r = self.reducer
        block = self.launch["block"]
        vt = r.value_type
        red = ir.IRSharedBuffer("_gpu_red", block, ArrayType(vt, 1))
        self.launch["shared_bytes"] = block * size_align(vt)[0]

        def slot(i):
            return ir.IRArrayElem(red, [i], vt)

        t, acc = thread(), self.acc()
        tree: list = []
        step = block // 2
        if block > _WARP:  # the rounds across warps: through shared memory, a block barrier after each
            tree += [ir.IRAssign(slot(t), acc), ir.IRGpuBarrier()]
            while step > _WARP:
                tree += [ir.IRIf(op("lt", t, i32(step)), [self.combine(slot(t), slot(op("add", t, i32(step))))], []),
                         ir.IRGpuBarrier()]
                step //= 2
            # warp 0 takes the last values from the buffer; the barrier lets any thread write it after
            tree += [ir.IRAssign(acc, slot(t)),
                     ir.IRIf(op("lt", t, i32(step)), [self.combine(acc, slot(op("add", t, i32(step))))], []),
                     ir.IRGpuBarrier()]
            step //= 2
        other = self.locals.new("_gpu_lane", vt)
        while step >= 1:  # within the warp: lane t joins lane t + step's value, as the tree's round would
            tree += [ir.IRGpuShuffleDown(other, acc, step), self.combine(acc, other)]
            step //= 2
        store = ir.IRAssign(ir.IRArrayElem(s.partials, [self.expr(s.slice_id)], vt), acc)
        return [*fold, *tree, single_thread(store)]

    def combine(self, mine, other):
        """``mine = join(mine, other)``; with a location, ``other`` wins a tie when its cell comes first."""
        r = self.reducer
        if r.join in ("sum", "prod"):
            return ir.IRAssign(mine, op("add" if r.join == "sum" else "mul", mine, other))
        if not r.with_location:
            return ir.IRAssign(mine, op(r.join, mine, other))

        def f(e, name):
            return ir.IRField(e, name, r.dtype if name == "value" else int32)

        better = op("lt" if r.join == "min" else "gt", f(other, "value"), f(mine, "value"))
        first = None  # (b, k, j, i) of other before mine, lexicographically
        for name in reversed("bkji"):
            less = op("lt", f(other, name), f(mine, name))
            first = less if first is None else op("logical_or", less, op("logical_and", op("eq", f(other, name),
                                                                                        f(mine, name)), first))
        found = op("logical_and", op("ge", f(other, "b"), i32(0)), op("ge", f(mine, "b"), i32(0)))
        tie = op("logical_and", op("logical_and", op("eq", f(other, "value"), f(mine, "value")), found), first)
        return ir.IRIf(op("logical_or", better, tie), [ir.IRAssign(mine, other)], [])
