"""Input files and overrides: typed values, defaults, and a clear error for every kind of mistake."""

import re
import time

import pytest

from brickwork.apps.hydro import ConfigError, build_config, load_config

SOD = {"problem": {"name": "sod"}}


def build(raw=None, overrides=()):
    return build_config(raw or SOD, list(overrides), source="in.toml")


def test_overrides_are_typed_by_the_schema():
    cfg = build(overrides=["hydro.cfl=0.3", "mesh.nx=128", "mesh.block_nx=[32]", "output.history=false",
                           "hydro.dtype=float32", "problem.rho_l=2", "output.dir=some dir", "time.nlim=7"])
    assert cfg["hydro"]["cfl"] == 0.3 and isinstance(cfg["hydro"]["cfl"], float)
    assert cfg["mesh"]["nx"] == [128] and cfg["mesh"]["block_nx"] == [32]
    assert cfg["output"]["history"] is False and cfg["output"]["dir"] == "some dir"
    assert cfg["problem"]["rho_l"] == 2.0 and isinstance(cfg["problem"]["rho_l"], float)
    assert cfg["time"]["nlim"] == 7 and cfg["hydro"]["dtype"] == "float32"
    two = build({"problem": {"name": "kelvin_helmholtz"}}, ["mesh.nx=64,32", "mesh.block_nx=[32, 16]"])
    assert two["mesh"]["nx"] == [64, 32] and two["mesh"]["block_nx"] == [32, 16]


def test_defaults_come_from_the_problem_then_the_schema():
    cfg = build()
    assert cfg["hydro"]["gamma"] == 1.4 and cfg["time"]["tlim"] == 0.2 and cfg["mesh"]["bc_x1"] == "outflow"
    assert cfg["mesh"]["nghost"] == 2 and cfg["output"]["basename"] == "sod"
    weno = build(overrides=["hydro.reconstruction=weno5"])
    assert weno["mesh"]["nghost"] == 3
    kh = build({"problem": {"name": "kelvin_helmholtz"}})
    assert kh["mesh"]["bc_x1"] == kh["mesh"]["bc_x2"] == "periodic" and kh["hydro"]["gamma"] == pytest.approx(5 / 3)


@pytest.mark.parametrize("raw, overrides, message", [
    ({"problem": {"name": "sod"}, "hydro": {"clf": 0.3}}, [],
     r"unknown key 'hydro.clf' in in.toml \(did you mean 'hydro.cfl'\?\)"),
    ({"problem": {"name": "sod"}, "hydr": {"cfl": 0.3}}, [],
     r"unknown section \[hydr\] in in.toml \(did you mean 'hydro'"),
    (SOD, ["hydro.limitter=mc"], r"unknown key 'hydro.limitter' \(did you mean 'hydro.limiter'\?\)"),
    (SOD, ["problem.rho_left=1"], r"unknown key 'problem.rho_left' \(did you mean 'problem.rho_l'"),
    (SOD, ["cfl=0.3"], r"the key must be section.key"),
    (SOD, ["hydro.cfl"], r"expected section.key=value"),
    ({"problem": {"name": "sood"}}, [], r"unknown problem 'sood'.*did you mean 'sod'"),
    # a key above every [section] is a key, not a section (it used to be called "unknown section [cfl]")
    ({"cfl": 0.3, "problem": {"name": "sod"}}, [],
     r"^key 'cfl' in in.toml is outside any section: every key belongs under its \[section\] \(put it under "
     r"\[hydro\]\)$"),
    ({"rho_l": 2.0, "problem": {"name": "sod"}}, [], r"^key 'rho_l' in in.toml .*\(put it under \[problem\]\)$"),
    ({"colour": "red", "problem": {"name": "sod"}}, [],
     r"^key 'colour' in in.toml is outside any section: .*; sections: problem, mesh, hydro, time, output$"),
    ({"mesh": {"nx": [64]}}, [], r"problem.name is missing"),
    # a key of another section names that section (it listed the keys of the wrong one only)
    (SOD, ["hydro.nghost=3"], r"^override 'hydro.nghost=3': unknown key 'hydro.nghost' \(nghost belongs under "
                              r"\[mesh\]: mesh.nghost\); known keys of \[hydro\]: cfl, characteristic, conduction, "),
    ({"problem": {"name": "sod"}, "mesh": {"reconstruction": "plm"}}, [],
     r"^unknown key 'mesh.reconstruction' in in.toml \(reconstruction belongs under \[hydro\]: "
     r"hydro.reconstruction\); known keys of \[mesh\]: "),
    (SOD, ["mesh.rho_l=2"], r"unknown key 'mesh.rho_l' \(rho_l belongs under \[problem\]: problem.rho_l\)"),
])
def test_unknown_keys_are_named_with_close_matches(raw, overrides, message):
    with pytest.raises(ConfigError, match=message):
        build(raw, overrides)


