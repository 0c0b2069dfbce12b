"""Rayleigh-Taylor instability: heavy gas (density 2) on light (1) under gravity ``g = -1`` in x2, one mode
``k = 2 pi / 0.5`` seeded in the velocity; its linear growth rate is compared with the incompressible
``sigma = sqrt(A g k)``, ``A = (2 - 1) / (2 + 1)``.

A problem file (``[problem] file = "rayleigh_taylor.py"``, ``rayleigh_taylor.toml``) and a script: run
``python examples/rayleigh_taylor.py [nx2]`` to step it (64 x 128 cells by default, to ``t = 1.5``) and print
the growth rate that fits the mode's amplitude against ``sqrt(A g k)``.
"""

import math
import sys

import numpy as np

from brickwork.apps.hydro import Key

NAME = "rayleigh_taylor"
DIMENSIONS = (2,)
PARAMS = {"amplitude": Key("float", 1e-3, "velocity of the seeded mode"),
          "p0": Key("float", 2.5, "pressure at the interface")}
DEFAULTS = {"mesh": {"nx": [64, 128], "block_nx": [16, 16], "xmin": [-0.25, -0.5], "xmax": [0.25, 0.5],
                     "bc_x1": "periodic", "bc_x2": "reflecting"},
            "hydro": {"gamma": 1.4, "gravity": [0.0, -1.0]}, "time": {"tlim": 1.5}}
K = 2.0 * math.pi / 0.5  # the mode: one wavelength across the box
ATWOOD = (2.0 - 1.0) / (2.0 + 1.0)


def initial(x1, x2, x3, params, gamma, xmin, xmax):
    rho = np.where(x2 > 0.0, 2.0, 1.0)
    pressure = params["p0"] - rho * x2  # hydrostatic under g = -1, continuous at the interface
    v2 = params["amplitude"] * np.cos(K * x1) * np.exp(-K * np.abs(x2))  # the linear mode's velocity
    return rho, 0.0, v2, 0.0, pressure


def mode_amplitude(sim) -> float:
    """The largest over the rows of the cos(k x1) Fourier amplitude of v2 (the walls' x1-independent error
    drops out of it)."""
    v2 = sim.to_global(sim.primitive("velocity_2"))[0]  # (nx2, nx1)
    x1 = (np.arange(v2.shape[1]) + 0.5) / v2.shape[1] * 0.5 - 0.25
    return float(np.abs(v2 @ np.cos(K * x1)).max() * 2.0 / v2.shape[1])


def growth_rate(times, amplitudes) -> float:
    """The sigma of the best fit ``A0 cosh(sigma t)`` (a velocity seeded alone grows so) over the amplitudes."""
    t, log_a = np.asarray(times), np.log(np.asarray(amplitudes))
    best = None
    for sigma in np.linspace(0.2, 4.0, 3801):
        model = np.log(np.cosh(sigma * t))
        residual = log_a - model - np.mean(log_a - model)
        err = float(residual @ residual)
        if best is None or err < best[0]:
            best = (err, sigma)
    return float(best[1])


def measure(nx2: int = 128, tlim: float = 1.5, base_dir: str = "."):
    """Run the problem with ``nx2`` cells in x2 (half as many in x1); ``(fitted sigma, sqrt(A g k))``."""
    from brickwork.apps import hydro

    cfg = hydro.build_config({"problem": {"file": __file__}, "mesh": {"nx": [nx2 // 2, nx2]}, "time": {"tlim": tlim},
                              "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "history": False,
                                         "progress": False}}, [], base_dir=base_dir)
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    times, amplitudes = [], []
    while sim.time < tlim - 1e-12:
        dt = min(sim.check(), tlim - sim.time)
        sim.step(dt)
        if sim.time >= 0.2 * tlim:  # past the first sound crossings of the seeded velocity
            times.append(sim.time)
            amplitudes.append(mode_amplitude(sim))
    return growth_rate(times, amplitudes), math.sqrt(ATWOOD * 1.0 * K)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    sigma, theory = measure(n)
    print(f"{n // 2} x {n} cells: growth rate {sigma:.3f}, sqrt(A g k) = {theory:.3f} ({sigma / theory:.1%})")
