"""Running one benchmark side in an interpreter of its own (brickwork's, or one with warp-lang installed)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

#: brickwork's source tree, for a child that imports brickwork from another interpreter's path
SRC = str(Path(__file__).resolve().parent.parent / "src")


#: The start of a child script that measures one side: imports the package named by its first argument as ``wp``
#: (``brickwork`` from the source tree given as its last argument, ``SRC``; ``warp`` initialised quietly), and
#: ``json``, ``sys``, ``time`` and numpy as ``np``; defines ``median_time(f, reps)``, the median seconds of ``reps``
#: calls of ``f`` (each synchronized) after a first one. ``PEER_PRELUDE + body`` is the script.
PEER_PRELUDE = """import importlib, json, sys, time
import numpy as np
name = sys.argv[1]
if name == "brickwork":
    sys.path.insert(0, sys.argv[-1])
wp = importlib.import_module(name)
if name == "warp":
    wp.config.quiet = True
    wp.init()

def median_time(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        wp.synchronize()
        times.append(time.perf_counter() - t)
    return float(np.median(times))
"""


def interleaved_medians(measure, args) -> tuple:
    """``(brickwork's, Warp's)`` results of ``measure(python, name, args)`` over ``args.rounds`` rounds, each
    running brickwork's process and then Warp's (``args.warp_python``; Warp's None without it), so that a change
    of the machine's load meets both sides: each value's median (``median_of_rounds``)."""
    mine, theirs = [], []
    for _ in range(max(args.rounds, 1)):
        mine.append(measure(sys.executable, "brickwork", args))
        if args.warp_python:
            theirs.append(measure(args.warp_python, "warp", args))
    return median_of_rounds(mine), median_of_rounds(theirs)


def median_of_rounds(rounds: list) -> dict | None:
    """Each time's median over the rounds' results (None if a round failed); other values as the first round's."""
    if not rounds or None in rounds:
        return None
    import numpy as np

    return {key: (float(np.median([r[key] for r in rounds])) if isinstance(value, float) else value)
            for key, value in rounds[0].items()}


def run_json(python: str, code: str, argv: list, label: str) -> dict | None:
    """Run ``code`` under ``python`` with ``argv`` as a script in a temporary file (kernels are compiled from
    their source, which ``python -c`` has none of); the JSON of its last line of output, or None after printing
    the last line of its error, prefixed with ``label``, when it fails."""
    with tempfile.TemporaryDirectory() as tmp:
        child = Path(tmp) / "bench_child.py"
        child.write_text(code)
        done = subprocess.run([python, str(child), *map(str, argv)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"{label} did not run ({done.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])
