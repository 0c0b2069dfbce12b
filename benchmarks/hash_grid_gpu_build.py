"""A CUDA hash grid's build on its device (runtime/device_sort.py), timed on a GPU, for choosing its plan.

    python benchmarks/hash_grid_gpu_build.py [--quick]

For N points uniform in a cube with about 9 points per cell (``hash_grid_cases.py``'s density; at most
128^3 cells), with and without groups: the milliseconds per ``grid.build`` (builds in a row, the device
synchronized at the end: what a simulation that rebuilds each step pays) for several plans (points per
chunk, scan segment), the device time of each kernel of the default plan (``cuda_kernel_times``), the
CPU build's time, and Warp's CUDA build where ``warp`` is importable. Each device build's tables are
checked against the CPU build's. Without a GPU it says so and exits.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _points(n: int):
    side = min(128, max(1, round((n / 9.0) ** (1 / 3))))
    return np.random.default_rng(n).uniform(0, side, (n, 3)).astype(np.float32), side


def _per_build(grid, args, sync, reps: int) -> float:
    grid.build(*args[:2], groups=args[2])  # compiles, allocates
    sync()
    start = time.perf_counter()
    for _ in range(reps):
        grid.build(*args[:2], groups=args[2])
    sync()
    return (time.perf_counter() - start) / reps * 1e3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20k and 200k points, fewer repetitions")
    args = parser.parse_args(argv)
    import brickwork as wp
    from brickwork import cuda_driver
    from brickwork.runtime import device_sort

    if not cuda_driver.available():
        print("hash_grid_gpu_build: no CUDA device on this machine")
        return 0
    dev = "cuda:0"
    sync = lambda: wp.synchronize_device(dev)  # noqa: E731
    sizes = (20_000, 200_000) if args.quick else (20_000, 200_000, 1_000_000, 4_000_000)
    reps = 5 if args.quick else 20
    plans = [device_sort.Plan(items=i, segment=s) for i, s in ((16, 64), (32, 64), (64, 64), (128, 64), (256, 64),
                                                               (64, 32), (64, 128))]
    lines = ["| points | cells | groups | plan (items, segment) | ms per build |", "|---|---|---|---|---|"]
    breakdowns = []
    for n in sizes:
        xyz, side = _points(n)
        groups = np.random.default_rng(1).integers(0, 4, n).astype(np.int32)
        for grouped in (False, True):
            cpu = wp.HashGrid(side, side, side)
            cpu_args = (wp.array(xyz, dtype=wp.vec3), 1.0, wp.array(groups, dtype=wp.int32) if grouped else None)
            ms = _per_build(cpu, cpu_args, lambda: None, reps)
            lines.append(f"| {n} | {side}^3 | {grouped} | CPU build | {ms:.3f} |")
            grid = wp.HashGrid(side, side, side, device=dev)
            dev_args = (wp.array(xyz, dtype=wp.vec3, device=dev), 1.0,
                        wp.array(groups, dtype=wp.int32, device=dev) if grouped else None)
            for plan in plans:
                with mock.patch.object(device_sort, "GPU", plan):
                    ms = _per_build(grid, dev_args, sync, reps)
                    for name in ("point_ids", "cell_starts", "cell_ends"):
                        got, want = grid._tables[name].numpy(), cpu._tables[name].numpy()
                        count = n if name == "point_ids" else len(want)
                        assert (got[:count] == want[:count]).all(), (name, plan)
                lines.append(f"| {n} | {side}^3 | {grouped} | {plan.items}, {plan.segment} | {ms:.3f} |")
            from cuda_kernel_times import KernelTimes, breakdown

            with KernelTimes() as times:
                for _ in range(reps):
                    grid.build(*dev_args[:2], groups=dev_args[2])
            breakdowns += breakdown(f"{n} points, groups {grouped}, default plan", times.totals(), reps,
                                    times.host_waits)
            lines += _warp_row(n, side, xyz, groups if grouped else None, reps)
    print("\n".join(lines + [""] + breakdowns))
    return 0


def _warp_row(n, side, xyz, groups, reps) -> list[str]:
    try:
        import warp
    except ImportError:
        return []
    warp.init()
    grid = warp.HashGrid(side, side, side, device="cuda:0")
    points = warp.array(xyz, dtype=warp.vec3, device="cuda:0")
    group_ids = None if groups is None else warp.array(groups, dtype=warp.int32, device="cuda:0")
    ms = _per_build(grid, (points, 1.0, group_ids), lambda: warp.synchronize_device("cuda:0"), reps)
    return [f"| {n} | {side}^3 | {groups is not None} | Warp | {ms:.3f} |"]


if __name__ == "__main__":
    sys.exit(main())
