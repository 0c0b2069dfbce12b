"""A loop over components per point: plain ``for c in range(n)``, the same loop kept rolled (``max_unroll = 0``:
what the CPU target made of a loop over 16 trips before it unrolled them in the code run per point) and the loop
unrolled by hand (``wp.static``), side by side in one run.

    python benchmarks/bench_constant_loops.py [--counts 16 17 24 32] [--points 20000] [--rounds 5]

The kernel is a PLM reconstruction with a minmod limiter of ``n`` components (float32, laid out (n, points)), into
the lower and upper face values. Each round launches every form of every count in turn (a busy machine slows all
alike); it prints each form's best time per point and its ratio to the ``wp.static`` form, with the load average
(1 minute) before and after. Threads: ``BRICKWORK_NUM_THREADS``, else ``OMP_NUM_THREADS``, else all cores.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import brickwork as wp


@wp.func
def minmod(a: float, b: float):
    return wp.where(a * b > 0.0, wp.where(wp.abs(a) < wp.abs(b), a, b), 0.0)


def make(n: int, form: str):
    """The kernel of ``n`` components in ``form``: "plain", "rolled" or "static"."""
    if form == "static":
        def plm(w: wp.array2d(dtype=float), lo: wp.array2d(dtype=float), up: wp.array2d(dtype=float)):
            i = wp.tid() + 1
            for c0 in range(n):
                c = wp.static(c0)
                d = minmod(w[c, i] - w[c, i - 1], w[c, i + 1] - w[c, i])
                lo[c, i] = w[c, i] - 0.5 * d
                up[c, i] = w[c, i] + 0.5 * d
    else:
        def plm(w: wp.array2d(dtype=float), lo: wp.array2d(dtype=float), up: wp.array2d(dtype=float)):
            i = wp.tid() + 1
            for c in range(n):
                d = minmod(w[c, i] - w[c, i - 1], w[c, i + 1] - w[c, i])
                lo[c, i] = w[c, i] - 0.5 * d
                up[c, i] = w[c, i] + 0.5 * d
    options = {"max_unroll": 0} if form == "rolled" else {}
    return wp.kernel(plm, module="unique", module_options=options)


FORMS = ("plain", "rolled", "static")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[16, 17, 24, 32])
    parser.add_argument("--points", type=int, default=20000)
    parser.add_argument("--launches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    n = args.points
    rng = np.random.default_rng(1)
    runs = {}
    for count in args.counts:
        w = wp.array(rng.random((count, n + 2), dtype=np.float32))
        outs = {}
        for form in FORMS:
            k = make(count, form)
            lo, up = wp.zeros((count, n + 2), dtype=float), wp.zeros((count, n + 2), dtype=float)
            wp.launch(k, dim=n, inputs=[w, lo, up])  # compiles
            outs[form] = (lo.numpy(), up.numpy())
            runs[count, form] = (k, [w, lo, up])
        for form in FORMS[:-1]:  # the same values in every form
            for a, b in zip(outs[form], outs["static"]):
                np.testing.assert_array_equal(a, b)
    best = dict.fromkeys(runs, float("inf"))
    before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for key, (k, inputs) in runs.items():
            start = time.perf_counter()
            for _ in range(args.launches):
                wp.launch(k, dim=n, inputs=inputs)
            best[key] = min(best[key], (time.perf_counter() - start) / args.launches)
    print(f"| components | {' | '.join(f'{f} ns/point' for f in FORMS)} | plain/static | rolled/static |")
    print("|---|" + "---|" * (len(FORMS) + 2))
    for count in args.counts:
        t = {f: best[count, f] / n * 1e9 for f in FORMS}
        print(f"| {count} | {' | '.join(f'{t[f]:.2f}' for f in FORMS)} | {t['plain'] / t['static']:.2f} | "
              f"{t['rolled'] / t['static']:.2f} |")
    print(f"load {before:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
