"""A problem of your own for the hydro application: a dense bubble carried by a uniform wind (2-D).

Not a script: ``examples/bubble.toml`` names this file (``problem.file``), and ``brickwork run
examples/bubble.toml`` reads it; see docs/hydro.md, "Problems of your own".
"""

import numpy as np

from brickwork.apps.hydro import Key

NAME = "bubble"  # problem.name, and the default output.basename
DIMENSIONS = (2,)  # the dimensions it runs in
PARAMS = {  # its [problem] keys, typed and checked like every other key
    "rho_bubble": Key("float", 10.0, "density in the bubble", minimum=0.0, open_min=True),
    "radius": Key("float", 0.1, "radius of the bubble", minimum=0.0, open_min=True),
    "wind": Key("float", 1.0, "x1 velocity of the gas"),
}
DEFAULTS = {  # defaults of the other sections (the input file and the command line come on top)
    "mesh": {"nx": [128, 64], "xmin": [0.0, 0.0], "xmax": [2.0, 1.0], "bc_x1": "outflow", "bc_x2": "periodic"},
    "time": {"tlim": 0.5},
}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    """The primitive state (density, v1, v2, v3, pressure) at one block's cell centres, ghosts included:
    x1 has shape (1, 1, ni), x2 (1, nj, 1), x3 (nk, 1, 1); numbers stand for uniform values."""
    r2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2
    density = np.where(r2 < p["radius"] ** 2, p["rho_bubble"], 1.0)
    return density, p["wind"], 0.0, 0.0, 1.0


def initial_scalars(x1, x2, x3, p, xmin, xmax):
    """With ``hydro.nscalars >= 1`` (``brickwork run examples/bubble.toml hydro.nscalars=1``): scalar 0 marks
    the bubble's gas, 1 inside, 0 outside; the rest start at 0."""
    r2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2
    return [np.where(r2 < p["radius"] ** 2, 1.0, 0.0)]
