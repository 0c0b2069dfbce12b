"""Problems of your own: ``problem.file`` (a Python file beside the input file, or named on the command
line) and ``hydro.register_problem``; every mistake in such a file is one ConfigError naming it."""

import os
import re
import sys
import textwrap
import types

import numpy as np
import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError

BUBBLE = '''
import numpy as np

from brickwork.apps.hydro import Key

NAME = "bubble"
DIMENSIONS = (2,)
PARAMS = {"rho_bubble": Key("float", 10.0, "density in the bubble", minimum=0.0, open_min=True),
          "wind": Key("float", 1.0, "x1 velocity")}
DEFAULTS = {"mesh": {"nx": [32, 16], "block_nx": [16, 16], "xmin": [0.0, 0.0], "xmax": [2.0, 1.0],
                     "bc_x1": "outflow", "bc_x2": "periodic"},
            "time": {"tlim": 0.1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    r2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2
    return np.where(r2 < 0.04, p["rho_bubble"], 1.0), p["wind"], 0.0, 0.0, 1.0
'''
NO_FILES = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1", "output.history=false",
            "output.progress=false", "time.nlim=0"]


def bubble_density(rho_bubble):
    """The bubble's initial density on its 32 x 16 mesh of [0, 2] x [0, 1], as numpy computes it."""
    x = (np.arange(32) + 0.5) / 16
    y = (np.arange(16) + 0.5) / 16
    return np.where((x[None, :] - 0.5) ** 2 + (y[:, None] - 0.5) ** 2 < 0.04, rho_bubble, 1.0)


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def initial_state(cfg):
    sim = hydro.run(cfg).hydro
    return {name: sim.to_global(sim.primitive(name))[0] for name in ("density", "velocity_1", "pressure")}


def test_a_problem_file_beside_the_input_file_sets_the_initial_state(tmp_path, monkeypatch):
    cases = tmp_path / "cases"
    cases.mkdir()
    write(cases / "bubble.py", BUBBLE)
    write(cases / "bubble.toml", '[problem]\nfile = "bubble.py"\nrho_bubble = 5.0\n')
    monkeypatch.chdir(tmp_path)  # the file is found from the input file's directory, not the working one
    cfg = hydro.load_config("cases/bubble.toml", NO_FILES + ["problem.wind=0.25"])
    assert cfg["problem"]["name"] == "bubble" and cfg["output"]["basename"] == "bubble"
    assert cfg["problem"]["file"] == str(cases / "bubble.py")
    assert cfg["problem"]["rho_bubble"] == 5.0 and cfg["problem"]["wind"] == 0.25
    assert cfg["mesh"]["bc_x1"] == "outflow" and cfg["time"]["tlim"] == 0.1  # the problem's DEFAULTS
    state = initial_state(cfg)
    assert np.array_equal(state["density"], bubble_density(5.0))
    assert np.all(state["velocity_1"] == 0.25) and np.all(state["pressure"] == 1.0)


def test_a_problem_file_on_the_command_line_is_found_from_the_working_directory(tmp_path, monkeypatch):
    write(tmp_path / "bubble.py", BUBBLE)
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases" / "in.toml", "[problem]\nname = \"bubble\"\n")
    monkeypatch.chdir(tmp_path)
    cfg = hydro.load_config("cases/in.toml", NO_FILES + ["problem.file=bubble.py"])
    assert cfg["problem"]["file"] == str(tmp_path / "bubble.py")
    assert np.array_equal(initial_state(cfg)["density"], bubble_density(10.0))


def test_a_problem_file_under_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases" / "bubble.py", BUBBLE)
    cfg = hydro.build_config({"problem": {"file": "~/cases/bubble.py"}}, NO_FILES, base_dir="/elsewhere")
    assert cfg["problem"]["file"] == str(tmp_path / "cases" / "bubble.py") and cfg.problem.NAME == "bubble"


