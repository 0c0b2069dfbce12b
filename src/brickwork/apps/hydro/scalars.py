"""Passive scalars of the hydro application (``[hydro] nscalars = N``).

A passive scalar is a concentration ``s_n`` carried with the gas (a dye, a metallicity, a tracer of
mixing): the mesh holds the conserved ``rho * s_n`` in the field ``scalars`` (``N`` components,
``FillGhost`` and ``WithFluxes`` like the other conserved fields, so ghost exchanges, boundary
conditions and MPI carry it), its stage copy in ``scalars_0``, and its concentration in the slots
``5 .. 5 + N - 1`` of ``prim``. The kernels (``kernels.py``) reconstruct ``s_n`` as the other
primitives and upwind it by the Riemann solver's mass flux: ``F_s = F_rho * s_left`` when
``F_rho >= 0``, else ``F_rho * s_right`` (Athena++'s and Parthenon's choice), so a scalar's mass moves
with the gas's and a uniform ``s`` stays uniform.

This module holds what is not kernel code: the fields, the initial values a problem sets
(``initial_scalars``), and the checks of a restart file's scalars and their names
(``hydro.scalar_names``, which a restart keeps: ``names_from_restart`` when the input is read,
``restart_names`` when the file is loaded); an input without ``hydro.nscalars`` read for a restart takes
the file's count (``count_from_restart``).
With ``N = 0`` none of it adds anything: the fields, kernels and files are those of a run without.
"""

from __future__ import annotations

from brickwork.io import block_restart
from brickwork.io.restart import RestartError
from brickwork.mesh import Metadata

from .config_checks import check_scalar_names, scalar_names
from .custom_problem import broadcast_values, failure
from .schema import ConfigError

#: the conserved ``rho * s_n`` and its stage copy
FIELD, FIELD0 = "scalars", "scalars_0"
#: the primitive slot of scalar 0 (after density, three velocities and pressure)
FIRST_SLOT = 5


def add_fields(pkg, nscalars: int, dtype, conserved: tuple) -> None:
    """Declare the scalar fields in the hydro package ``pkg`` (nothing when ``nscalars`` is 0);
    ``conserved`` is the metadata of the other conserved fields."""
    if nscalars:
        pkg.add_field(FIELD, Metadata(*conserved), shape=(nscalars,), dtype=dtype)
        pkg.add_field(FIELD0, Metadata("Cell", "Derived"), shape=(nscalars,), dtype=dtype)


def initial_block(problem, x1, x2, x3, params, nscalars: int, shape, xmin, xmax) -> list:
    """The ``nscalars`` initial concentrations of one block (arrays of its full ``(k, j, i)`` ``shape``):
    those the problem's ``initial_scalars(x1, x2, x3, params, xmin, xmax)`` returns (a sequence of at most
    ``nscalars`` arrays or numbers; a problem without the function sets none), the rest 0."""
    function = getattr(problem, "initial_scalars", None)
    given = []
    if function is not None:
        try:
            given = function(x1, x2, x3, params, xmin=xmin, xmax=xmax)
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001 - a problem of your own: one line naming its file and line
            raise failure(problem, "initial_scalars", e, params) from e
        what = f"problem {problem.NAME!r}: initial_scalars() must return a list of at most hydro.nscalars={nscalars}"
        if not isinstance(given, (tuple, list)):
            raise ConfigError(f"{what} arrays or numbers, got {type(given).__name__}")
        if len(given) > nscalars:
            raise ConfigError(f"{what} arrays or numbers (one per scalar it sets), got {len(given)}")
    values = [(f"scalar {n}", given[n] if n < len(given) else 0.0) for n in range(nscalars)]
    return broadcast_values(values, shape, f"problem {problem.NAME!r}: initial_scalars() must return arrays that "
                                           f"broadcast to the block's cells, ghosts included, {shape} (k, j, i)")


def stored_count(arrays: dict) -> int:
    """The number of scalars of a restart file's ``arrays`` (name -> ``(dtype, shape)``): 0 for a file
    written before scalars existed, or with ``nscalars = 0``."""
    found = arrays.get(FIELD)
    return int(found[1][1]) if found is not None and len(found[1]) > 1 else 0


def check_restart(path: str, arrays: dict, nscalars: int) -> None:
    """``RestartError`` when the restart file ``path`` (its ``arrays``) holds another number of scalars
    than this run's ``hydro.nscalars``."""
    theirs = stored_count(arrays)
    if theirs != nscalars:
        raise RestartError(f"restart file {path!r} holds {theirs} passive scalars (hydro.nscalars={theirs}), but "
                           f"this run has hydro.nscalars={nscalars}: a restart continues the same scalars (set "
                           f"hydro.nscalars={theirs}, or leave it out of an input read with the file, as brickwork "
                           f"run --restart and load_config(..., restart=FILE) read it)")


def count_from_restart(hydro: dict, path: str) -> None:
    """Complete the ``[hydro]`` section of a run restarting from the file ``path`` whose input sets no
    ``hydro.nscalars``: the number of scalars the file holds. ``RestartError`` for a file that cannot be
    opened."""
    with block_restart.BlockFile(path) as source:
        hydro["nscalars"] = stored_count(source.arrays)


def stored_names(meta: dict, nscalars: int) -> list[str] | None:
    """The names a restart file's ``meta``data records for its ``nscalars`` scalars; None when it records
    none (a file from before the names were stored, or of another number of scalars)."""
    hydro = meta.get("config", {}).get("hydro", {}) if isinstance(meta.get("config"), dict) else {}
    stored = hydro.get("scalar_names") if isinstance(hydro, dict) else None
    if isinstance(stored, list) and len(stored) == nscalars and all(isinstance(n, str) for n in stored):
        return list(stored)
    return None


def names_from_restart(hydro: dict, problem, path: str) -> None:
    """Complete the ``[hydro]`` section of a run restarting from the file ``path``: when the input names
    no scalars, the names the file records (so that ``output.png_variable`` may name them), checked as
    the input's are. ``RestartError`` for a file that cannot be opened (only read when it is needed)."""
    if hydro["scalar_names"] is not None or not hydro["nscalars"]:
        return
    with block_restart.BlockFile(path) as source:
        names = stored_names(source.meta, hydro["nscalars"])
    if names is not None:
        check_scalar_names({**hydro, "scalar_names": names}, problem,
                           f"hydro.scalar_names stored in restart file {path!r}")
        hydro["scalar_names"] = names


def restart_names(path: str, meta: dict, sim) -> list[str]:
    """The scalar names of a run restarted from the file ``path`` (its ``meta``data): the file's, which
    the outputs and the history go on with; ``RestartError`` when this run's input names them otherwise.
    A file from before the names were stored, or of a run that named none, has the default names."""
    theirs = stored_names(meta, sim.nscalars) or scalar_names({"nscalars": sim.nscalars})
    given = sim.cfg["hydro"].get("scalar_names")
    if given is not None and list(given) != theirs:
        raise RestartError(f"restart file {path!r} names its passive scalars {theirs} (hydro.scalar_names), but "
                           f"this run names them {list(given)}: a restart keeps the names of its scalars (set "
                           f"hydro.scalar_names = {theirs}, or leave it out)")
    return theirs
