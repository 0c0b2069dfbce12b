"""Viscosity and thermal conduction (``hydro.viscosity``, ``hydro.conduction``): explicit diffusive fluxes in the
Runge-Kutta stages against analytic solutions, the diffusive time step, conservation to round-off, and the
mistakes. The 1-D runs use 16-cell blocks and the 2-D runs 16^2 blocks, so the diffusive passes compile once
per dimension and the split hydro kernels are those of the other tests."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from test_hydro_custom_problem import write
from test_hydro_device import fake  # noqa: F401 - the stand-in CUDA driver, a fixture

import gpu_compile
from brickwork import config
from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError
from brickwork.apps.hydro.driver import _diffusion_note

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUIET = {"output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "history": False, "progress": False}}
#: a transverse velocity sine v2 = A sin(2 pi x1) in a uniform gas: viscosity decays it as exp(-nu k^2 t)
SHEAR = '''
import numpy as np

NAME = "shear"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"xmin": [0.0], "xmax": [1.0], "bc_x1": "periodic", "block_nx": [16]},
            "hydro": {"gamma": 1.4}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0, 0.0, 0.01 * np.sin(2 * np.pi * x1), 0.0, 1.0
'''
#: a Gaussian temperature pulse (amplitude 1 %, width 0.05) at uniform pressure
PULSE = '''
import numpy as np

NAME = "pulse"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"xmin": [0.0], "xmax": [1.0], "bc_x1": "periodic", "block_nx": [16]},
            "hydro": {"gamma": 1.4}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0 / (1.0 + 0.01 * np.exp(-(x1 - 0.5) ** 2 / (2 * 0.05 ** 2))), 0.0, 0.0, 0.0, 1.0
'''
#: 2-D, periodic: a shear wave along the diagonal (WAVE) or a lumpy gas in motion (anything else)
BOX = '''
import numpy as np

NAME = "box"
DIMENSIONS = (2,)
PARAMS = {"wave": Key("bool", True, "the diagonal shear wave")}
DEFAULTS = {"mesh": {"nx": [32, 32], "block_nx": [16, 16], "xmin": [0.0, 0.0], "xmax": [1.0, 1.0],
                     "bc_x1": "periodic", "bc_x2": "periodic"},
            "hydro": {"gamma": 1.4}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    s = np.sin(2 * np.pi * (x1 + x2))
    if p["wave"]:  # v perpendicular to k = 2 pi (1, 1): divergence-free
        return 1.0, -0.01 * s / np.sqrt(2), 0.01 * s / np.sqrt(2), 0.0, 1.0
    c = np.cos(2 * np.pi * (x1 - 2 * x2))
    return 1.0 + 0.3 * s * c, 0.4 * c, 0.3 * s + 0.1, 0.2 * s * s, 1.0 + 0.2 * np.cos(4 * np.pi * x1)
'''


def run(tmp_path, text, overrides, name="case.py"):
    write(tmp_path / name, "from brickwork.apps.hydro import Key\n" + text)
    cfg = hydro.build_config(dict(QUIET, problem={"file": name}), [f"output.dir={tmp_path / 'output'}", *overrides],
                             base_dir=str(tmp_path))
    return hydro.run(cfg)


def whole(sim, name):
    return sim.to_global(sim.primitive(name))[0]


def load_example(name):
    """The module of ``examples/NAME.py`` (a problem file and a script)."""
    spec = importlib.util.spec_from_file_location(f"{name}_example", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_shear_layer_decays_as_exp_minus_nu_k2_t_at_second_order(tmp_path):
    """examples/viscous_shear.py: v2 = A sin(k x1), nu = 0.05, to t = 0.5 (A e^(-1) ~ 0.37 A) on 16 and 32 cells.
    The centred difference decays the mode at nu * (2 - 2 cos(k dx)) / dx^2 = nu k^2 (1 - (k dx)^2 / 12 + ...):
    1.3 % too slowly on 16 cells, 0.32 % on 32 (measured 1.29 % and 0.32 %: order 2.01); against that
    semi-discrete rate the error is the time integration's, O(dt^2) with dt ~ dx^2 (measured 1.6e-4 and
    1.2e-5). The diffusion limit sets every step: dt = cfl dx^2 / (2 nu), and the closing line says so."""
    example = load_example("viscous_shear")
    k = 2 * math.pi
    errors = []
    for nx in (16, 32):
        decay, exact, result = example.measure(nx, base_dir=str(tmp_path))
        semi_discrete = math.exp(-0.05 * (2 - 2 * math.cos(k / nx)) * nx * nx * result.time)
        assert abs(decay / semi_discrete - 1) < 3e-4 and exact == math.exp(-0.05 * k * k * 0.5)
        errors.append(decay / exact - 1)
        sim = result.hydro
        assert sim.diffusion.dt == pytest.approx(0.4 / nx ** 2 / (2 * 0.05), rel=1e-15)
        assert result.dt_limits == {"cfl": 0, "diffusion": nx * nx // 8, "other": 0} and result.time == 0.5
        assert _diffusion_note(sim, result) == (f"; time steps set by the diffusion limit (dt <= {sim.diffusion.dt:.3e}):"
                                                f" {nx * nx // 8} of {nx * nx // 8} cycles, by the CFL condition: 0")
        assert np.abs(whole(sim, "velocity_1")).max() < 1e-6  # heating at O(A^2) moves nothing else
    assert 0.011 < errors[0] < 0.0145 and 1.9 < math.log2(errors[0] / errors[1]) < 2.1
    assert hydro.load_config(str(EXAMPLES / "viscous_shear.toml"))["hydro"]["viscosity"] == 0.05


def test_a_gaussian_temperature_pulse_spreads_as_width2_plus_2_d_t(tmp_path):
    """Conduction at uniform pressure diffuses the temperature at D = (gamma - 1) / gamma * kappa: a Gaussian's
    width^2 grows by 2 D t (here from 0.05^2 to twice that). Measured on the entropy's part of the temperature
    perturbation, T (p / <p>)^(-(gamma-1)/gamma) - 1, which leaves out the sound the expanding gas sends off: its
    second moment is exact for the centred differences, so what is left is the model's, the pressure's
    non-uniformity, of order (kappa k / c_s)^2 and the 1 % amplitude (measured -0.63 %; bound 1.5 %). The total
    energy stays to round-off; the pulse's peak falls as 1 / sqrt(2) (0.4 % on 64 cells)."""
    kappa, gamma = 0.01, 1.4
    d = (gamma - 1) / gamma * kappa
    tlim = 0.05 ** 2 / (2 * d)
    result = run(tmp_path, PULSE, ["mesh.nx=[64]", f"hydro.conduction={kappa}", f"time.tlim={tlim}",
                                   "output.history=true"])
    sim = result.hydro
    p, rho = whole(sim, "pressure")[0], whole(sim, "density")[0]
    theta = p / rho * (p / p.mean()) ** (-(gamma - 1) / gamma) - 1.0
    x = (np.arange(64) + 0.5) / 64
    width2 = np.sum(theta * (x - 0.5) ** 2) / np.sum(theta)
    assert width2 / (0.05 ** 2 + 2 * d * result.time) == pytest.approx(1.0, abs=0.015)
    assert theta.max() == pytest.approx(0.01 / math.sqrt(2), rel=0.006)
    assert np.abs(p - 1.0).max() < 3e-4  # uniform to first order in the 1 % amplitude
    # the CFL condition sets dt here (c = 1.18): (gamma - 1) kappa is the diffusion's limit, 0.4 dx^2 / 0.008
    assert sim.diffusion.dt == pytest.approx(0.4 / 64 ** 2 / (2 * 0.4 * kappa), rel=1e-15)
    assert result.dt_limits["cfl"] == result.cycle - 1 and result.dt_limits["diffusion"] == 0
    rows = np.loadtxt(tmp_path / "output" / "pulse.hst")
    assert np.abs(rows[:, 7] / rows[0, 7] - 1).max() < 1e-15 and np.abs(rows[:, 4]).max() < 1e-17