def test_register_problem_from_python(monkeypatch):
    from brickwork.apps.hydro.problems import PROBLEMS

    monkeypatch.setattr("brickwork.apps.hydro.problems.PROBLEMS", dict(PROBLEMS))
    module = types.ModuleType("bubble")
    exec(BUBBLE, module.__dict__)
    hydro.register_problem(module)
    cfg = hydro.build_config({"problem": {"name": "bubble", "rho_bubble": 3.0}}, NO_FILES)
    assert cfg.problem is module
    assert np.array_equal(initial_state(cfg)["density"], bubble_density(3.0))
    hydro.register_problem(module)  # again (a notebook cell run twice): the same problem
    with pytest.raises(ValueError, match=r"register_problem: 'sod' is a shipped problem; give yours another NAME"):
        hydro.register_problem(types.SimpleNamespace(NAME="sod", DIMENSIONS=(1,), PARAMS={}, DEFAULTS={},
                                                     initial=lambda *a, **k: None))
    with pytest.raises(TypeError, match=r"is not a hydro problem: it does not define PARAMS, DEFAULTS"):
        hydro.register_problem(types.SimpleNamespace(NAME="mine", DIMENSIONS=(1,), initial=print))
    assert PROBLEMS["sod"].NAME == "sod"


HEADER = "NAME = 'x'\nDIMENSIONS = (2,)\nPARAMS = {}\nDEFAULTS = {'mesh': {'nx': [16, 16], 'xmin': [0, 0], " \
         "'xmax': [1, 1]}}\n"


@pytest.mark.parametrize("source, message", [
    ("NAME = 'x'\ndef initial(*a):\n    pass\n",
     r"problem.file='p.py' is not a hydro problem: it does not define DIMENSIONS, PARAMS, DEFAULTS \(a problem "
     r"defines NAME, DIMENSIONS, PARAMS, DEFAULTS, initial\)"),
    (HEADER.replace("(2,)", "(4,)") + "initial = 3\n",
     r"DIMENSIONS must be a tuple of the dimensions it runs in, from \(1, 2, 3\), got \(4,\); initial must be a "
     r"function"),
    (HEADER.replace("PARAMS = {}", "PARAMS = {'a': 1.0, 'file': 2}") + "def initial(*a):\n    pass\n",
     r"PARAMS must be a dict of key names to brickwork.apps.hydro.Key, got \{'a': 1.0, 'file': 2\}"),
    (HEADER.replace("'nx'", "'n'").replace("NAME = 'x'", "NAME = 'a b'") + "def initial(*a):\n    pass\n",
     r"NAME must be a plain name .* got 'a b'; DEFAULTS\['mesh'\] has unknown keys 'n'"),
    (HEADER + "def initial(*a):\n    pass\ninitial_scalars = [1.0]\n",
     r"is not a hydro problem: initial_scalars must be a function"),
    ("NAME = 'x'\nx = 1 +\n", r"problem.file='p.py' could not be loaded: SyntaxError at line 2: invalid syntax"),
    ("import numpy\n\nNAME = 'x'\nraise RuntimeError('no grid')\n",
     r"problem.file='p.py' could not be loaded: RuntimeError at line 4: no grid"),
])
def test_mistakes_in_a_problem_file(tmp_path, source, message):
    write(tmp_path / "p.py", source)
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "p.py"}}, [], source="in.toml", base_dir=str(tmp_path))


def test_a_problem_file_that_is_missing_or_disagrees_with_problem_name(tmp_path):
    with pytest.raises(ConfigError, match=r"problem.file='gone.py' does not exist \(looked for '.*gone.py'\); "
                                          r"relative paths in an input file are taken from the input file's dir"):
        hydro.build_config({"problem": {"file": "gone.py"}}, [], base_dir=str(tmp_path))
    write(tmp_path / "bubble.py", BUBBLE)
    with pytest.raises(ConfigError, match=r"problem.name='sod' but problem.file defines the problem 'bubble': "
                                          r"leave problem.name out, or make the two agree"):
        hydro.build_config({"problem": {"name": "sod", "file": "bubble.py"}}, [], base_dir=str(tmp_path))
    write(tmp_path / "sod.py", BUBBLE.replace('NAME = "bubble"', 'NAME = "sod"'))
    with pytest.raises(ConfigError, match=r"problem.file defines the problem 'sod', a name taken by another"):
        hydro.build_config({"problem": {"file": "sod.py"}}, [], base_dir=str(tmp_path))