@pytest.mark.parametrize("raw, overrides, message", [
    (SOD, ["hydro.cfl=fast"], r"hydro.cfl: expected a number, got the string 'fast'"),  # as from a file
    ({"problem": {"name": "sod"}, "hydro": {"cfl": "0.3"}}, [], r"hydro.cfl: expected a number, got the string '0.3'"),
    ({"problem": {"name": "sod"}, "output": {"history": "yes"}}, [], r"output.history: expected true or false"),
    ({"problem": {"name": "sod"}, "mesh": {"nx": 64.5}}, [], r"mesh.nx: expected a list of integers"),
    ({"problem": {"name": "sod"}, "time": {"nlim": 2.5}}, [], r"time.nlim: expected an integer, got the number 2.5"),
    (SOD, ["hydro.riemann=hllx"], r"hydro.riemann: 'hllx' is not one of 'hlle', 'hllc', 'llf', 'roe' \(did you mean"),
    (SOD, ["hydro.cfl=0"], r"hydro.cfl: must be > 0"),
    (SOD, ["hydro.stage=fuse"], r"hydro.stage: 'fuse' is not one of 'auto', 'fused', 'split' \(did you mean"),
    (SOD, ["hydro.gamma=1"], r"hydro.gamma: must be > 1"),
    (SOD, ["hydro.cfl=1.5"], r"hydro.cfl: must be <= 1, got 1.5"),  # the CFL condition
    ({"problem": {"name": "sod"}, "hydro": {"cfl": 5}}, [], r"hydro.cfl: must be <= 1, got 5.0"),
    ({"problem": {"name": "sod"}, "hydro": {"gamma": True}}, [], r"hydro.gamma: expected a number, got the boolean"),
])
def test_wrong_types_and_values(raw, overrides, message):
    with pytest.raises(ConfigError, match=message):
        build(raw, overrides)


