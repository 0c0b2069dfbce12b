"""Named passive scalars (``[hydro] scalar_names``): the names in the HDF5 datasets, the XDMF attributes, the
history columns, ``png_variable`` and ``Hydro.primitive``; each mistake one line naming the key and the input;
a restart keeps the names its file was written with, and refuses other ones without changing anything; an
input read for a restart (``restart=``, ``--restart``) takes the file's names, so ``png_variable`` may name them."""

import os

import h5py
import numpy as np
import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.io import history as history_io
from brickwork.io import read_output
from brickwork.io.restart import RestartError

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
QUIET = {"hdf5_dt": -1.0, "png_dt": -1.0, "restart_dt": -1.0, "history": False, "progress": False}
KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}, "time": {"nlim": 3},
      "hydro": {"nscalars": 2, "scalar_names": ["dye", "metals"]}}


def test_the_names_are_those_of_every_output(run_hydro, tmp_path):
    sim = run_hydro(KH, ["output.hdf5_dt=0", "output.history=true"]).hydro
    out = tmp_path / "out"
    assert sim.scalar_names == ["dye", "metals"]
    columns, rows = history_io.read(str(out / "kelvin_helmholtz.hst"))
    assert columns[-3:] == ["energy", "dye", "metals"]
    assert rows[-1][-2] == sim.totals()["dye"] and rows[-1][-1] == sim.totals()["metals"] == 0.0
    with h5py.File(out / "kelvin_helmholtz.out.00001.h5", "r") as f:
        assert sorted(f["cells"]) == sorted(["density", "momentum_1", "momentum_2", "momentum_3", "energy", "pressure",
                                             "velocity_1", "velocity_2", "velocity_3", "dye", "metals"])
        stored = f["cells/dye"][...]
    rho = sim.interior("density")
    np.testing.assert_array_equal(sim.primitive("dye"), sim.interior("scalars", 0) / rho)
    np.testing.assert_array_equal(sim.primitive("metals"), sim.interior("scalars", 1) / rho)
    np.testing.assert_array_equal(stored, sim.primitive("dye"))
    assert 'Attribute Name="dye"' in (out / "kelvin_helmholtz.out.00001.xdmf").read_text()
    with pytest.raises(KeyError):  # the default name is no alias of a named scalar
        sim.primitive("scalar_0")


def test_a_png_of_a_named_scalar(run_hydro, monkeypatch):
    from brickwork.apps.hydro import outputs
    drawn = []
    monkeypatch.setattr(outputs, "_write_png", lambda sim, path, per_block: drawn.append(sim.to_global(per_block)))
    sim = run_hydro(KH, ["output.png_dt=0", "output.png_variable=metals"]).hydro
    assert len(drawn) == 2
    np.testing.assert_array_equal(drawn[-1], sim.to_global(sim.primitive("metals")))
    with pytest.raises(ConfigError, match=r"^output.png_variable: 'scalar_0' is not one of .*'dye', 'metals'$"):
        run_hydro(KH, ["output.png_variable=scalar_0"])


@pytest.mark.parametrize("names, message", [
    (["dye"], "hydro.scalar_names in test: 1 name ['dye'] for hydro.nscalars=2 passive scalars: give one name per "
              "scalar, or set hydro.nscalars = 1"),
    (["dye", "2nd"], "hydro.scalar_names in test: '2nd' is not a name: a scalar is named with ASCII letters, digits "
                     "and '_', not first a digit (e.g. 'dye')"),
    (["dye", "a b"], "hydro.scalar_names in test: 'a b' is not a name: a scalar is named with ASCII letters, digits "
                     "and '_', not first a digit (e.g. 'dye')"),
    (["dye", "dye"], "hydro.scalar_names in test: 'dye' names two scalars (0 and 1); names must be unique"),
    (["dye", "pressure"], "hydro.scalar_names in test: 'pressure' already names a variable of the gas; give the "
                          "scalar another name"),
    (["speed", "dye"], "hydro.scalar_names in test: 'speed' already names a variable of the gas; give the scalar "
                       "another name"),
    (["dye", "time"], "hydro.scalar_names in test: 'time' already names a history column; give the scalar another "
                      "name"),
    (["dye", 3], "hydro.scalar_names: expected a list of strings, got the integer 3 in ['dye', 3]"),
    (7, "hydro.scalar_names: expected a list of strings, got the integer 7"),
])
def test_a_wrong_name_is_one_line_naming_the_key(make_config, names, message):
    with pytest.raises(ConfigError) as info:
        make_config(dict(KH, hydro={"nscalars": 2, "scalar_names": names}))
    assert str(info.value) == message


