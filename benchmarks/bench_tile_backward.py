"""Backward launches of tile kernels against their forward launches: buffers overwritten in a loop, and tile_fft.

    python benchmarks/bench_tile_backward.py [--reps 5] [--n 256 1024] [--rows 64] [--fft 512]

Rows (median of ``--reps`` interleaved forward and backward launches after one warm-up of each, in process
CPU time, which a machine shared with other work disturbs less than wall time):

* ``ping-pong n``: ``--rows`` tiles of ``n`` floats, 8 steps of two element loops, each reading the buffer the
  other writes (the backward kernel copies a buffer an element loop only reads once, not once per element);
* ``tile_fft f x f``: Warp's navier_stokes_perturbation's row transform, ``f`` rows of ``f`` vec2f.

The ratio is backward / forward. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine_load import load_average  # noqa: E402

import brickwork as wp  # noqa: E402

STEPS = 8


def ping_pong_kernel(n: int):
    @wp.kernel
    def ping_pong(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
        i = wp.tid()
        a = wp.tile_load(x[i], shape=n)
        b = wp.tile_zeros(shape=n, dtype=float)
        for _step in range(STEPS):
            for k in range(n):
                b[k] = 0.5 * a[k] + 0.25 * (a[(k + 1) % n] * a[(k + n - 1) % n])
            for k in range(n):
                a[k] = wp.sin(b[k]) + b[(k + 3) % n]
        wp.tile_store(y[i], a)

    return ping_pong


def fft_kernel(n: int):
    @wp.kernel
    def fft_rows(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f)):
        i = wp.tid()
        t = wp.tile_load(x, shape=(1, n), offset=(i, 0))
        wp.tile_fft(t)
        wp.tile_store(y, t, offset=(i, 0))

    return fft_rows


def forward_and_backward(kernel, x, y, rows: int, reps: int) -> tuple[float, float]:
    """Median CPU seconds of a forward launch under a Tape and of the Tape's backward."""
    seed = wp.ones_like(y)
    f, b = [], []
    for rep in range(reps + 1):
        tape = wp.Tape()
        t0 = time.process_time()
        with tape:
            wp.launch_tiled(kernel, dim=rows, inputs=[x, y], block_dim=64)
        t1 = time.process_time()
        tape.backward(grads={y: seed})
        t2 = time.process_time()
        tape.zero()
        if rep:  # the first launches compile
            f.append(t1 - t0)
            b.append(t2 - t1)
    return statistics.median(f), statistics.median(b)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--n", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--rows", type=int, default=64)
    p.add_argument("--fft", type=int, default=512)
    args = p.parse_args(argv)
    print(f"load before: {load_average()}")
    rng = np.random.default_rng(1)
    rows = []
    for n in args.n:
        x = wp.array(rng.random((args.rows, n), dtype=np.float32) * 0.5, requires_grad=True)
        y = wp.zeros((args.rows, n), dtype=float, requires_grad=True)
        rows.append((f"ping-pong {n}", *forward_and_backward(ping_pong_kernel(n), x, y, args.rows, args.reps)))
    f = args.fft
    x = wp.array(rng.random((f, f, 2), dtype=np.float32), dtype=wp.vec2f, requires_grad=True)
    y = wp.zeros((f, f), dtype=wp.vec2f, requires_grad=True)
    rows.append((f"tile_fft {f} x {f}", *forward_and_backward(fft_kernel(f), x, y, f, args.reps)))
    print(f"{'kernel':<22}{'forward ms':>12}{'backward ms':>13}{'ratio':>8}")
    for name, fw, bw in rows:
        print(f"{name:<22}{fw * 1e3:>12.2f}{bw * 1e3:>13.2f}{bw / fw if fw else float('nan'):>8.1f}")
    print(f"load after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
