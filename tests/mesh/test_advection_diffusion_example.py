"""examples/advection_diffusion.py: a package of one's own (two coupled scalars advected, diffused and
exchanging mass) stepped by par_for over a pack, against the discrete solution of its Fourier mode; the
total of u + v stays zero, a run resumed from the half-way restart file gives the same bits, and 2 MPI
ranks write the same VTK files as one process."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brickwork.io import read_output

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "advection_diffusion.py"
N, STEPS = 32, 20
ARGS = ["--n", str(N), "--block", "16", "--steps", str(STEPS), "--check-restart"]


def _run(out: Path, launcher=()) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([*launcher, sys.executable, str(EXAMPLE), *ARGS, "--out", str(out)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def _discrete_solution(t_steps: int):
    """u and v after t_steps forward Euler steps of central differences, from u = sin(2 pi (x + y)), v = 0."""
    ax, ay, d, r = 1.0, 0.5, 0.01, 0.5
    dx = 1.0 / N
    dt = 0.2 * min(dx * dx / (4 * d), dx / (ax + ay))
    k = 2 * math.pi
    eig = -1j * (ax + ay) * math.sin(k * dx) / dx - 8 * d * math.sin(k * dx / 2) ** 2 / dx**2
    x = (np.arange(N) + 0.5) * dx
    mode = np.exp(1j * k * (x[None, :] + x[:, None]))
    u = np.imag((1 + dt * (eig - r)) ** t_steps * mode)
    return u, np.imag((1 + dt * eig) ** t_steps * mode) - u, t_steps * dt


def test_the_example_follows_the_discrete_solution_resumes_bit_for_bit_and_two_ranks_agree(tmp_path):
    text = _run(tmp_path / "one")
    assert f"restart at cycle {STEPS // 2}, the second half again: the same bits" in text
    assert sorted(os.listdir(tmp_path / "one")) == ["adv.00000", "adv.00000.vtm", f"adv.{STEPS:05d}",
                                                    f"adv.{STEPS:05d}.vtm", "adv.pvd", "adv.rst.npz"]
    first = read_output(str(tmp_path / "one" / "adv.00000.vtm"))
    last = read_output(str(tmp_path / "one" / f"adv.{STEPS:05d}.vtm"))
    want_u, want_v, t = _discrete_solution(STEPS)
    assert sorted(last.cells) == ["u", "v"] and last.cells["u"].shape == (1, N, N)
    np.testing.assert_allclose(first.cells["u"][0], _discrete_solution(0)[0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(last.cells["u"][0], want_u, rtol=0, atol=1e-13)
    np.testing.assert_allclose(last.cells["v"][0], want_v, rtol=0, atol=1e-13)
    assert last.time == t and last.cycle == STEPS
    assert abs(last.cells["u"].sum() + last.cells["v"].sum()) < 1e-12  # u + v: a mode, whose total is zero

    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec (install the mpi extra)")
    pytest.importorskip("mpi4py")
    assert "on 2 rank(s)" in _run(tmp_path / "two", launcher=(mpiexec, "-n", "2"))
    two = read_output(str(tmp_path / "two" / f"adv.{STEPS:05d}.vtm"))
    for name in ("u", "v"):
        np.testing.assert_array_equal(two.cells[name], last.cells[name])