@pytest.mark.parametrize("returned, message", [
    ("1.0, 0.0, 0.0, 1.0", r"problem 'x': initial\(\) must return 5 arrays or numbers \(density, v1, v2, v3, "
                           r"pressure\), got 4 values"),
    ("x1[0, 0, :3], 0.0, 0.0, 0.0, 1.0",
     r"problem 'x': initial\(\) must return 5 arrays .* that broadcast to the block's cells, ghosts included, "
     r"\(1, 20, 20\) \(k, j, i\) .*; its density is shape \(3,\)"),
    # an error of its own: one line with its file and line (it was a traceback through brickwork's driver)
    ('p["rho"], 0.0, 0.0, 0.0, 1.0', r"^problem 'x': initial\(\) failed at p.py:6: KeyError: 'rho'; the \[problem\] "
                                     r"keys are file, name$"),
    ("1.0 / 0, 0.0, 0.0, 0.0, 1.0", r"^problem 'x': initial\(\) failed at p.py:6: ZeroDivisionError: float division by zero$"),
])
def test_an_initial_state_of_the_wrong_form_is_named_and_writes_nothing(tmp_path, returned, message):
    write(tmp_path / "p.py", HEADER + f"def initial(x1, x2, x3, p, gamma, xmin, xmax):\n    return {returned}\n")
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "p.py"}, "output": {"dir": str(out), "progress": False}}, [],
                             base_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=message):
        hydro.run(cfg)
    assert not os.path.exists(out)


def test_a_domain_neither_the_problem_nor_the_input_gives_says_what_to_set(tmp_path):
    write(tmp_path / "p.py", HEADER.replace("'xmin': [0, 0], ", "") + "def initial(*a, **k):\n    pass\n")
    with pytest.raises(ConfigError, match=r"^mesh.xmin is missing in in.toml: the lower corner of the domain, one "
                                          r"entry per direction of mesh.nx \(e.g. xmin = \[0.0, 0.0\]\)$"):
        hydro.build_config({"problem": {"file": "p.py"}}, [], source="in.toml", base_dir=str(tmp_path))


WIND = '''
from brickwork.apps.hydro import Key

NAME = "wind"
DIMENSIONS = (1,)
PARAMS = {"rho_in": Key("float", 2.0, "density of the inflow")}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "user"},
            "hydro": {"gamma": 1.4}, "time": {"tlim": 0.05}}
U, P = 3.0, 1.0


def inflow(block, view, side, field, params, gamma):
    """Supersonic inflow at x1 = 0: the ghost cells hold (rho_in, U, P) as conserved variables."""
    ng, rho = block.mesh.nghost, params["rho_in"]
    if field == "density":
        view[0, :, :, :ng] = rho
    elif field == "momentum":
        view[:, :, :, :ng] = 0.0
        view[0, :, :, :ng] = rho * U
    else:
        view[0, :, :, :ng] = P / (gamma - 1.0) + 0.5 * rho * U * U


BOUNDARIES = {"inner_x1": inflow, "outer_x1": "outflow"}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0, U, 0.0, 0.0, P  # supersonic too: (U - c) > 0 on both sides of every face
'''


