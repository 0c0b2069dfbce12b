"""What passive scalars cost the hydro application: zone-cycles per second of 2-D Kelvin-Helmholtz with
``hydro.nscalars`` = 0, 1 and 4, measured side by side.

    python benchmarks/bench_hydro_scalars.py [--n 256] [--block 64] [--steps 40] [--rounds 3]

Each round runs every count once, in turn (a busy machine slows all alike): ``Hydro.check()`` +
``Hydro.step(dt)`` for ``--steps`` steps after one untimed warm-up step (which compiles), no outputs.
It prints each count's best round, its ratio to ``nscalars = 0`` and the load average (1 minute) before
and after each measurement: write the numbers down only from a run whose load stayed below 1 per core
in use. Threads: ``BRICKWORK_NUM_THREADS``, else ``OMP_NUM_THREADS``, else all cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

try:
    from brickwork.apps import hydro
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from brickwork.apps import hydro

COUNTS = (0, 1, 4)


def make(n: int, block: int, nscalars: int):
    raw = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [n, n], "block_nx": [block, block]},
           "hydro": {"nscalars": nscalars}, "output": {"history": False, "progress": False}}
    sim = hydro.Hydro(hydro.build_config(raw, [], source="bench_hydro_scalars"))
    sim.set_initial()
    sim.step(sim.check())  # compiles
    return sim


def zone_cycles_per_s(sim, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        sim.step(sim.check())
    return sim.ncells * steps / (time.perf_counter() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    sims = {count: make(args.n, args.block, count) for count in COUNTS}
    rates: dict[int, list[float]] = {count: [] for count in COUNTS}
    for r in range(args.rounds):
        for count in COUNTS:
            before = os.getloadavg()[0]
            rates[count].append(zone_cycles_per_s(sims[count], args.steps))
            print(f"round {r} nscalars={count}: {rates[count][-1]:.3e} zone-cycles/s (load {before:.2f} -> "
                  f"{os.getloadavg()[0]:.2f})", flush=True)
    base = max(rates[0])
    for count in COUNTS:
        print(f"nscalars={count}: best {max(rates[count]):.3e} zone-cycles/s, {max(rates[count]) / base:.3f} of "
              f"nscalars=0")


if __name__ == "__main__":
    main()
