"""Kelvin-Helmholtz instability (2-D, periodic): two smooth shear layers at 1/4 and 3/4 of the
height, a denser band between them, and a small vertical-velocity seed localised on the layers
(a smooth set-up in the spirit of Lecoanet et al. 2016, MNRAS 455, 4274)."""

from __future__ import annotations

import numpy as np

from ..schema import Key

NAME = "kelvin_helmholtz"
DIMENSIONS = (2,)
PARAMS = {
    "drho": Key("float", 1.0, "density contrast: the band has 1 + drho", minimum=-1.0, open_min=True),
    "shear": Key("float", 0.5, "x1 velocity of each layer (+-shear)"),
    "width": Key("float", 0.025, "thickness of the shear layers (fraction of the height)", minimum=0.0,
                 open_min=True),
    "mode": Key("int", 2, "number of wavelengths of the seed across x1", minimum=1),
    "sigma": Key("float", 0.1, "thickness of the seed perturbation (fraction of the height)", minimum=0.0,
                 open_min=True),
    "amplitude": Key("float", 0.01, "amplitude of the seed (x2 velocity)"),
    "pressure": Key("float", 2.5, "uniform pressure", minimum=0.0, open_min=True),
}
DEFAULTS = {
    "mesh": {"nx": [256, 256], "xmin": [0.0, 0.0, 0.0], "xmax": [1.0, 1.0, 1.0]},
    "hydro": {"gamma": 5.0 / 3.0},
    "time": {"tlim": 1.5},
}


def initial(x1, x2, x3, p, gamma, xmin=(0.0, 0.0), xmax=(1.0, 1.0)):
    lx1 = xmax[0] - xmin[0]
    ly = xmax[1] - xmin[1]
    y1, y2 = xmin[1] + 0.25 * ly, xmin[1] + 0.75 * ly
    a, s = p["width"] * ly, p["sigma"] * ly
    profile = np.tanh((x2 - y1) / a) - np.tanh((x2 - y2) / a)  # 0 outside the band, 2 inside
    rho = 1.0 + p["drho"] * 0.5 * profile
    v1 = p["shear"] * (profile - 1.0)
    v2 = p["amplitude"] * np.sin(2.0 * np.pi * p["mode"] * (x1 - xmin[0]) / lx1) * (
        np.exp(-((x2 - y1) ** 2) / s**2) + np.exp(-((x2 - y2) ** 2) / s**2))
    rho, v1, v2 = np.broadcast_arrays(rho, v1, v2)
    return rho, v1, v2, np.zeros_like(rho), np.full_like(rho, p["pressure"])


def initial_scalars(x1, x2, x3, p, xmin=(0.0, 0.0), xmax=(1.0, 1.0)):
    """With ``hydro.nscalars >= 1``: scalar 0 marks the inner stream, 1 inside the band, 0 outside, with the
    shear layers' tanh profile (a tracer of the mixing)."""
    ly = xmax[1] - xmin[1]
    a = p["width"] * ly
    return [0.5 * (np.tanh((x2 - (xmin[1] + 0.25 * ly)) / a) - np.tanh((x2 - (xmin[1] + 0.75 * ly)) / a))]
