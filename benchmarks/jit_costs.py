"""The JIT-cost table: import time, cold compile, warm load and launch overhead, with targets.

Import, cold compile and warm load are measured in fresh subprocesses (:mod:`jit_probe`); the
launch overhead in this process.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any  # module level: string annotations are evaluated here

from timing import fmt

PROBE = Path(__file__).resolve().parent / "jit_probe.py"


@dataclass(frozen=True)
class Metric:
    """One row of the JIT-cost table; ``value`` is ``None`` when the measurement failed."""

    name: str
    unit: str
    target: float  # the value must be <= target
    value: float | None = None
    spread: str = ""
    error: str = ""

    @property
    def passed(self) -> bool | None:
        return None if self.value is None else self.value <= self.target


def _probe(kl, mode: str, cache_dir: str | None = None) -> dict:
    env = kl.subprocess_env(cache_dir)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time imports the way an installed package runs them
    proc = subprocess.run(
        [sys.executable, str(PROBE), kl.name, mode], capture_output=True, text=True, env=env, timeout=600
    )
    if proc.returncode != 0:
        raise RuntimeError(f"probe {mode} failed (rc {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# key -> (row label, unit, target: the value must be <= target)
SPECS = {
    "import": ("`import` of the package (fresh process)", "ms", 150.0),
    "cold": ("cold compile of one small kernel (fresh cache)", "ms", 400.0),
    "warm": ("warm load of a cached instance (new process, after `init()`)", "ms", 3.0),
    "init": ("`init()` in a new process (brickwork: compiler identity, generator digest)", "ms", 10.0),
    "launch": ("launch overhead, one-array kernel, dim=1", "µs", 3.0),
    "generic": ("launch overhead, generic one-array kernel, dim=1", "µs", 5.0),
    "replay": ("captured replay, per recorded launch", "µs", 2.0),
    "la_outer": ("launch overhead, `la.outer` over one 8x8 block (pack view)", "µs", 10.0),
    "three": ("cold build of the seed's `scale` for 3 types (wall, declared overloads)", "ms", 800.0),
    "rerun": ("compiler runs when re-running that program with a warm cache", "runs", 0.0),
}


def _metric(key: str, values: list[float], scale: float) -> Metric:
    label, unit, target = SPECS[key]
    scaled = [v * scale for v in values]
    spread = f"{fmt(min(scaled))}–{fmt(max(scaled))}, n={len(scaled)}"
    return Metric(label, unit, target, statistics.median(scaled), spread)


def import_time(kl, runs: int) -> list[Metric]:
    """Median time of ``import <impl>`` in ``runs`` fresh subprocesses, after one untimed import.

    The untimed one writes the bytecode caches and warms the OS file cache, as on a machine where
    the package has been imported before.
    """
    _probe(kl, "import")
    values = [_probe(kl, "import")["import_s"] for _ in range(runs)]
    return [_metric("import", values, 1e3)]


def compile_and_load(kl, cold_runs: int, warm_runs: int) -> list[Metric]:
    """First launch minus second launch in a new process: with a fresh cache, then a populated one;
    and the peer's ``init()`` before them, in the warm runs (n/a for a peer without one)."""
    cold, warm, init = [], [], []
    for i in range(max(cold_runs, 1)):
        cache_dir = tempfile.mkdtemp(prefix=f"bench-{kl.name}-cache-")
        try:
            out = _probe(kl, "first-launch", cache_dir)
            cold.append(out["first_s"] - out["second_s"])
            if i == 0:
                for _ in range(warm_runs):
                    out = _probe(kl, "first-launch", cache_dir)
                    warm.append(out["first_s"] - out["second_s"])
                    init.append(out.get("init_s"))
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
    init_row = (_metric("init", init, 1e3) if init and None not in init
                else Metric(*SPECS["init"], error="n/a: no init() in this peer"))
    return [_metric("cold", cold, 1e3), _metric("warm", warm, 1e3), init_row]


def launch_overhead(kl, launches: int, rounds: int) -> list[Metric]:
    """Per-launch microseconds of a one-array kernel with dim=1 (``launches`` back to back)."""
    wp, kernel = kl.wp, kl.kernels.touch_f32
    x = kl.zeros(1, wp.float32)
    wp.launch(kernel, dim=1, inputs=[x], device=kl.device)
    wp.synchronize()
    values = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(launches):
            wp.launch(kernel, dim=1, inputs=[x], device=kl.device)
        wp.synchronize()
        values.append((time.perf_counter() - start) / launches)
    return [_metric("launch", values, 1e6)]


