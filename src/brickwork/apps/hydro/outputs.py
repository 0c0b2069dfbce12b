"""The outputs of a hydro run's state (``write_state``): the history row, then each output that is due
(HDF5 + XDMF, VTK, restart file, PNG), collectively on every MPI rank, rank 0 writing what every rank
sends. A failed output names the output, cycle and time; the outputs due after it are not written."""

from __future__ import annotations

import os

import numpy as np

from brickwork.io import block_restart, hdf5, png, vtk
from brickwork.io.files import OutputError, discard, output_error
from brickwork.mesh.output import block_geometry
from brickwork.mesh.streams import write_on_rank_0

from . import checkpoint, user_history
from .config import ConfigError
from .custom_problem import USER_ERRORS, derived_outputs, failure
from .rank_errors import agree
from .schedule import KINDS, Schedule
from .solver import Hydro


def _hdf5_variables(sim: Hydro) -> dict:
    """The variables of an HDF5 output: name -> a function giving this rank's blocks ``(blocks, nk, nj, ni)``
    of it (called in order, one at a time: a variable exists for one part of the output only)."""
    dtype = sim.np_dtype
    variables = {"density": lambda: sim.interior("density")}
    for c in range(3):
        variables[f"momentum_{c + 1}"] = lambda c=c: sim.interior("momentum", c)
    variables["energy"] = lambda: sim.interior("energy")
    for name in ("pressure", "velocity_1", "velocity_2", "velocity_3"):
        variables[name] = lambda name=name: sim.primitive(name).astype(dtype)
    for name in sim.scalar_names:  # the passive scalars' concentrations
        variables[name] = lambda name=name: sim.primitive(name).astype(dtype)
    variables.update(derived_outputs(sim))  # a problem's OUTPUTS
    return variables


def _write_hdf5(sim: Hydro, stem: str, files: list, wanted: bool) -> None:
    """The HDF5 output ``stem`` (collective): rank 0 writes the blocks as they arrive (``write_on_rank_0``),
    unless not ``wanted`` (an earlier output failed: nothing more is written, but every rank takes part, and
    rank 0 drops what it receives); the files written are added to ``files``."""
    mesh = sim.mesh
    shape = (len(mesh.block_list), *sim.interior("density").shape[1:])
    parts = _hdf5_variables(sim)
    raised: list = []  # the ConfigError a problem's OUTPUTS function raised on this rank
    for name in getattr(sim.cfg.problem, "OUTPUTS", {}):
        parts[name] = _noting_failure(parts[name], raised)
    described = {name: hdf5.Variable(sim.np_dtype, shape) for name in parts}
    xmin, dx = block_geometry(mesh)

    def write(blocks):
        if wanted:
            files.extend(hdf5.write_blocks(stem, described, xmin, dx, sim.time, sim.cycle, {}, blocks))

    try:
        write_on_rank_0(mesh, list(parts.values()), write, "the output")
    except OutputError:
        # every rank is here (write_on_rank_0 raises on all): an OUTPUTS function that failed on some ranks
        # is its one line on every rank, naming those ranks, as on one process; any other failure stays
        agree(mesh.comm, lambda: _raise_first(raised))
        raise


def _noting_failure(make, raised: list):
    """``make`` that also notes in ``raised`` the ``ConfigError`` it raises."""

    def part():
        try:
            return make()
        except ConfigError as e:
            raised.append(e)
            raise

    return part


def _raise_first(errors: list) -> None:
    if errors:
        raise errors[0]


def _write_restart(sim: Hydro, schedule: Schedule, path: str, files: list, wanted: bool) -> None:
    """The restart file ``path`` of the conserved variables, ghosts included (collective; as ``_write_hdf5``)."""
    mesh = sim.mesh
    names = list(sim.conserved)
    layout = [(name, sim.np_dtype, mesh.data(name).shape[1:]) for name in names]
    meta = checkpoint.metadata(sim, schedule)

    def write(blocks):
        if wanted:
            files.append(block_restart.save(path, layout, len(mesh.block_list), meta, blocks))

    write_on_rank_0(mesh, [lambda name=name: sim.host_data(name) for name in names], write, "the restart file")


