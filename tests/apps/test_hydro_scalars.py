"""Passive scalars (``[hydro] nscalars``): the key's checks; a uniform flow carrying a sine and a step once
around a periodic domain (back within the scheme's error, the scalar's mass to roundoff); bounded in
[0, 1] by the limiters (hypothesis); Sod's contact carrying the scalar's jump; the gas unchanged bit for bit
by any number of scalars; fused = split, CPU = emulation, a CUDA build; restarts bitwise and a scalar count
mismatch refused; history and HDF5 outputs."""

import h5py
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brickwork import config, cuda_driver
from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.problems import exact_riemann
from brickwork.io import history as history_io
from brickwork.io.restart import RestartError

SOD = {"problem": {"name": "sod"}, "mesh": {"nx": [64], "block_nx": [16]}, "time": {"nlim": 5}}
KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}, "time": {"nlim": 3}}


def with_hydro(raw: dict, **hydro_keys) -> dict:
    return dict(raw, hydro={**raw.get("hydro", {}), **hydro_keys})


@pytest.mark.parametrize("value, message", [
    (-1, "hydro.nscalars: must be >= 0, got -1"),
    (1.5, "hydro.nscalars: expected an integer, got the number 1.5"),
    ("two", "hydro.nscalars: expected an integer, got the string 'two'"),
])
def test_a_bad_count_names_the_key(make_config, value, message):
    with pytest.raises(ConfigError) as info:
        make_config(with_hydro(SOD, nscalars=value))
    assert str(info.value) == message


def test_none_by_default_and_no_fields(make_config):
    sim = hydro.Hydro(make_config(SOD))
    assert sim.nscalars == 0 and sim.conserved == ("density", "momentum", "energy")
    assert "scalars" not in sim.mesh.fields and sim.mesh.data("prim").shape[1] == 5


def uniform_flow(make_config, profile, nx=64, velocity=1.0, limiter="mc", stage="auto", dims=1):
    """A Hydro on [0, 1]^dims, periodic, with uniform rho = 1, v1 = ``velocity``, p = 1 and scalar 0 =
    ``profile(x1)`` (scalar 1: 1 - profile)."""
    nxs = [nx] + [8] * (dims - 1)
    raw = {"problem": {"name": "sod"}, "mesh": {"nx": nxs, "block_nx": [nx // 4] + [8] * (dims - 1),
                                                "bc_x1": "periodic"},
           "hydro": {"nscalars": 2, "limiter": limiter, "stage": stage}}
    sim = hydro.Hydro(make_config(raw))
    sim.set_initial()
    for block in sim.mesh.blocks:
        shape = sim.mesh.data("density").shape[2:]
        s = np.broadcast_to(profile(block.coords.x_center(1)[None, None, :]), shape)
        one = np.ones(shape)
        sim.set_primitive_block(block.lid, one, velocity * one, 0 * one, 0 * one, one, [s, 1.0 - s])
    return sim


def advance(sim, tlim):
    while sim.time < tlim * (1 - 1e-14):
        dt = min(sim.check(), tlim - sim.time)
        sim.step(dt)


def whole(sim, name):
    return sim.to_global(sim.primitive(name))


def test_a_sine_comes_back_after_one_crossing(make_config):
    """u = 1 on [0, 1]: at t = 1 the sine is where it started, within PLM's error, which falls at second order
    (mean error 3.2e-3 with 64 cells, 8.5e-4 with 128, measured); every total is kept, the scalars' to
    roundoff, and a uniform s (the two scalars add up to 1) is carried exactly."""
    errors = []
    for nx in (64, 128):
        sim = uniform_flow(make_config, lambda x: 0.5 + 0.5 * np.sin(2 * np.pi * x), nx=nx)
        start = whole(sim, "scalar_0")
        before = sim.totals()
        assert before["scalar_0"] == pytest.approx(0.5, rel=1e-14) and before["scalar_1"] == pytest.approx(0.5,
                                                                                                          rel=1e-14)
        advance(sim, 1.0)
        assert sim.time == pytest.approx(1.0, rel=1e-14)
        errors.append(np.abs(whole(sim, "scalar_0") - start).mean())
        after = sim.totals()
        for name in ("mass", "scalar_0", "scalar_1"):
            assert after[name] == pytest.approx(before[name], rel=1e-14, abs=1e-15), name
        np.testing.assert_allclose(whole(sim, "scalar_0") + whole(sim, "scalar_1"), 1.0, rtol=0, atol=1e-13)
    assert errors[0] < 4e-3 and errors[1] < 0.3 * errors[0]


def test_a_step_comes_back_smeared_but_in_place(make_config):
    """A top hat on [0.25, 0.75) after one crossing: the jumps are smeared over a few cells, the
    plateau and the mass are where they were."""
    sim = uniform_flow(make_config, lambda x: np.where((x >= 0.25) & (x < 0.75), 1.0, 0.0), nx=128)
    start = whole(sim, "scalar_0")
    advance(sim, 1.0)
    end = whole(sim, "scalar_0")
    assert 1.0 < np.abs(end - start).sum() < 6.0  # L1 error in cells: 4.1 measured, about 2 at each jump
    x = (np.arange(128) + 0.5) / 128
    centre = (end[0, 0] * x).sum() / end[0, 0].sum()
    assert centre == pytest.approx(0.5, abs=1e-10)  # a symmetric scheme: the hat's centre stays put
    assert end.sum() == pytest.approx(start.sum(), rel=1e-13)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.floats(0.0, 1.0), min_size=32, max_size=32),
       velocity=st.sampled_from([1.0, -0.7, 2.5]), limiter=st.sampled_from(["minmod", "van_leer", "mc"]))
