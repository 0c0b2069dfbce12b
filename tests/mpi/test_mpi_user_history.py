"""A problem's own history columns (``HISTORY``) and time-step limit (``TIMESTEP``, smaller on some ranks than
on others: every rank takes the smallest) on several MPI ranks: 4 blocks on 3 ranks (ranks 0 and 2 hold one
block, rank 1 two) write the one-process history file byte for byte, sums and extrema alike, and a column
function that raises on some ranks only, at a later step, stops every rank with one line naming those ranks."""

from __future__ import annotations

from test_mpi import BRICKWORK, mpirun  # importing it skips this module without mpiexec

TUBE = '''
import numpy as np

NAME = "tube"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "outflow"},
            "hydro": {"gamma": 1.4}, "time": {"nlim": 6}, "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return np.where(x1 < 0.5, 1.0, 0.125), 0.0, 0.0, 0.0, np.where(x1 < 0.5, 1.0, 0.1)


def kinetic(rho, v1, v2, v3, p, params, gamma):
    if RAISE and rho.shape[0] == 2 and np.any(v1 != 0.0):  # rank 1 (blocks 1 and 2), once the gas moves
        raise ValueError("moving")
    return 0.5 * rho * v1 * v1


HISTORY = {"kinetic": kinetic, "v_max": ("max", lambda rho, v1, *rest: v1), "p_min": ("min", lambda *a: a[4])}
TIMESTEP = lambda rho, *rest: 2e-3 / rho.max()  # 2e-3 on the ranks of the dense gas only, below the CFL step
'''


def write_problem(tmp_path, raises: bool):
    (tmp_path / "tube.py").write_text(f"RAISE = {raises}\n" + TUBE)
    (tmp_path / "tube.toml").write_text('[problem]\nfile = "tube.py"\n')
    return tmp_path / "tube.toml"


def test_the_columns_on_three_ranks_are_the_one_process_file(tmp_path):
    problem = write_problem(tmp_path, raises=False)
    one = mpirun(1, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'one'}", "--quiet")
    three = mpirun(3, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'three'}", "--quiet")
    assert one.returncode == 0 and three.returncode == 0, three.stderr[-3000:]
    text = (tmp_path / "one" / "tube.hst").read_text()
    assert text.splitlines()[0].endswith("[8]=energy  [9]=kinetic  [10]=v_max  [11]=p_min") and len(text.splitlines()) == 8
    assert (tmp_path / "three" / "tube.hst").read_text() == text
    assert all(line.split()[2] == "2.00000000000000004e-03" for line in text.splitlines()[1:])  # TIMESTEP's step


def test_a_column_that_raises_on_some_ranks_stops_every_rank(tmp_path):
    problem = write_problem(tmp_path, raises=True)
    done = mpirun(3, BRICKWORK, "run", str(problem), f"output.dir={tmp_path / 'o'}", "--quiet", timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr.startswith("brickwork: error: the history line of cycle 1 (t=0.002): problem 'tube': "
                                  "HISTORY['kinetic'] failed at tube.py:18: ValueError: moving (on rank 1 of 3)\n")
    assert done.stderr.count("\n") == 1, done.stderr  # said once
