"""Sod's shock tube (1-D along x1): a left and a right state separated at ``x0``, outflow ends.

The exact solution (``exact``) comes from ``exact_riemann``; the default states are Sod's (1978).
"""

from __future__ import annotations

import numpy as np

from ..config import ConfigError, Key
from . import exact_riemann

NAME = "sod"
DIMENSIONS = (1, 2, 3)
PARAMS = {
    "rho_l": Key("float", 1.0, "left density", minimum=0.0, open_min=True),
    "u_l": Key("float", 0.0, "left velocity"),
    "p_l": Key("float", 1.0, "left pressure", minimum=0.0, open_min=True),
    "rho_r": Key("float", 0.125, "right density", minimum=0.0, open_min=True),
    "u_r": Key("float", 0.0, "right velocity"),
    "p_r": Key("float", 0.1, "right pressure", minimum=0.0, open_min=True),
    "x0": Key("float", 0.5, "initial position of the discontinuity"),
}
DEFAULTS = {
    "mesh": {"nx": [256], "xmin": [0.0, 0.0, 0.0], "xmax": [1.0, 1.0, 1.0], "bc_x1": "outflow"},
    "hydro": {"gamma": 1.4},
    "time": {"tlim": 0.2},
}


def check(sections: dict) -> None:
    p, mesh = sections["problem"], sections["mesh"]
    if not mesh["xmin"][0] < p["x0"] < mesh["xmax"][0]:
        raise ConfigError(f"problem.x0={p['x0']} must lie inside the domain ({mesh['xmin'][0]}, {mesh['xmax'][0]})")


def initial(x1, x2, x3, p, gamma, xmin=None, xmax=None):
    left = x1 < p["x0"]
    rho = np.where(left, p["rho_l"], p["rho_r"])
    u = np.where(left, p["u_l"], p["u_r"])
    pres = np.where(left, p["p_l"], p["p_r"])
    zero = np.zeros_like(rho)
    return rho, u, zero, zero, pres


def exact(x1, t, p, gamma):
    """The exact ``(density, velocity, pressure)`` at positions ``x1`` and time ``t``."""
    return exact_riemann.solve((p["rho_l"], p["u_l"], p["p_l"]), (p["rho_r"], p["u_r"], p["p_r"]), gamma, x1, t,
                               x0=p["x0"])


def initial_scalars(x1, x2, x3, p, xmin=None, xmax=None):
    """With ``hydro.nscalars >= 1``: scalar 0 marks the left state (1 left of ``x0``, 0 right of it), so its
    jump follows the contact."""
    return [np.where(x1 < p["x0"], 1.0, 0.0)]
