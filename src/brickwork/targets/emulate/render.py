"""GPU-mapped IR -> C++ that runs one thread block at a time on the CPU.

A block is a function call; its threads are a loop. The kernel body is cut into *phases* at the
block barriers: each phase runs for every thread of the block (``for (_t = 0; _t < B; ++_t)``)
before the next phase starts, which is what a barrier guarantees. A statement that contains a
barrier (a slice-level ``if``, loop or region around barriers, as the GPU mapping makes them) is
control flow all threads take alike: it runs once, its conditions read thread 0's values, and
its body is cut into phases in turn. Every local (and every parameter the kernel assigns) is an
array with one slot per thread, so values live across barriers per thread. A thread that returns,
or leaves a region that encloses barriers, is switched off (``_off[_t]``) until the region ends
(for a return: the block ends). A warp shuffle runs, as a barrier, for every thread at once, each
reading the value of the lane it names in its warp of 32. Static shared buffers are arrays of the block function; the
dynamic arena is a per-block buffer (see ``unit.py``).
"""

from __future__ import annotations

from dataclasses import replace

from ... import ir
from ...errors import BrickworkError
from ..cpu.cnames import c_type
from ..cpu.render import CppRenderer, local

#: Statements that every thread of the block runs together: a barrier, a warp shuffle.
_BLOCK_LEVEL = (ir.IRGpuBarrier, ir.IRGpuShuffleDown)
#: Threads of a warp (the lanes a shuffle reads from).
WARP = 32


class EmulationError(BrickworkError, RuntimeError):
    """The GPU-mapped IR breaks a rule of block execution (a compiler bug, never a user error)."""