def test_user_boundaries_of_a_problem_file(tmp_path):
    """A supersonic inflow at x1 = 0 (density problem.rho_in = 2.5, velocity 3) into gas of density 1 moving
    at 3, leaving through outflow at x1 = 1: every flux through the ends is its upwind state's, so the mass
    grows by exactly (2.5 * 3 - 1 * 3) t until the inflow front reaches the far end; the ghosts hold the
    inflow state (the function received params and gamma, which it declares)."""
    write(tmp_path / "wind.py", WIND)
    cfg = hydro.build_config({"problem": {"file": "wind.py", "rho_in": 2.5}, "output": {
        "history": True, "hdf5_dt": -1, "progress": False, "dir": str(tmp_path / "out")}}, [], base_dir=str(tmp_path))
    assert cfg["mesh"]["bc_x1"] == "user"
    result = hydro.run(cfg)
    from brickwork.io import history

    _, rows = history.read(str(tmp_path / "out" / "wind.hst"))
    assert result.time == 0.05 and rows[-1, 1] == 0.05
    assert rows[-1, 3] - rows[0, 3] == pytest.approx((2.5 - 1.0) * 3.0 * 0.05, rel=1e-13)
    density = result.hydro.mesh.data("density")
    assert np.all(density[0, 0, 0, 0, :2] == 2.5)  # the first block's inner ghosts: the inflow


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace('"outer_x1": "outflow"', '"outer_x1": "wall"'),
     r"is not a hydro problem: BOUNDARIES\['outer_x1'\] must be a function fn\(block, view, side, field\) or one of "
     r"'periodic', 'outflow', 'reflecting', got 'wall'"),
    (lambda s: s.replace('"outer_x1": "outflow"', '"outer_x9": "outflow"'),
     r"BOUNDARIES has the key 'outer_x9', not a side \(inner_x1, outer_x1, "),
    (lambda s: s.replace(', "outer_x1": "outflow"', ""),
     r"^mesh.bc_x1 = 'user' needs the boundary functions of problem 'wind', but its BOUNDARIES has no 'outer_x1' "
     r"\(a problem of your own defines BOUNDARIES = \{'inner_x1': function, 'outer_x1': 'outflow'\}: see "),
    (lambda s: s.replace('"outer_x1": "outflow"', '"outer_x1": "periodic"'),
     r"^mesh.bc_x1 = 'user': problem 'wind' makes one side of x1 periodic and not the other"),
])
def test_mistakes_in_user_boundaries(tmp_path, edit, message):
    write(tmp_path / "wind.py", edit(WIND))
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "wind.py"}}, [], base_dir=str(tmp_path))


def test_user_boundaries_of_a_shipped_problem_are_refused():
    with pytest.raises(ConfigError, match=r"^mesh.bc_x1 = 'user' needs the boundary functions of problem 'sod', but "
                                          r"its BOUNDARIES has no 'inner_x1' or 'outer_x1'"):
        hydro.build_config({"problem": {"name": "sod"}}, ["mesh.bc_x1=user"])


def test_a_problem_file_given_as_the_input_file(tmp_path):
    write(tmp_path / "wind.py", WIND)
    with pytest.raises(ConfigError, match=r"input file '.*wind.py' is a Python file; brickwork run takes a TOML "
                                          r"input file, which names a problem of your own with \[problem\] file = "
                                          r"'wind.py'$"):
        hydro.load_config(str(tmp_path / "wind.py"))


def test_a_problem_file_imports_modules_beside_it(tmp_path):
    write(tmp_path / "shapes.py", "def disc(x1, x2, r):\n    return (x1 - 1.0) ** 2 + (x2 - 0.5) ** 2 < r * r\n")
    write(tmp_path / "p.py", "import numpy as np\nfrom shapes import disc\n\n" + HEADER.replace("'xmax': [1, 1]",
          "'xmax': [2, 1], 'nx': [32, 16], 'block_nx': [16, 16]").replace("'nx': [16, 16], ", "") +
          "def initial(x1, x2, x3, p, gamma, xmin, xmax):\n    return np.where(disc(x1, x2, 0.2), 10.0, 1.0), 1.0, 0.0, 0.0, 1.0\n")
    before = list(sys.path)
    cfg = hydro.build_config({"problem": {"file": "p.py"}}, NO_FILES, base_dir=str(tmp_path))
    assert sys.path == before  # the directory was on the path while the file loaded only
    x = (np.arange(32) + 0.5) / 16
    y = (np.arange(16) + 0.5) / 16
    expected = np.where((x[None, :] - 1.0) ** 2 + (y[:, None] - 0.5) ** 2 < 0.04, 10.0, 1.0)
    assert np.array_equal(initial_state(cfg)["density"], expected)