def test_the_limiters_keep_a_scalar_in_its_bounds(make_config, values, velocity, limiter):
    data = np.array(values)
    sim = uniform_flow(make_config, lambda x: data[np.clip((x * 32).astype(int), 0, 31)], nx=32, velocity=velocity,
                       limiter=limiter)
    lo, hi = data.min(), data.max()
    for _ in range(12):
        sim.step(sim.check())
        s = whole(sim, "scalar_0")
        assert s.min() >= lo - 1e-13 and s.max() <= hi + 1e-13


def test_sod_s_scalar_jumps_at_the_contact(make_config):
    """Scalar 0 marks Sod's left gas: at t = 0.2 its 0.5 crossing lies at the exact contact x0 + u* t (the
    exact solver's star velocity), within two cells of 512; the density jumps there too."""
    # blocks of 32 cells: the short-row kernels of one scalar that test_emulation_gives_the_cpu_scalars' CPU runs
    # compile too (la/outer.py SHORT_ROW; 128-cell blocks compiled a long-row pair for this test alone)
    cfg = make_config({"problem": {"name": "sod"}, "mesh": {"nx": [512], "block_nx": [32]},
                       "hydro": {"nscalars": 1}})
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    advance(sim, 0.2)
    s = whole(sim, "scalar_0")[0, 0]
    p = cfg["problem"]
    _, u_star = exact_riemann.star_state((p["rho_l"], p["u_l"], p["p_l"]), (p["rho_r"], p["u_r"], p["p_r"]), 1.4)
    contact = p["x0"] + u_star * 0.2
    i = int(np.argmax(s < 0.5))  # the first cell right of the crossing
    x = (np.arange(512) + 0.5) / 512
    crossing = x[i - 1] + (0.5 - s[i - 1]) / (s[i] - s[i - 1]) * (x[i] - x[i - 1])
    assert crossing == pytest.approx(contact, abs=2 / 512)
    assert s.max() <= 1.0 + 1e-13 and s.min() >= -1e-13
    assert np.all(s[x < 0.25] == pytest.approx(1.0)) and np.all(s[x > 0.8] == 0.0)


@pytest.mark.parametrize("raw", [SOD, KH, with_hydro(SOD, reconstruction="weno5", riemann="hlle", integrator="rk3")],
                         ids=["sod", "kh", "sod-weno5-hlle-rk3"])
