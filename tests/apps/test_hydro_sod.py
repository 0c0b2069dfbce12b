"""Sod's shock tube against the exact Riemann solution, for every scheme choice and both precisions."""

import warnings

import numpy as np
import pytest

from brickwork.apps.hydro.problems import exact_riemann

N = 256  # cells; the L1 bounds below are stated at this resolution, t = 0.2
# Blocks of 32 cells: rows under 64 cells take the hydro kernels' short-row form (la/outer.py SHORT_ROW), the one
# test_hydro_convergence's PLM van Leer and WENO5 runs and test_hydro_conservation's linear waves compile, so
# these schemes reuse the session cache's kernels instead of compiling a long-row form of their own.


def sod_l1(run_hydro, **hydro_keys):
    result = run_hydro({"problem": {"name": "sod"}, "mesh": {"nx": [N], "block_nx": [32]}, "hydro": hydro_keys})
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
    ({"reconstruction": "ppm"}, 2.3e-3),        # measured 1.91e-3
    ({"riemann": "llf"}, 3.3e-3),               # measured 2.77e-3
    ({"riemann": "roe"}, 2.3e-3),               # measured 1.93e-3
    # characteristic variables (Athena++'s xorder = 3c / 2c); PPM with Roe shares test_hydro_characteristic's kernels
    ({"reconstruction": "ppm", "characteristic": True, "riemann": "roe"}, 2.2e-3),  # measured 1.80e-3
    ({"characteristic": True}, 2.6e-3),        # measured 2.16e-3 (PLM-MC, HLLC)
], ids=["hlle", "minmod", "van_leer", "weno5", "rk3", "ppm", "llf", "roe", "ppm_char_roe", "plm_char"])
def test_sod_other_schemes(run_hydro, keys, bound):
    error, _ = sod_l1(run_hydro, **keys)
    assert error < bound


def test_sod_weno5_in_characteristic_variables_oscillates_less(run_hydro):
    """WENO5 in characteristic variables with Roe (test_hydro_ppm_roe's weno5_char_roe kernels): an L1 error as
    primitive WENO5's (measured 1.93e-3; primitive 1.94e-3 with HLLC, 1.86e-3 with Roe) and less spurious variation:
    the density's total variation is 0.8781 where the exact solution's is 1 - 0.125 = 0.875 (primitive WENO5:
    0.8908 with HLLC, 0.8895 with Roe)."""
    error, rho = sod_l1(run_hydro, reconstruction="weno5", characteristic=True, riemann="roe")
    assert error < 2.3e-3
    assert 0.875 <= np.abs(np.diff(rho)).sum() < 0.880


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


@pytest.mark.parametrize("left, right", [
    ((1.0, 0.0, 1.0), (0.125, 0.0, 0.1)),      # Sod: a rarefaction and a shock
    ((1.0, -2.0, 0.4), (1.0, 2.0, 0.4)),       # Toro's 123 problem: two rarefactions
    ((1.0, 0.0, 1000.0), (1.0, 0.0, 0.01)),    # Toro's test 3: a strong shock
], ids=["sod", "123", "strong_shock"])
@pytest.mark.parametrize("s", [1e-6, 1e-14, 1e-20, 1e-100])
def test_exact_solver_is_invariant_under_pressure_scaling(left, right, s):
    """Pressures times s, velocities times sqrt(s): the same solution at time t / sqrt(s), whatever the
    scale (an absolute floor on p* of 1e-12 used to give a density error of 5.5 at s = 1e-14)."""
    g, t, x = 1.4, 0.01, np.linspace(0.0, 1.0, 201)
    scaled = [(r, u * np.sqrt(s), p * s) for r, u, p in (left, right)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either
        rho, u, p = exact_riemann.solve(left, right, g, x, t, 0.5)
        rho_s, u_s, p_s = exact_riemann.solve(*scaled, g, x, t / np.sqrt(s), 0.5)
    np.testing.assert_allclose(rho_s, rho, rtol=1e-12, atol=0)
    np.testing.assert_allclose(u_s / np.sqrt(s), u, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(p_s / s, p, rtol=1e-12, atol=0)
    ps, us = exact_riemann.star_state(*scaled, g)
    ps1, us1 = exact_riemann.star_state(left, right, g)
    assert ps == pytest.approx(ps1 * s, rel=1e-13) and us == pytest.approx(us1 * np.sqrt(s), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("right", [(1e-20, 0.0, 1e-20), (1e-300, 0.0, 1e-300), (0.125, 0.0, 1e-20), (1e-20, 0.0, 0.1)])
def test_exact_solver_near_a_vacuum(right):
    """A shock into a near vacuum, or a rarefaction into one: finite everywhere, no warnings, and p*
    solves the star-state equation f_L(p*) + f_R(p*) + u_R - u_L = 0 to the last digits of p*."""
    g, left = 1.4, (1.0, 0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rho, u, p = exact_riemann.solve(left, right, g, np.linspace(0.0, 1.0, 401), 0.2, 0.5)
        ps, us = exact_riemann.star_state(left, right, g)
    assert np.isfinite(rho).all() and np.isfinite(u).all() and np.isfinite(p).all()
    assert (rho > 0).all() and (p > 0).all()
    cl, cr = np.sqrt(g * left[2] / left[0]), np.sqrt(g * right[2] / right[0])
    assert min(left[2], right[2]) < ps < max(left[2], right[2])  # one shock, one rarefaction
    assert 0 < us <= 2 * cl / (g - 1)  # at most the escape speed of the left gas into a vacuum
    # Newton's next step from p* (the residual over the slope) is below 1e-12 of p*
    fl, dfl = exact_riemann._f_and_df(ps, left[0], left[2], float(cl), g)
    fr, dfr = exact_riemann._f_and_df(ps, right[0], right[2], float(cr), g)
    assert abs(fl + fr + right[1] - left[1]) / (dfl + dfr) <= 1e-12 * ps
