"""A viscous shear layer: the transverse velocity ``v2 = A sin(2 pi x1)`` in a uniform gas decays by the
viscosity (``hydro.viscosity``, Athena++'s ``nu_iso``) as ``exp(-nu k^2 t)``, ``k = 2 pi``.

A problem file (``[problem] file = "viscous_shear.py"``, ``viscous_shear.toml``) and a script: run
``python examples/viscous_shear.py [nx ...]`` to step it to ``t = 0.5`` on each number of cells (16, 32, 64 by
default) and print the decay against ``exp(-nu k^2 t)`` and the order of convergence between resolutions.
"""

import math
import sys

import numpy as np

from brickwork.apps.hydro import Key

NAME = "viscous_shear"
DIMENSIONS = (1,)
PARAMS = {"amplitude": Key("float", 0.01, "amplitude of v2")}
DEFAULTS = {"mesh": {"nx": [64], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "periodic"},
            "hydro": {"gamma": 1.4, "viscosity": 0.05}, "time": {"tlim": 0.5}}
K = 2.0 * math.pi


def initial(x1, x2, x3, params, gamma, xmin, xmax):
    return 1.0, 0.0, params["amplitude"] * np.sin(K * x1), 0.0, 1.0


def measure(nx: int, tlim: float = 0.5, overrides=(), base_dir: str = "."):
    """Run the layer on ``nx`` cells to ``tlim``; ``(decay, exp(-nu k^2 t), run result)``, the decay being the
    sin(k x1) amplitude of v2 over its initial one."""
    from brickwork.apps import hydro

    cfg = hydro.build_config({"problem": {"file": __file__}, "mesh": {"nx": [nx]}, "time": {"tlim": tlim},
                              "output": {"hdf5_dt": -1, "history": False, "progress": False}}, list(overrides),
                             base_dir=base_dir)
    result = hydro.run(cfg)
    sim = result.hydro
    v2 = sim.to_global(sim.primitive("velocity_2"))[0, 0]
    x1 = (np.arange(nx) + 0.5) / nx
    decay = 2.0 / nx * float(v2 @ np.sin(K * x1)) / cfg["problem"]["amplitude"]
    return decay, math.exp(-cfg["hydro"]["viscosity"] * K * K * result.time), result


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [16, 32, 64]
    previous = None
    for nx in sizes:
        decay, exact, _ = measure(nx)
        error = decay / exact - 1.0
        order = f", order {math.log2(previous / error):.2f}" if previous else ""
        print(f"{nx:5d} cells: decay {decay:.6f}, exp(-nu k^2 t) = {exact:.6f}, error {error:+.3e}{order}")
        previous = error