SHAPED = HEADER + """from shapes import DENSITY
from tables.pressure import PRESSURE


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return DENSITY + 0 * x1, 0.0, 0.0, 0.0, PRESSURE
"""


def test_problem_files_in_two_directories_each_import_their_own_helpers(tmp_path, monkeypatch):
    """Two case directories, each a p.py importing its own shapes.py, loaded in one process (two configs, two
    runs): each gets its own helper (the second got the first's, cached by its name), an edited helper and
    problem file are read anew, and sys.modules, sys.path and the directories are as before."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as for a user: no .pyc appears beside the files
    for case, density in (("a", 2.0), ("b", 3.0)):
        (tmp_path / case).mkdir()
        write(tmp_path / case / "shapes.py", f"DENSITY = {density}\n")
        (tmp_path / case / "tables").mkdir()  # a namespace package (no __init__.py)
        write(tmp_path / case / "tables" / "pressure.py", f"PRESSURE = {density / 2}\n")
        write(tmp_path / case / "p.py", SHAPED)
    modules, path = dict(sys.modules), list(sys.path)

    def density(case):
        cfg = hydro.build_config({"problem": {"file": "p.py"}}, NO_FILES, base_dir=str(tmp_path / case))
        state = initial_state(cfg)
        assert np.allclose(state["pressure"], {"a": 1.0, "b": 1.5}[case], rtol=1e-14, atol=0)  # through the energy
        return state["density"]

    assert np.all(density("a") == 2.0) and np.all(density("b") == 3.0) and np.all(density("a") == 2.0)
    write(tmp_path / "b" / "shapes.py", "DENSITY = 4.0\n")  # the same size, within the same second
    assert np.all(density("b") == 4.0)
    write(tmp_path / "b" / "p.py", SHAPED.replace("DENSITY + 0 * x1", "DENSITY + 1 + 0 * x1"))
    assert np.all(density("b") == 5.0)
    assert sys.path == path
    assert {k: v for k, v in sys.modules.items() if k not in modules} == {}  # nothing of the files stays
    assert all(sys.modules[k] is v for k, v in modules.items())
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["p.py", "shapes.py", "tables"]


def test_a_boundary_function_that_raises_is_named(tmp_path):
    write(tmp_path / "wind.py", WIND.replace('params["rho_in"]', 'params["rho_inflow"]'))
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "wind.py"}, "output": {"dir": str(out), "progress": False}}, [],
                             base_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=r"^problem 'wind': BOUNDARIES\['inner_x1'\] failed at wind.py:\d+: KeyError: "
                                          r"'rho_inflow'; the \[problem\] keys are file, name, rho_in$"):
        hydro.run(cfg)
    assert not os.path.exists(out)



def test_a_boundary_function_that_raised_is_not_called_again_in_that_ghost_fill(tmp_path):
    """In a run the error is kept until the ghost fill ends (where the MPI ranks agree on it): the function is
    not called for the other fields once it raised; called outside a run's fill, it raises at once."""
    write(tmp_path / "wind.py", WIND.replace('ng, rho = block.mesh.nghost, params["rho_in"]',
                                             'CALLS.append(field)\n    ng, rho = block.mesh.nghost, params["rho"]')
          + "\nCALLS = []\n")
    cfg = hydro.build_config({"problem": {"file": "wind.py"}}, NO_FILES, base_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=r"^problem 'wind': BOUNDARIES\['inner_x1'\] failed at wind.py:\d+: KeyError: "
                                          r"'rho'; the \[problem\] keys are file, name, rho_in$"):
        hydro.run(cfg)
    assert cfg.problem.CALLS == ["density"]
    sim = hydro.Hydro(cfg)
    with pytest.raises(ConfigError, match=r"^problem 'wind': BOUNDARIES\['inner_x1'\] failed at "):
        sim.mesh.fill_ghosts(["momentum", "energy"])
    assert cfg.problem.CALLS == ["density", "momentum"]



