"""Sod's shock tube against the exact Riemann solution, for every scheme choice and both precisions."""

import numpy as np
import pytest

from brickwork.apps.hydro.problems import exact_riemann

N = 256  # cells; the L1 bounds below are stated at this resolution, t = 0.2


def sod_l1(run_hydro, **hydro_keys):
    result = run_hydro({"problem": {"name": "sod"}, "mesh": {"nx": [N], "block_nx": [64]}, "hydro": hydro_keys})
    sim = result.hydro
    assert result.time == pytest.approx(0.2, abs=1e-14)
    rho = sim.to_global(sim.primitive("density"))[0, 0]
    x = (np.arange(N) + 0.5) / N
    exact = sim.cfg.problem.exact(x, result.time, sim.cfg["problem"], sim.gamma)[0]
    return float(np.abs(rho - exact).mean()), rho


def test_exact_solver_matches_toro():
    # Toro (2009), table 4.2, test 1 (Sod): p* = 0.30313, u* = 0.92745
    p, u = exact_riemann.star_state((1.0, 0.0, 1.0), (0.125, 0.0, 0.1), 1.4)
    assert p == pytest.approx(0.30313, abs=1e-5) and u == pytest.approx(0.92745, abs=1e-5)
    # the 123 problem (two rarefactions): p* = 0.00189, u* = 0
    p, u = exact_riemann.star_state((1.0, -2.0, 0.4), (1.0, 2.0, 0.4), 1.4)
    assert p == pytest.approx(0.00189, abs=1e-5) and u == pytest.approx(0.0, abs=1e-12)
    rho, vel, pres = exact_riemann.solve((1.0, 0.0, 1.0), (0.125, 0.0, 0.1), 1.4, [0.1, 0.6, 0.8, 0.95], 0.2, 0.5)
    assert rho[0] == 1.0 and rho[-1] == 0.125 and pres[1] == pytest.approx(0.30313, abs=1e-5)
    assert rho[1] == pytest.approx(0.42632, abs=1e-5) and rho[2] == pytest.approx(0.26557, abs=1e-5)


def test_sod_l1_density_error_plm_mc_hllc_rk2(run_hydro):
    error, _ = sod_l1(run_hydro)
    assert error < 2.5e-3  # measured 2.09e-3


@pytest.mark.parametrize("keys, bound", [
    ({"riemann": "hlle"}, 2.6e-3),              # measured 2.17e-3
    ({"limiter": "minmod"}, 4.0e-3),            # measured 3.39e-3
    ({"limiter": "van_leer"}, 2.8e-3),          # measured 2.33e-3
    ({"reconstruction": "weno5"}, 2.4e-3),      # measured 1.94e-3
    ({"integrator": "rk3"}, 2.5e-3),            # measured 2.04e-3
], ids=["hlle", "minmod", "van_leer", "weno5", "rk3"])
def test_sod_other_schemes(run_hydro, keys, bound):
    error, _ = sod_l1(run_hydro, **keys)
    assert error < bound


def test_sod_float32_runs_and_matches_float64(run_hydro):
    error32, rho32 = sod_l1(run_hydro, dtype="float32")
    error64, rho64 = sod_l1(run_hydro)
    assert error32 < 2.5e-3
    assert np.abs(rho32 - rho64).max() < 1e-3  # same scheme, single-precision rounding only
    assert not np.array_equal(rho32, rho64)
