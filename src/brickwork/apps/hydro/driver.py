"""``run(cfg)``: the time loop of a hydro run with its outputs.

Each pass of the loop checks the current state (``Hydro.check``: ghosts, primitives, CFL step,
and any non-finite or non-physical cell), writes the outputs that are due for that state, then
advances one step. Outputs therefore only ever hold checked states: when a step produces a bad
state the run stops with ``SimulationError`` and the last good output stays on disk.

Schedules (``output.*_dt``, in simulated time, see ``schedule``): -1 never, 0 the first state and
the last (restart files: only the last), > 0 every so often plus the last; ``output.*_dn``, in
cycles, adds the states whose cycle is a multiple of it. A restart file records
the state, time, cycle and the schedules (``checkpoint``), so a restarted run repeats the rest of
the uninterrupted one bit for bit; a changed cadence starts at the restart time.

On a mesh spread over several MPI ranks (``mpiexec -n 4 brickwork run ...``) every rank runs this
loop in step: the checks, time steps and totals are collective, rank 0 writes each output receiving
the blocks a few at a time (``mesh.streams``: one HDF5 file in global block order, the same bits as a
one-process run; restart files a block at a time, each rank reading only its own blocks on a restart;
a PNG is gathered whole), and only rank 0 prints. An error that one rank meets while setting up or
writing is shared, so every rank stops with the same message; anything unexpected ends all ranks
(``brickwork.comm``).

The run ends at ``time.tlim`` or after ``time.nlim`` cycles (-1: no limit). Without a cycle limit,
a CFL time step below ``DT_FLOOR * tlim`` stops the run with ``SimulationError`` instead of
running (and growing the history file) for ever. A failed output write (a full disk) stops it too,
naming the file; nothing half-written stays behind.
"""

from __future__ import annotations

import math
import os
import time as _time
from dataclasses import dataclass, field

import numpy as np

from brickwork import comm
from brickwork.config import SettingError
from brickwork.device import get_device
from brickwork.errors import BrickworkError, DeviceUnavailableError
from brickwork.io import block_restart, hdf5, png, restart
from brickwork.io.files import OutputError, reason
from brickwork.io.history import History
from brickwork.mesh import footprint
from brickwork.mesh.footprint import BLOCK_HOST_BYTES, available_memory, gib
from brickwork.mesh.indexing import IndexShape
from brickwork.mesh.output import block_geometry
from brickwork.mesh.streams import write_on_rank_0
from brickwork.same_on_ranks import check_same

from . import checkpoint, scalars
from .config import Config, ConfigError
from .custom_problem import USER_ERRORS, derived_outputs, failure
from .progress import Progress
from .rank_errors import said_once
from .schedule import KINDS, Schedule, scheduled
from .solver import BadStateError, Hydro, hydro_package

#: without ``time.nlim``, the run stops with ``SimulationError`` when the CFL time step falls below
#: ``DT_FLOOR * time.tlim``: reaching ``tlim`` would take more than 1e12 cycles
DT_FLOOR = 1e-12
HISTORY_COLUMNS = ["cycle", "time", "dt", "mass", "momentum_1", "momentum_2", "momentum_3", "energy"]


class SimulationError(BrickworkError, RuntimeError):
    """The run cannot go on (a bad state appeared, the time step collapsed, an output could not be
    written); the message says why, at which cycle, and names the last good output."""


@dataclass
class RunResult:
    """What a run did: final time and cycle, files written, speed."""

    time: float
    cycle: int
    outputs: list = field(default_factory=list)
    wall: float = 0.0
    zone_cycles_per_s: float = 0.0
    ghost_seconds: float = 0.0  # wall time in ghost exchange (on several ranks: waits included)
    hydro: Hydro | None = None

    @property
    def last_png(self):
        return next((p for p in reversed(self.outputs) if p.endswith(".png")), None)


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
    for name in scalars.names(sim.nscalars):  # the passive scalars' concentrations
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


#: the outputs that need a package of the ``io`` extra: (kind of output, module)
WRITERS = (("hdf5", "h5py"), ("png", "matplotlib"))


def _missing_writers(cfg: Config) -> list[tuple[str, str]]:
    """``(kind, module)`` of each scheduled output whose writer cannot be imported."""
    missing = []
    for kind, module in WRITERS:
        if scheduled(cfg["output"], kind):
            try:
                __import__(module)
            except ImportError:
                missing.append((kind, module))
    return missing


