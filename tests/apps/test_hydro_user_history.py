"""A problem's own history columns, ``HISTORY`` (Athena++'s user history outputs, Parthenon's HistoryOutputVar):
sums (times the cell volume, as the shipped columns), minima and maxima of functions of the primitive variables,
written after the shipped columns on every line of ``NAME.hst``; every mistake is one ConfigError naming it."""

import os

import numpy as np
import pytest
from test_hydro_custom_problem import BUBBLE, write

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError
from brickwork.io import history

COLUMNS = '''

def kinetic(density, v1, v2, v3, pressure, params, gamma):
    return 0.5 * density * (v1 * v1 + v2 * v2 + v3 * v3)


HISTORY = {"kinetic": kinetic, "mass_again": lambda rho, v1, v2, v3, p, params, gamma: rho,
           "rho_max": ("max", lambda rho, *rest: rho), "p_min": ("min", lambda rho, v1, v2, v3, p, *rest: p),
           "unit": ("sum", lambda *args: 1.0)}
'''


def run(tmp_path, source, **output):
    write(tmp_path / "bubble.py", BUBBLE + source)
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py", "wind": 0.5}, "time": {"nlim": 3}, "output": {
        "dir": str(out), "hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "progress": False, **output}}, [],
        base_dir=str(tmp_path))
    return hydro.run(cfg).hydro, out


def test_columns_of_a_problem_follow_the_shipped_ones_on_every_line(tmp_path):
    sim, out = run(tmp_path, COLUMNS)
    columns, rows = history.read(str(out / "bubble.hst"))
    assert columns == ["cycle", "time", "dt", "mass", "momentum_1", "momentum_2", "momentum_3", "energy",
                       "kinetic", "mass_again", "rho_max", "p_min", "unit"]
    rows = np.asarray(rows)
    assert rows.shape == (4, 13) and list(rows[:, 0]) == [0, 1, 2, 3]
    np.testing.assert_array_equal(rows[:, 9], rows[:, 3])  # a sum is the shipped total's, bit for bit
    np.testing.assert_array_equal(rows[:, 12], 2.0)  # the domain's volume, [0, 2] x [0, 1]
    assert rows[0, 10] == 10.0 and rows[0, 11] == 1.0  # the bubble's density, the uniform pressure
    rho, v1, v2, v3, p = (sim.primitive(v) for v in ("density", "velocity_1", "velocity_2", "velocity_3", "pressure"))
    volume = (2.0 / 32) * (1.0 / 16)
    last = rows[-1]
    assert np.isclose(last[8], np.sum(0.5 * rho * (v1**2 + v2**2 + v3**2)) * volume, rtol=1e-14, atol=0.0)
    assert last[10] == rho.max() and last[11] == p.min()
    assert last[1] > 0.0 and rows[1:, 11].min() < 1.0  # the state moved: the bubble's edge dips the pressure


@pytest.mark.parametrize("columns, message", [
    ("HISTORY = {'mass': print}", r"HISTORY has the name 'mass': a history column is named with letters, digits and "
                                  r"'_' \(not first a digit\), and not as one of cycle, time, dt, mass, "),
    ("HISTORY = {'a b': print}", r"HISTORY has the name 'a b'"),
    ("HISTORY = {'t': ('mean', print)}", r"HISTORY\['t'\] must be a function fn\(density, v1, v2, v3, pressure, "
                                         r"params, gamma\) or \(operation, function\) with the operation one of "
                                         r"'sum', 'min', 'max', got \('mean', "),
    ("HISTORY = {'t': 3}", r"HISTORY\['t'\] must be a function"),
    ("HISTORY = [print]", r"HISTORY must be a dict of column names to functions or \(operation, function\)"),
])
def test_columns_of_the_wrong_form(tmp_path, columns, message):
    write(tmp_path / "bubble.py", BUBBLE + columns)
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "bubble.py"}}, [], base_dir=str(tmp_path))


def test_a_column_named_as_a_passive_scalar_is_refused(tmp_path):
    write(tmp_path / "bubble.py", BUBBLE + "HISTORY = {'dye': print}\n")
    with pytest.raises(ConfigError, match=r"problem 'bubble': HISTORY\['dye'\] takes the history column of the "
                                          r"passive scalar 'dye' \(hydro.nscalars, hydro.scalar_names\)"):
        hydro.build_config({"problem": {"file": "bubble.py"}, "hydro": {"nscalars": 1, "scalar_names": ["dye"]}},
                           [], base_dir=str(tmp_path))


@pytest.mark.parametrize("body, message", [
    ("pressure / params['gas']", r"^problem 'bubble': HISTORY\['t'\] failed at bubble.py:\d+: KeyError: 'gas'; "
                                 r"the \[problem\] keys are file, name, rho_bubble, wind$"),
    ("pressure[:, 0]", r"^problem 'bubble': HISTORY\['t'\] must return values that broadcast to the blocks' cells "
                       r"\(2, 1, 16, 16\) \(the shape of its arguments\), got shape \(2, 16, 16\)$"),
])
def test_columns_that_fail_stop_the_run_before_it_starts(tmp_path, body, message):
    source = f"\n\ndef t(density, v1, v2, v3, pressure, params, gamma):\n    return {body}\n\n\nHISTORY = {{'t': t}}\n"
    with pytest.raises(ConfigError, match=message):
        run(tmp_path, source)
    assert not os.path.exists(tmp_path / "out")


def test_without_a_history_file_the_functions_are_not_called(tmp_path):
    sim, out = run(tmp_path, "HISTORY = {'t': lambda *a: 1 / 0}\n", history=False)
    assert sim.cycle == 3 and not os.path.exists(out)


def test_a_restart_goes_on_with_the_columns_and_refuses_other_ones(tmp_path):
    from brickwork.io.files import OutputError

    write(tmp_path / "bubble.py", BUBBLE + COLUMNS)
    output = {"hdf5_dt": -1, "png_dt": -1, "restart_dn": 2, "progress": False}
    raw = {"problem": {"file": "bubble.py", "wind": 0.5}, "time": {"nlim": 4}}
    hydro.run(hydro.build_config({**raw, "output": {**output, "dir": str(tmp_path / "s")}}, [], base_dir=str(tmp_path)))
    raw["output"] = {**output, "dir": str(tmp_path / "r")}
    hydro.run(hydro.build_config({**raw, "time": {"nlim": 3}}, [], base_dir=str(tmp_path)))
    restart = str(tmp_path / "r" / "bubble.rst.00001.npz")  # cycle 2
    assert hydro.run(hydro.build_config(raw, [], base_dir=str(tmp_path)), restart_file=restart).cycle == 4
    history = (tmp_path / "r" / "bubble.hst").read_text()
    assert history == (tmp_path / "s" / "bubble.hst").read_text()  # the lines after the restart: the straight run's
    assert len(history.splitlines()) == 6
    write(tmp_path / "bubble.py", BUBBLE + COLUMNS + "HISTORY['extra'] = kinetic\ndel HISTORY['unit']\n")
    with pytest.raises(OutputError, match=r"cannot continue the history file '.*bubble.hst' after the restart: its "
                                          r"columns are cycle .* p_min unit, but this run writes cycle .* p_min extra "
                                          r"\(this run adds extra; drops unit\); move the file away"):
        hydro.run(hydro.build_config(raw, [], base_dir=str(tmp_path)), restart_file=restart)
    assert (tmp_path / "r" / "bubble.hst").read_text() == history
