"""The machine's load around a benchmark run, and whether it was too busy to publish.

Timings taken while other processes compete for the cores are not comparable with a quiet run,
so ``run.py`` records the 1-minute load average before and after the run, and the CPUs that
*other* processes kept busy during it (``OtherCpuMeter``: the machine's busy time from /proc/stat
less the run's own CPU time, so the benchmark's own threads do not count against it), and refuses
to overwrite RESULTS.md when the load before the run or the others' share during it exceeds
``LOADED_PER_CORE`` per logical CPU (unless asked). Where the others' share cannot be measured,
the load average after the run decides instead.

The 1-minute load average right after a run counts the run's own threads (it decays with a one-minute
time constant), so a two-thread run on two CPUs always ends above the limit. ``settle`` therefore
also waits, after the run, for the load average to fall to the limit (at most ``SETTLE_SECONDS``):
on a machine that nobody else uses it does within about a minute; one that stays above it was busy
with other work, and the run counts as loaded.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

LOADED_PER_CORE = 0.5
#: The longest wait after a run for the load average to fall to the limit (``settle``).
SETTLE_SECONDS = 150.0


def load_average() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


def _busy_seconds() -> float | None:
    """CPU-seconds the whole machine has spent busy since boot (all CPUs), or None without /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the JIT-cost probes run as subprocesses
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def settle(limit: float, timeout: float = SETTLE_SECONDS, poll: float = 5.0,
           read=load_average, sleep=time.sleep) -> tuple[float | None, float]:
    """Wait until the 1-minute load average is at most ``limit`` (or ``timeout`` seconds passed):
    the last reading and the seconds waited (None, 0 where the platform has no load average)."""
    waited = 0.0
    value = read()
    while value is not None and value > limit and waited < timeout:
        sleep(poll)
        waited += poll
        value = read()
    return value, waited


class OtherCpuMeter:
    """How many CPUs other processes kept busy, on average, since this meter was made."""

    def __init__(self):
        self.start = (time.monotonic(), _busy_seconds(), _own_seconds())

    def others(self) -> float | None:
        wall0, busy0, own0 = self.start
        busy = _busy_seconds()
        wall = time.monotonic() - wall0
        if busy is None or busy0 is None or wall < 1.0:  # /proc/stat counts clock ticks: too coarse below 1 s
            return None
        return min(float(os.cpu_count() or 1), max(0.0, ((busy - busy0) - (_own_seconds() - own0)) / wall))


@dataclass(frozen=True)
class LoadRecord:
    """The 1-minute load average before and after a run, on ``cpus`` logical CPUs, the CPUs other
    processes kept busy during it, and the load average once it settled after the run, ``waited``
    seconds later (None: not measured)."""

    before: float | None
    after: float | None
    cpus: int
    limit_per_core: float = LOADED_PER_CORE
    others: float | None = None
    settled: float | None = None
    waited: float = 0.0

    @property
    def limit(self) -> float:
        return self.limit_per_core * self.cpus

    def loaded(self) -> bool:
        """Whether the load before the run, the others' share during it (else the load after it), or
        the settled load after it exceeds ``limit_per_core`` per logical CPU."""
        during = self.others if self.others is not None else self.after
        return any(value is not None and value > self.limit for value in (self.before, during, self.settled))

    def text(self) -> str:
        """One header line: both readings, the limit, and the verdict."""

        def show(value: float | None) -> str:
            return "unknown" if value is None else f"{value:.2f}"

        verdict = "loaded" if self.loaded() else "quiet"
        others = "" if self.others is None else f"; other processes used {self.others:.2f} CPUs during the run"
        settled = "" if self.settled is None else f", {show(self.settled)} {self.waited:.0f} s after"
        return (
            f"load average (1 min): {show(self.before)} before, {show(self.after)} after{settled}, on {self.cpus} "
            f"logical CPUs{others} ({verdict}; limit {self.limit_per_core:g} per CPU = {self.limit:g})"
        )
