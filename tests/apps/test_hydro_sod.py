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


def test_exact_solver_with_a_vacuum():
    """States pulled apart faster than their sound speeds can follow (Toro, section 4.6): two rarefactions with
    a vacuum between them. Checked with the invariants of each fan, not with the solver's own formulas."""
    g = 1.4
    left, right = (1.0, -10.0, 1.0), (0.125, 10.0, 0.1)
    assert exact_riemann.generates_vacuum(left, right, g)
    assert not exact_riemann.generates_vacuum((1.0, 0.0, 1.0), (0.125, 0.0, 0.1), g)
    with pytest.raises(exact_riemann.VacuumError, match=r"generate a vacuum: u_r - u_l = 20 >= 2 \(c_l \+ c_r\) / "
                                                         r"\(gamma - 1\) = 11\.2076"):
        exact_riemann.star_state(left, right, g)
    cl, cr = np.sqrt(g * 1.0 / 1.0), np.sqrt(g * 0.1 / 0.125)
    t, x0 = 0.02, 0.5
    rays = np.array([-12.0, -8.0, -5.0, 0.0, 2.0, 6.0, 8.0, 12.0])  # x / t
    rho, u, p = exact_riemann.solve(left, right, g, x0 + rays * t, t, x0)
    assert (rho[0], u[0], p[0]) == left and (rho[-1], u[-1], p[-1]) == right
    for n in (1, 2):  # left fan: u - c = x/t, u + 2c/(g-1) and p/rho^g carried from the left state
        c = np.sqrt(g * p[n] / rho[n])
        assert u[n] - c == pytest.approx(rays[n], abs=1e-12)
        assert u[n] + 2 * c / (g - 1) == pytest.approx(-10.0 + 2 * cl / (g - 1), abs=1e-12)
        assert p[n] / rho[n] ** g == pytest.approx(1.0, rel=1e-12)
    for n in (5, 6):  # right fan: u + c = x/t, u - 2c/(g-1) and p/rho^g from the right state
        c = np.sqrt(g * p[n] / rho[n])
        assert u[n] + c == pytest.approx(rays[n], abs=1e-12)
        assert u[n] - 2 * c / (g - 1) == pytest.approx(10.0 - 2 * cr / (g - 1), abs=1e-12)
        assert p[n] / rho[n] ** g == pytest.approx(0.1 / 0.125 ** g, rel=1e-12)
    # between the tails (-4.08 and 4.71): vacuum, with the ray's velocity
    np.testing.assert_array_equal(rho[3:5], [0.0, 0.0])
    np.testing.assert_array_equal(p[3:5], [0.0, 0.0])
    np.testing.assert_allclose(u[3:5], [0.0, 2.0], rtol=0, atol=1e-12)
