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


def measure_interleaved(
    fns: dict, reps: int, warmup: int = 1, min_time: float = 0.0, max_reps: int = 200, block: int = 4
) -> dict:
    """Time several callables in interleaved blocks: ``block`` timed calls of each per round.

    Interleaving makes slow drifts of the machine (another process, frequency changes) fall on
    every peer alike, so the ratios stay meaningful. Each block starts with one untimed call, so
    that what the previous peer left behind (cold caches, sleeping OpenMP threads) is not charged
    to this one. Rounds go on until every callable has ``reps`` samples and the slowest has spent
    ``min_time`` seconds.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples: dict = {name: [] for name in fns}
    while samples and (min(len(v) for v in samples.values()) < reps or (
            min(sum(v) for v in samples.values()) < min_time
            and min(len(v) for v in samples.values()) < max_reps)):
        for name, fn in fns.items():
            fn()
            for _ in range(block):
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
    return {name: Timing(tuple(v)) for name, v in samples.items()}
