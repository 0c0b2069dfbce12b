"""A blast wave (2-D or 3-D): a sphere of high pressure in a uniform gas (Athena's test: pressure
10 inside radius 0.1, 0.1 outside, density 1), periodic by default."""

from __future__ import annotations

import numpy as np

from ..schema import Key

NAME = "blast"
DIMENSIONS = (2, 3)
PARAMS = {
    "density": Key("float", 1.0, "uniform density", minimum=0.0, open_min=True),
    "p_in": Key("float", 10.0, "pressure inside the sphere", minimum=0.0, open_min=True),
    "p_out": Key("float", 0.1, "pressure outside", minimum=0.0, open_min=True),
    "radius": Key("float", 0.1, "radius of the sphere", minimum=0.0, open_min=True),
}
DEFAULTS = {
    "mesh": {"nx": [200, 200], "xmin": [-0.5, -0.5, -0.5], "xmax": [0.5, 0.5, 0.5]},
    "hydro": {"gamma": 5.0 / 3.0},
    "time": {"tlim": 0.2},
}


def initial(x1, x2, x3, p, gamma, xmin=(0.0, 0.0, 0.0), xmax=(1.0, 1.0, 1.0)):
    ndim = len(xmin)
    centre = [0.5 * (lo + hi) for lo, hi in zip(xmin, xmax)]
    r2 = (x1 - centre[0]) ** 2 + (x2 - centre[1]) ** 2
    if ndim == 3:
        r2 = r2 + (x3 - centre[2]) ** 2
    pres = np.where(r2 < p["radius"] ** 2, p["p_in"], p["p_out"])
    rho = np.full_like(pres, p["density"])
    zero = np.zeros_like(pres)
    return rho, zero, zero, zero, pres
