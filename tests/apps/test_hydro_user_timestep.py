"""A problem's own time-step limit, ``TIMESTEP`` (Athena++'s EnrollUserTimeStepFunction, a Parthenon package's
EstimateTimestep): each step is the smaller of the CFL step and the function's smallest value; every mistake is
one ConfigError naming it, and a limit that collapses the step says it was the function's."""

import os

import numpy as np
import pytest
from test_hydro_custom_problem import BUBBLE, write

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError
from brickwork.apps.hydro.rank_errors import SimulationError
from brickwork.io import history


def run(tmp_path, source, nlim=3):
    write(tmp_path / "bubble.py", BUBBLE + source)
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py", "wind": 0.5}, "time": {"nlim": nlim}, "output": {
        "dir": str(out), "hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "progress": False}}, [],
        base_dir=str(tmp_path))
    result = hydro.run(cfg)
    return result, np.asarray(history.read(str(out / "bubble.hst"))[1])


def test_the_step_is_the_smaller_of_the_cfl_step_and_the_limit(tmp_path):
    _, free = run(tmp_path, "")
    cfl = free[:, 2]
    limit = 0.5 * cfl.min()
    _, limited = run(tmp_path, f"TIMESTEP = lambda *args: {limit!r}\n")
    np.testing.assert_array_equal(limited[:, 2], limit)  # every step, the last line's too
    np.testing.assert_array_equal(limited[:, 1], np.cumsum([0.0, limit, limit, limit]))
    _, loose = run(tmp_path, "TIMESTEP = lambda *args: 1.0\n")
    np.testing.assert_array_equal(loose, free)  # a limit above the CFL step changes no bit


def test_an_array_limits_by_its_smallest_value(tmp_path):
    source = ("def TIMESTEP(density, v1, v2, v3, pressure, params, gamma):\n"
              "    return 1e-3 / density  # the bubble's 10: 1e-4\n")
    result, rows = run(tmp_path, source, nlim=1)
    assert rows[0, 2] == 1e-3 / 10.0
    assert result.time == 1e-3 / 10.0


@pytest.mark.parametrize("source, message", [
    ("TIMESTEP = 0.1\n", r"TIMESTEP must be a function fn\(density, v1, v2, v3, pressure, params, gamma\) returning "
                         r"the largest time step it allows, got 0.1"),
    # a kernel is callable (to say it runs by wp.launch), yet no problem function
    ("import brickwork as wp\n@wp.kernel\ndef TIMESTEP(x: wp.array(dtype=float)):\n    x[0] = 1.0\n",
     r"TIMESTEP must be a function .* got .*: a @wp\.kernel runs by wp\.launch; name a Python function \(it may "
     r"launch kernels\)"),
])
def test_a_limit_of_the_wrong_form(tmp_path, source, message):
    write(tmp_path / "bubble.py", BUBBLE + source)
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "bubble.py"}}, [], base_dir=str(tmp_path))


@pytest.mark.parametrize("body, message", [
    ("params['cour']", r"^problem 'bubble': TIMESTEP\(\) failed at bubble.py:\d+: KeyError: 'cour'; the \[problem\] "
                       r"keys are file, name, rho_bubble, wind$"),
    ("0.0 * density", r"^problem 'bubble': TIMESTEP\(\) must return a positive time step \(a number, or an array "
                      r"whose smallest value counts\), got 0.0$"),
    ("float('nan')", r"got nan$"),
])
def test_a_limit_that_fails_stops_the_run_before_it_starts(tmp_path, body, message):
    source = f"\n\ndef TIMESTEP(density, v1, v2, v3, pressure, params, gamma):\n    return {body}\n"
    with pytest.raises(ConfigError, match=message):
        run(tmp_path, source)
    assert not os.path.exists(tmp_path / "out")


def test_a_limit_that_fails_later_names_the_cycle(tmp_path):
    source = ("\n\ndef TIMESTEP(density, v1, v2, v3, pressure, params, gamma):\n"
              "    return 1.0 if np.all(v1 == 0.5) else -1.0  # once the bubble's edge has stirred the wind\n")
    with pytest.raises(ConfigError, match=r"^the time step of cycle \d+ \(t=[0-9.e-]+\): problem 'bubble': TIMESTEP\(\) "
                                          r"must return a positive time step .* got -1.0$"):
        run(tmp_path, source, nlim=50)


def test_a_limit_that_collapses_the_step_is_named(tmp_path):
    with pytest.raises(SimulationError, match=r"the time step collapsed to dt=1.000e-15, .* Problem 'bubble''s "
                                              r"TIMESTEP\(\) allowed it \(the CFL step is [0-9.e+-]+\): look at what that "
                                              r"function returns, or set time.nlim"):
        run(tmp_path, "TIMESTEP = lambda *args: 1e-15\n", nlim=-1)
