"""examples/poisson_mesh.py: a matrix-free CG solve whose operator is a loop-abstraction stencil on a block mesh.
Second order against the exact solution, its outputs read back, and on 2 MPI ranks (LinearOperator comm) the
iterations and, to the last bits the inner products' grouping changes, the solution of one process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("h5py")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "poisson_mesh.py"
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")


def _run(out: Path, n: int, launcher=(), extra=()) -> tuple[int, float]:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([*launcher, sys.executable, str(EXAMPLE), "--n", str(n), "--block", "8", "--out", str(out),
                           *extra], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    found = re.search(r"(\d+) CG iterations, .* max \|u - exact\| = (\S+)", done.stdout)
    return int(found[1]), float(found[2])


def test_second_order_and_the_outputs(tmp_path):
    from brickwork.io import read_output

    (its16, err16), (its32, err32) = _run(tmp_path / "a", 16), _run(tmp_path / "b", 32)
    assert 3.8 < err16 / err32 < 4.2 and err32 < 3.0 / 32**2  # second order
    out = read_output(str(tmp_path / "b" / "poisson.xdmf"))
    assert out.cycle == its32 and out.cells["u"].shape == (1, 32, 32)
    x = out.x_center(1)[None, :]
    y = out.x_center(2)[:, None]
    exact = np.exp(x) * np.sin(np.pi * x) * np.sin(np.pi * y)
    np.testing.assert_allclose(out.cells["u"][0] - exact, out.cells["error"][0], atol=1e-14)
    assert np.abs(out.cells["error"]).max() == pytest.approx(err32, rel=1e-3)


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec (install the mpi extra)")
def test_two_ranks_take_the_steps_of_one_process(tmp_path):
    from brickwork.io import read_output

    its1, err1 = _run(tmp_path / "one", 32, extra=["--vtk"])
    its2, err2 = _run(tmp_path / "two", 32, launcher=(MPIEXEC, "-n", "2"), extra=["--vtk"])
    assert its2 == its1 and err2 == pytest.approx(err1, rel=1e-6)
    one, two = (read_output(str(tmp_path / d / "poisson.vtm")) for d in ("one", "two"))
    np.testing.assert_allclose(two.cells["u"], one.cells["u"], rtol=1e-9, atol=1e-12)