def test_a_diagonal_shear_wave_decays_at_nu_k2_in_2d(tmp_path):
    """v = A sin(k . x) perpendicular to k = 2 pi (1, 1) on 32^2 cells in 4 blocks: divergence-free, so the
    stress's transposed gradient (the cross derivatives at the faces) cancels and the wave decays as
    exp(-nu |k|^2 t) (measured: 0.24 % faster; bound 1 %: without the cross terms the Laplacian alone, 3 % slower
    at k dx = 0.2 pi, would fail it). Both components decay alike, the density stays uniform to the O(A^2)
    heating's sound."""
    nu, tlim = 0.02, 0.25
    result = run(tmp_path, BOX, [f"hydro.viscosity={nu}", f"time.tlim={tlim}"])
    sim = result.hydro
    s = np.sin(2 * np.pi * (np.arange(32) + 0.5)[:, None] / 32 + 2 * np.pi * (np.arange(32) + 0.5)[None, :] / 32)
    decay = [np.sum(whole(sim, name) * s) / np.sum(s * s) / (0.01 / math.sqrt(2)) for name in ("velocity_2",
                                                                                               "velocity_1")]
    exact = math.exp(-nu * 8 * math.pi ** 2 * result.time)
    assert decay[0] / exact - 1 == pytest.approx(0.0, abs=0.01)
    assert -decay[1] == pytest.approx(decay[0], rel=1e-6)
    assert np.abs(whole(sim, "density") - 1.0).max() < 2e-5  # measured 4e-6, A^2 = 1e-4


