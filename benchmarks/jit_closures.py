"""Loop bodies defined inside a function: the time of each call of a function that defines a ``par_for`` body and
launches it (a new closure, so a new function object, at every call) against one launching a module-level body,
and the memory a long session of such calls keeps, at two revisions side by side; and a closure whose body calls
``wp.static``.

    python benchmarks/jit_closures.py --base 4814b22 [--new REV] [--calls 10000] [--rounds 3] [--clock wall|cpu]

``--base REV``: that revision's ``src/`` (``git archive``) runs beside the working tree's (or ``--new REV``'s), with
this checkout's interpreter; rounds alternate the two, each a fresh process sharing one warm kernel cache (the
kernels are compiled once, before the rounds). A process times ``--calls`` calls of each function (median of
5 slices), then, with ``tracemalloc`` on, ``--calls`` more calls of the closure's function: the bytes still held
after them (garbage collected) and the growth of the resident set. The arrays' sums after the calls are
compared: both trees must give the same values. ``--clock cpu`` times with the calling thread's CPU time
(steadier on a loaded machine: the launches here run on one thread).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from jit_coldstart import compared_trees

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SCRIPT = """
import gc, json, statistics, time, tracemalloc
import numpy as np
import brickwork as wp
from brickwork.runtime.parallel import par_for

N = 64
a = wp.array(np.zeros(N), dtype=wp.float32)
b = wp.array(np.zeros(N), dtype=wp.float32)

def module_body(i):
    a[i] = a[i] + 1.0

def with_module():
    par_for("module", N, module_body)

def with_closure(x, y):
    def body(i):
        y[i] = y[i] + x[i] * 0.5
    par_for("closure", N, body)

def with_static(x, y):
    def body(i):
        y[i] = y[i] + x[i] * wp.static(0.25 * 2)
    par_for("static", N, body)

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

def per_call(fn, calls):
    slices = []
    for _ in range(5):
        t = time.{clock}()
        for _ in range(calls // 5):
            fn()
        slices.append((time.{clock}() - t) / (calls // 5))
    return statistics.median(slices)

with_module(); with_closure(a, b); with_static(a, b)
out = dict(package=wp.__file__, module_us=per_call(with_module, {calls}) * 1e6,
           closure_us=per_call(lambda: with_closure(a, b), {calls}) * 1e6,
           static_us=per_call(lambda: with_static(b, a), {calls}) * 1e6)
gc.collect()
before = rss()
tracemalloc.start()
for _ in range({calls}):
    with_closure(a, b)
gc.collect()
out["held_mb"] = tracemalloc.get_traced_memory()[0] / 1e6
tracemalloc.stop()
gc.collect()
out["rss_mb"] = (rss() - before) / 1e6
out["sums"] = [float(a.numpy().sum()), float(b.numpy().sum())]
print(json.dumps(out))
"""


def run(src: Path, cache: Path, calls: int, clock: str = "wall") -> dict:
    script = cache.parent / "closures_case.py"  # a file: kernels need their source
    script.write_text(SCRIPT.format(calls=calls, clock="thread_time" if clock == "cpu" else "perf_counter"))
    env = dict(os.environ, PYTHONPATH=str(src), BRICKWORK_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{src} failed (rc {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["package"].startswith(str(src)):
        raise RuntimeError(f"imported {result['package']}, not the package in {src}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a revision to run beside the working tree")
    parser.add_argument("--new", help="a revision to run in place of the working tree")
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        trees = compared_trees(args.base, args.new, scratch)
        for side, src in trees.items():  # compile once: the rounds measure warm calls
            run(src, scratch / f"cache-{side}", 5)
        results: dict = {}
        for r in range(args.rounds):
            for side in list(trees) if r % 2 == 0 else list(reversed(trees)):
                results.setdefault(side, []).append(run(trees[side], scratch / f"cache-{side}", args.calls, args.clock))
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"loop bodies in closures, {args.calls} calls, {args.rounds} rounds, medians ({args.clock} clock); "
          f"load after: {load}")
    print("| tree | module-level body us/call | closure body us/call | closure with wp.static us/call | "
          "held after (tracemalloc) MB | RSS growth MB |")
    print("|---|---|---|---|---|---|")
    keys = ("module_us", "closure_us", "static_us", "held_mb", "rss_mb")
    for side, rows in results.items():
        med = {k: statistics.median(row[k] for row in rows) for k in keys}
        print(f"| {side} | {med['module_us']:.1f} | {med['closure_us']:.1f} | {med['static_us']:.1f} | "
              f"{med['held_mb']:.2f} | {med['rss_mb']:.1f} |")
    sums = {tuple(row["sums"]) for rows in results.values() for row in rows}
    if len(sums) != 1:
        print(f"the trees' results differ: {sorted(sums)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
