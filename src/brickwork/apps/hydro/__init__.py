"""Compressible Euler hydrodynamics on brickwork's block mesh, written with the loop abstraction.

A run from Python::

    from brickwork.apps import hydro
    cfg = hydro.load_config("examples/sod.toml", ["hydro.cfl=0.3"])
    result = hydro.run(cfg)

Modules: ``config`` (input files: layering, overrides), ``schema`` (every key, typed values, errors),
``config_checks`` (checks across keys), ``problems`` (sod, kelvin_helmholtz, blast,
linear_wave, and the exact Riemann solver), ``custom_problem`` (problems of your own: ``problem.file``,
``register_problem``), ``reconstruction`` (PLM: minmod, van Leer, MC; PPM; WENO5),
``riemann`` (HLLE, HLLC), ``roe`` (LLF, Roe), ``kernels`` (the loop-abstraction kernels), ``solver`` (state and SSP-RK
stepping), ``driver`` (time loop), ``preflight`` (checks before a run), ``outputs`` (the outputs of a
state), ``rank_errors`` (errors agreed across MPI ranks), ``schedule`` (when outputs are due), ``checkpoint``
(restart files: their metadata and its checks), ``progress``, ``demo``. See docs/hydro.md.
"""

from .config import Config, ConfigError, Key
from .config import build as build_config
from .config import load as load_config
from .custom_problem import register as register_problem
from .driver import RunResult, run
from .rank_errors import SimulationError
from .solver import BadStateError, Hydro

__all__ = ["Config", "ConfigError", "build_config", "load_config", "run", "RunResult", "SimulationError", "Hydro",
           "BadStateError", "Key", "register_problem"]
