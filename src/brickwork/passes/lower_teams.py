"""lower_teams: nested parallelism where a team is one thread (the CPU mapping).

``IRTeamLoop`` becomes a simd ``IRFor`` over ``lo..hi``; a barrier is program order and vanishes.
Team creation and team scratch stay: the target's runtime implements them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from .build import i32, op


@dataclass(frozen=True)
class LowerTeams:
    """``mapping`` "cpu" (a team is one thread, here) or "gpu" (a team is a thread block:
    ``gpu_lowering.py``; ``shared_limit`` bytes of team arena may live in shared memory)."""

    mapping: str = "cpu"
    shared_limit: int = 48 * 1024
    name: str = "lower_teams"

    @property
    def needs(self):
        """What ``run_passes`` skips the pass without (the GPU's lowering decides for itself)."""
        return None if self.mapping == "gpu" else (ir.IRTeamLoop, ir.IRTeamBarrier)

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if self.mapping == "gpu":
            from .gpu_lowering import lower_teams_gpu

            return lower_teams_gpu(fn, self.shared_limit)
        if not ir.contains(fn.body, (ir.IRTeamLoop, ir.IRTeamBarrier)):
            return fn  # no team: nothing to lower (plain kernels)
        return _Lower().function(fn)


class _Lower(ir.Rewriter):
    def r_IRTeamLoop(self, s: ir.IRTeamLoop):
        stop = op("add", self.expr(s.hi), i32(1))
        return ir.IRFor(s.var, self.expr(s.lo), stop, i32(1), self.stmts(s.body), 1, simd=True)

    def r_IRTeamBarrier(self, s):
        return None  # one thread per team: program order already orders producers and consumers