@pytest.mark.parametrize("edit, message", [
    (("    return np.where(r2 < 0.04", "    if p['wind'] > 0.5:\n        sys.exit('too windy')\n    return np.where(r2 < 0.04"),
     r"^problem 'bubble': initial\(\) failed at bubble.py:\d+: SystemExit: too windy$"),
    (("NAME = ", "def check(sections):\n    sections['problem']['radius']\n\n\nNAME = "),
     r"^problem 'bubble': check\(\) failed at bubble.py:\d+: KeyError: 'radius'; the \[problem\] keys are file, name, "
     r"rho_bubble, wind$"),
    (("NAME = ", "sys.exit('not today')\nNAME = "),
     r"^problem.file='bubble.py' could not be loaded: SystemExit at line \d+: not today$"),
])
def test_sys_exit_and_errors_in_check_are_the_problem_files_one_line(tmp_path, edit, message):
    """A problem's function calling sys.exit() (a script's habit) is its error like any other: on MPI ranks
    where only some called it, the others waited for them for ever; check() raising what is not a ConfigError
    was a traceback."""
    write(tmp_path / "bubble.py", "import sys\n" + BUBBLE.replace(*edit))
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match=message):
        cfg = hydro.build_config({"problem": {"file": "bubble.py", "wind": 1.0}, "output": {
            "dir": str(out), "progress": False}}, [], base_dir=str(tmp_path))
        hydro.run(cfg)
    assert not os.path.exists(out)


OUTPUTS = '''

def temperature(density, v1, v2, v3, pressure, params, gamma):
    return pressure / density


OUTPUTS = {"temperature": temperature, "kinetic": lambda rho, v1, v2, v3, p, params, gamma: 0.5 * rho * v1 * v1}
'''


def test_outputs_of_a_problem_are_written_beside_the_shipped_ones(tmp_path):
    from brickwork.io import read_output

    write(tmp_path / "bubble.py", BUBBLE + OUTPUTS)
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py", "wind": 0.5}, "time": {"nlim": 3}, "output": {
        "dir": str(out), "hdf5_dt": 0.0, "history": False, "progress": False}}, [], base_dir=str(tmp_path))
    hydro.run(cfg)
    for n in (0, 1):  # the first state and the last
        back = read_output(out / f"bubble.out.{n:05d}.h5")
        assert np.array_equal(back.cells["temperature"], back.cells["pressure"] / back.cells["density"])
        assert np.array_equal(back.cells["kinetic"], 0.5 * back.cells["density"] * back.cells["velocity_1"] ** 2)
    first = read_output(out / "bubble.out.00000.h5")
    assert np.array_equal(first.cells["kinetic"][0], 0.125 * bubble_density(10.0))  # 0.5 * rho * 0.5 ** 2
    assert 'Attribute Name="temperature"' in (out / "bubble.out.00001.xdmf").read_text()


@pytest.mark.parametrize("outputs, message", [
    ("OUTPUTS = {'pressure': print}", r"OUTPUTS has the name 'pressure': an output variable is named with letters, "
                                      r"digits and '_' \(not first a digit\), and not as one of density, "),
    ("OUTPUTS = {'a b': print}", r"OUTPUTS has the name 'a b'"),
    ("OUTPUTS = {'t': 3}", r"OUTPUTS\['t'\] must be a function fn\(density, v1, v2, v3, pressure, params, gamma\)"),
])
def test_outputs_of_the_wrong_form(tmp_path, outputs, message):
    write(tmp_path / "bubble.py", BUBBLE + outputs)
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "bubble.py"}}, [], base_dir=str(tmp_path))