@pytest.mark.parametrize("overrides, message", [
    (["mesh.nx=[100]", "mesh.block_nx=[64]"],
     r"mesh.nx1=100 is not divisible by mesh.block_nx1=64.*try block_nx1 = 50"),
    (["mesh.nx=[64]", "mesh.block_nx=[128]"], r"mesh.block_nx1=128 is larger than the mesh"),
    (["mesh.nx=[64]", "mesh.block_nx=[32, 32]"], r"mesh.block_nx=\[32, 32\] has 2 entries but mesh.nx=\[64\] has 1"),
    (["mesh.nx=[0]"], r"every entry must be positive"),
    (["mesh.nx=[8, 8, 8, 8]"], r"expected 1 to 3 entries"),
    (["hydro.reconstruction=weno5", "mesh.nx=[64]", "mesh.block_nx=[2]"], r"smaller than the 3 ghost cells"),
    (["hydro.reconstruction=weno5", "mesh.nx=[15]", "mesh.block_nx=[2]"], r"smaller than the 3 ghost cells"),
    (["hydro.reconstruction=weno5", "mesh.nghost=2"], r"mesh.nghost=2 is too small: weno5 reconstruction needs 3"),
    (["mesh.xmax=[0.0]"], r"mesh.xmax1=0.0 must be larger than mesh.xmin1=0.0"),
    (["problem.x0=2"], r"problem.x0=2.0 must lie inside the domain"),
    (["mesh.xmin=[nan]"], r"mesh.xmin: expected finite numbers, got nan in \[nan\]"),
    (["mesh.xmin=[-inf]"], r"mesh.xmin: expected finite numbers, got -inf in \[-inf\]"),
    (["mesh.xmax=inf"], r"mesh.xmax: expected finite numbers, got inf in \[inf\]"),
    (["mesh.xmin=[0.0, 0.0]"], r"mesh.xmin=\[0.0, 0.0\] has 2 entries but mesh.nx=\[256\] has 1"),
    # a 2-D run from a 1-D input file: the message gives the value to set
    (["mesh.nx=[256, 16]", "mesh.block_nx=[64, 16]", "mesh.xmin=[0.0]"],
     r"^mesh.xmin=\[0.0\] needs 2 entries, one per direction of mesh.nx=\[256, 16\] \(e.g. mesh.xmin=\[0.0, 0.0\]\)$"),
    (["mesh.xmax=[1, 1, 1]"], r"mesh.xmax=\[1.0, 1.0, 1.0\] has 3 entries but mesh.nx=\[256\] has 1"),
    (["mesh.xmin=[-1e308]", "mesh.xmax=[1e308]", "problem.x0=0"],
     r"mesh.xmax1 - mesh.xmin1 = 1e\+308 - -1e\+308 is beyond the largest double: the domain is too large"),
    (["mesh.xmax=[5e-324]"], r"mesh.xmax1 - mesh.xmin1 = 5e-324 across mesh.nx1=256 cells gives cells of width 0"),
    # the hint never names a block smaller than the ghost cells (14 = 2 x 7: 2 < 3), offering a mesh size instead
    (["hydro.reconstruction=weno5", "mesh.nx=[14]", "mesh.block_nx=[5]"],
     r"mesh.nx1=14 is not divisible by mesh.block_nx1=5: blocks must tile the mesh \(no block size from 3 to 5 "
     r"divides it: try mesh.nx1 = 15\)$"),
])
def test_impossible_meshes(overrides, message):
    with pytest.raises(ConfigError, match=message):
        build(SOD, overrides)


def test_the_tiling_hint_is_quick_for_huge_meshes():
    """The hint looks for divisors up to 1e6 only (it used to scan every number up to nx: 33 s for 1e9 + 7)."""
    for nx, block, hint in ((1_000_000_007, 64, "no block size from 2 to 64 divides it: try mesh.nx1 = 1000000000"),
                            (10**18 + 9, 64, f"no block size from 2 to 64 divides it: try mesh.nx1 = {10**18}"),
                            (2**60, 100, "try block_nx1 = 64"), (3 * 5**20, 64, "try block_nx1 = 25")):
        # this process's CPU time, not the wall clock: a case takes 0.06-0.1 s of CPU, but up to 0.46 s of wall time
        # at load 16 on 2 cores, and a busier machine stretched that towards the bound
        start = time.process_time()
        with pytest.raises(ConfigError, match=re.escape(f"blocks must tile the mesh ({hint})")):
            build(overrides=[f"mesh.nx=[{nx}]", f"mesh.block_nx=[{block}]"])
        assert time.process_time() - start < 2.0


def test_a_user_given_domain_matches_the_dimensions_defaults_need_not():
    cfg = build({"problem": {"name": "kelvin_helmholtz"}}, ["mesh.nx=[32, 32]", "mesh.xmax=[2.0, 1.0]"])
    assert cfg["mesh"]["xmin"] == [0.0, 0.0] and cfg["mesh"]["xmax"] == [2.0, 1.0]  # defaults: 3 entries, cut
    assert build(overrides=["hydro.cfl=1"])["hydro"]["cfl"] == 1.0