def generic_and_replay(kl, launches: int, rounds: int) -> list[Metric]:
    """Per-launch microseconds of a generic kernel, and of replaying a captured graph."""
    wp = kl.wp

    @wp.kernel
    def touch_any(x: wp.array(dtype=Any)):
        i = wp.tid()
        x[i] = x[i] + x.dtype(1)

    x = kl.zeros(1, wp.float32)
    wp.launch(touch_any, dim=1, inputs=[x], device=kl.device)
    generic = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(launches):
            wp.launch(touch_any, dim=1, inputs=[x], device=kl.device)
        generic.append((time.perf_counter() - start) / launches)
    metrics = [_metric("generic", generic, 1e6)]
    if kl.name != "brickwork":  # CPU graph capture is brickwork's own
        return metrics + [Metric(*SPECS["replay"], error="n/a: not supported on the CPU by this peer")]
    wp.capture_begin()
    for _ in range(100):
        wp.launch(kl.kernels.touch_f32, dim=1, inputs=[x], device=kl.device)
    graph = wp.capture_end()
    replay = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(launches // 100):
            wp.capture_launch(graph)
        replay.append((time.perf_counter() - start) / (100 * (launches // 100)))
    return metrics + [_metric("replay", replay, 1e6)]


def la_outer_overhead(kl, launches: int, rounds: int) -> list[Metric]:
    """Per-launch microseconds of ``la.outer`` over one 8x8 block (``bench_la_launch.make_outer``)."""
    if kl.name != "brickwork":
        return [Metric(*SPECS["la_outer"], error="n/a: no loop abstraction in this peer")]
    from bench_la_launch import make_outer

    call = make_outer()
    call()
    values = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(launches):
            call()
        values.append((time.perf_counter() - start) / launches)
    return [_metric("la_outer", values, 1e6)]


def three_instances(kl, runs: int) -> list[Metric]:
    """Cold wall time of the seed's three instances, then compiler runs on a warm re-run."""
    walls, reruns = [], []
    for _ in range(runs):
        cache_dir = tempfile.mkdtemp(prefix=f"bench-{kl.name}-three-")
        try:
            walls.append(_probe(kl, "three-instances", cache_dir)["wall_s"])
            reruns.append(_probe(kl, "three-instances", cache_dir)["compiler_calls"])
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
    metrics = [_metric("three", walls, 1e3)]
    if None in reruns:
        return metrics + [Metric(*SPECS["rerun"], error="n/a: compiler runs not observable for this peer")]
    return metrics + [_metric("rerun", [float(r) for r in reruns], 1.0)]


def measure_all(kl, quick: bool) -> list[Metric]:
    """Every JIT-cost metric for the kernel-language peer ``kl``; a failed step gives error rows."""
    steps = [
        (("import",), lambda: import_time(kl, 2 if quick else 5)),
        (("cold", "warm", "init"), lambda: compile_and_load(kl, 1 if quick else 3, 2 if quick else 5)),
        (("launch",), lambda: launch_overhead(kl, 2000 if quick else 20000, 3 if quick else 5)),
        (("generic", "replay"), lambda: generic_and_replay(kl, 2000 if quick else 20000, 3 if quick else 5)),
        (("la_outer",), lambda: la_outer_overhead(kl, 1000 if quick else 5000, 3 if quick else 5)),
        (("three", "rerun"), lambda: three_instances(kl, 1 if quick else 3)),
    ]
    metrics: list[Metric] = []
    for keys, step in steps:
        try:
            metrics.extend(step())
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"[{kl.name}] JIT cost {'/'.join(keys)} failed: {exc!r}", file=sys.stderr)
            metrics.extend(Metric(*SPECS[key], error=repr(exc)) for key in keys)
    return metrics


def numba_launch(nbp, launches: int, rounds: int) -> list[Metric]:
    """Per-call microseconds of the ``njit(parallel=True)`` one-array function on one element
    (``launch``), and of the same function on a float64 array: Numba dispatches on the argument
    types at every call, so every Numba function is generic (``generic``)."""
    import numpy as np

    touch = nbp.kernels.touch
    metrics = []
    for key, dtype in (("launch", np.float32), ("generic", np.float64)):
        x = np.zeros(1, dtype=dtype)
        touch(x)
        values = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(launches):
                touch(x)
            values.append((time.perf_counter() - start) / launches)
        metrics.append(_metric(key, values, 1e6))
    return metrics


def measure_numba(nbp, quick: bool) -> list[Metric]:
    """The JIT-cost rows for Numba, in the order of :data:`SPECS` (``njit(parallel=True)``;
    compile and load with ``cache=True`` in a fresh ``NUMBA_CACHE_DIR``; the three-instance row
    builds float32 and float64 only, Numba has no float16 on the CPU)."""
    launches, rounds = (2000, 3) if quick else (20000, 5)
    steps = [
        (("import",), lambda: import_time(nbp, 2 if quick else 5)),
        (("cold", "warm", "init"), lambda: compile_and_load(nbp, 1 if quick else 3, 2 if quick else 5)),
        (("launch", "generic"), lambda: numba_launch(nbp, launches, rounds)),
        (("replay",), lambda: [Metric(*SPECS["replay"], error="n/a: Numba has no launch capture")]),
        (("la_outer",), lambda: [Metric(*SPECS["la_outer"], error="n/a: no loop abstraction in Numba")]),
        (("three", "rerun"), lambda: three_instances(nbp, 1 if quick else 3)),
    ]
    metrics: list[Metric] = []
    for keys, step in steps:
        try:
            metrics.extend(step())
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"[numba] JIT cost {'/'.join(keys)} failed: {exc!r}", file=sys.stderr)
            metrics.extend(Metric(*SPECS[key], error=repr(exc)) for key in keys)
    order = list(SPECS)
    labels = {SPECS[k][0]: k for k in order}
    metrics = [
        dataclasses.replace(m, spread=m.spread + "; float32 + float64 only")
        if labels[m.name] == "three" and m.value is not None else m
        for m in metrics
    ]
    return sorted(metrics, key=lambda m: order.index(labels[m.name]))
