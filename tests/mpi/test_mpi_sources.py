"""Source terms on several MPI ranks: gravity and a problem's ``SOURCE`` act cell by cell, so 4 blocks on 4 ranks
write the one-process history file byte for byte (sums, and extrema of the velocity and energy that the sources
drive), and a ``SOURCE`` that raises on one rank only stops every rank with one line naming it."""

from __future__ import annotations

from test_mpi import BRICKWORK, mpirun  # importing it skips this module without mpiexec

BOX = '''
import numpy as np

NAME = "box"
DIMENSIONS = (2,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [32, 32], "block_nx": [16, 16], "xmin": [0.0, 0.0], "xmax": [1.0, 1.0],
                     "bc_x1": "periodic", "bc_x2": "reflecting"},
            "hydro": {"gamma": 1.4, "gravity": [0.0, -1.0]}, "time": {"nlim": 6},
            "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    rho = np.where(x2 > 0.5 + 0.05 * np.cos(2 * np.pi * x1), 2.0, 1.0)
    return rho, 0.0, 0.0, 0.0, 2.5 - rho * (x2 - 0.5)


def SOURCE(rho, v1, v2, v3, p, params, gamma, x1, x2, x3, time, dt):
    if RAISE and x1.min() >= 0.5 and x2.min() >= 0.5:  # the rank of the upper right block alone
        raise ValueError("too hot")
    return 0.0, 0.0, 0.0, 0.0, -0.5 * (p - 2.0) + 0.1 * x1 * time


HISTORY = {"v2_max": ("max", lambda rho, v1, v2, *rest: v2), "v2_min": ("min", lambda rho, v1, v2, *rest: v2),
           "p_max": ("max", lambda *a: a[4])}
'''


def write_problem(tmp_path, raises: bool):
    (tmp_path / "box.py").write_text(f"RAISE = {raises}\n" + BOX)
    (tmp_path / "box.toml").write_text('[problem]\nfile = "box.py"\n')
    return tmp_path / "box.toml"


def test_four_ranks_write_the_one_process_history(tmp_path):
    problem = write_problem(tmp_path, raises=False)
    one = mpirun(1, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'one'}", "--quiet")
    four = mpirun(4, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'four'}", "--quiet")
    assert one.returncode == 0 and four.returncode == 0, four.stderr[-3000:]
    text = (tmp_path / "one" / "box.hst").read_text()
    lines = text.splitlines()
    assert lines[0].endswith("[9]=v2_max  [10]=v2_min  [11]=p_max") and len(lines) == 8
    assert float(lines[-1].split()[9]) != 0.0  # the sources moved the gas
    assert (tmp_path / "four" / "box.hst").read_text() == text


def test_a_source_that_raises_on_one_rank_stops_every_rank(tmp_path):
    problem = write_problem(tmp_path, raises=True)
    done = mpirun(4, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'o'}", "--quiet", timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr.startswith("brickwork: error: the step of cycle 0 (t=0): problem 'box': SOURCE() failed at "
                                  "box.py:21: ValueError: too hot (on rank 3 of 4)\n"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # said once