@pytest.mark.parametrize("problem, nx, integrator, cfl, bound, example", [
    ("kelvin_helmholtz", "[64,64]", "rk2", "0.9", "1/2", "0.4"),  # ran to the end, its outputs wrong
    ("kelvin_helmholtz", "[64,64]", "rk3", "0.51", "1/2", "0.4"),
    ("blast", "[16,16,16]", "rk2", "0.34", "1/3", "0.3"),
])
def test_a_cfl_above_the_stability_limit_of_the_dimension_is_refused(problem, nx, integrator, cfl, bound, example):
    """Before, hydro.cfl was checked against 1 only: a 2-D run at 0.9 went unstable without any cell turning
    non-finite, so nothing stopped it, and it wrote wrong outputs with exit status 0."""
    overrides = [f"mesh.nx={nx}", f"hydro.integrator={integrator}", f"hydro.cfl={cfl}"]
    message = (f"hydro.cfl={cfl} is above {bound}, the stability limit of hydro.integrator='{integrator}' in "
               f"{len(nx.split(','))}-D: the unsplit scheme adds the Courant numbers of the {len(nx.split(','))} "
               f"directions, so a larger cfl makes the run unstable (and its outputs wrong); set hydro.cfl <= "
               f"{bound} (the examples use {example})")
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        build({"problem": {"name": problem}}, overrides)


@pytest.mark.parametrize("problem, nx, cfl", [
    ("sod", "[64]", "1"), ("kelvin_helmholtz", "[64,64]", "0.5"), ("blast", "[16,16,16]", "0.3333333333333333"),
])
def test_a_cfl_at_the_stability_limit_is_taken(problem, nx, cfl):
    for integrator in ("rk2", "rk3"):
        overrides = [f"mesh.nx={nx}", f"hydro.cfl={cfl}", f"hydro.integrator={integrator}"]
        assert build({"problem": {"name": problem}}, overrides)["hydro"]["cfl"] == float(cfl)


def test_the_default_cfl_is_within_the_limit_in_every_dimension():
    """The default was 0.4 in every dimension: past 1/3 in 3-D."""
    cases = (("sod", "[64]"), ("kelvin_helmholtz", "[64,64]"), ("blast", "[16,16,16]"))
    assert [build({"problem": {"name": p}}, [f"mesh.nx={nx}"])["hydro"]["cfl"] for p, nx in cases] == [0.4, 0.4, 0.3]


def test_dimension_of_the_problem():
    with pytest.raises(ConfigError, match=r"'kelvin_helmholtz' runs in 2-D, but mesh.nx=\[64\] has 1"):
        build({"problem": {"name": "kelvin_helmholtz"}}, ["mesh.nx=[64]"])
    with pytest.raises(ConfigError, match=r"'blast' runs in 2-D or 3-D"):
        build({"problem": {"name": "blast"}}, ["mesh.nx=[64]"])


