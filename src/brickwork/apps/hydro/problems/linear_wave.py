"""A linear wave along x1 (periodic): a sound wave (right-moving eigenvector) or an entropy wave
(density only, advected with ``velocity``), of small ``amplitude`` on a uniform background. After
one period the exact solution is the initial state, which makes the L1 error a convergence test.
The defaults give a sound speed of 1 (gamma 5/3, density 1, pressure 0.6): one period at t = 1 on
a unit domain."""

from __future__ import annotations

import numpy as np

from ..schema import Key

NAME = "linear_wave"
DIMENSIONS = (1, 2, 3)
PARAMS = {
    "wave": Key("str", "sound", "sound or entropy", choices=("sound", "entropy")),
    "amplitude": Key("float", 1e-6, "relative amplitude"),
    "density": Key("float", 1.0, "background density", minimum=0.0, open_min=True),
    "pressure": Key("float", 0.6, "background pressure", minimum=0.0, open_min=True),
    "velocity": Key("float", 1.0, "background x1 velocity of the entropy wave (the sound wave's is 0)"),
}
DEFAULTS = {
    "mesh": {"nx": [64], "xmin": [0.0, 0.0, 0.0], "xmax": [1.0, 1.0, 1.0]},
    "hydro": {"gamma": 5.0 / 3.0},
    "time": {"tlim": 1.0},
}


def initial(x1, x2, x3, p, gamma, xmin=(0.0,), xmax=(1.0,), t=0.0):
    rho0, p0, a = p["density"], p["pressure"], p["amplitude"]
    length = xmax[0] - xmin[0]
    if p["wave"] == "sound":
        c = np.sqrt(gamma * p0 / rho0)
        s = np.sin(2.0 * np.pi * (x1 - xmin[0] - c * t) / length)
        rho = rho0 * (1.0 + a * s)
        v1 = a * c * s
        pres = p0 + a * rho0 * c * c * s
    else:
        v0 = p["velocity"]
        s = np.sin(2.0 * np.pi * (x1 - xmin[0] - v0 * t) / length)
        rho = rho0 * (1.0 + a * s)
        v1 = np.full_like(rho, v0)
        pres = np.full_like(rho, p0)
    zero = np.zeros_like(rho)
    return rho, v1, zero, zero, pres
