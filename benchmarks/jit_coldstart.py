"""Cold start of the hydro application: time from process start to the first step done, and to the end of a
short run, with an empty kernel cache (the first run on a machine) and with a warm one, at two revisions.

    python benchmarks/jit_coldstart.py --base b2d92b9 [--new REV] [--cases sod,kh,blast3d] [--rounds 3] [--steps 3]

``--base REV``: that revision's ``src/`` (``git archive``, into a temporary folder) runs beside the working
tree's (or ``--new REV``'s), with this checkout's interpreter (``PYTHONPATH``; each process checks which package
it imported); without it only one tree runs. Rounds alternate the two (base, new; then new, base), each process with
its own cache: ``cold`` starts from an empty folder (no precompiled header either), ``warm`` from the folder the
cold run of the same tree and case left. Cases: Sod 1-D (``examples/sod.toml``, 256 cells), Kelvin-Helmholtz 2-D
(128^2 in 64^2 blocks), a 3-D blast (32^3 in 16^3 blocks). The state after the run is hashed: both trees must give
the same bits. Reports the median over rounds of: first step (s), end (s), import (s), CPU seconds of the process
and its compilers, compiler runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

CASES = {
    "sod": ("sod.toml", []),
    "kh": ("kelvin_helmholtz.toml", ["mesh.nx=[128,128]"]),
    "blast3d": ("blast3d.toml", ["mesh.nx=[32,32,32]", "mesh.block_nx=[16,16,16]"]),
}

SCRIPT = """
import hashlib, json, resource, sys, time
t0 = time.perf_counter()
from brickwork.apps import hydro
from brickwork.jit import compile as jit
t_import = time.perf_counter()
sim = hydro.Hydro(hydro.load_config({path!r}, {overrides!r}))
sim.set_initial()
sim.step(sim.check())
t_first = time.perf_counter()
for _ in range({steps} - 1):
    sim.step(sim.check())
t_end = time.perf_counter()
own, ch = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
digest = hashlib.sha256(b"".join(sim.host_data(n).tobytes() for n in sim.conserved)).hexdigest()[:16]
print(json.dumps(dict(package=hydro.__file__, imp=t_import - t0, first=t_first - t0, end=t_end - t0,
                      cpu=own.ru_utime + own.ru_stime + ch.ru_utime + ch.ru_stime, runs=jit.compiler_calls,
                      digest=digest)))
"""


def run(src: Path, cache: Path, case: str, steps: int) -> dict:
    name, overrides = CASES[case]
    env = dict(os.environ, PYTHONPATH=str(src), BRICKWORK_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # imports as an installed package runs them
    script = SCRIPT.format(path=str(REPO / "examples" / name), overrides=overrides, steps=steps)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{case} with {src} failed (rc {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not result["package"].startswith(str(src)):
        raise RuntimeError(f"{case}: imported {result['package']}, not the package in {src}")
    return result


def base_tree(rev: str, scratch: Path) -> Path:
    """``rev``'s ``src/`` in ``scratch`` (the package's include folder with it)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    return scratch / "src"


def compared_trees(base: str | None, new: str | None, scratch: Path) -> dict:
    """``{"base": src, "new": src}``: ``base``'s ``src/`` (if given) and ``new``'s, or the working tree's, in
    ``scratch``."""
    trees = {"new": REPO / "src"}
    if new:
        (scratch / "new").mkdir()
        trees = {"new": base_tree(new, scratch / "new")}
    if base:
        (scratch / "base").mkdir()
        trees = {"base": base_tree(base, scratch / "base"), **trees}
    return trees


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a revision to run beside the working tree")
    parser.add_argument("--new", help="a revision to run in place of the working tree")
    parser.add_argument("--cases", default="sod,kh,blast3d")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    cases = args.cases.split(",")
    for case in cases:
        if case not in CASES:
            parser.error(f"unknown case {case!r}: one of {', '.join(CASES)}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        trees = compared_trees(args.base, args.new, scratch)
        results: dict = {}
        for r in range(args.rounds):
            for case in cases:
                for side in (list(trees) if r % 2 == 0 else list(reversed(trees))):
                    cache = scratch / f"cache-{side}-{case}"
                    shutil.rmtree(cache, ignore_errors=True)
                    for state in ("cold", "warm"):
                        results.setdefault((case, state, side), []).append(run(trees[side], cache, case, args.steps))
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        print(f"hydro cold start, {args.rounds} rounds, {args.steps} steps, medians; load after: {load}")
        print("| case | cache | tree | first step s | end s | import s | CPU s | compiler runs | state digest |")
        print("|---|---|---|---|---|---|---|---|---|")
        for (case, state, side), rows in results.items():
            med = {k: statistics.median(row[k] for row in rows) for k in ("first", "end", "imp", "cpu", "runs")}
            digests = sorted({row["digest"] for row in rows})
            print(f"| {case} | {state} | {side} | {med['first']:.2f} | {med['end']:.2f} | {med['imp']:.2f} | "
                  f"{med['cpu']:.2f} | {med['runs']:.0f} | {','.join(digests)} |")
        for case in cases:
            digests = {row["digest"] for (c, _, _), rows in results.items() if c == case for row in rows}
            if len(digests) != 1:
                print(f"{case}: the trees' states differ: {sorted(digests)}")
                sys.exit(1)


if __name__ == "__main__":
    main()
