"""Launches on several threads beside other busy programs: the starvation guard (``BRICKWORK_ADAPTIVE_THREADS``).

    python benchmarks/bench_busy_threads.py [--rounds 3] [--seconds 0.4] [--threads 2]

A Jacobi stencil (example_fluid's pressure solve) launched over and over on grids from 32x32 to 512x512, in a
fresh process per setting, the settings interleaved round by round: one thread, ``--threads`` threads with the
guard off (every launch of at least ``BRICKWORK_PARALLEL_THRESHOLD`` points on all threads), and with it on.
Prints the median time a launch per grid and the ratios to one thread, with the machine's load before and after.
On a machine whose cores are free, the guard changes nothing (the two multi-thread rows agree); on one that
other programs keep busy, the guard-off row is many times slower than one thread and the guard-on row is not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import brickwork as wp

GRIDS = ((32, 32), (100, 100), (256, 128), (316, 316), (512, 512))


@wp.kernel
def jacobi(p: wp.array2d(dtype=wp.float32), q: wp.array2d(dtype=wp.float32), div: wp.array2d(dtype=wp.float32)):
    i, j = wp.tid()
    nx = p.shape[0]
    ny = p.shape[1]
    s = wp.float32(0.0)
    if i > 0:
        s += p[i - 1, j]
    if i < nx - 1:
        s += p[i + 1, j]
    if j > 0:
        s += p[i, j - 1]
    if j < ny - 1:
        s += p[i, j + 1]
    q[i, j] = (s - div[i, j]) * 0.25


def child(seconds: float) -> dict:
    """Microseconds a launch for each grid, launching for ``seconds`` each."""
    out = {}
    for shape in GRIDS:
        p, q = wp.zeros(shape, dtype=wp.float32), wp.zeros(shape, dtype=wp.float32)
        div = wp.array(np.random.default_rng(0).random(shape, dtype=np.float32))
        for _ in range(5):
            wp.launch(jacobi, dim=shape, inputs=[p, q, div])
            p, q = q, p
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(20):
                wp.launch(jacobi, dim=shape, inputs=[p, q, div])
                p, q = q, p
            n += 20
        out[f"{shape[0]}x{shape[1]}"] = (time.perf_counter() - start) / n * 1e6
    return out


def load() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.4, help="launching time per grid and run")
    parser.add_argument("--threads", type=int, default=2, help="the thread count of the multi-thread rows")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.seconds)))
        return 0
    settings = {"1 thread": ("1", "1"), f"{args.threads} threads, guard off": (str(args.threads), "0"),
                f"{args.threads} threads, guard on": (str(args.threads), "1")}
    runs = {name: [] for name in settings}
    print(f"load before: {load()}")
    for _ in range(args.rounds):
        for name, (threads, guard) in settings.items():
            env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
            env.update(BRICKWORK_NUM_THREADS=threads, BRICKWORK_ADAPTIVE_THREADS=guard)
            out = subprocess.run([sys.executable, __file__, "--child", "--seconds", str(args.seconds)], env=env,
                                 capture_output=True, text=True, check=True)
            runs[name].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"load after: {load()}")
    grids = [f"{a}x{b}" for a, b in GRIDS]
    base = {g: statistics.median(r[g] for r in runs["1 thread"]) for g in grids}
    print(f"{'us a launch (x one thread)':28}" + "".join(f"{g:>18}" for g in grids))
    for name, results in runs.items():
        cells = []
        for g in grids:
            us = statistics.median(r[g] for r in results)
            cells.append(f"{us:9.1f} ({us / base[g]:5.2f}x)")
        print(f"{name:28}" + "".join(f"{c:>18}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
