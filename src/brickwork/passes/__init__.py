"""Passes over the IR: each a frozen dataclass named by its verb, ``run(fn) -> fn``, one module each.

A target lists the passes it needs in order (``Target.passes``); ``run_passes`` applies them to a
function and, with ``BRICKWORK_VERIFY_IR``, verifies the result (and on a failure, the output of each
pass that changed it): a pass with nothing to do returns the function it was given, untouched; one
that rewrites returns a new function. A pass whose ``needs`` (a class or tuple of node classes, or None) is set
has nothing to do on a function without a node of those classes, and ``run_passes`` skips it there.
"""

from __future__ import annotations

from .. import ir
from .adjoint_gather import AdjointGather
from .check_bounds import CheckBounds
from .expand_loop_abstraction import ExpandLoopAbstraction
from .gpu_grid import SHARED_LIMIT, MapGpuThreads
from .inline_local_functions import InlineLocalFunctions
from .lower_pack_access import LowerPackAccess
from .lower_reductions import LowerReductions
from .lower_teams import LowerTeams
from .prove_no_overflow import ProveNoOverflow
from .select_branches import SelectBranches
from .select_builtins import SelectBuiltins
from .sequence_effects import SequenceEffects
from .split_interior import SplitInterior
from .unroll_constant_loops import UnrollConstantLoops


def run_passes(fn: ir.IRFunction, passes, verify: bool = False, observe=None) -> ir.IRFunction:
    """``fn`` after every pass in order; ``observe(pass_name, fn)`` sees each stage (dumps, tests).

    ``verify``: check the IR after the last pass. Should that fail, the passes run again from ``fn``
    with a check after each one that returned a new function (one that returned its input changed
    nothing), so that the error names the first pass whose output is inconsistent; a check after
    every pass on every compile cost the test suite a fifth of its code generation."""
    out = fn
    present = None  # the node classes of ``out``, found once for a run of passes that it lets skip
    for p in passes:
        needs = getattr(p, "needs", None)
        if needs is not None:
            # a pass with a ``needs`` returns its input untouched when no node of those classes is in it: skipped
            # here on one walk for the lot, where each pass's own test walked the whole function again
            if present is None:
                present = ir.node_classes(out.body)
            if not any(issubclass(c, needs) for c in present):
                if observe is not None:
                    observe(p.name, out)
                continue
        out = p.run(out)
        present = None
        if observe is not None:
            observe(p.name, out)
    if verify and passes:
        try:
            ir.verify(out, after=passes[-1].name, target_neutral=not isinstance(passes[-1], SelectBuiltins))
        except ir.IRVerifyError:
            _verify_each(fn, passes)  # names the pass at fault
            raise  # the passes gave a consistent function this time: the first report stands
    return out


def _verify_each(fn: ir.IRFunction, passes) -> None:
    for p in passes:
        before, fn = fn, p.run(fn)
        if fn is not before:
            ir.verify(fn, after=p.name, target_neutral=not isinstance(p, SelectBuiltins))


def gpu_pass_list(target_name: str, builtins: dict, wrapping, mode: str = "release",
                  shared_limit: int = SHARED_LIMIT) -> tuple:
    """The passes of a device target (the GPU mapping): slices and teams become thread blocks, plain
    kernels one thread per launch point; ``builtins``/``wrapping`` are the target's implementations
    (as for ``SelectBuiltins``), ``mode`` "debug" adds bounds checks."""
    checks = (CheckBounds(),) if mode == "debug" else ()
    return (SequenceEffects(), ProveNoOverflow(), InlineLocalFunctions(),
            ExpandLoopAbstraction("gpu_teams", shared_limit), LowerTeams("gpu", shared_limit), LowerReductions("gpu"),
            LowerPackAccess(checked=mode == "debug"), MapGpuThreads(), *checks,
            SelectBuiltins(target_name, builtins, wrapping))


__all__ = ["AdjointGather", "CheckBounds", "ExpandLoopAbstraction", "InlineLocalFunctions", "LowerPackAccess",
           "LowerReductions", "LowerTeams", "MapGpuThreads", "ProveNoOverflow", "SelectBranches", "SelectBuiltins",
           "SequenceEffects", "SplitInterior", "UnrollConstantLoops", "gpu_pass_list", "run_passes"]
