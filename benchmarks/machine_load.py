"""The machine's load average around a benchmark run, and whether it was too busy to publish.

Timings taken while other processes compete for the cores are not comparable with a quiet run,
so ``run.py`` records the 1-minute load average before and after the run and refuses to
overwrite RESULTS.md when either exceeds ``LOADED_PER_CORE`` per logical CPU (unless asked).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

LOADED_PER_CORE = 0.5


def load_average() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


@dataclass(frozen=True)
class LoadRecord:
    """The 1-minute load average before and after a run, on ``cpus`` logical CPUs."""

    before: float | None
    after: float | None
    cpus: int
    limit_per_core: float = LOADED_PER_CORE

    def loaded(self) -> bool:
        """Whether either reading exceeds ``limit_per_core`` per logical CPU."""
        limit = self.limit_per_core * self.cpus
        return any(value is not None and value > limit for value in (self.before, self.after))

    def text(self) -> str:
        """One header line: both readings, the limit, and the verdict."""

        def show(value: float | None) -> str:
            return "unknown" if value is None else f"{value:.2f}"

        verdict = "loaded" if self.loaded() else "quiet"
        return (
            f"load average (1 min): {show(self.before)} before, {show(self.after)} after, on {self.cpus} "
            f"logical CPUs ({verdict}; limit {self.limit_per_core:g} per CPU = {self.limit_per_core * self.cpus:g})"
        )
