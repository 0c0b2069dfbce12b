"""Repeated wall-clock timing: one untimed warm-up call, then the median and spread of N calls."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


def fmt(value: float) -> str:
    """A number with about three significant digits and no exponent for the usual ranges."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


@dataclass(frozen=True)
class Timing:
    """Samples in seconds, with the summary statistics the report prints."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)

    @property
    def n(self) -> int:
        return len(self.samples)

    def ms(self) -> str:
        """``median [min–max]`` in milliseconds, three significant digits."""
        return f"{fmt(self.median * 1e3)} [{fmt(self.min * 1e3)}–{fmt(self.max * 1e3)}]"


def measure(
    fn: Callable[[], None], reps: int, warmup: int = 1, min_time: float = 0.0, max_reps: int = 200
) -> Timing:
    """Call ``fn`` ``warmup`` times untimed, then time calls one by one.

    At least ``reps`` calls are timed, and more (up to ``max_reps``) until ``min_time`` seconds
    have been spent, so that short kernels get enough samples for a stable median.
    """
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    while len(samples) < reps or (sum(samples) < min_time and len(samples) < max_reps):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return Timing(tuple(samples))
