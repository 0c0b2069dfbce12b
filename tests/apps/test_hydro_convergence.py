"""Convergence on smooth linear waves after one period (the exact solution is the initial state).

* PLM (van Leer limiter), SSP-RK3, a sound wave of amplitude 1e-6 on 32, 64 and 128 cells: the L1
  density error falls with order >= 1.9 between 64 and 128 cells (measured 1.98; 1.87 from 32 to
  64, where the limiter still clips the extrema). The MC limiter gives 1.90 from 64 to 128 and
  1.98 from 128 to 256.
* WENO5, SSP-RK3, an entropy wave of amplitude 1e-3 (an exact, linear solution of the Euler
  equations, so no amplitude-squared error floor) with the time step shrinking as h^(5/3)
  (Courant number 0.8 (32/n)^(2/3)) so the RK3 error falls like the spatial one: order >= 4.5
  on both refinements (measured 5.04 and 5.01).
* PPM (Colella-Sekora limiter), SSP-RK3 at Courant number 0.4, the same entropy wave: order >= 2.6 from 32 to 64
  cells and >= 2.8 from 64 to 128 (measured 2.71 and 2.90; 3.00 from 128 to 256): the limiter keeps the smooth
  extrema (CW84's would clip them to first order), and RK3's error falls as fast as the reconstruction's.
* PPM with Roe on the PLM test's sound wave, in primitive variables and in characteristic ones (hydro.characteristic,
  Athena++'s xorder = 3c): primitive limiting stalls at orders 1.46 and 1.65 (the switches at the extrema act on
  each variable separately), characteristic limiting reaches 2.76 and 2.96 (32 to 128 cells; 2.97 to 256) with an
  error 15x smaller at 128 cells.
* WENO5 on the same sound wave with the entropy wave's shrinking time step, in characteristic variables (with Roe)
  and in primitive ones (HLLC): order 5.00 from 32 to 64 cells for both, the errors equal to 2e-6 (relative): at
  this amplitude the smoothness indicators are far below WENO's epsilon, so the weights are the linear ones in
  either variables and the two are the same fifth-order scheme (the sound wave's error floor, amplitude^2, is
  reached near 128 cells).

Blocks of 32 cells at every resolution: the hydro kernels take one form for rows shorter than 64 cells and
another for longer ones (la/outer.py SHORT_ROW), so each scheme compiles one set of kernels, not two.
"""

import numpy as np


def l1_error(run_hydro, n, wave, amplitude, hydro_keys):
    result = run_hydro({"problem": {"name": "linear_wave", "wave": wave, "amplitude": amplitude},
                        "mesh": {"nx": [n], "block_nx": [32]}, "hydro": dict(integrator="rk3", **hydro_keys)})
    sim = result.hydro
    rho = sim.to_global(sim.primitive("density"))[0, 0]
    x = (np.arange(n) + 0.5) / n
    exact = sim.cfg.problem.initial(x, 0.0, 0.0, sim.cfg["problem"], sim.gamma, xmin=(0.0,), xmax=(1.0,))[0]
    return float(np.abs(rho - exact).mean())


def orders(errors):
    return [float(np.log2(a / b)) for a, b in zip(errors, errors[1:])]


def test_plm_second_order(run_hydro):
    errors = [l1_error(run_hydro, n, "sound", 1e-6, {"reconstruction": "plm", "limiter": "van_leer", "cfl": 0.4})
              for n in (32, 64, 128)]
    o = orders(errors)
    assert o[1] >= 1.9, (errors, o)
    assert o[0] >= 1.8, (errors, o)


def test_weno5_fifth_order(run_hydro):
    errors = [l1_error(run_hydro, n, "entropy", 1e-3,
                       {"reconstruction": "weno5", "cfl": 0.8 * (32 / n) ** (2 / 3)}) for n in (32, 64, 128)]
    o = orders(errors)
    assert min(o) >= 4.5, (errors, o)
    assert errors[-1] < 2e-10


def test_ppm_third_order(run_hydro):
    errors = [l1_error(run_hydro, n, "entropy", 1e-3, {"reconstruction": "ppm", "cfl": 0.4}) for n in (32, 64, 128)]
    o = orders(errors)
    assert o[0] >= 2.6 and o[1] >= 2.8, (errors, o)
    assert errors[-1] < 1.3e-7  # measured 1.18e-7


def test_ppm_sound_wave_converges_in_characteristic_variables(run_hydro):
    """Bounds: the measured orders less 0.1 (the limiter's switches make them step, not drift, with the resolution),
    and the primitive run's order staying below 1.8 (measured 1.46, 1.65) so the test says what the key changes."""
    keys = {"reconstruction": "ppm", "riemann": "roe", "cfl": 0.4}
    char = [l1_error(run_hydro, n, "sound", 1e-6, dict(keys, characteristic=True)) for n in (32, 64, 128)]
    prim = [l1_error(run_hydro, n, "sound", 1e-6, keys) for n in (32, 64, 128)]
    assert orders(char)[0] >= 2.65 and orders(char)[1] >= 2.85, (char, orders(char))
    assert max(orders(prim)) < 1.8, (prim, orders(prim))
    assert char[-1] < prim[-1] / 10, (char, prim)  # measured 1.06e-10 and 1.58e-9


def test_weno5_sound_wave_in_characteristic_variables(run_hydro):
    """Characteristic WENO5 (the kernels of test_hydro_ppm_roe's weno5_char_roe runs) and primitive WENO5 (those of
    test_weno5_fifth_order): both fifth order (measured 4.997), the same errors to 2e-6 (see the module's docstring)."""
    errors = {char: [l1_error(run_hydro, n, "sound", 1e-6,
                              {"reconstruction": "weno5", "characteristic": char, "riemann": "roe" if char else "hllc",
                               "cfl": 0.8 * (32 / n) ** (2 / 3)}) for n in (32, 64)] for char in (True, False)}
    assert orders(errors[True])[0] >= 4.9, errors
    np.testing.assert_allclose(errors[True], errors[False], rtol=1e-4)
