"""Problems of your own: ``problem.file`` (a Python file beside the input file, or named on the command
line) and ``hydro.register_problem``; every mistake in such a file is one ConfigError naming it."""

import os
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