def test_the_gas_is_the_same_bits_with_scalars(run_hydro, raw):
    """Passive: 0 or 2 scalars leave density, momentum and energy bit for bit (and fused = split), for
    both reconstructions and Riemann solvers."""
    plain = run_hydro(raw).hydro
    for stage in ("fused", "split"):
        sim = run_hydro(with_hydro(raw, nscalars=2, stage=stage)).hydro
        for name in ("density", "momentum", "energy"):
            np.testing.assert_array_equal(sim.state()[name], plain.state()[name])
        if stage == "fused":
            fused = sim
    for n in (0, 1):
        np.testing.assert_array_equal(sim.interior("scalars", n), fused.interior("scalars", n))
    s = fused.to_global(fused.primitive("scalar_0"))
    assert s.max() > 0.5
    if raw.get("hydro", {}).get("reconstruction") != "weno5":  # PLM's limiters keep it in bounds (WENO5 need not)
        assert s.max() <= 1.0 + 1e-13 and s.min() >= -1e-13


@pytest.mark.parametrize("stage", ["split", "fused"])
def test_emulation_gives_the_cpu_scalars(run_hydro, stage):
    raw = with_hydro(SOD, nscalars=1, stage=stage)
    cpu = run_hydro(raw).hydro
    with config.override(target="cuda-emulation"):
        emu = run_hydro(raw).hydro
    assert emu.time == cpu.time > 0
    np.testing.assert_allclose(emu.to_global(emu.primitive("scalar_0")), cpu.to_global(cpu.primitive("scalar_0")),
                               rtol=1e-13, atol=1e-15)


def test_restart_is_bitwise_and_a_scalar_count_mismatch_is_refused(run_hydro, tmp_path):
    raw = with_hydro(dict(SOD, time={"nlim": 6}), nscalars=2)
    whole_run = run_hydro(raw, [f"output.dir={tmp_path / 'a'}"]).hydro
    run_hydro(raw, [f"output.dir={tmp_path / 'b'}", "output.restart_dn=3"])
    rst = tmp_path / "b" / "sod.rst.00000.npz"
    resumed = run_hydro(raw, [f"output.dir={tmp_path / 'c'}"], restart=str(rst)).hydro
    assert resumed.cycle == whole_run.cycle == 6
    for name in ("density", "energy", "scalars"):
        np.testing.assert_array_equal(resumed.interior(name, 0), whole_run.interior(name, 0))
    np.testing.assert_array_equal(resumed.interior("scalars", 1), whole_run.interior("scalars", 1))
    for n, held in ((0, 2), (1, 2)):
        with pytest.raises(RestartError) as info:
            run_hydro(with_hydro(raw, nscalars=n), [f"output.dir={tmp_path / 'd'}"], restart=str(rst))
        assert str(info.value) == (f"restart file {str(rst)!r} holds {held} passive scalars (hydro.nscalars={held}), "
                                   f"but this run has hydro.nscalars={n}: a restart continues the same scalars (set "
                                   f"hydro.nscalars={held}, or leave it out of an input read with the file, as "
                                   f"brickwork run --restart and load_config(..., restart=FILE) read it)")
    # a file without scalars (as every file before them) into a run with some
    run_hydro(dict(SOD, time={"nlim": 3}), [f"output.dir={tmp_path / 'e'}", "output.restart_dt=0"])
    with pytest.raises(RestartError, match=r"holds 0 passive scalars \(hydro.nscalars=0\), but this run has "
                                           r"hydro.nscalars=2"):
        run_hydro(raw, [f"output.dir={tmp_path / 'f'}"], restart=str(tmp_path / "e" / "sod.rst.00000.npz"))
    assert not (tmp_path / "d").exists() and not (tmp_path / "f").exists()