@pytest.mark.parametrize("walls", ["periodic", "reflecting"])
def test_mass_momentum_and_energy_are_conserved_to_round_off(tmp_path, walls):
    """A lumpy, moving gas in a 2-D box with viscosity and conduction, 4 blocks, 10 steps: each face's diffusive
    flux is added once and subtracted once, across the blocks too. The totals change by round-off only (bound
    1e-14 relative; momentum against its scale, the total momentum |0.1| in x2). Reflecting walls in x2 are
    free-slip and insulating (the mirrored ghosts give no shear stress, work or heat flux through them): there
    too, all but the momentum normal to them (which the walls push). The diffusion did change the state (against
    the same split passes without it)."""
    overrides = ["problem.wave=false", "hydro.viscosity=0.01", "hydro.conduction=0.02", "time.nlim=10",
                 "output.history=true", f"mesh.bc_x2={walls}"]
    result = run(tmp_path, BOX, overrides)
    rows = np.loadtxt(tmp_path / "output" / "box.hst")
    assert rows.shape[0] == 11
    for column in (3, 4, 6, 7) if walls == "reflecting" else (3, 4, 5, 6, 7):
        scale = max(abs(rows[0, column]), 0.1)
        assert np.abs(rows[:, column] - rows[0, column]).max() < 1e-14 * scale, column
    plain = run(tmp_path, BOX, ["problem.wave=false", "hydro.stage=split", "time.nlim=10", f"mesh.bc_x2={walls}"]).hydro
    assert 0.01 < np.abs(whole(result.hydro, "velocity_1") - whole(plain, "velocity_1")).max() < 0.2


def test_without_diffusion_the_default_kernels_run(tmp_path):
    """viscosity = conduction = 0 (the defaults): the fused stages, no diffusive pass, no diffusion limit."""
    write(tmp_path / "case.py", "from brickwork.apps.hydro import Key\n" + SHEAR)
    for extra in ([], ["hydro.viscosity=0", "hydro.conduction=0.0"]):
        sim = hydro.Hydro(hydro.build_config({"problem": {"file": "case.py"}}, ["mesh.nx=[16]", *extra],
                                             base_dir=str(tmp_path)))
        assert sim.fused and not sim.diffusion.active and sim.diffusion.dt == math.inf
        assert _diffusion_note(sim, hydro.RunResult(0.0, 0)) == ""


@pytest.mark.parametrize("text, message", [
    ("viscosity = -0.1", r"^hydro.viscosity: must be >= 0, got -0.1$"),
    ("conduction = nan", r"^hydro.conduction: expected a finite number, got nan$"),
    ("conduction = inf", r"^hydro.conduction: expected a finite number, got inf$"),
    ("viscosity = 'lots'", r"^hydro.viscosity: expected a number, got the string 'lots'$"),
    ("viscosity = [0.1]", r"^hydro.viscosity: expected a number, got the list \[0.1\]$"),
    ("conduction = 0.1\nstage = 'fused'", r"^hydro.stage = 'fused' has no diffusive fluxes, and "
                                           r"hydro.conduction=0.1 asks for them: set hydro.stage = 'split' or 'auto'"),
    ("nu_iso = 0.1", r"unknown key 'hydro.nu_iso' in \S*in.toml \(Athena\+\+ / Parthenon's 'nu_iso': hydro.viscosity "),
    ("kappa_iso = 0.1", r"\(Athena\+\+ / Parthenon's 'kappa_iso': hydro.conduction \(a diffusivity: the heat flux "
                        r"is -kappa rho grad T"),
])
def test_bad_values_are_config_errors_naming_the_key(tmp_path, text, message):
    write(tmp_path / "case.py", "from brickwork.apps.hydro import Key\n" + SHEAR)
    (tmp_path / "in.toml").write_text(f'[problem]\nfile = "case.py"\n[mesh]\nnx = [16]\n[hydro]\n{text}\n')
    with pytest.raises(ConfigError, match=message):
        hydro.load_config(str(tmp_path / "in.toml"))


