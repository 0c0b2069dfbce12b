"""The loop-abstraction examples run as a reader runs them (``python examples/NAME.py``): each checks its
results against numpy itself and exits non-zero when they differ; here their summary lines are checked too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name, lines", [
    ("la_stencil.py", ["max |brickwork - numpy| = 0"]),
    ("la_recon_flux.py", ["bvoi + memory (ninner=ij_slab): max difference on the faces = 0",
                          "boiv + logical_flat (ninner=ij_slab): max difference on the faces = 0"]),
])
def test_the_example_runs_and_matches_numpy(tmp_path, name, lines):
    env = dict(os.environ, BRICKWORK_NUM_THREADS="2")
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    for line in lines:
        assert line in done.stdout.splitlines(), done.stdout
