"""What viewing a numpy array costs: ``wp.array(a, copy=False)`` and ``wrap_numpy`` (what a launch does with each
numpy argument), and ``wp.from_numpy(a)``, a copy (as Warp's), beside Warp's ``wp.array(a, device="cpu",
copy=False)`` and ``wp.from_numpy`` when Warp is importable, interleaved in one process.

    python benchmarks/bench_numpy_views.py [--warp-site DIR] [--calls 5000] [--rounds 9]

``--warp-site``: a ``site-packages`` folder holding ``warp`` (a venv of its own, e.g.
``/tmp/warp/lib/python3.11/site-packages``), appended to ``sys.path``. The arrays are float32, 1-D of 1024 and
2-D 64 x 64 (given ``dtype=float32``). Prints microseconds per call (best round) and the load average (1 minute)
before and after: compare rows of one run only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import brickwork as bw
from brickwork.types.array_constructors import wrap_numpy


def cases(warp) -> dict:
    a = np.zeros(1024, dtype=np.float32)
    a2 = np.zeros((64, 64), dtype=np.float32)
    found = {
        "brickwork array(a, copy=False)": lambda: bw.array(a, device="cpu", copy=False),
        "brickwork array(a2d, dtype=float32, copy=False)": lambda: bw.array(a2, dtype=bw.float32, copy=False),
        "brickwork from_numpy(a)": lambda: bw.from_numpy(a, device="cpu"),
        "brickwork wrap_numpy(a, float32) (a launch's)": lambda: wrap_numpy(a, bw.float32),
    }
    if warp is not None:
        found.update({
            "Warp array(a, device='cpu', copy=False)": lambda: warp.array(a, device="cpu", copy=False),
            "Warp array(a2d, dtype=float32, copy=False)": lambda: warp.array(a2, dtype=warp.float32, device="cpu",
                                                                             copy=False),
            "Warp from_numpy(a)": lambda: warp.from_numpy(a, device="cpu"),
        })
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warp-site", default=None)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    warp = None
    if args.warp_site:
        sys.path.append(args.warp_site)
        import warp

        warp.config.quiet = True
        warp.init()
    todo = cases(warp)
    best = dict.fromkeys(todo, float("inf"))
    before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, call in todo.items():
            start = time.perf_counter_ns()
            for _ in range(args.calls):
                call()
            best[name] = min(best[name], (time.perf_counter_ns() - start) / args.calls)
    print("| view | us per call |\n|---|---|")
    for name, ns in best.items():
        print(f"| {name} | {ns / 1000:.2f} |")
    print(f"load {before:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
