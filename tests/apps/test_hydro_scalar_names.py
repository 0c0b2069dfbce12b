"""Named passive scalars (``[hydro] scalar_names``): the names in the HDF5 datasets, the XDMF attributes, the
history columns, ``png_variable`` and ``Hydro.primitive``; each mistake one line naming the key and the input;
a restart keeps the names its file was written with, and refuses other ones without changing anything."""

import h5py
import numpy as np
import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.io import history as history_io
from brickwork.io import read_output
from brickwork.io.restart import RestartError

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
              "scalar"),
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
