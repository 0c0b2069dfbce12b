"""A problem of your own (``problem.file``) on several MPI ranks: its user boundary gives the one-process
history bit for bit, and a boundary function that raises on the ranks holding that side stops every rank
with one line naming the ranks (the other ranks waited in the ghost exchange for ever before; then the
failing rank ended them all with MPI_Abort, and its line showed twice)."""

from __future__ import annotations

import re

import pytest
from test_mpi import BRICKWORK, mpirun  # importing it skips this module without mpiexec

WIND = '''
NAME = "wind"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "user"},
            "hydro": {"gamma": 1.4}, "time": {"tlim": 0.02}}


def inflow(block, view, side, field, params):
    ng = block.mesh.nghost
    rho = 2.0 * params.get("scale", 1.0) if RAISE is False else params["scale"]
    if field == "density":
        view[0, :, :, :ng] = rho
    elif field == "momentum":
        view[:, :, :, :ng] = 0.0
        view[0, :, :, :ng] = rho * 3.0
    else:
        view[0, :, :, :ng] = 1.0 / 0.4 + 0.5 * rho * 9.0


BOUNDARIES = {"inner_x1": inflow, "outer_x1": "outflow"}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0, 3.0, 0.0, 0.0, 1.0
'''


def write_problem(tmp_path, raises: bool):
    (tmp_path / "wind.py").write_text(f"RAISE = {raises}\n" + WIND)
    (tmp_path / "wind.toml").write_text('[problem]\nfile = "wind.py"\n[output]\nhdf5_dt = -1\n')
    return tmp_path / "wind.toml"


def test_user_boundaries_give_the_one_process_history(tmp_path):
    toml = write_problem(tmp_path, raises=False)
    one = mpirun(1, BRICKWORK, "run", str(toml), f"output.dir={tmp_path / 'one'}", "--quiet")
    three = mpirun(3, BRICKWORK, "run", str(toml), f"output.dir={tmp_path / 'three'}", "--quiet")
    assert one.returncode == 0 and three.returncode == 0, three.stderr[-3000:]
    assert (tmp_path / "one" / "wind.hst").read_bytes() == (tmp_path / "three" / "wind.hst").read_bytes()