@pytest.mark.parametrize("override, message", [
    ("hydro.viscosity=-1", r"^override 'hydro.viscosity=-1': hydro.viscosity: must be >= 0, got -1.0$|"
                           r"^hydro.viscosity: must be >= 0, got -1.0$"),
    ("hydro.conduction=warm", r"hydro.conduction: expected a number, got the string 'warm'$"),
])
def test_bad_overrides_are_config_errors_naming_the_key(tmp_path, override, message):
    write(tmp_path / "case.py", "from brickwork.apps.hydro import Key\n" + SHEAR)
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"file": "case.py"}}, ["mesh.nx=[16]", override], base_dir=str(tmp_path))


def test_the_gpu_mapping_gives_the_cpu_run_and_the_diffusive_passes_compile_for_cuda(tmp_path):
    """The lumpy box with viscosity and conduction on the emulation target (the GPU mapping of every pass, a row of
    cells per team) gives the CPU's state; the diffusive passes' instances compile for CUDA with NVRTC (sm_90)
    where NVRTC is."""
    states = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target), gpu_compile.recording() as used:
            sim = run(tmp_path, BOX, ["problem.wave=false", "hydro.viscosity=0.05", "hydro.conduction=0.02",
                                      "time.nlim=2"]).hydro
        states[target] = (sim.time, [whole(sim, n) for n in ("density", "velocity_1", "velocity_2", "pressure")])
    (t_cpu, cpu), (t_emu, emu) = states["cpu"], states["cuda-emulation"]
    assert t_emu == t_cpu > 0
    for a, b in zip(emu, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-16)
    passes = [inst for inst in used if "diffusive_fluxes" in inst.label]
    assert len(passes) == 2  # one per direction
    if gpu_compile.available():
        assert all("diffusive_fluxes" in text for text in gpu_compile.compile_for_cuda(passes))


def test_a_time_step_that_the_diffusion_collapses_says_so(tmp_path):
    """A huge viscosity on 16 cells: dt = 0.4 / 16^2 / (2e12) ~ 7.8e-16, below 1e-12 * time.tlim; the message
    blames the diffusion limit and names both keys, before any step."""
    with pytest.raises(hydro.SimulationError, match=r"^cycle 0 \(t=0\): the time step collapsed to dt=7.813e-16, "
                                                    r"below 1e-12 \* time.tlim: .* The diffusion limit set it \(cfl \* "
                                                    r"dx\^2 / \(2 ndim D\) for cells 0.0625 wide, with "
                                                    r"hydro.viscosity=1e\+12 and hydro.conduction=0\): look for tiny "
                                                    r"cells or a huge diffusivity in the input, or set time.nlim"):
        run(tmp_path, SHEAR, ["mesh.nx=[16]", "hydro.viscosity=1e12"])


def test_on_a_device_the_diffusion_is_launches_only(tmp_path, fake):
    """On a CUDA device (the stand-in driver: launches are recorded, not run) each stage launches the diffusive
    pass of each direction with [nu, kappa, 1/dx1, 1/dx2, 1/dx3] by value, and a step after the first (which
    uploads the packs' address tables) copies nothing to the device."""
    write(tmp_path / "box.py", "from brickwork.apps.hydro import Key\n" + BOX)
    cfg = hydro.build_config(dict(QUIET, problem={"file": "box.py"}), ["hydro.device=cuda:0", "hydro.viscosity=0.01",
                                                                        "hydro.conduction=0.02"],
                             base_dir=str(tmp_path))
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    sim.step(1e-3)
    launches, uploaded = len(fake.launches), fake.uploaded
    sim.step(1e-3)
    coef = np.array([0.01, 0.02, *(1.0 / dx for dx in sim.kernels.dx)]).tobytes()
    assert sum(coef in p for *_, p in fake.launches[launches:]) == 4  # 2 directions x 2 stages
    assert fake.uploaded == uploaded


def test_a_restart_continues_the_diffusive_run_bit_for_bit(tmp_path):
    """The lumpy box with viscosity and conduction, 8 steps, and the same from its restart file of cycle 4: the
    diffusion keeps no state of its own, so the final states are the same bits."""
    common = ["problem.wave=false", "hydro.viscosity=0.05", "hydro.conduction=0.02", "time.nlim=8",
              "output.restart_dn=4"]
    whole_run = run(tmp_path, BOX, common).hydro
    rst = tmp_path / "output" / "box.rst.00000.npz"
    cfg = hydro.build_config(dict(QUIET, problem={"file": "case.py"}), [f"output.dir={tmp_path / 'again'}", *common],
                             base_dir=str(tmp_path))
    result = hydro.run(cfg, restart_file=str(rst))
    again = result.hydro
    assert again.cycle == whole_run.cycle == 8 and sum(result.dt_limits.values()) == 4  # from cycle 4
    for name in ("density", "momentum", "energy"):
        np.testing.assert_array_equal(again.state()[name], whole_run.state()[name])
