"""examples/implicit_heat.py, run small: backward Euler steps of assembled 5-/7-point matrices solved by CG
follow the discrete solution (an eigenmode's known decay), for one field and two coupled fields (2x2 blocks),
with a fixed time step (one assembly) and a growing one (the matrix reassembled in place each step)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "implicit_heat.py"


def _run(*args: str) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=600,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("args, points, blocks", [
    (("--dim", "2", "--n", "12"), "12^2", 5 * 144 - 4 * 12),
    (("--dim", "3", "--n", "6", "--fields", "2", "--growth", "1.5"), "6^3", 7 * 216 - 6 * 36),
])
def test_the_example_follows_the_discrete_solution(args, points, blocks):
    steps, dt, growth = 4, 1e-3, float(dict(zip(args[::2], args[1::2])).get("--growth", 1.0))
    text = _run(*args, "--steps", str(steps), "--dt", str(dt))
    assert text.startswith(f"{points} points, ") and f", {blocks} blocks: {steps} steps" in text, text
    err = float(re.search(r"discrete solution\| / max \|u\| = (\S+)", text).group(1))
    assert err < 1e-8
    n, dim = int(points.split("^")[0]), int(points.split("^")[1])
    h = 1.0 / (n + 1)
    lam = dim * 4.0 / h**2 * np.sin(np.pi * h / 2) ** 2
    amplitude = np.prod([1.0 / (1.0 + dt * growth**k * lam) for k in range(steps)])
    got = float(re.search(r"amplitude (\S+)", text).group(1))
    assert abs(got - amplitude) < 1e-8



@pytest.mark.parametrize("args, message", [
    (["--n", "0"], "argument --n: must be at least 1, got 0"),
    (["--steps", "0"], "argument --steps: must be at least 1, got 0"),
    (["--dt", "-1"], "argument --dt: must be above 0.0, got -1"),
    (["--growth", "nan"], "argument --growth: must be above 0.0, got nan"),
    (["--n", "x"], "argument --n: invalid int value: 'x'"),
])
def test_an_argument_out_of_range_is_a_usage_error(args, message):
    """--n 0 and --steps 0 assembled no matrix and ended in an AttributeError of the example's own report."""
    done = subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr, done.stderr
