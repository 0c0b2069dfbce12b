"""A problem's functions (``SOURCE``, ``HISTORY``, ``TIMESTEP``, ``OUTPUTS``) take the arguments they name, in
any order, as pytest gives fixtures: the cell centres x1, x2, x3 and the cell volume included, which ``HISTORY``
got no other way; the full positional form still works; a name that is none of a kind's is one ConfigError
naming the function, its file and line and the names there are, when the problem loads."""

import numpy as np
import pytest
from test_hydro_custom_problem import BUBBLE, write
from test_hydro_sources import BOX, run, whole

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError, user_arguments
from brickwork.apps.hydro.custom_problem import derived_outputs
from brickwork.io import history

BY_NAME = '''

def SOURCE(x2, dt, x1, density):  # any order, any subset
    assert density.shape == (2, 1, 16, 16) and dt > 0
    return x1 + 10.0 * x2, 0, 0, 0, 0


TIMESTEP = lambda density, volume: 0.0 * density + 1e3 * volume  # a limit above the CFL step
'''
POSITIONAL = '''

def SOURCE(rho, u, v, w, p, params, g, a, b, c, t, h):  # the twelve of the positional form, names of its own
    return a + 10.0 * b, 0, 0, 0, 0
'''


def test_a_source_takes_what_it_names_and_the_positional_form_still_works(tmp_path):
    """A mass source x1 + 10 x2 at rest (no flux moves a density contrast at one pressure): one step adds dt times it,
    asked for by name or in the twelve positions, the same bits."""
    named = run(tmp_path, BOX + BY_NAME, ["time.nlim=1"])
    positional = run(tmp_path, BOX + POSITIONAL, ["time.nlim=1"], name="other.py")
    x = (np.arange(32) + 0.5) / 16
    y = (np.arange(16) + 0.5) / 16
    expected = 2.0 + named.time * (x[None, :] + 10.0 * y[:, None])
    np.testing.assert_allclose(whole(named, "density"), expected, rtol=1e-14)
    assert named.time == positional.time
    np.testing.assert_array_equal(whole(named, "density"), whole(positional, "density"))


COLUMNS = '''

HISTORY = {"height_mass": lambda x2, density: density * x2,      # the centre of mass's height, times the mass
           "x_max": ("max", lambda x1: x1), "cell": ("min", lambda volume: volume),
           "names": ("max", lambda **given: len(given)), "k_given": lambda density, k=3.0: k * density,
           "kinetic": lambda rho, v1, v2, v3, p, params, gamma: 0.5 * rho * (v1 * v1 + v2 * v2 + v3 * v3)}
OUTPUTS = {"height": lambda x2, density: x2 + 0.0 * density}
'''


def test_history_columns_get_positions_and_volumes_by_name(tmp_path):
    """HISTORY functions take x1, x2 and the cell volume by name (sums, maxima, minima against numpy), ``**given``
    gets every name, a default that is no name is kept, and the seven positional arguments still work; an
    OUTPUTS variable takes x2 by name."""
    write(tmp_path / "bubble.py", BUBBLE + COLUMNS)
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py"}, "time": {"nlim": 2}, "output": {
        "dir": str(out), "hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "progress": False}}, [],
        base_dir=str(tmp_path))
    sim = hydro.run(cfg).hydro
    columns, rows = history.read(str(out / "bubble.hst"))
    last = dict(zip(columns, rows[-1]))
    volume = (2.0 / 32) * (1.0 / 16)
    rho = sim.primitive("density")
    y = ((np.arange(16) + 0.5) / 16)[None, None, :, None]
    assert last["height_mass"] == pytest.approx(np.sum(rho * y) * volume, rel=1e-14)
    assert last["x_max"] == 2.0 - 1.0 / 32 and last["cell"] == volume
    assert last["names"] == len(user_arguments.NAMES["HISTORY"]) == 11
    assert last["k_given"] == pytest.approx(3.0 * last["mass"], rel=1e-14)
    v1 = sim.primitive("velocity_1")
    assert last["kinetic"] == pytest.approx(np.sum(0.5 * rho * v1**2) * volume, rel=1e-14)
    height = derived_outputs(sim)["height"]()  # an output variable names the positions too
    np.testing.assert_array_equal(height, np.broadcast_to(y, rho.shape))


HISTORY_NAMES = "density, v1, v2, v3, pressure, params, gamma, x1, x2, x3, volume"
SOURCE_NAMES = "density, v1, v2, v3, pressure, params, gamma, x1, x2, x3, time, dt, volume"
SEVEN = r"fn\(density, v1, v2, v3, pressure, params, gamma\)"


@pytest.mark.parametrize("text, message", [
    ("\n\ndef SOURCE(density, temperature, dt):\n    return 0, 0, 0, 0, 0\n",
     rf"SOURCE: SOURCE \(box.py:16\) takes temperature, which is not among the names a SOURCE function may take "
     rf"\({SOURCE_NAMES}\); name any of them, or take all 12 in order, fn\(density, v1, v2, v3, pressure, params, "
     rf"gamma, x1, x2, x3, time, dt\)"),
    ("\n\ndef column(rho, y):\n    return rho * y\n\n\nHISTORY = {'c': column}\n",
     rf"HISTORY\['c'\]: column \(box.py:16\) takes rho, y, which are not among the names a HISTORY function may take "
     rf"\({HISTORY_NAMES}\); name any of them, or take all 7 in order, {SEVEN}"),
    ("\n\nHISTORY = {'c': ('max', lambda velocity_1: velocity_1)}\n",
     r"HISTORY\['c'\]: <lambda> \(box.py:16\) takes velocity_1, which is not among"),
    ("\n\nTIMESTEP = lambda density, time: 1.0\n", r"TIMESTEP: <lambda> \(box.py:16\) takes time, which is not among "
                                                  r"the names a TIMESTEP function may take \(" + HISTORY_NAMES),
    ("\n\ndef t(density, /):\n    return density\n\n\nOUTPUTS = {'t': t}\n",
     rf"OUTPUTS\['t'\]: t \(box.py:16\) takes density by position only \(before '/'\), which no name reaches; "
     rf"name any of {HISTORY_NAMES}, or take all 7 in order, "
     rf"{SEVEN}"),
])
def test_a_name_a_function_cannot_take_is_one_error_at_load(tmp_path, text, message):
    write(tmp_path / "box.py", BOX + text)
    with pytest.raises(ConfigError, match=r"^problem.file='box.py' is not a hydro problem: " + message):
        hydro.build_config({"problem": {"file": "box.py"}}, [], base_dir=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["box.py"]  # nothing written


def test_register_problem_refuses_it_too():
    class Problem:
        NAME, DIMENSIONS, PARAMS, DEFAULTS = "named", (1,), {}, {}

        @staticmethod
        def initial(x1, x2, x3, params, gamma, xmin, xmax):
            return 1.0, 0.0, 0.0, 0.0, 1.0

        @staticmethod
        def SOURCE(density, temperature):
            return 0, 0, 0, 0, 0

    with pytest.raises(TypeError, match=r"SOURCE: SOURCE \(test_hydro_named_arguments.py:\d+\) takes temperature"):
        hydro.register_problem(Problem)