def test_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(str(tmp_path / "nope.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[problem]\nname = sod\n")
    with pytest.raises(ConfigError, match=r"bad.toml: invalid TOML"):
        load_config(str(bad))
    ok = tmp_path / "ok.toml"
    ok.write_text('[problem]\nname = "sod"\n[hydro]\ncfl = 0.3\n')
    assert load_config(str(ok), ["hydro.cfl=0.2"])["hydro"]["cfl"] == 0.2


def test_the_python_api_names_a_call_of_the_wrong_shape(tmp_path):
    """From Python, overrides as one string (read letter by letter: "override 'm'"), as a dict, a dict for
    load_config, or a path for hydro.run are TypeErrors that say what to pass; nothing is written."""
    from brickwork.apps import hydro

    ok = tmp_path / "ok.toml"
    ok.write_text('[problem]\nname = "sod"\n[output]\ndir = "out"\n')
    for overrides in ("mesh.nx=[512]", {"mesh.nx": [512]}, 3):
        with pytest.raises(TypeError, match=r"overrides must be a list of 'section.key=value' strings "
                                            r"\(\['mesh.nx=\[512\]'\]\), got a (str|dict|int): "):
            load_config(str(ok), overrides)
    with pytest.raises(TypeError, match=r"got an item \('mesh.nx', 512\)"):
        build_config(SOD, [("mesh.nx", 512)])
    with pytest.raises(TypeError, match=r"load_config takes the path of a TOML input file; for a dict of sections "
                                        r"use hydro.build_config\(raw, overrides\)"):
        load_config({"problem": {"name": "sod"}})
    with pytest.raises(TypeError, match=r"hydro.run takes a Config \(hydro.load_config\(path, overrides\) or "
                                        r"hydro.build_config\(raw, overrides\)\), got str '.*ok.toml'"):
        hydro.run(str(ok))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.toml"]
    assert load_config(str(ok), ("mesh.nx=[512]",))["mesh"]["nx"] == [512]  # a tuple is a list here


@pytest.mark.parametrize("name", ["sod", "kelvin_helmholtz", "blast2d", "blast3d", "linear_wave"])
def test_examples_are_valid(name):
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", f"{name}.toml")
    cfg = load_config(path)
    assert cfg["problem"]["name"] in name


def test_a_basename_too_long_for_its_files_is_refused_before_the_run():
    """It failed only after setup, at the first file ('file name too long')."""
    assert build(overrides=["output.basename=" + "b" * 200])["output"]["basename"] == "b" * 200
    with pytest.raises(ConfigError, match=r"output.basename: at most 200 characters \(the output files add up to 40 "
                                          r"more to it, and a file name holds 255\), got 201"):
        build(overrides=["output.basename=" + "b" * 201])


@pytest.mark.parametrize("basename", ["..", ".", ".hidden", "a/b", "../up", "", "a b", "x\\y", "caf\u00e9", "~x"])
def test_basenames_must_be_plain(basename):
    with pytest.raises(ConfigError, match=r"output.basename: must be a plain file name stem \(ASCII letters, digits, '_', "
                                          r"'-' and '.', not starting with '.'\), got "):
        build(overrides=[f"output.basename={basename}"])


@pytest.mark.parametrize("basename", ["run_1", "sod-hllc.v2", "-x", "A.b.c", "7"])
def test_plain_basenames_are_kept(basename):
    assert build(overrides=[f"output.basename={basename}"])["output"]["basename"] == basename


def test_every_input_key_is_in_the_hydro_guide():
    """docs/hydro.md's table of input files names every key of every section (hdf5_dn and problem.file were
    added to the schema; a key missing from the table is a setting users cannot find)."""
    from pathlib import Path

    from brickwork.apps.hydro.config import SCHEMA

    text = (Path(__file__).resolve().parents[2] / "docs" / "hydro.md").read_text()
    for section, keys in SCHEMA.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `[{section}]` |"))
        missing = [key for key in keys if f"`{key}`" not in row]
        assert not missing, (section, missing)


@pytest.mark.parametrize("nx, blocks", [([16], "1 block,"), ([32], "2 blocks,")])
def test_more_ranks_than_blocks_is_refused_in_words(make_config, monkeypatch, nx, blocks):
    from brickwork.apps.hydro import preflight

    class ThreeRanks:
        def Get_size(self):
            return 3

    monkeypatch.setattr(preflight.comm, "world", ThreeRanks)
    cfg = make_config({"problem": {"name": "sod"}, "mesh": {"nx": nx, "block_nx": [16]}})
    with pytest.raises(ConfigError) as info:
        preflight._check_ranks(cfg)
    assert f"makes {blocks} fewer than the 3 MPI ranks: every rank needs at least one block" in str(info.value)
