"""examples/burgers2d.py: a time loop of one's own (2-D Burgers with a manufactured source, CFL reduction,
derived field, user boundary, outputs, restarts). Checked against the manufactured solution (second-order
convergence), for conservation (periodic: the total of u unchanged to rounding), for a restart that gives the
same bits as the run it continues, and for 2 MPI ranks writing the same values as one process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brickwork.io import read_output

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "burgers2d.py"
TLIM = 0.25


def _run(out: Path, *args, launcher=()) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([*launcher, sys.executable, str(EXAMPLE), "--tlim", str(TLIM), "--out", str(out), *args],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def _exact(n: int, t: float) -> np.ndarray:
    x = (np.arange(n) + 0.5) / n
    return 1.0 + 0.5 * np.sin(2 * np.pi * (x[None, :] - t)) * np.cos(2 * np.pi * (x[:, None] - t))


def _last(out: Path, suffix=".vtm"):
    name = sorted(p.name for p in out.iterdir() if re.fullmatch(rf"burgers\.\d{{5}}{re.escape(suffix)}", p.name))[-1]
    return read_output(str(out / name))


def test_the_driver_converges_to_the_manufactured_solution_restarts_and_runs_on_two_ranks(tmp_path):
    errors = {}
    for n in (16, 32):
        text = _run(tmp_path / f"n{n}", "--n", str(n), "--block", "8" if n == 16 else "16")
        last = _last(tmp_path / f"n{n}")
        assert last.time == pytest.approx(TLIM, rel=1e-12) and sorted(last.cells) == ["err", "u"]
        u = last.cells["u"][0]
        errors[n] = np.abs(u - _exact(n, last.time)).mean()
        # the derived field, filled before each output, is u - u_exact at the output's time
        np.testing.assert_allclose(last.cells["err"][0], u - _exact(n, last.time), rtol=0, atol=1e-13)
        assert f"L1 error {errors[n]:.4e}" in text
    assert errors[32] < 9e-3 and 3.0 < errors[16] / errors[32] < 4.5  # second order (minmod: a little less)

    one = tmp_path / "n32"
    assert sorted(p.name for p in one.iterdir()) == [
        "burgers.00000", "burgers.00000.vtm", "burgers.00010", "burgers.00010.vtm", "burgers.00020",
        "burgers.00020.vtm", "burgers.00030", "burgers.00030.vtm", "burgers.pvd", "burgers.rst.00010.npz",
        "burgers.rst.00020.npz", "burgers.rst.00030.npz"]
    first = read_output(str(one / "burgers.00000.vtm"))
    np.testing.assert_allclose(first.cells["u"][0], _exact(32, 0.0), rtol=0, atol=1e-15)
    final = read_output(str(one / "burgers.00030.vtm"))

    # From the restart file of cycle 10: the same cycles again, the same bits
    _run(tmp_path / "again", "--n", "32", "--block", "16", "--restart", str(one / "burgers.rst.00010.npz"))
    again = read_output(str(tmp_path / "again" / "burgers.00030.vtm"))
    assert again.cycle == 30 and again.time == final.time
    np.testing.assert_array_equal(again.cells["u"], final.cells["u"])

    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec (install the mpi extra)")
    pytest.importorskip("mpi4py")
    text = _run(tmp_path / "two", "--n", "32", "--block", "16", launcher=(mpiexec, "-n", "2"))
    assert "30 cycles to t = 0.250000 on 2 rank(s), 4 blocks of 16^2" in text
    two = read_output(str(tmp_path / "two" / "burgers.00030.vtm"))
    for name in ("u", "err"):
        np.testing.assert_array_equal(two.cells[name], final.cells[name])


def test_a_periodic_run_conserves_the_total_and_writes_hdf5_for_paraview(tmp_path):
    pytest.importorskip("h5py")
    text = _run(tmp_path, "--n", "16", "--block", "8", "--periodic", "--format", "hdf5")
    totals = re.search(r"total of u: (\S+) -> (\S+) ", text)
    start, end = float(totals.group(1)), float(totals.group(2))
    assert abs(start - 1.0) < 1e-15 and abs(end - start) < 1e-14  # the exact integral of u is 1
    assert {"burgers.00000.h5", "burgers.00000.xdmf", "burgers.00015.h5", "burgers.00015.xdmf"} <= set(
        os.listdir(tmp_path))
    last = _last(tmp_path, ".h5")
    assert last.cycle == 15 and last.time == pytest.approx(TLIM, rel=1e-12)
    assert abs(last.cells["u"].sum() / 16**2 - start) < 1e-14
    assert np.abs(last.cells["u"][0] - _exact(16, last.time)).mean() < 0.03  # 16^2 cells: a coarse solution