def test_an_input_without_nscalars_takes_the_restart_files_count(run_hydro, tmp_path, capsys):
    from brickwork import cli

    raw = with_hydro(dict(SOD, time={"nlim": 6}), nscalars=2)
    whole_run = run_hydro(raw, [f"output.dir={tmp_path / 'a'}"]).hydro
    run_hydro(raw, [f"output.dir={tmp_path / 'b'}", "output.restart_dn=3"])
    rst = str(tmp_path / "b" / "sod.rst.00000.npz")  # at cycle 3
    quiet = {"hdf5_dt": -1.0, "png_dt": -1.0, "restart_dt": -1.0, "history": False, "progress": False}
    bare = dict(SOD, time={"nlim": 6}, output=dict(quiet, dir=str(tmp_path / "c")))  # no [hydro] nscalars
    cfg = hydro.build_config(bare, source="bare.toml", restart=rst)
    assert cfg["hydro"]["nscalars"] == 2 and hydro.build_config(bare)["hydro"]["nscalars"] == 0
    resumed = hydro.run(cfg, restart_file=rst).hydro
    assert resumed.cycle == 6 and resumed.scalar_names == ["scalar_0", "scalar_1"]
    for n in (0, 1):
        np.testing.assert_array_equal(resumed.interior("scalars", n), whole_run.interior("scalars", n))
    # on the command line: the count from --restart; one given that contradicts the file's is refused
    (tmp_path / "bare.toml").write_text('[problem]\nname = "sod"\n[mesh]\nnx = [64]\nblock_nx = [16]\n'
                                        '[time]\nnlim = 6\n')
    args = ["run", str(tmp_path / "bare.toml"), "output.hdf5_dt=-1", "output.png_dt=-1", "output.history=true",
            "--restart", rst, "--quiet"]
    assert cli.main(args + [f"output.dir={tmp_path / 'd'}"]) == 0
    columns, rows = history_io.read(str(tmp_path / "d" / "sod.hst"))
    assert columns[-2:] == ["scalar_0", "scalar_1"] and [row[0] for row in rows] == [4, 5, 6]
    assert capsys.readouterr().err == ""
    assert cli.main(args + [f"output.dir={tmp_path / 'e'}", "hydro.nscalars=1"]) == 2
    assert capsys.readouterr().err == (
        f"brickwork: error: restart file {rst!r} holds 2 passive scalars (hydro.nscalars=2), but this run has "
        f"hydro.nscalars=1: a restart continues the same scalars (set hydro.nscalars=2, or leave it out of an input "
        f"read with the file, as brickwork run --restart and load_config(..., restart=FILE) read it)\n")
    assert not (tmp_path / "e").exists()

def test_history_and_hdf5_outputs_hold_the_scalars(run_hydro, tmp_path):
    raw = with_hydro(dict(KH, output={"history": True, "hdf5_dt": 0.0}), nscalars=2)
    sim = run_hydro(raw).hydro
    out = tmp_path / "out"
    columns, rows = history_io.read(str(out / "kelvin_helmholtz.hst"))
    assert columns[-2:] == ["scalar_0", "scalar_1"]
    totals = sim.totals()
    assert rows[-1][-2] == totals["scalar_0"] and rows[-1][-1] == totals["scalar_1"] == 0.0
    assert totals["scalar_0"] == pytest.approx(rows[0][-2], rel=1e-13)  # periodic: the scalar's mass is kept
    assert totals["scalar_0"] == pytest.approx(0.5 * 2.0, rel=0.05)  # half the box, at density 2
    files = sorted(out.glob("*.h5"))
    with h5py.File(files[-1], "r") as f:
        stored = f["cells/scalar_0"][...]
    np.testing.assert_array_equal(stored, sim.primitive("scalar_0").astype(stored.dtype))  # rho s / rho, per block
    assert stored.shape == (4, 1, 16, 16) and stored.max() <= 1.0 + 1e-13 and stored.min() >= -1e-13
    xdmf = sorted(out.glob("*.xdmf"))[-1].read_text()
    assert "scalar_0" in xdmf and "scalar_1" in xdmf  # and every_xdmf_is_readable checks its datasets


