"""Building, rebuilding and refitting a ``wp.Bvh`` on the CPU: brickwork beside Warp, in one run.

    python benchmarks/bvh_build.py [--n 100000] [--reps 15] [--rounds 3] [--warp-python PATH]

Each kernel language runs in a process of its own (``--warp-python``: the interpreter of an environment with
warp-lang; without it, or without warp there, only brickwork runs) over the same boxes: ``n`` random unit-cube
corners with sides up to 0.01, float32. A process builds the tree once (the first build also loads the kernels),
then times ``rebuild()`` and ``refit()`` ``reps`` times each, after one untimed call. ``--rounds`` rounds each
run brickwork's process and then Warp's, so that both sides meet the same load; the table gives the median over
the rounds of each process's medians, brickwork's speed against Warp's (Warp's time / brickwork's) and the
1-minute load average before and after the run. Both build their default CPU tree, a SAH tree binned along each
node's longest axis; ``benchmarks/bvh_sah.py`` compares SAH and median builds.
"""

from __future__ import annotations

import argparse
import sys

from child_script import PEER_PRELUDE, SRC, interleaved_medians, run_json
from machine_load import load_average

_CHILD = PEER_PRELUDE + """
name, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
lo = rng.random((n, 3), dtype=np.float32)
hi = lo + rng.random((n, 3), dtype=np.float32) * np.float32(0.01)
lowers = wp.array(lo, dtype=wp.vec3, device="cpu")
uppers = wp.array(hi, dtype=wp.vec3, device="cpu")
bvh = wp.Bvh(lowers, uppers)
print(json.dumps({"rebuild": median_time(bvh.rebuild, reps), "refit": median_time(bvh.refit, reps)}))
"""


def measure(python: str, name: str, args) -> dict | None:
    return run_json(python, _CHILD, [name, args.n, args.reps, SRC], f"bvh_build: {name}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    args = parser.parse_args(argv)
    before = load_average()
    mine, theirs = interleaved_medians(measure, args)
    after = load_average()
    if mine is None:
        return 1
    load = "-" if before is None else f"{before:.1f} before, {after:.1f} after"
    print(f"wp.Bvh on the CPU, {args.n} boxes (median of {args.reps}, then of {args.rounds} interleaved rounds; "
          f"load average {load}; `python benchmarks/bvh_build.py`)\n")
    print("| step | brickwork ms | Warp ms | brickwork speed vs Warp |\n|---|---|---|---|")
    for step in ("rebuild", "refit"):
        warp = f"{theirs[step] * 1e3:.2f}" if theirs else "-"
        ratio = f"{theirs[step] / mine[step]:.2f}x" if theirs else "-"
        print(f"| {step} | {mine[step] * 1e3:.2f} | {warp} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
