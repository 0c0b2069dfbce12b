"""Sum of a float64 field of 256^3 cells in 32^3 blocks (2 ghosts): la.outer_reduce vs numpy.

numpy sums the same interior cells (a strided view) with ``.sum()``. Both are timed in one run,
interleaved, median of several repetitions; the ratio is numpy time / brickwork time (>= 1.0 is
the target). Run: ``python benchmarks/bench_la_sum.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import brickwork as wp  # noqa: E402
from brickwork import la  # noqa: E402


def main(reps: int = 9) -> None:
    nb, n, g = 512, 32, 2
    data = np.random.default_rng(0).random((nb, n + 2 * g, n + 2 * g, n + 2 * g))
    values = wp.array(data, dtype=wp.float64, copy=False)
    interior = data[:, g:-g, g:-g, g:-g]
    print(f"{'tags':28s} {'brickwork ms':>13s} {'numpy ms':>9s} {'ratio':>6s}  rel. diff")
    for lt, it in ((la.bovi, la.logical_flat), (la.bvoi, la.logical_flat), (la.boiv, la.logical_flat),
                   (la.bovi, la.memory)):
        space = la.IndexSpace.box(lt, it, nb, n, n, n, g).with_reducer(la.Sum(wp.float64))

        def body(rng, b):
            la.inner_reduce(rng, lambda k, j, i: values[b, k, j, i])

        la.outer_reduce(space, body)  # compile or load
        ours, theirs = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            value = la.outer_reduce(space, body)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            reference = interior.sum()
            theirs.append(time.perf_counter() - t0)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{lt.name + ' + ' + it.name:28s} {1e3 * a:13.1f} {1e3 * b:9.1f} {b / a:6.2f}  "
              f"{abs(value - reference) / reference:.1e}")


if __name__ == "__main__":
    main()
