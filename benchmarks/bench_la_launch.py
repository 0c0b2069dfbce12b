"""Launch overhead of ``la.outer`` over one small block, next to a plain one-array launch.

    python benchmarks/bench_la_launch.py [--launches N] [--rounds R] [--clock wall|cpu] [--base REV [--new REV]]

All launch kernels that do almost nothing (an 8x8 interior, 64 cells), so the time per call is the host
path: argument checks, packing and the foreign call. The cases: ``la.outer`` with a module-level body,
``la.outer`` with a body defined at each call (a closure: a new function object each time),
``par_for_outer`` with a scratch pad, and ``wp.launch`` of one array. Prints the best round of each in
microseconds per launch. ``--base REV``: that revision's ``src/`` (``git archive``) runs beside the working
tree's (or ``--new REV``'s), each round a fresh process per tree, the trees alternated, sharing one warm
kernel cache per tree; the arrays' sums after the launches must agree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.runtime.parallel import par_for_outer


@wp.kernel
def add_one(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + wp.float64(1.0)


def make_calls() -> tuple[dict, list]:
    """The cases (name -> call) and the arrays they add to."""
    u = VarTag("u")
    pkg = Package("launch_bench")
    pkg.add_field("u", Metadata("Cell"))
    mesh = Mesh(nx=(8, 8), block_nx=(8, 8), nghost=1, packages=[pkg])
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [u]).get_pack(md)
    space = la.IndexSpace(la.bvoi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md)

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[u(), idx] = pv[u(), idx] + wp.float64(1.0)

    def with_closure(step):
        def closure_body(rng, b):
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(rng):
                pv[u(), idx] = pv[u(), idx] + step

        la.outer(space, closure_body)

    a = wp.zeros(64, dtype=wp.float64)
    c = wp.zeros(64, dtype=wp.float64)

    def team_body(member, j):
        c[j] = c[j] + wp.float64(1.0)

    step = wp.float64(0.5)
    calls = {"la.outer, one 8x8 block": lambda: la.outer(space, body),
             "la.outer, a closure made at each call": lambda: with_closure(step),
             "par_for_outer, 64 teams": lambda: par_for_outer(0, 0, 64, team_body),
             "wp.launch, one array of 64": lambda: wp.launch(add_one, dim=64, inputs=[a])}
    return calls, [a, c, pack]


def measure(launches: int, rounds: int, clock: str = "wall") -> dict:
    """Best microseconds per launch of each case over ``rounds`` rounds (alternating the cases), and the sums."""
    now = time.thread_time if clock == "cpu" else time.perf_counter
    calls, arrays = make_calls()
    best: dict = {}
    for _ in range(rounds):
        for name, call in calls.items():
            call()
            t = now()
            for _ in range(launches):
                call()
            us = (now() - t) / launches * 1e6
            best[name] = min(best.get(name, us), us)
    a, c, pack = arrays
    sums = [float(a.numpy().sum()), float(c.numpy().sum()), float(pack.numpy().sum()) if hasattr(pack, "numpy")
            else None]
    return {"package": wp.__file__, "best": best, "sums": sums}


def _side_by_side(args) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from jit_coldstart import compared_trees

    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        trees = compared_trees(args.base, args.new, scratch)
        for r in range(args.rounds):
            for side in list(trees) if r % 2 == 0 else list(reversed(trees)):
                env = dict(os.environ, PYTHONPATH=str(trees[side]), BRICKWORK_CACHE_DIR=str(scratch / f"cache-{side}"))
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                proc = subprocess.run([sys.executable, __file__, "--json", "--rounds", "1", "--launches",
                                       str(args.launches), "--clock", args.clock], env=env, capture_output=True,
                                      text=True, timeout=1800)
                if proc.returncode != 0:
                    raise RuntimeError(f"{side} failed (rc {proc.returncode}): {proc.stderr.strip()[-2000:]}")
                out = json.loads(proc.stdout.strip().splitlines()[-1])
                if not out["package"].startswith(str(trees[side])):
                    raise RuntimeError(f"imported {out['package']}, not the package in {trees[side]}")
                results.setdefault(side, []).append(out)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    names = list(next(iter(results.values()))[0]["best"])
    print(f"launch overhead, us per launch ({args.clock} clock), best of {args.rounds} rounds of {args.launches}; "
          f"load after: {load}")
    print("| case | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{min(o['best'][name] for o in rows):.2f}" for rows in results.values())
              + " |")
    sums = {tuple(o["sums"]) for rows in results.values() for o in rows[:1]}
    if len(sums) != 1:
        print(f"the trees' results differ: {sorted(sums)}")
        return 1
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", help="a revision to run beside the working tree")
    parser.add_argument("--new", help="a revision to run in place of the working tree")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: the launching thread's CPU time (steadier on a loaded machine; the launches "
                             "here run on one thread)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.base or args.new:
        return _side_by_side(args)
    result = measure(args.launches, args.rounds, args.clock)
    if args.json:
        print(json.dumps(result))
        return 0
    for name, us in result["best"].items():
        print(f"{name}: {us:.2f} us per launch ({args.clock} clock, best of {args.rounds} rounds of {args.launches})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
