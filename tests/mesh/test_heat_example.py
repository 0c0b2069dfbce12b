"""examples/heat_equation.py: the loop abstraction's diffusion steps against the discrete solution, the
total heat conserved, its ParaView outputs read back (one process, and 2 MPI ranks bit for bit), and a
run split by a restart file equal to the run in one piece."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heat_equation.py"
ARGS = ["--n", "32", "--block", "16", "--steps", "20", "--every", "10"]


def _run(out: Path, launcher=(), args=ARGS) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([*launcher, sys.executable, str(EXAMPLE), *args, "--out", str(out)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def test_the_example_follows_the_discrete_solution_and_writes_its_outputs(tmp_path):
    text = _run(tmp_path / "o")
    assert "max |u - discrete solution|" in text and "total heat 1024 -> 1024" in text
    assert sorted(os.listdir(tmp_path / "o")) == [f"heat.0000{i}.{e}" for i in range(3) for e in ("h5", "xdmf")]
    n, kappa = 32, 0.1
    dx = 1.0 / n
    c = kappa * (0.2 * dx * dx / kappa) / (dx * dx)
    with h5py.File(tmp_path / "o" / "heat.00002.h5") as f:
        assert f.attrs["cycle"] == 20 and np.isclose(f.attrs["time"], 20 * 0.2 * dx * dx / kappa)
        u, xmin = f["cells/u"][:], f["blocks/xmin"][:]
    assert u.shape == (4, 1, 16, 16)
    x = (np.arange(16) + 0.5) * dx
    for b in range(4):
        xs, ys = xmin[b, 0] + x, xmin[b, 1] + x
        want = (1 - 8 * c * np.sin(np.pi * dx) ** 2) ** 20 * np.sin(2 * np.pi * xs)[None, :] * \
            np.sin(2 * np.pi * ys)[:, None] + 1.0
        np.testing.assert_allclose(u[b, 0], want, atol=1e-12)



def test_vtk_outputs_hold_the_values_of_the_hdf5_outputs(tmp_path):
    from brickwork.io import read_output
    from brickwork.io.vtk import read_collection

    _run(tmp_path / "h5")
    text = _run(tmp_path / "vtk", args=[*ARGS, "--vtk"])
    assert f"outputs in {tmp_path / 'vtk'}/ (open heat.pvd in ParaView)" in text
    assert sorted(os.listdir(tmp_path / "vtk")) == sorted(
        ["heat.pvd"] + [f"heat.0000{i}{e}" for i in range(3) for e in ("", ".vtm")])
    times = [when for when, _ in read_collection(str(tmp_path / "vtk" / "heat.pvd"))]
    for i in range(3):
        vtk_out = read_output(str(tmp_path / "vtk" / f"heat.0000{i}.vtm"))
        h5_out = read_output(str(tmp_path / "h5" / f"heat.0000{i}.h5"))
        np.testing.assert_array_equal(vtk_out.cells["u"], h5_out.cells["u"])
        assert vtk_out.time == h5_out.time == times[i] and vtk_out.cycle == h5_out.cycle == 10 * i

def test_two_ranks_write_the_same_outputs(tmp_path):
    pytest.importorskip("mpi4py")
    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec (install the mpi extra)")
    _run(tmp_path / "one")
    _run(tmp_path / "two", launcher=(mpiexec, "-n", "2"))
    for i in range(3):
        with h5py.File(tmp_path / "one" / f"heat.0000{i}.h5") as a, h5py.File(tmp_path / "two" / f"heat.0000{i}.h5") as b:
            np.testing.assert_array_equal(a["cells/u"][:], b["cells/u"][:])


def test_a_run_split_by_a_restart_equals_the_run_in_one_piece(tmp_path):
    _run(tmp_path / "straight")
    half = ["--n", "32", "--block", "16", "--steps", "10", "--every", "10"]
    _run(tmp_path / "split", args=[*half, "--save-restart", str(tmp_path / "r.npz")])
    text = _run(tmp_path / "split", args=[*half, "--restart", str(tmp_path / "r.npz")])
    assert "20 steps to t =" in text and "total heat 1024 -> 1024" in text
    with h5py.File(tmp_path / "straight" / "heat.00002.h5") as a, h5py.File(tmp_path / "split" / "heat.00002.h5") as b:
        np.testing.assert_array_equal(b["cells/u"][:], a["cells/u"][:])
        assert b.attrs["cycle"] == a.attrs["cycle"] == 20


@pytest.mark.parametrize("args, message", [
    (["--steps", "-3"], "argument --steps: must be at least 0, got -3"),
    (["--n", "0"], "argument --n: must be at least 1, got 0"),
    (["--every", "-1"], "argument --every: must be at least 0, got -1"),
    (["--block", "x"], "argument --block: invalid int value: 'x'"),
])
def test_a_count_out_of_range_is_a_usage_error_before_anything_runs(tmp_path, args, message):
    """--steps -3 ran no step and then failed the example's own check with an AssertionError."""
    done = subprocess.run([sys.executable, str(EXAMPLE), *args, "--out", str(tmp_path / "o")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "o").exists()