def _png_values(sim: Hydro):
    """The PNG variable over every block (gathered on rank 0: collective; None elsewhere)."""
    return sim.mesh.gather_blocks(sim.primitive(sim.cfg["output"]["png_variable"]))


def _png_on_rank_0(sim: Hydro, path: str, per_block, files: list, wanted: bool) -> None:
    """Rank 0 writes the PNG ``path`` (unless not ``wanted``) and adds it to ``files``; what it meets (a
    failed write, a problem's ``exact()`` that raises) is raised on every rank (collective)."""

    def draw():
        if sim.mesh.rank == 0 and wanted:
            files.append(_write_png(sim, path, per_block))

    agree(sim.mesh.comm, draw, name_ranks=False)


def _write_png(sim: Hydro, path: str, per_block) -> str:
    cfg = sim.cfg
    var = cfg["output"]["png_variable"]
    values = sim.to_global(per_block)
    m = cfg["mesh"]
    reference = None
    problem = cfg.problem
    if sim.ndim == 1 and hasattr(problem, "exact") and var in ("density", "velocity_1", "pressure"):
        x = np.linspace(m["xmin"][0], m["xmax"][0], 2000)
        try:
            rho, u, p = problem.exact(x, sim.time, cfg["problem"], sim.gamma)
        except MemoryError:
            raise
        except USER_ERRORS as e:  # a problem of your own: one line naming its file and line
            raise failure(problem, "exact", e, cfg["problem"]) from e
        reference = (x, {"density": rho, "velocity_1": u, "pressure": p}[var], "exact")
    title = f"{cfg['problem']['name']}  t = {sim.time:.4g}  (cycle {sim.cycle})"
    return png.save(path, values, m["xmin"], m["xmax"], sim.ndim, var, title, reference)


def _write_vtk(sim: Hydro, stem: str, files: list, wanted: bool, series: tuple[str, int]) -> None:
    """The VTK output ``stem`` (collective): every rank writes its blocks' files ``stem/block_GID.vti``
    (``vtk.write_block``: the variables of the HDF5 output), then rank 0 the ``stem.vtm`` that lists them,
    which is added to ``files``, and the collection ``series = (run stem, kind, n)``: ``RUN.pvd`` listing
    the outputs of ``kind`` (``NAMES``: ``RUN.out.00000.vtm``, or ``RUN.vtk.00000.vtm`` on VTK's own
    schedule) up to this, the ``n``-th, with their times (``vtk.update_collection``);
    unless not ``wanted`` (rank 0's: an earlier output failed). A rank's failure is every rank's
    (``agree``), and each removes the files it wrote for this output."""
    mesh = sim.mesh
    if mesh.nranks > 1:  # whether an earlier output failed is rank 0's to know (its history file)
        wanted = mesh.comm.bcast(wanted, root=0)
    if not wanted:
        return
    xmin, dx = block_geometry(mesh)
    folder = os.path.basename(stem)
    written: list[str] = []
    made: list[str] = []  # the blocks' folder, when rank 0 made it for this output

    def piece(gid: int) -> str:
        return f"block_{gid:06d}.vti"

    def make_folder():
        if mesh.rank != 0:
            return
        if not os.path.lexists(stem):
            made.append(stem)
        try:
            os.makedirs(stem, exist_ok=True)
        except OSError as e:
            raise output_error(e, stem) from None
        if os.path.islink(stem):  # a planted link must not make the run write its blocks elsewhere
            raise OutputError(f"cannot write {stem!r}: it is a symbolic link, which outputs are not written through",
                              stem)

    def write_blocks():
        values = {name: make() for name, make in _hdf5_variables(sim).items()}  # this rank's blocks
        for block in mesh.blocks:
            path = os.path.join(stem, piece(block.gid))
            written.append(vtk.write_block(path, {name: v[block.lid] for name, v in values.items()}, xmin[block.gid],
                                           dx[block.gid], sim.time, sim.cycle, sim.ndim))

    def write_index():
        if mesh.rank == 0:
            pieces = [f"{folder}/{piece(gid)}" for gid in range(len(mesh.block_list))]
            written.append(vtk.write_multiblock(stem + ".vtm", pieces))
            run, kind, n = series
            earlier = [os.path.basename(run + NAMES[kind].format(n=m) + ".vtm") for m in range(n)]
            vtk.update_collection(run + ".pvd", os.path.basename(stem + ".vtm"), sim.time, earlier)

    try:
        agree(mesh.comm, make_folder, name_ranks=False)
        agree(mesh.comm, write_blocks)
        agree(mesh.comm, write_index, name_ranks=False)
    except Exception:  # raised on every rank (agree): each removes its files, then rank 0 the folder it made
        discard(*written)
        if mesh.nranks > 1:
            mesh.comm.allgather(None)  # every rank's files are gone
        for path in made:
            try:
                os.rmdir(path)
            except OSError:  # not empty: something else was written into it meanwhile
                pass
        raise
    except BaseException:  # an interrupt, on this rank
        discard(*written)
        raise
    files.append(stem + ".vtm")