def test_names_from_the_command_line_and_a_clash_with_a_problems_outputs(make_config, tmp_path):
    cfg = make_config(dict(KH, hydro={"nscalars": 2}), ["hydro.scalar_names=ink, smoke"])
    assert cfg["hydro"]["scalar_names"] == ["ink", "smoke"]
    assert make_config(dict(KH, hydro={"nscalars": 0}), ["hydro.scalar_names="])["hydro"]["scalar_names"] == []
    (tmp_path / "hot.py").write_text("from brickwork.apps.hydro.problems import sod\n"
                                     "NAME, DIMENSIONS, PARAMS, DEFAULTS, initial = 'hot', (1,), {}, sod.DEFAULTS, "
                                     "sod.initial\n"
                                     "OUTPUTS = {'heat': lambda rho, v1, v2, v3, p, params, gamma: p / rho}\n")
    with pytest.raises(ConfigError) as info:
        hydro.build_config({"problem": {"file": "hot.py"}, "mesh": {"nx": [32]},
                            "hydro": {"nscalars": 1, "scalar_names": ["heat"]}}, [], source="hot.toml",
                           base_dir=str(tmp_path))
    assert str(info.value) == ("hydro.scalar_names in hot.toml: 'heat' already names a variable of problem 'hot''s "
                               "OUTPUTS; give the scalar another name")


def test_a_restart_keeps_the_names_and_refuses_others(run_hydro, tmp_path):
    run_hydro(KH, [f"output.dir={tmp_path / 'a'}", "output.restart_dn=2", "output.history=true"])
    rst = str(tmp_path / "a" / "kelvin_helmholtz.rst.00000.npz")
    unnamed = dict(KH, hydro={"nscalars": 2}, time={"nlim": 4})
    sim = run_hydro(unnamed, [f"output.dir={tmp_path / 'a'}", "output.hdf5_dt=0", "output.history=true",
                              "output.restart_dn=2"], restart=rst).hydro
    assert sim.scalar_names == ["dye", "metals"]
    later = str(tmp_path / "a" / "kelvin_helmholtz.rst.00001.npz")  # written by the restarted run, at cycle 4
    assert run_hydro(dict(unnamed, time={"nlim": 5}), restart=later).hydro.scalar_names == ["dye", "metals"]
    assert sorted(read_output(tmp_path / "a" / "kelvin_helmholtz.out.00000.h5", ["dye", "metals"]).cells) == [
        "dye", "metals"]
    columns, rows = history_io.read(str(tmp_path / "a" / "kelvin_helmholtz.hst"))
    assert columns[-2:] == ["dye", "metals"] and [row[0] for row in rows] == [0, 1, 2, 3, 4]
    before = sorted(p.name for p in (tmp_path / "a").iterdir())
    other = dict(KH, hydro={"nscalars": 2, "scalar_names": ["ink", "metals"]}, time={"nlim": 4})
    with pytest.raises(RestartError) as info:
        run_hydro(other, [f"output.dir={tmp_path / 'a'}", "output.hdf5_dt=0"], restart=rst)
    assert str(info.value) == (f"restart file {rst!r} names its passive scalars ['dye', 'metals'] (hydro.scalar_names), "
                               f"but this run names them ['ink', 'metals']: a restart keeps the names of its scalars "
                               f"(set hydro.scalar_names = ['dye', 'metals'], or leave it out)")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == before


def test_a_restart_file_of_unnamed_scalars_keeps_the_default_names(run_hydro, tmp_path):
    unnamed = dict(KH, hydro={"nscalars": 2})
    run_hydro(unnamed, [f"output.dir={tmp_path / 'a'}", "output.restart_dn=2"])
    rst = str(tmp_path / "a" / "kelvin_helmholtz.rst.00000.npz")
    assert run_hydro(dict(unnamed, time={"nlim": 4}), restart=rst).hydro.scalar_names == ["scalar_0", "scalar_1"]
    with pytest.raises(RestartError, match=r"names its passive scalars \['scalar_0', 'scalar_1'\]"):
        run_hydro(dict(KH, time={"nlim": 4}), restart=rst)