@pytest.mark.parametrize("body, message", [
    ("pressure / params['gas']", r"^problem 'bubble': OUTPUTS\['t'\] failed at bubble.py:\d+: KeyError: 'gas'; "
                                 r"the \[problem\] keys are file, name, rho_bubble, wind$"),
    ("pressure[:, 0]", r"^problem 'bubble': OUTPUTS\['t'\] must return an array of the blocks' cells \(2, 1, 16, 16\) "
                       r"\(the shape of its arguments\), got float64 of shape \(2, 16, 16\)$"),
])
def test_outputs_that_fail_stop_the_run_before_it_starts(tmp_path, body, message):
    write(tmp_path / "bubble.py", BUBBLE + f"\n\ndef t(density, v1, v2, v3, pressure, params, gamma):\n    return {body}"
                                           f"\n\n\nOUTPUTS = {{'t': t}}\n")
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py"}, "output": {"dir": str(out), "progress": False}}, [],
                             base_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=message):
        hydro.run(cfg)
    assert not os.path.exists(out)



TUBE = '''
import numpy as np
from brickwork.apps.hydro.problems import sod

NAME, DIMENSIONS, PARAMS, initial = "tube", (1,), sod.PARAMS, sod.initial
DEFAULTS = {"mesh": {**sod.DEFAULTS["mesh"], "nx": [64], "block_nx": [16]}, "time": {"tlim": 0.1},
            "output": {"hdf5_dt": 0.02}}


def speed(density, v1, v2, v3, pressure, params, gamma):
    if ((density < 0.9) & (density > 0.5)).any():  # the rarefaction, once it has formed
        raise ValueError("in the rarefaction")
    return np.abs(v1)


def exact(x1, t, params, gamma):
    return params["nope"], 0.0, 0.0


OUTPUTS = {"speed": speed}
'''


@pytest.mark.parametrize("form", ["hdf5", "vtk"])
def test_outputs_that_fail_mid_run_name_the_output_cycle_and_time(tmp_path, form):
    """An OUTPUTS function that raises once the rarefaction has formed: the problem's line, after the output
    (its file name), the cycle and the time of the state; the first output stays, nothing of the second."""
    write(tmp_path / "tube.py", TUBE)
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "tube.py"}, "output": {"dir": str(out), "progress": False,
                                                                        "format": form}}, [], base_dir=str(tmp_path))
    with pytest.raises(ConfigError) as info:
        hydro.run(cfg)
    found = re.fullmatch(r"the output tube\.out\.00001 of cycle (\d+) \(t=([0-9.e-]+)\): problem 'tube': "
                         r"OUTPUTS\['speed'\] failed at tube.py:12: ValueError: in the rarefaction", str(info.value))
    assert found, str(info.value)
    assert int(found[1]) > 0 and 0.02 <= float(found[2]) < 0.04
    first = {"hdf5": ["tube.out.00000.h5", "tube.out.00000.xdmf"], "vtk": ["tube.out.00000", "tube.out.00000.vtm", "tube.pvd"]}
    assert sorted(p.name for p in out.iterdir()) == sorted(["tube.hst", *first[form]])


def test_an_exact_solution_that_fails_in_a_png_names_the_png_cycle_and_time(tmp_path):
    write(tmp_path / "tube.py", TUBE)
    cfg = hydro.build_config({"problem": {"file": "tube.py"}, "output": {
        "dir": str(tmp_path / "out"), "progress": False, "hdf5_dt": -1.0, "png_dt": 0.0}}, [], base_dir=str(tmp_path))
    with pytest.raises(ConfigError) as info:
        hydro.run(cfg)
    assert str(info.value) == ("the PNG tube.00000.png of cycle 0 (t=0): problem 'tube': exact() failed at tube.py:17: "
                               "KeyError: 'nope'; the [problem] keys are file, name, p_l, p_r, rho_l, rho_r, u_l, u_r, "
                               "x0")
