"""A problem's own time-step limit, ``TIMESTEP`` (Athena++'s ``EnrollUserTimeStepFunction``, a Parthenon
package's ``EstimateTimestep``): ``fn(density, v1, v2, v3, pressure, params, gamma)`` gets a rank's blocks'
primitive variables, float64 arrays ``(nblocks, nk, nj, ni)``, and returns the largest step it allows, a
number or an array (its smallest value counts). Each step is the smaller of the CFL step and the smallest
limit over the ranks. A function that fails, or allows no positive step, on any rank, stops every rank
with one line naming it (``agree``)."""

from __future__ import annotations

import math

import numpy as np

from . import user_arguments
from .custom_problem import call_user, host_function, kernel_note, primitives
from .rank_errors import agree
from .schema import ConfigError


def describe_mistakes(problem) -> list[str]:
    """What ``problem``'s ``TIMESTEP`` gets wrong (for ``custom_problem.describe_mistakes``)."""
    function = getattr(problem, "TIMESTEP", None)
    if function is not None and not host_function(function):
        return [f"TIMESTEP must be a function fn(density, v1, v2, v3, pressure, params, gamma) returning the largest "
                f"time step it allows, got {function!r}{kernel_note(function)}"]
    return [] if function is None else user_arguments.describe_mistake(function, "TIMESTEP", "TIMESTEP")


def local_limit(sim) -> float:
    """The smallest step this rank's blocks allow (``inf`` without a ``TIMESTEP``; not collective).
    ``ConfigError`` naming the function when it raises or allows no positive step."""
    problem = sim.cfg.problem
    function = getattr(problem, "TIMESTEP", None)
    if function is None or not sim.mesh.blocks:
        return math.inf
    value = call_user(sim, "TIMESTEP", function, primitives(sim), np.float64)
    limit = float(np.min(value)) if value.size else math.inf
    if not limit > 0.0:  # NaN too
        raise ConfigError(f"problem {problem.NAME!r}: TIMESTEP() must return a positive time step (a number, or "
                          f"an array whose smallest value counts), got {limit!r}")
    return limit


def limit(sim, dt: float) -> float:
    """``dt`` (the CFL step) limited by the problem's ``TIMESTEP``, the same on every rank (collective when
    the problem has one)."""
    if getattr(sim.cfg.problem, "TIMESTEP", None) is None:
        return dt
    mine: list[float] = []
    agree(sim.mesh.comm, lambda: mine.append(local_limit(sim)))
    limits = sim.mesh.comm.allgather(mine[0]) if sim.mesh.nranks > 1 else mine
    return min(dt, *limits)