def test_a_restart_input_takes_the_names_from_the_file_for_png_variable(run_hydro, tmp_path, monkeypatch, capsys):
    from brickwork import cli
    from brickwork.apps.hydro import outputs

    run_hydro(KH, [f"output.dir={tmp_path / 'a'}", "output.restart_dn=2"])
    rst = str(tmp_path / "a" / "kelvin_helmholtz.rst.00000.npz")
    unnamed = dict(KH, hydro={"nscalars": 2}, time={"nlim": 4}, output=dict(QUIET, png_variable="metals", png_dt=0.0,
                                                                            dir=str(tmp_path / "b")))
    with pytest.raises(ConfigError, match=r"^output.png_variable: 'metals' is not one of .*'scalar_1'"):
        hydro.build_config(unnamed, source="test")  # without the restart file, the names are the defaults
    cfg = hydro.build_config(unnamed, source="test", restart=rst)
    assert cfg["hydro"]["scalar_names"] == ["dye", "metals"]
    drawn = []
    monkeypatch.setattr(outputs, "_write_png", lambda sim, path, per_block: drawn.append(sim.to_global(per_block)))
    sim = hydro.run(cfg, restart_file=rst).hydro
    assert drawn and sim.cycle == 4
    np.testing.assert_array_equal(drawn[-1], sim.to_global(sim.primitive("metals")))
    # the command line reads them from its --restart file too
    code = cli.main(["run", os.path.join(ROOT, "examples", "kelvin_helmholtz.toml"), "mesh.nx=[32,32]",
                     "mesh.block_nx=[16,16]", "hydro.nscalars=2", "time.nlim=4", "output.png_variable=dye",
                     "output.png_dt=-1", "output.hdf5_dt=-1", "output.restart_dt=-1", "output.history=false",
                     f"output.dir={tmp_path / 'c'}", "--restart", rst, "--quiet"])
    assert (code, capsys.readouterr().err) == (0, "")


def test_names_from_a_restart_file_are_checked_and_the_file_read_only_when_needed(tmp_path):
    problem = ("from brickwork.apps.hydro.problems import sod\n"
               "NAME, DIMENSIONS, PARAMS, DEFAULTS = 'hot', (1,), sod.PARAMS, sod.DEFAULTS\n"
               "initial = sod.initial\n")
    (tmp_path / "cold.py").write_text(problem)
    (tmp_path / "hot.py").write_text(problem + "OUTPUTS = {'heat': lambda rho, v1, v2, v3, p, params, gamma: p / rho}\n")
    raw = {"problem": {"file": "cold.py"}, "mesh": {"nx": [32]}, "time": {"nlim": 2},
           "hydro": {"nscalars": 1, "scalar_names": ["heat"]},
           "output": dict(QUIET, restart_dn=2, dir=str(tmp_path / "out"))}
    hydro.run(hydro.build_config(raw, base_dir=str(tmp_path)))
    rst = str(tmp_path / "out" / "hot.rst.00000.npz")
    raw = dict(raw, problem={"file": "hot.py"}, hydro={"nscalars": 1})  # the file's name now names an output
    with pytest.raises(ConfigError) as info:
        hydro.build_config(raw, source="hot.toml", base_dir=str(tmp_path), restart=rst)
    assert str(info.value) == (f"hydro.scalar_names stored in restart file {rst!r}: 'heat' already names a variable "
                               f"of problem 'hot''s OUTPUTS; give the scalar another name")
    missing = str(tmp_path / "nowhere.npz")
    with pytest.raises(RestartError, match=r"^restart file '.*nowhere\.npz' does not exist"):
        hydro.build_config(raw, base_dir=str(tmp_path), restart=missing)
    named = dict(raw, hydro={"nscalars": 1, "scalar_names": ["ink"]})  # names given: the file is not read here
    assert hydro.build_config(named, base_dir=str(tmp_path), restart=missing)["hydro"]["scalar_names"] == ["ink"]
