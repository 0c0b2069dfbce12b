"""Every reduction of one value type folds its partials with the same compiled kernel (``la.reducers.combine_rows``):
two Sums and a Max of float64 compile it once, with the first reduction's body kernel in one compiler run, and a
later run loads it from the kernel cache. Counted by the compile report of ``BRICKWORK_LOG=info`` (a line per
instance compiled or loaded) and ``jit.compile.compiler_calls``, in a process of its own with an empty cache (the
suite's processes have built the fold already)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np

SCRIPT = """
import numpy as np, brickwork as wp
from brickwork import la
from brickwork.jit import compile as jit_compile
values = np.random.default_rng(5).integers(-50, 50, (3, 6, 6, 6)).astype(np.float64)  # sums exact in any order
vals = wp.array(values, dtype=wp.float64)
space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 4, 4, 4, 1)

def total(rng, b):
    la.inner_reduce(rng, lambda k, j, i: vals[b, k, j, i])

def squares(rng, b):
    la.inner_reduce(rng, lambda k, j, i: vals[b, k, j, i] * vals[b, k, j, i])

results = [la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), total),
           la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), squares),
           la.outer_reduce(space.with_reducer(la.Max(wp.float64)), total)]
print("results", [repr(r) for r in results], "compiler runs", jit_compile.compiler_calls, flush=True)
"""


def run(script, cache) -> subprocess.CompletedProcess:
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    # one compile job: a fold built beside a body shares its compiler run (two jobs would make two runs side by side)
    env = dict(os.environ, PYTHONPATH=src, BRICKWORK_CACHE_DIR=str(cache), BRICKWORK_LOG="info", BRICKWORK_PCH="0",
               BRICKWORK_COMPILE_JOBS="1", BRICKWORK_COMPILE_MODULE="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done


def test_reductions_of_one_value_type_compile_their_fold_once(tmp_path):
    script = tmp_path / "folds.py"
    script.write_text(SCRIPT)
    first = run(script, tmp_path / "cache")
    inner = np.random.default_rng(5).integers(-50, 50, (3, 6, 6, 6)).astype(np.float64)[:, 1:5, 1:5, 1:5]
    expected = [repr(float(inner.sum())), repr(float((inner * inner).sum())), repr(float(inner.max()))]
    # three bodies, three compiler runs: the fold compiled in the first body's run, once for all three
    assert f"results {expected!r} compiler runs 3" in first.stdout, first.stdout + first.stderr
    compiled = re.findall(r"brickwork: (\S+) compiled for cpu", first.stderr)
    assert sorted(compiled) == ["combine_rows[float64]", "squares[float64]", "total[float64]", "total[float64]"], first.stderr
    again = run(script, tmp_path / "cache")  # the same cache: everything loaded
    assert f"results {expected!r} compiler runs 0" in again.stdout, again.stdout + again.stderr
    assert "compiled for" not in again.stderr
    assert again.stderr.count("combine_rows[float64] loaded from cache") == 1, again.stderr