@pytest.mark.parametrize("nranks", [2, 3])
def test_a_boundary_function_that_raises_ends_every_rank(tmp_path, nranks):
    toml = write_problem(tmp_path, raises=True)
    done = mpirun(nranks, BRICKWORK, "run", str(toml), f"output.dir={tmp_path / 'o'}", "--quiet", timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == (f"brickwork: error: problem 'wind': BOUNDARIES['inner_x1'] failed at wind.py:12: KeyError: "
                           f"'scale'; the [problem] keys are file, name (on rank 0 of {nranks})\n")
    assert not (tmp_path / "o").exists()


def test_boundary_functions_that_raise_differently_on_two_ranks_are_each_said_once(tmp_path):
    """Rank 0 holds the inner side, rank 3 the outer one: one line, each error once with its rank."""
    toml = write_problem(tmp_path, raises=True)
    (tmp_path / "wind.py").write_text((tmp_path / "wind.py").read_text() + "\n\ndef outer(block, view, side, field):\n"
                                      "    return 1 / 0\n\n\nBOUNDARIES['outer_x1'] = outer\n")
    done = mpirun(4, BRICKWORK, "run", str(toml), f"output.dir={tmp_path / 'o'}", "--quiet", timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == ("brickwork: error: problem 'wind': BOUNDARIES['inner_x1'] failed at wind.py:12: KeyError: "
                           "'scale'; the [problem] keys are file, name (on rank 0 of 4); problem 'wind': "
                           "BOUNDARIES['outer_x1'] failed at wind.py:30: ZeroDivisionError: division by zero (on rank 3 "
                           "of 4)\n")
    assert not (tmp_path / "o").exists()


TUBE = '''
import numpy as np

NAME = "tube"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "outflow"},
            "time": {"tlim": 0.1}, "output": {"hdf5_dt": 0.02}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return np.where(x1 < 0.5, 1.0, 0.125), 0.0, 0.0, 0.0, np.where(x1 < 0.5, 1.0, 0.1)


def speed(density, v1, v2, v3, pressure, params, gamma):
    if ((density < 0.9) & (density > 0.5)).any():  # the rarefaction, on the ranks holding it
        raise ValueError("in the rarefaction")
    return np.abs(v1)


def exact(x1, t, params, gamma):
    return params["nope"], 0.0, 0.0


OUTPUTS = {"speed": speed}
'''


@pytest.mark.parametrize("nranks, ranks", [(1, ""), (2, " (on rank 0 of 2)"), (4, " (on rank 1 of 4)")])
def test_outputs_that_raise_on_some_ranks_mid_run_stop_every_rank_with_one_line(tmp_path, nranks, ranks):
    """An OUTPUTS function that raises on the ranks holding the rarefaction, at the second output: the problem's
    line on every rank, naming those ranks, status 2 as on one process (it was 'the run failed: rank 1 could not
    make its blocks: ConfigError: ...', status 1); the first output stays."""
    (tmp_path / "tube.py").write_text(TUBE)
    (tmp_path / "tube.toml").write_text('[problem]\nfile = "tube.py"\n')
    done = mpirun(nranks, BRICKWORK, "run", str(tmp_path / "tube.toml"), f"output.dir={tmp_path / 'o'}", "--quiet",
                  timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert re.fullmatch(r"brickwork: error: the output tube\.out\.00001 of cycle \d+ \(t=[0-9.e-]+\): problem 'tube': "
                        r"OUTPUTS\['speed'\] failed at tube.py:17: ValueError: in the rarefaction" + re.escape(ranks)
                        + "\n", done.stderr), done.stderr
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["tube.hst", "tube.out.00000.h5",
                                                                 "tube.out.00000.xdmf"]


@pytest.mark.parametrize("nranks", [1, 2])
def test_an_exact_solution_that_raises_in_a_png_stops_every_rank_with_one_line(tmp_path, nranks):
    """Rank 0 alone draws the PNG and calls exact(): before, its KeyError was a traceback and MPI_Abort."""
    (tmp_path / "tube.py").write_text(TUBE)
    (tmp_path / "tube.toml").write_text('[problem]\nfile = "tube.py"\n[output]\nhdf5_dt = -1\npng_dt = 0\n')
    done = mpirun(nranks, BRICKWORK, "run", str(tmp_path / "tube.toml"), f"output.dir={tmp_path / 'o'}", "--quiet",
                  timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == ("brickwork: error: the PNG tube.00000.png of cycle 0 (t=0): problem 'tube': exact() failed "
                           "at tube.py:22: KeyError: 'nope'; the [problem] keys are file, name\n")
    assert not list((tmp_path / "o").glob("*.png"))


def test_sys_exit_in_a_problems_function_on_one_rank_stops_every_rank_with_one_line(tmp_path):
    """initial() calling sys.exit() on the rank holding x > 0.9 alone: before, that rank left and the other
    waited for it for ever."""
    (tmp_path / "tube.py").write_text("import sys\n" + TUBE.replace(
        "def initial(x1, x2, x3, p, gamma, xmin, xmax):\n",
        "def initial(x1, x2, x3, p, gamma, xmin, xmax):\n    if x1.max() > 0.9:\n        sys.exit('no gas past 0.9')\n"))
    (tmp_path / "tube.toml").write_text('[problem]\nfile = "tube.py"\n')
    done = mpirun(2, BRICKWORK, "run", str(tmp_path / "tube.toml"), f"output.dir={tmp_path / 'o'}", "--quiet",
                  timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == ("brickwork: error: problem 'tube': initial() failed at tube.py:14: SystemExit: no gas past "
                           "0.9 (on rank 1 of 2)\n")
    assert not (tmp_path / "o").exists()