def test_a_cuda_build_of_the_scalar_kernels(make_config):
    """The split stages with scalars (what ``auto`` runs on a GPU) and the fused one, compiled by NVRTC for the
    stand-in driver's sm_90 device and launched on it (it records launches; tests/apps/test_hydro_device.py and
    scripts/gpu_check.sh compare values on a real GPU)."""
    import os
    import sys

    from brickwork import device as devices
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed")
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from runtime.cuda_fake import FakeDriver

    drv = FakeDriver()
    cuda_driver.use(drv)
    devices._cuda.clear()
    try:
        for ndim, raw, stage in ((1, SOD, "auto"), (2, KH, "auto"), (2, KH, "fused")):
            sim = hydro.Hydro(make_config(with_hydro(raw, nscalars=2, stage=stage), ["hydro.device=cuda:0"]))
            assert sim.fused == (stage == "fused") and sim.mesh.data("scalars").shape[1] == 2
            sim.set_initial()
            launches = len(drv.launches)
            sim.step(1e-3)
            # per stage: the fused pass, or the flux pass of each direction and the update
            assert len(drv.launches) - launches >= 2 * (1 if sim.fused else 1 + ndim), (ndim, stage)
    finally:
        cuda_driver.use(None)
        devices._cuda.clear()
        devices.set_device("cpu")


DYE = '''
import numpy as np
from brickwork.apps.hydro import Key

NAME = "dye"
DIMENSIONS = (1,)
PARAMS = {"rho_in": Key("float", 2.5, "density of the inflow")}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "user"},
            "hydro": {"gamma": 1.4, "nscalars": 2}, "time": {"tlim": 0.05}}
U, P = 3.0, 1.0


def inflow(block, view, side, field, params, gamma):
    """Supersonic inflow of dye at x1 = 0: scalar 0 is 1 in it, scalar 1 is 0."""
    ng, rho = block.mesh.nghost, params["rho_in"]
    if field == "density":
        view[0, :, :, :ng] = rho
    elif field == "momentum":
        view[:, :, :, :ng] = 0.0
        view[0, :, :, :ng] = rho * U
    elif field == "scalars":
        view[0, :, :, :ng] = rho * 1.0
        view[1, :, :, :ng] = 0.0
    else:
        view[0, :, :, :ng] = P / (gamma - 1.0) + 0.5 * rho * U * U


BOUNDARIES = {"inner_x1": inflow, "outer_x1": "outflow"}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0, U, 0.0, 0.0, P


def initial_scalars(x1, x2, x3, p, xmin, xmax):
    return [0.0, np.where(x1 > 0.5, 1.0, 0.0)]
'''


def test_user_boundaries_and_a_problem_file_carry_the_scalars(run_hydro, tmp_path):
    """Supersonic inflow of dye (s_0 = 1) into clean gas: every flux through the ends is its upwind state's,
    so the dye's mass grows by exactly rho_in U t; scalar 1, set by the problem's initial_scalars in the
    right half, leaves through the outflow end, which carries nothing back in."""
    (tmp_path / "dye.py").write_text(DYE)
    result = run_hydro({"problem": {"file": str(tmp_path / "dye.py")}, "output": {"history": True}})
    _, rows = history_io.read(str(tmp_path / "out" / "dye.hst"))
    assert result.time == 0.05 and rows[0, -2] == 0.0 and rows[0, -1] == pytest.approx(0.5, rel=1e-14)
    assert rows[-1, -2] == pytest.approx(2.5 * 3.0 * 0.05, rel=1e-13)
    assert rows[-1, -1] == pytest.approx(0.5 - 3.0 * 0.05, rel=1e-12)  # rho = 1 leaves at U
    s = whole(result.hydro, "scalar_0")[0, 0]
    assert s[0] == pytest.approx(1.0, abs=1e-7) and s[9] > 0.5 > s[10] and np.all(s[32:] == 0.0)  # front: x=0.15


@pytest.mark.parametrize("body, message", [
    ("return [1.0, 0.0, 0.0]", r"^problem 'dye': initial_scalars\(\) must return a list of at most hydro.nscalars=2 "
                               r"arrays or numbers \(one per scalar it sets\), got 3$"),
    ("return 1.0", r"^problem 'dye': initial_scalars\(\) must return a list of at most hydro.nscalars=2 arrays or "
                   r"numbers, got float$"),
    ("return [np.zeros(3)]", r"^problem 'dye': initial_scalars\(\) must return arrays that broadcast to the block's "
                             r"cells, ghosts included, \(1, 1, 20\) \(k, j, i\); its scalar 0 is shape \(3,\)$"),
    ("return [p['missing']]", r"^problem 'dye': initial_scalars\(\) failed at dye.py:\d+: KeyError: 'missing'; the "
                              r"\[problem\] keys are"),
])
def test_mistakes_in_initial_scalars_stop_before_anything_is_made(run_hydro, tmp_path, body, message):
    text = DYE.replace("return [0.0, np.where(x1 > 0.5, 1.0, 0.0)]", body)
    (tmp_path / "dye.py").write_text(text)
    with pytest.raises(ConfigError, match=message):
        run_hydro({"problem": {"file": str(tmp_path / "dye.py")}, "output": {"history": True}})
    assert not (tmp_path / "out").exists()