class EmulationRenderer(CppRenderer):
    """Renders the kernel of a GPU-mapped instance; ``per_thread`` names the locals with a slot per thread."""

    def __init__(self, per_thread: set, block: int, tiles: bool = False, slices: bool = False):
        super().__init__()
        self.per_thread = per_thread
        self.block_size = block
        self.tiles = tiles  # the block's and thread's coordinates come from ``_g`` (a bwemu::grid3)
        self.slices = slices  # a grid of slices: the block's coordinates come from ``_g``, its threads are a row
        self.phase = None  # label of the running phase's "next thread", None at block level
        self.phase_loops = 0  # loops entered inside the running phase (break/continue stay inside)
        self.block_regions: dict = {}  # region name -> (label, id) of regions that enclose barriers
        self.block_loops: list = []  # (break id, continue id) of the block-level loops (they enclose barriers)

    # -- expressions -------------------------------------------------------------------------------
    def e_IRLocal(self, e):
        return f"{local(e.name)}[_t]" if e.name in self.per_thread else local(e.name)

    def e_IRPop(self, e):
        return f"bw_tape[_t].template pop<{c_type(e.type)}>()"

    def s_IRPush(self, s, ind, out):
        out.append(" " * ind + f"bw_tape[_t].push({self.expr(s.value)});")

    def e_IRLocalArray(self, e):
        return f"bw::local_array({local(e.name)}[_t])"

    def e_IRGpuIndex(self, e):
        if self.tiles:  # a three-dimensional grid (a tiled launch, or one block row of 256 points)
            return f"_g.thread({e.dim}, _t)" if e.axis == "thread" else f"_g.block[{e.dim}]"
        if self.slices and e.axis == "block":
            return f"_g.block[{e.dim}]"
        if e.dim != 0:
            return "0"
        return "_t" if e.axis == "thread" else "((int32_t)_blk)"

    def e_IRGpuDim(self, e):
        if self.tiles or self.slices and e.axis == "grid":
            return f"_g.{e.axis}_dim[{e.dim}]"
        if e.dim != 0:
            return "1"
        return "BW_BLOCK" if e.axis == "block" else "((int32_t)_nblk)"

    def e_IRLaunchExtent(self, e):
        return f"n{e.dim}"

    def e_IRSharedBuffer(self, e):
        return f"bwemu::view(sh_{e.name}, {e.count})"

    def e_IRGpuArena(self, e):
        return f"bwemu::arena({self.expr(e.size)}, {e.shared_limit})"

    def e_IRTeamScratch(self, e):
        sizes = ", ".join(self.expr(s) for s in [e.member, *e.sizes])
        return f"bwemu::scratch<{c_type(e.type.dtype)}, {e.type.ndim}>({sizes})"

    # -- block level: phases between barriers -------------------------------------------------------
    def body(self, stmts, indent: int) -> list[str]:
        """Statements at block level: runs of barrier-free statements become phases."""
        lines: list[str] = []
        run: list = []
        for s in stmts:
            if not ir.contains([s], _BLOCK_LEVEL):
                run.append(s)
                continue
            lines += self.run_phase(run, indent)
            run = []
            self.uniform(s, indent, lines)
        lines += self.run_phase(run, indent)
        return lines

    def run_phase(self, stmts, indent: int) -> list[str]:
        if not stmts:
            return []
        pad = " " * indent
        self.loops += 1
        self.phase, self.phase_loops = f"_next{self.loops}", 0
        lines = [pad + "for (_t = 0; _t < BW_BLOCK; ++_t) {", pad + "    if (_off[_t]) continue;"]
        lines += self.block(stmts, indent + 4)
        lines += [pad + f"    {self.phase}: ;", pad + "}", pad + "_t = 0;"]
        self.phase = None
        return lines

    def uniform(self, s, ind: int, out: list) -> None:
        """A statement holding a barrier: control flow every thread of the block takes alike."""
        pad = " " * ind
        if isinstance(s, ir.IRGpuBarrier):
            out.append(pad + "// block barrier")
        elif isinstance(s, ir.IRGpuShuffleDown):  # each thread reads the source of lane + delta, after all wrote it
            target = self.expr(s.target).replace("[_t]", "[_u]")
            mine, partner = self.expr(s.source).replace("[_t]", "[_u]"), self.expr(s.source).replace("[_t]", "[_v]")
            out.append(pad + f"for (int32_t _u = 0; _u < BW_BLOCK; ++_u) {{ const int32_t _v = _u + {s.delta}; "
                             f"{target} = _u % {WARP} + {s.delta} < {WARP} && _v < BW_BLOCK ? {partner} : {mine}; }}")
        elif isinstance(s, ir.IRBlock):
            out.extend(self.body(s.body, ind))
        elif isinstance(s, ir.IRIf):
            out.append(pad + f"if (bw::truth({self.expr(s.cond)})) {{")
            out.extend(self.body(s.body, ind + 4))
            if s.orelse:
                out.append(pad + "} else {")
                out.extend(self.body(s.orelse, ind + 4))
            out.append(pad + "}")
        elif isinstance(s, ir.IRWhile):
            out.append(pad + f"while (bw::truth({self.expr(s.cond)})) {{")
            out.extend(self.loop_body(s.body, ind + 4))
            out.append(pad + "}")
        elif isinstance(s, ir.IRFor):
            t = c_type(s.var.type)
            self.loops += 1
            n = self.loops
            cond = {1: f"_it{n} < _stop{n}", -1: f"_it{n} > _stop{n}"}.get(
                s.step_sign, f"(_step{n} > 0 ? _it{n} < _stop{n} : _step{n} < 0 && _it{n} > _stop{n})")
            out.append(pad + f"{{ const {t} _stop{n} = {self.expr(s.stop)}; const {t} _step{n} = {self.expr(s.step)};")
            out.append(pad + f"for ({t} _it{n} = {self.expr(s.start)}; {cond}; _it{n} += _step{n}) {{")
            var = self.expr(s.var).replace("[_t]", "[_u]")
            out.append(pad + f"    for (int32_t _u = 0; _u < BW_BLOCK; ++_u) {var} = _it{n};")
            out.extend(self.loop_body(s.body, ind + 4))
            out.append(pad + "} }")
        elif isinstance(s, ir.IRRegion):
            self.loops += 1
            label, rid = f"{s.name}_{self.loops}", self.loops + 1
            saved = self.block_regions.get(s.name)
            self.block_regions[s.name] = (label, rid)
            out.extend(self.body(s.body, ind))
            out.append(pad + f"{label}: ;")
            out.append(pad + f"for (int32_t _u = 0; _u < BW_BLOCK; ++_u) if (_off[_u] == {rid}) _off[_u] = 0;")
            self.block_regions[s.name] = saved
        else:
            raise EmulationError(f"a block barrier inside {type(s).__name__}, which threads need not take alike")

    def loop_body(self, stmts, ind: int) -> list[str]:
        """The body of a block-level loop. A thread that breaks or continues in one of its phases is switched
        off (``_off[_t]`` = the loop's break or continue id) for the rest of the iteration; after the
        iteration, the ones that continued go on, and if the threads broke (all of them: the break is the
        same for every thread, as the barriers require) the loop ends."""
        self.loops += 2
        brk, cont = self.loops - 1, self.loops
        self.block_loops.append((brk, cont))
        try:
            lines = self.body(stmts, ind)
        finally:
            self.block_loops.pop()
        pad = " " * ind
        lines += [pad + "{ bool _any = false, _all = true;",
                  pad + f"  for (int32_t _u = 0; _u < BW_BLOCK; ++_u) {{ if (_off[_u] == {cont}) _off[_u] = 0; "
                        f"if (_off[_u] == {brk}) _any = true; else if (_off[_u] == 0) _all = false; }}",
                  pad + "  if (_any) { if (!_all) bwemu::divergent_break();",
                  pad + f"    for (int32_t _u = 0; _u < BW_BLOCK; ++_u) if (_off[_u] == {brk}) _off[_u] = 0;",
                  pad + "    break; } }"]
        return lines

    # -- inside a phase ------------------------------------------------------------------------------
    def s_IRGpuBarrier(self, s, ind, out):
        raise EmulationError("a block barrier in control flow that differs between threads")

    def s_IRGpuShuffleDown(self, s, ind, out):
        raise EmulationError("a warp shuffle in control flow that differs between threads")

    def s_IRReturn(self, s, ind, out):
        if self.phase is None or s.value is not None:
            return super().s_IRReturn(s, ind, out)
        out.append(" " * ind + f"{{ _off[_t] = 1; goto {self.phase}; }}")  # this thread is done

    def s_IRRegion(self, s, ind, out):
        saved = self.block_regions.pop(s.name, None)  # a region inside the phase hides an outer one
        super().s_IRRegion(s, ind, out)
        if saved is not None:
            self.block_regions[s.name] = saved

    def s_IRExitRegion(self, s, ind, out):
        found = self.block_regions.get(s.name)
        if found is None:
            return super().s_IRExitRegion(s, ind, out)
        label, rid = found
        if self.phase is None:
            out.append(" " * ind + f"goto {label};")
        else:  # off until the region ends, for this thread only
            out.append(" " * ind + f"{{ _off[_t] = {rid}; goto {self.phase}; }}")

    def s_IRFor(self, s, ind, out):
        self.phase_loops += 1
        try:  # no simd reduction clause: the accumulator is a slot of a per-thread array here
            super().s_IRFor(replace(s, reduction=None) if s.reduction is not None else s, ind, out)
        finally:
            self.phase_loops -= 1

    def s_IRWhile(self, s, ind, out):
        self.phase_loops += 1
        try:
            super().s_IRWhile(s, ind, out)
        finally:
            self.phase_loops -= 1

    def s_IRBreak(self, s, ind, out):
        if not self.block_loop_jump(0, ind, out):
            super().s_IRBreak(s, ind, out)

    def s_IRContinue(self, s, ind, out):
        if not self.block_loop_jump(1, ind, out):
            super().s_IRContinue(s, ind, out)

    def block_loop_jump(self, which: int, ind, out) -> bool:
        """A break (``which`` 0) or continue (1) of the innermost block-level loop, from a phase: this thread is
        switched off for the rest of the iteration (``loop_body``). False: a loop of the phase's own."""
        if self.phase is None or self.phase_loops > 0:
            return False
        if not self.block_loops:
            raise EmulationError("break or continue outside a loop")
        out.append(" " * ind + f"{{ _off[_t] = {self.block_loops[-1][which]}; goto {self.phase}; }}")
        return True
