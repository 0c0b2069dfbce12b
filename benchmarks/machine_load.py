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

Neither reading sees a virtual machine whose host gives its CPUs to other guests (steal time that
the guest's /proc/stat may not show): the load stays near zero while a fixed piece of work takes
1.5x as long from one second to the next. ``SpeedProbe`` times such a piece (a pure-Python loop of
about 10 ms: no memory traffic, no threads) between the cases of a run; a run whose median probe
time exceeds the fastest by more than ``UNSTEADY_SLOWDOWN`` counts as unsteady and is refused like
a loaded one. On a steady machine the median is within a few per cent of the fastest.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import time
from dataclasses import dataclass

LOADED_PER_CORE = 0.5
#: A run is unsteady when the speed probe's median time exceeds its fastest by more than this factor.
UNSTEADY_SLOWDOWN = 1.15
#: The fewest probe timings that give a verdict on steadiness.
MIN_PROBES = 6
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


def probe_work(n: int = 150_000) -> int:
    """The speed probe's fixed work: integer arithmetic in a Python loop (about 10 ms on a 3 GHz core)."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


class SpeedProbe:
    """Times ``work`` (``repeats`` times back to back) at each ``sample()``: how much slower than its
    fastest the median timing was tells whether the CPUs ran at one speed through the run."""

    def __init__(self, work=probe_work, repeats: int = 3, clock=time.perf_counter):
        self.work, self.repeats, self.clock = work, repeats, clock
        self.times: list[float] = []

    def sample(self) -> None:
        enabled = gc.isenabled()
        gc.disable()  # a collection inside a timing would count against the machine
        try:
            for _ in range(self.repeats):
                start = self.clock()
                self.work()
                self.times.append(self.clock() - start)
        finally:
            if enabled:
                gc.enable()

    def fastest(self) -> float | None:
        """The fastest timing in seconds (None before any sample)."""
        return min(self.times) if self.times else None

    def slowdown(self) -> float | None:
        """Median over fastest timing, or None with fewer than ``MIN_PROBES`` timings."""
        if len(self.times) < MIN_PROBES or min(self.times) <= 0.0:
            return None
        return statistics.median(self.times) / min(self.times)


@dataclass(frozen=True)
class LoadRecord:
    """The 1-minute load average before and after a run, on ``cpus`` logical CPUs, the CPUs other
    processes kept busy during it, the load average once it settled after the run (``waited``
    seconds later), and the speed probe's median over fastest timing (``slowdown``; ``probes``
    timings, the fastest ``probe_fastest`` seconds). None: not measured."""

    before: float | None
    after: float | None
    cpus: int
    limit_per_core: float = LOADED_PER_CORE
    others: float | None = None
    settled: float | None = None
    waited: float = 0.0
    slowdown: float | None = None
    probes: int = 0
    probe_fastest: float | None = None

    @classmethod
    def with_probe(cls, probe: SpeedProbe, *args, **kwargs) -> "LoadRecord":
        """The record with ``probe``'s verdict."""
        return cls(*args, slowdown=probe.slowdown(), probes=len(probe.times), probe_fastest=probe.fastest(),
                   **kwargs)

    @property
    def limit(self) -> float:
        return self.limit_per_core * self.cpus

    def loaded(self) -> bool:
        """Whether the load before the run, the others' share during it (else the load after it), or
        the settled load after it exceeds ``limit_per_core`` per logical CPU, or the run was unsteady."""
        during = self.others if self.others is not None else self.after
        busy = any(value is not None and value > self.limit for value in (self.before, during, self.settled))
        return busy or self.unsteady()

    def unsteady(self) -> bool:
        """Whether the speed probe's median timing exceeded its fastest by more than ``UNSTEADY_SLOWDOWN``."""
        return self.slowdown is not None and self.slowdown > UNSTEADY_SLOWDOWN

    def text(self) -> str:
        """One header line: both readings, the limit, and the verdict."""

        def show(value: float | None) -> str:
            return "unknown" if value is None else f"{value:.2f}"

        verdict = "unsteady" if self.unsteady() else "loaded" if self.loaded() else "quiet"
        others = "" if self.others is None else f"; other processes used {self.others:.2f} CPUs during the run"
        settled = "" if self.settled is None else f", {show(self.settled)} {self.waited:.0f} s after"
        probe = ""
        if self.slowdown is not None:
            probe = (f"; a fixed CPU loop timed {self.probes} times during the run took a median "
                     f"{self.slowdown:.2f}x its fastest, {self.probe_fastest * 1e3:.1f} ms "
                     f"(limit {UNSTEADY_SLOWDOWN:g}x)")
        return (
            f"load average (1 min): {show(self.before)} before, {show(self.after)} after{settled}, on {self.cpus} "
            f"logical CPUs{others}{probe} ({verdict}; limit {self.limit_per_core:g} per CPU = {self.limit:g})"
        )