def _check_writers(cfg: Config) -> None:
    """``ConfigError`` naming every scheduled output whose package is missing (all of them in one
    message, so that following it once is enough)."""
    missing = _missing_writers(cfg)
    if not missing:
        return
    out = cfg["output"]
    on = [f"output.{kind}_dt >= 0" if out[f"{kind}_dt"] >= 0 else f"output.{kind}_dn >= 1" for kind, _ in missing]
    off = [f"output.{kind}_{unit} = -1" for kind, _ in missing for unit in ("dt", "dn")
           if unit == "dt" or out[f"{kind}_dn"] >= 1]
    modules = " and ".join(module for _, module in missing)
    raise ConfigError(f"{' and '.join(on)} {'need' if len(missing) > 1 else 'needs'} {modules}: pip install "
                      f"'brickwork[io]', or set {' and '.join(off)}")


def _block_count(cfg: Config) -> int:
    """How many blocks the mesh of the run ``cfg`` describes."""
    m = cfg["mesh"]
    return math.prod(n // b for n, b in zip(m["nx"], m["block_nx"]))


def field_bytes(cfg: Config) -> int:
    """Bytes of the mesh fields of the run ``cfg`` describes (ghost cells and flux arrays included),
    computed from the field declarations without allocating anything."""
    m = cfg["mesh"]
    active = [*m["block_nx"], 0, 0][:3]  # a 1-D or 2-D mesh's blocks have no extent in the other directions
    shape = IndexShape(active[2], active[1], active[0], m["nghost"])
    specs = hydro_package(np.dtype(cfg["hydro"]["dtype"]), cfg["hydro"]["nscalars"]).fields.values()
    return footprint.field_bytes(specs, shape, _block_count(cfg))


def _check_ranks(cfg: Config) -> None:
    """``ConfigError`` when the run has more MPI ranks than blocks (every rank needs a block)."""
    nranks = comm.world().Get_size()
    m = cfg["mesh"]
    nblocks = _block_count(cfg)
    if nranks > nblocks:
        raise ConfigError(f"mesh.nx={m['nx']} in mesh.block_nx={m['block_nx']} makes {nblocks} "
                          f"block{'s' * (nblocks != 1)}, fewer than the {nranks} MPI ranks: every rank needs at "
                          f"least one block; use smaller blocks or fewer ranks")


def _check_device(cfg: Config):
    """The device of ``hydro.device``; ``ConfigError`` when this machine has no such device."""
    name = cfg["hydro"]["device"]
    try:
        return get_device(name)
    except DeviceUnavailableError as e:
        raise ConfigError(f"hydro.device={name!r}: {e}; run on the CPU with hydro.device = \"cpu\"") from None


def _check_memory(cfg: Config, device=None) -> None:
    """``ConfigError`` when the fields and blocks need more memory than is available (before allocating):
    the host's, or for the fields on a CUDA device the device's."""
    m = cfg["mesh"]
    fields = field_bytes(cfg)
    nblocks = _block_count(cfg)
    blocks = nblocks * BLOCK_HOST_BYTES
    on_device = device is not None and device.is_cuda
    what = f"mesh.nx={m['nx']} in mesh.block_nx={m['block_nx']} is too large for this machine"
    if on_device:
        from brickwork import cuda_driver

        have = cuda_driver.driver().total_memory(device.ordinal)
        if fields > have:
            raise ConfigError(f"{what}: its fields alone need {gib(fields)} of memory ({cfg['hydro']['dtype']}, "
                              f"ghost cells and fluxes included), but the device {device} has only {gib(have)}")
    have = available_memory()
    need = blocks + (0 if on_device else fields)
    if have is not None and need > have:
        raise ConfigError(f"{what}: its fields need {gib(fields)} ({cfg['hydro']['dtype']}, ghost cells and fluxes "
                          f"included){' on the device' if on_device else ''} and its {nblocks} blocks about "
                          f"{gib(blocks)} more on the host, but only {gib(have)} is available"
                          + ("; larger blocks (mesh.block_nx) need less" if blocks > fields else ""))


def _output_dirs_to_create(path: str) -> list[str]:
    """The directories ``os.makedirs(path)`` would create, outermost first, after checking that it
    can: ``ConfigError`` when ``path`` is empty, when it or one of its parents is a file or a
    dangling symbolic link, or when the deepest existing parent is not writable. Nothing is created
    here."""
    where = f"output.dir={path!r}"
    if not path:
        raise ConfigError("output.dir is empty: name a directory (output.dir=. for the working directory)")
    missing: list[str] = []
    p = os.path.normpath(path)
    while not os.path.isdir(p):
        if os.path.lexists(p):
            what = _not_a_directory(p)
            if not missing:
                raise ConfigError(f"{where} is {what}")
            raise ConfigError(f"{where} cannot be created: {p!r} is {what}")
        missing.append(p)
        parent = os.path.dirname(p) or os.curdir
        if parent == p:
            break
        p = parent
    if not os.access(p, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: {'cannot be created: ' if missing else ''}{p!r} is not writable")
    return missing[::-1]


def _not_a_directory(path: str) -> str:
    """What ``path``, which exists but is no directory, is instead (in words)."""
    if os.path.islink(path) and not os.path.exists(path):
        return f"a dangling symbolic link (to {os.readlink(path)!r}, which does not exist)"
    return "a file, not a directory"


def _make_output_dir(path: str, new_dirs: list[str]) -> None:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        _remove_empty_dirs(new_dirs)
        raise ConfigError(f"output.dir={path!r} cannot be created: {reason(e)}") from None


def _remove_empty_dirs(new_dirs: list[str]) -> None:
    """Remove the directories of ``new_dirs`` (created by this run) that are empty, deepest first;
    a directory that holds anything stays, and so do its parents."""
    for d in reversed(new_dirs):
        try:
            os.rmdir(d)
        except FileNotFoundError:  # never made (a failure part-way through os.makedirs)
            continue
        except OSError:  # not empty: it and its parents stay
            return


def _cycles(remaining: float, dt: float) -> str:
    n = remaining / dt
    return f"about {n:.2e}" if math.isfinite(n) else "more than 1e308"


def _collapse_hint(cfg: Config, dt: float) -> str:
    """Where to look for the cause of a collapsed time step ``dt``: tiny cells, or a huge signal speed
    (the CFL step is about cfl * cell width / speed, so the two numbers tell which)."""
    m = cfg["mesh"]
    width = min((hi - lo) / n for lo, hi, n in zip(m["xmin"], m["xmax"], m["nx"]))
    speed = cfg["hydro"]["cfl"] * width / dt
    return (f"The cells are {width:.3g} wide and signals travel at up to about {speed:.3g}: look for a tiny cell or "
            f"domain, or for what makes a signal fast (a tiny density, a huge pressure, velocity or hydro.gamma) in "
            f"the input")


def _kept(last_good: list[str]) -> str:
    return f"The run stops; the last good output is kept ({', '.join(last_good) if last_good else 'none was written'})."


_SHARED_ERRORS = (ConfigError, OutputError, restart.RestartError, SimulationError, SettingError)


def agree(comm, fn, name_ranks: bool = True) -> None:
    """Run ``fn()`` on every rank; if it raises on any rank, raise on all of them (collective), so no
    rank goes on alone and waits for ever: the first failing rank's brickwork error type,
    or, for another exception (a MemoryError, an OSError), a SimulationError naming it (the rank that met
    it raises that SimulationError from its own error). The message says each distinct error once, with
    the ranks that met it where some ranks met none or another (``rank_errors.said_once``; ``name_ranks``:
    unless ``fn`` does its work on rank 0 alone, which says only its own)."""
    error = None
    try:
        fn()
    except (Exception, SystemExit) as e:  # any: a rank leaving alone would leave the others waiting
        if comm.Get_size() == 1:
            raise
        error = e
    if comm.Get_size() == 1:
        return
    if error is None:
        told = None
    elif isinstance(error, _SHARED_ERRORS):
        told = (type(error), str(error))
    else:
        told = (SimulationError, f"{type(error).__name__}: {error}")
    errors = comm.allgather(told)
    failed = [rank for rank, e in enumerate(errors) if e is not None]
    if failed:
        kind = errors[failed[0]][0]
        message = said_once([None if e is None else e[1] for e in errors], name_ranks)
        if error is not None and not isinstance(error, _SHARED_ERRORS):
            raise kind(message) from error
        raise kind(message)


def on_every_rank(fn):
    """``fn()`` run on every rank of the run (``agree``): a result on every rank, or on every rank
    the error the first failing rank met (reading the input is a rank's own, but the run is shared)."""
    box = []
    agree(comm.world(), lambda: box.append(fn()))
    return box[0]


def _check_same_input(world, cfg: Config) -> None:
    """``ConfigError`` on every rank when the ranks were given different inputs (collective); each
    rank may name its own ``hydro.device``."""
    items = {f"{section}.{key}": value for section, keys in cfg.to_dict().items() for key, value in keys.items()
             if f"{section}.{key}" != "hydro.device"}
    try:
        check_same(world, "the input", items, hint="every rank must run the same input file and overrides")
    except ValueError as e:
        raise ConfigError(str(e)) from None


def writes_files(cfg: Config) -> bool:
    """Whether the run ``cfg`` writes any file: a history file, or an output whose schedule is not -1."""
    out = cfg["output"]
    return out["history"] or any(scheduled(out, kind) for kind in KINDS)


def _check_before_run(cfg: Config) -> list[str]:
    """Check what can be checked before the run (collective: the ranks' inputs are compared); the
    output directories to create (``_output_dirs_to_create``; none for a run that writes no file, which
    leaves ``output.dir`` alone)."""
    _check_same_input(comm.world(), cfg)
    _check_writers(cfg)
    _check_memory(cfg, _check_device(cfg))
    _check_ranks(cfg)
    return _output_dirs_to_create(cfg["output"]["dir"]) if writes_files(cfg) else []


def _check_same_restart(comm, sim: Hydro, path: str, digest: str) -> None:
    """``RestartError`` on every rank when the ranks read restart files of different states (collective).
    Time and cycle first, as the plainest difference to read; the content ``digest`` catches the rest (two
    files of the same time and cycle, say of different initial conditions, on node-local disks)."""
    try:
        check_same(comm, "the restarted state", {"time": sim.time, "cycle": sim.cycle, "file content": digest},
                   hint=f"every rank must read the same restart file (rank 0 read {path!r})")
    except ValueError as e:
        raise restart.RestartError(str(e)) from None


def _write_state(sim: Hydro, schedule: Schedule, history, stem: str, dt: float, finished: bool):
    """Write the outputs due for the current state (rank 0 writes what every rank sends); the
    files written and the error message of a failed write (None when none failed), the same on
    every rank. The outputs due after a failed one are not written."""
    totals = list(sim.totals().values()) if sim.cfg["output"]["history"] else None  # collective
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
        try:
            if kind == "hdf5":
                _write_hdf5(sim, f"{stem}.out.{n:05d}", files, error is None)
            elif kind == "restart":
                _write_restart(sim, schedule, f"{stem}.rst.{n:05d}.npz", files, error is None)
            else:
                _png_on_rank_0(sim, f"{stem}.{n:05d}.png", _png_values(sim), files, error is None)
        except OutputError as e:
            error = error or str(e)
    if sim.mesh.nranks > 1:
        files, error = sim.mesh.comm.bcast((files, error), root=0)
    return files, error


def run(cfg: Config, restart_file: str | None = None, progress: bool | None = None, log=None) -> RunResult:
    """Run the simulation ``cfg`` describes (from ``restart_file`` if given) and write its outputs.

    Everything that can be checked before the run is checked first (writers, memory, output
    directory, the restart file, the initial state); the output directory is created only once the
    first state has passed its check, and only when the run writes a file (``writes_files``);
    directories this run created are removed again if the run fails while they are still empty."""
    if not isinstance(cfg, Config):  # hydro.run("sod.toml") said "'str' object has no attribute 'to_dict'"
        raise TypeError(f"hydro.run takes a Config (hydro.load_config(path, overrides) or hydro.build_config(raw, "
                        f"overrides)), got {type(cfg).__name__} {cfg!r}")
    new_dirs = on_every_rank(lambda: _check_before_run(cfg))  # a mistake one rank finds ends them all
    out = cfg["output"]
    stem = os.path.join(out["dir"], out["basename"])
    sim = Hydro(cfg)
    comm = sim.mesh.comm
    root = sim.mesh.rank == 0
    schedule = Schedule(cfg)

    digest = []

    def start():
        if restart_file is not None:
            digest.append(checkpoint.load(sim, restart_file, schedule))
        else:
            sim.set_initial()
        for values in derived_outputs(sim).values():  # a problem's OUTPUTS that fail, failing now, on every rank
            values()

    agree(comm, start)
    if restart_file is not None:
        _check_same_restart(comm, sim, restart_file, digest[0])
    if not root:
        new_dirs, log = [], None  # rank 0 makes the directories and speaks for the run
    history = None
    started = False
    tlim, nlim = cfg["time"]["tlim"], cfg["time"]["nlim"]
    bar = Progress(tlim, sim.ncells, enabled=root and (out["progress"] if progress is None else progress))
    result = RunResult(sim.time, sim.cycle, hydro=sim)
    written_state = restart_file is not None  # the loaded state's outputs exist already
    last_good: list[str] = []
    start = _time.perf_counter()
    first_step_end = None
    start_cycle = sim.cycle
    try:
        while True:
            try:
                dt = sim.check()
            except BadStateError as e:
                raise SimulationError(f"cycle {sim.cycle} (t={sim.time:.6g}): {e}. {_kept(last_good)}") from None
            finished = tlim - sim.time <= 1e-12 * max(abs(tlim), 1.0) or (0 <= nlim <= sim.cycle)
            if not finished and nlim < 0 and dt < DT_FLOOR * tlim:
                raise SimulationError(
                    f"cycle {sim.cycle} (t={sim.time:.6g}): the time step collapsed to dt={dt:.3e}, below "
                    f"{DT_FLOOR:g} * time.tlim: reaching time.tlim={tlim:g} would take {_cycles(tlim - sim.time, dt)} "
                    f"cycles. {_collapse_hint(cfg, dt)}, or set time.nlim to run a fixed number of cycles. "
                    f"{_kept(last_good)}")
            if not started:  # the first state passed its checks: the run starts, its files appear

                def open_outputs():
                    nonlocal history
                    if root and writes_files(cfg):  # a run that writes nothing makes no directory either
                        _make_output_dir(out["dir"], new_dirs)
                        if out["history"]:
                            history = History(stem + ".hst", HISTORY_COLUMNS + scalars.names(sim.nscalars),
                                              restart_cycle=sim.cycle if restart_file else None)

                agree(comm, open_outputs, name_ranks=False)  # rank 0 alone makes them
                started = True
            dt = min(dt, tlim - sim.time) if not finished else dt
            if not written_state:
                state_files, error = _write_state(sim, schedule, history, stem, dt, finished)
                result.outputs += state_files
                if state_files:  # the outputs of this state written before a failed one are good too
                    last_good = state_files
                if error is not None:
                    raise SimulationError(f"cycle {sim.cycle} (t={sim.time:.6g}): {error}. {_kept(last_good)}")
            written_state = False
            if finished:
                break
            sim.step(dt)
            if first_step_end is None:
                first_step_end = (_time.perf_counter(), sim.cycle)
            bar.update(sim.time, sim.cycle, dt)
    except BaseException:
        if history is not None:
            history.abort()
            history = None
        _remove_empty_dirs(new_dirs)
        raise
    finally:
        bar.close()
        if history is not None:
            history.close()
    end = _time.perf_counter()
    result.time, result.cycle, result.wall = sim.time, sim.cycle, end - start
    if first_step_end is not None and sim.cycle > first_step_end[1]:  # leave out the first step (compiles)
        result.zone_cycles_per_s = sim.ncells * (sim.cycle - first_step_end[1]) / (end - first_step_end[0])
    elif sim.cycle > start_cycle:
        result.zone_cycles_per_s = sim.ncells * (sim.cycle - start_cycle) / (end - start)
    result.ghost_seconds = sim.mesh.ghost_seconds
    if log is not None:
        share = 100.0 * result.ghost_seconds / result.wall if result.wall > 0 else 0.0
        ranks = f" on {sim.mesh.nranks} ranks" if sim.mesh.nranks > 1 else ""
        log(f"{cfg['problem']['name']}: {sim.cycle - start_cycle} cycles to t={sim.time:.6g} in {result.wall:.1f} s"
            f"{ranks}, {result.zone_cycles_per_s:.3e} zone-cycles/s (after the first step), ghost exchange "
            f"{share:.1f} % of the wall time")
    return result
