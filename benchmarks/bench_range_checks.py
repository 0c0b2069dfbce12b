"""Launch cost of the range checks of loop bodies (``ir/range_bounds.py``): each launch's packer tests the
accesses its ranges bound. Times a ``par_for`` (3-D stencil, 6 checked axes) and an ``la.outer`` (4 checked
accesses of 4 axes) over a tiny box, once with the packer the launch built and once with the same instance's
packer built without the range checks, alternating in one run.

    python benchmarks/bench_range_checks.py [--launches N] [--rounds R]

Prints microseconds per launch (best round) of each form with and without the checks, and their ratio, for
the whole launch and for the packer alone (the same arguments packed again: where the checks run).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.runtime.packing import make_packer

x = wp.array(np.ones((2, 2, 8), dtype=np.float32))
y = wp.zeros((2, 2, 8), dtype=wp.float32)
f = wp.array(np.ones((1, 4, 4, 4)), dtype=wp.float64)
out = wp.zeros((1, 4, 4, 4), dtype=wp.float64)
space = la.IndexSpace.box(la.bvoi, la.logical_coords, 1, 2, 2, 2, 1)


def stencil(k, j, i):
    y[k, j, i] = x[k, j, i - 1] + x[k, j, i + 1]


def body(rng, b):
    for k, j, i in la.inner(rng):
        out[b, k, j, i] = f[b, k, j, i - 1] + f[b, k, j, i + 1]


def par_for():
    wp.par_for((0, 1), (0, 1), (1, 6), stencil)


def outer():
    la.outer(space, body)


def _packers(func, run):
    """(kernel, checked, unchecked launch tables, the arguments packed) of the body kernel of ``func``."""
    from brickwork.lang.body import _BODIES

    run()
    (kernel,) = _BODIES[func].values()
    checked = dict(kernel.launch_table)
    seen = []
    for key, (inst, pack) in checked.items():  # one launch through a recording packer: its arguments
        kernel.launch_table[key] = (inst, lambda *a, pack=pack: seen.append(a) or pack(*a))
    run()
    names = tuple(n for n, _ in kernel.params)
    unchecked = {key: (inst, make_packer(inst.arg_types, key, names, wp.get_device("cpu"), kernel.key,
                                         inst.tid_bounds))
                 for key, (inst, _) in checked.items()}
    assert all(inst.range_bounds for inst, _ in checked.values()), "the body has no range checks"
    return kernel, checked, unchecked, seen[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    forms = {"par_for 3-D": (stencil, par_for), "la.outer bvoi": (body, outer)}
    tables = {name: _packers(func, run) for name, (func, run) in forms.items()}
    best: dict = {}
    for _ in range(args.rounds):
        for name, (_, run) in forms.items():
            kernel, checked, unchecked, packed = tables[name]
            for label, table in (("checked", checked), ("unchecked", unchecked)):
                (_, pack), = table.values()
                t = time.perf_counter()
                for _ in range(args.launches):
                    pack(*packed)
                us = (time.perf_counter() - t) / args.launches * 1e6
                best[name, label, "packer"] = min(best.get((name, label, "packer"), us), us)
                kernel.launch_table.clear()
                kernel.launch_table.update(table)
                run()
                t = time.perf_counter()
                for _ in range(args.launches):
                    run()
                us = (time.perf_counter() - t) / args.launches * 1e6
                best[name, label] = min(best.get((name, label), us), us)
    for name in forms:
        for what, key in (("launch", ()), ("packer", ("packer",))):
            on, off = best[(name, "checked", *key)], best[(name, "unchecked", *key)]
            print(f"{name:14s} {what:6s} checked {on:6.2f} us  unchecked {off:6.2f} us  ratio {on / off:.3f}  "
                  f"({on - off:+.2f} us)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