#: what an error names each output kind (``write_state``)
WHAT = {"hdf5": "the output", "vtk": "the VTK output", "restart": "the restart file", "png": "the PNG"}
#: the files of each kind, after the run's stem (``output.dir/output.basename``): ``{stem}{name}``
NAMES = {"hdf5": ".out.{n:05d}", "vtk": ".vtk.{n:05d}", "restart": ".rst.{n:05d}.npz", "png": ".{n:05d}.png"}


def write_state(sim: Hydro, schedule: Schedule, history, stem: str, dt: float, finished: bool):
    """Write the outputs due for the current state (rank 0 writes what every rank sends); the
    files written and the error message of a failed write (None when none failed), the same on
    every rank. The outputs due after a failed one are not written."""
    totals = None
    if sim.cfg["output"]["history"]:
        try:
            totals = [*sim.totals().values(), *user_history.values(sim)]  # collective
        except ConfigError as e:  # a problem's HISTORY function failed (on any rank): when
            raise ConfigError(f"the history line of cycle {sim.cycle} (t={sim.time:.6g}): {e}") from e
    files: list[str] = []
    error = None
    try:
        if history is not None:
            history.write([sim.cycle, sim.time, dt] + totals)
    except OutputError as e:
        error = str(e)
    for kind in KINDS:
        if not schedule.due(kind, sim.time, sim.cycle, finished):
            continue
        n = schedule.advance(kind, sim.time, sim.cycle)
        # Collective: every rank takes part even after rank 0 failed a write (nothing more is written then).
        path = stem + NAMES[kind].format(n=n)
        try:
            if kind == "hdf5":
                for form in sim.cfg["output"]["format"]:
                    if form == "hdf5":
                        _write_hdf5(sim, path, files, error is None)
                    else:
                        _write_vtk(sim, path, files, error is None, (stem, kind, n))
            elif kind == "vtk":
                _write_vtk(sim, path, files, error is None, (stem, kind, n))
            elif kind == "restart":
                _write_restart(sim, schedule, path, files, error is None)
            else:
                _png_on_rank_0(sim, path, _png_values(sim), files, error is None)
        except OutputError as e:
            error = error or str(e)
        except ConfigError as e:  # a problem's function (OUTPUTS, exact()) failed: which output, and when
            raise ConfigError(f"{WHAT[kind]} {os.path.basename(path)} of cycle {sim.cycle} (t={sim.time:.6g}): "
                              f"{e}") from e
    if sim.mesh.nranks > 1:
        files, error = sim.mesh.comm.bcast((files, error), root=0)
    return files, error
