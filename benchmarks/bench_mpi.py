"""The hydro application on MPI ranks against threads: zone-cycles/s and time in ghost exchange.

    python benchmarks/bench_mpi.py [--n 512] [--block 64] [--steps 40] [--rounds 3] [--out FILE.md]

The case: 2-D Kelvin-Helmholtz (examples/kelvin_helmholtz.toml), PLM/MC + HLLC + RK2, float64,
``n^2`` cells in ``block^2`` blocks, no outputs. Configurations, each run with ``mpiexec`` (the one
next to this Python, from the ``mpi`` extra) and ``brickwork run``:

* 1 rank x 1 thread, 2 ranks x 1 thread, 1 rank x 2 threads.

The application prints its zone-cycles/s (after the first step, which compiles) and the share of
the wall time spent in ghost exchange (``Mesh.ghost_seconds``: packing, messages, waiting for the
neighbours, unpacking and the local copies). The rounds interleave the configurations, so a busy
machine slows all of them alike; the median of the rounds is reported with the min-max. The load
average before and after is recorded: a table started on a loaded machine (above 0.5 per core
before the run; the load after includes the benchmark's own ranks) says so in its first line.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "kelvin_helmholtz.toml"
CONFIGS = [(1, 1), (2, 1), (1, 2)]  # (ranks, threads per rank)
RATE = re.compile(r"([0-9.e+]+) zone-cycles/s .*?ghost exchange ([0-9.]+) % of the wall time")


def tool(name: str) -> str:
    found = shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)
    if found is None:
        sys.exit(f"bench_mpi: no {name} (pip install 'brickwork[mpi]')")
    return found


def run(ranks: int, threads: int, n: int, block: int, steps: int, outdir: str) -> tuple[float, float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), BRICKWORK_NUM_THREADS=str(threads))
    cmd = [tool("mpiexec"), "-n", str(ranks), tool("brickwork"), "run", str(EXAMPLE), f"mesh.nx=[{n},{n}]",
           f"mesh.block_nx=[{block},{block}]", f"time.nlim={steps}", "time.tlim=100", f'output.dir="{outdir}"',
           "output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1", "output.history=false",
           "output.progress=false"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    found = RATE.search(done.stdout)
    if done.returncode != 0 or found is None:
        sys.exit(f"bench_mpi: {' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return float(found.group(1)), float(found.group(2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", help="write the table (Markdown) to this file too")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()[0]
    results: dict = {c: [] for c in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        run(1, 1, args.n, args.block, 2, tmp)  # compile once, untimed
        for _ in range(args.rounds):
            for ranks, threads in CONFIGS:
                results[(ranks, threads)].append(run(ranks, threads, args.n, args.block, args.steps, tmp))
    load_after = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    # The load after includes this benchmark's own ranks (up to 2 busy processes for a minute), so
    # only the load before says whether others were using the machine.
    loaded = load_before > 0.5 * cores
    base = statistics.median(r for r, _ in results[(1, 1)])
    lines = []
    if loaded:
        lines.append(f"**Taken on a loaded machine** (load average {load_before:.2f} before, {load_after:.2f} after, "
                     f"{cores} cores): read the ratios, not the rates.\n")
    lines += [f"- machine: {platform.processor() or platform.machine()}, {cores} logical CPUs; python "
              f"{platform.python_version()}",
              f"- case: KH {args.n}² in {args.block}² blocks, PLM/MC + HLLC + RK2, float64, {args.steps} cycles after "
              f"one compiling step; {args.rounds} interleaved rounds; load average {load_before:.2f} before, "
              f"{load_after:.2f} after",
              f"- command: `python benchmarks/bench_mpi.py --n {args.n} --block {args.block} --steps {args.steps} "
              f"--rounds {args.rounds}`", "",
              "| ranks x threads | zone-cycles/s (median [min-max]) | vs 1 x 1 | ghost exchange, % of wall time |",
              "|---|---|---|---|"]
    for (ranks, threads), rows in results.items():
        rates = [r for r, _ in rows]
        shares = [s for _, s in rows]
        med = statistics.median(rates)
        lines.append(f"| {ranks} x {threads} | {med:.3e} [{min(rates):.3e}-{max(rates):.3e}] | {med / base:.2f}x | "
                     f"{statistics.median(shares):.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