def test_set_primitive_block_checks_the_concentrations_first(make_config):
    sim = hydro.Hydro(make_config(with_hydro(SOD, nscalars=2)))
    sim.set_initial()
    before = {name: data.copy() for name, data in sim.state().items()}
    one = np.ones(sim.mesh.data("density").shape[2:])
    with pytest.raises(ValueError, match=r"^set_primitive_block: concentrations has 1 arrays, but the run has "
                                         r"hydro.nscalars=2$"):
        sim.set_primitive_block(0, 2 * one, one, one, one, one, [one])
    for name, data in sim.state().items():
        np.testing.assert_array_equal(data, before[name])


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("raw", [SOD, KH], ids=["sod", "kh"])
def test_a_cuda_run_gives_the_cpu_scalars(run_hydro, tmp_path, raw):
    """On a real GPU (scripts/gpu_check.sh runs the cuda_device tests): the scalars and their totals."""
    raw = with_hydro(dict(raw, output={"history": True}), nscalars=2)
    runs = {device: run_hydro(raw, [f"hydro.device={device}", f"output.dir={tmp_path / device}"]).hydro
            for device in ("cpu", "cuda")}
    cpu, gpu = runs["cpu"], runs["cuda"]
    assert gpu.time == pytest.approx(cpu.time, rel=1e-12)
    np.testing.assert_allclose(whole(gpu, "scalar_0"), whole(cpu, "scalar_0"), rtol=1e-12, atol=1e-14)
    for name, value in cpu.totals().items():
        assert gpu.totals()[name] == pytest.approx(value, rel=1e-11, abs=1e-13), name


@pytest.mark.parametrize("nscalars, value, message", [
    (0, "scalar_0", "output.png_variable: 'scalar_0' is not one of 'density', 'pressure', 'velocity_1', "
                    "'velocity_2', 'velocity_3', 'energy', 'speed' (scalar_N needs hydro.nscalars > N)"),
    (2, "scalar_2", "output.png_variable: 'scalar_2' is not one of 'density', 'pressure', 'velocity_1', "
                    "'velocity_2', 'velocity_3', 'energy', 'speed', 'scalar_0', 'scalar_1' (did you mean"),
    (0, "densty", "output.png_variable: 'densty' is not one of 'density', 'pressure'"),
])
def test_a_png_variable_must_name_a_variable_of_the_run(make_config, nscalars, value, message):
    with pytest.raises(ConfigError) as info:
        make_config(with_hydro(dict(KH, output={"png_variable": value}), nscalars=nscalars))
    assert str(info.value).startswith(message)


def test_a_png_of_a_scalar_draws_its_concentrations(run_hydro, tmp_path, monkeypatch):
    from brickwork.apps.hydro import outputs
    drawn = []
    monkeypatch.setattr(outputs, "_write_png", lambda sim, path, per_block: drawn.append(sim.to_global(per_block)))
    # two scalars: the kernels of test_the_gas_is_the_same_bits_with_scalars[kh] (one scalar compiled a pair of its own)
    raw = with_hydro(dict(KH, output={"png_dt": 0.0, "png_variable": "scalar_0"}), nscalars=2)
    sim = run_hydro(raw).hydro
    assert len(drawn) >= 1
    np.testing.assert_array_equal(drawn[-1], sim.to_global(sim.primitive("scalar_0")))
    assert drawn[-1].min() >= -1e-13 and drawn[-1].max() <= 1.0 + 1e-13 and drawn[-1].max() > 0.5
