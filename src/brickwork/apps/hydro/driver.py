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

from brickwork.io import restart
from brickwork.io.history import History
from brickwork.same_on_ranks import check_same

from . import checkpoint, user_history, user_timestep
from .config import Config, ConfigError
from .custom_problem import derived_outputs
from .output_lock import OutputLock
from .outputs import write_state
from .preflight import check_before_run, make_output_dir, remove_empty_dirs, writes_files
from .progress import Progress
from .rank_errors import SimulationError, agree, on_every_rank
from .schedule import Schedule
from .schema import HISTORY_COLUMNS
from .solver import BadStateError, Hydro

__all__ = ["RunResult", "SimulationError", "run"]

#: without ``time.nlim``, the run stops with ``SimulationError`` when the CFL time step falls below
#: ``DT_FLOOR * time.tlim``: reaching ``tlim`` would take more than 1e12 cycles
DT_FLOOR = 1e-12


@dataclass
class RunResult:
    """What a run did: final time and cycle, files written, speed."""

    time: float
    cycle: int
    outputs: list = field(default_factory=list)
    wall: float = 0.0
    zone_cycles_per_s: float = 0.0
    ghost_seconds: float = 0.0  # wall time in ghost exchange (on several ranks: waits included)
    #: the number of steps whose time step each limit set: "cfl", "diffusion" (hydro.viscosity, hydro.conduction)
    #: and "other" (the problem's TIMESTEP, or the step that ends at time.tlim)
    dt_limits: dict = field(default_factory=lambda: {"cfl": 0, "diffusion": 0, "other": 0})
    hydro: Hydro | None = None

    @property
    def last_png(self):
        return next((p for p in reversed(self.outputs) if p.endswith(".png")), None)


def _cycles(remaining: float, dt: float) -> str:
    n = remaining / dt
    return f"about {n:.2e}" if math.isfinite(n) else "more than 1e308"


def _collapse_hint(cfg: Config, dt: float, cfl_dt: float, set_by: str = "cfl") -> str:
    """Where to look for the cause of a collapsed time step ``dt``: the problem's ``TIMESTEP`` when it cut
    the CFL step ``cfl_dt``, else tiny cells or a huge signal speed (the CFL step is about cfl * cell width /
    speed, so the two numbers tell which)."""
    if dt < cfl_dt:
        return (f"Problem {cfg.problem.NAME!r}'s TIMESTEP() allowed it (the CFL step is {cfl_dt:.3e}): look at what "
                f"that function returns")
    m = cfg["mesh"]
    width = min((hi - lo) / n for lo, hi, n in zip(m["xmin"], m["xmax"], m["nx"]))
    if set_by == "diffusion":
        h = cfg["hydro"]
        return (f"The diffusion limit set it (cfl * dx^2 / (2 ndim D) for cells {width:.3g} wide, with "
                f"hydro.viscosity={h['viscosity']:g} and hydro.conduction={h['conduction']:g}): look for tiny cells "
                f"or a huge diffusivity in the input")
    speed = cfg["hydro"]["cfl"] * width / dt
    return (f"The cells are {width:.3g} wide and signals travel at up to about {speed:.3g}: look for a tiny cell or "
            f"domain, or for what makes a signal fast (a tiny density, a huge pressure, velocity or hydro.gamma) in "
            f"the input")


def _diffusion_note(sim: Hydro, result: RunResult) -> str:
    """``; time steps set by the diffusion limit (dt <= 1.2e-03): 40 of 50 cycles, by the CFL condition: 10`` for
    a run with viscosity or conduction, else nothing."""
    if not sim.diffusion.active:
        return ""
    n = result.dt_limits["diffusion"]
    return (f"; time steps set by the diffusion limit (dt <= {sim.diffusion.dt:.3e}): {n} of "
            f"{sum(result.dt_limits.values())} cycles, by the CFL condition: {result.dt_limits['cfl']}")


def _initial_state_error(cfg: Config, e: BadStateError) -> str:
    """The message of a problem's initial state that fails the run's first check: the values of [problem] (or
    the problem's own initial()) set a state that the run's dtype cannot hold, or that is not physical."""
    dtype = cfg["hydro"]["dtype"]
    info = np.finfo(dtype)
    return (f"problem {cfg['problem']['name']!r} sets up a state the run cannot start from (cycle 0, t=0): {e}; "
            f"check the [problem] values (hydro.dtype={dtype!r} holds normal numbers of magnitude "
            f"{float(info.tiny):.3g} to {float(info.max):.3g})")


def _kept(last_good: list[str]) -> str:
    return f"The run stops; the last good output is kept ({', '.join(last_good) if last_good else 'none was written'})."


def _check_same_restart(comm, sim: Hydro, path: str, digest: str) -> None:
    """``RestartError`` on every rank when the ranks read restart files of different states (collective).
    Time and cycle first, as the plainest difference to read; the content ``digest`` catches the rest (two
    files of the same time and cycle, say of different initial conditions, on node-local disks)."""
    try:
        check_same(comm, "the restarted state", {"time": sim.time, "cycle": sim.cycle, "file content": digest},
                   hint=f"every rank must read the same restart file (rank 0 read {path!r})")
    except ValueError as e:
        raise restart.RestartError(str(e)) from None



def run(cfg: Config, restart_file: str | None = None, progress: bool | None = None, log=None) -> RunResult:
    """Run the simulation ``cfg`` describes (from ``restart_file`` if given) and write its outputs.

    Everything that can be checked before the run is checked first (writers, memory, output
    directory, the restart file, the initial state); the output directory is created only once the
    first state has passed its check, and only when the run writes a file (``writes_files``);
    directories this run created are removed again if the run fails while they are still empty. A restart
    from a state at ``time.tlim`` or ``time.nlim`` writes nothing."""
    if not isinstance(cfg, Config):  # hydro.run("sod.toml") said "'str' object has no attribute 'to_dict'"
        raise TypeError(f"hydro.run takes a Config (hydro.load_config(path, overrides) or hydro.build_config(raw, "
                        f"overrides)), got {type(cfg).__name__} {cfg!r}")
    cfg.check_unchanged()  # cfg["hydro"]["riemann"] = "x" after the checks was a KeyError 'x' at the first step
    new_dirs = on_every_rank(lambda: check_before_run(cfg, restart_file is not None))  # one rank's mistake ends all
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
        if out["history"]:
            user_history.block_values(sim)  # and its HISTORY columns
        user_timestep.local_limit(sim)  # and its TIMESTEP

    agree(comm, start)
    if restart_file is not None:
        _check_same_restart(comm, sim, restart_file, digest[0])
    if not root:
        new_dirs, log = [], None  # rank 0 makes the directories and speaks for the run
    history = None
    lock = None
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
                cfl_dt = dt = sim.check()
            except BadStateError as e:
                if restart_file is not None and not started:  # the file's own state: an input error, named so
                    raise restart.RestartError(f"restart file {restart_file!r} holds a state the run cannot start "
                                               f"from (cycle {sim.cycle}, t={sim.time:.6g}): {e}") from None
                if not started:  # the problem's initial state: an input error too (problem.rho_l=1e-50 in float32)
                    raise ConfigError(_initial_state_error(cfg, e)) from None
                raise SimulationError(f"cycle {sim.cycle} (t={sim.time:.6g}): {e}. {_kept(last_good)}") from None
            try:
                dt = user_timestep.limit(sim, dt)  # collective with a problem's TIMESTEP
            except ConfigError as e:
                raise ConfigError(f"the time step of cycle {sim.cycle} (t={sim.time:.6g}): {e}") from e
            finished = tlim - sim.time <= 1e-12 * max(abs(tlim), 1.0) or (0 <= nlim <= sim.cycle)
            if not finished and nlim < 0 and dt < DT_FLOOR * tlim:
                raise SimulationError(
                    f"cycle {sim.cycle} (t={sim.time:.6g}): the time step collapsed to dt={dt:.3e}, below "
                    f"{DT_FLOOR:g} * time.tlim: reaching time.tlim={tlim:g} would take {_cycles(tlim - sim.time, dt)} "
                    f"cycles. {_collapse_hint(cfg, dt, cfl_dt, sim.dt_set_by)}, or set time.nlim to run a fixed number "
                    f"of cycles. "
                    f"{_kept(last_good)}")
            if finished and written_state:  # a restart at its end: nothing to run, its outputs exist already
                break  # (no directory, no history header)
            if not started:  # the first state passed its checks: the run starts, its files appear

                def open_outputs():
                    nonlocal history, lock
                    if root and writes_files(cfg):  # a run that writes nothing makes no directory either
                        make_output_dir(out["dir"], new_dirs)
                        lock = OutputLock(stem)  # another run writing these files: refused before any is touched
                        if out["history"]:
                            history = History(stem + ".hst", [*HISTORY_COLUMNS, *sim.scalar_names,
                                                              *user_history.entries(cfg.problem)],
                                              restart_cycle=sim.cycle if restart_file else None)

                agree(comm, open_outputs, name_ranks=False)  # rank 0 alone makes them
                started = True
            dt = min(dt, tlim - sim.time) if not finished else dt
            if not written_state:
                state_files, error = write_state(sim, schedule, history, stem, dt, finished)
                result.outputs += state_files
                if state_files:  # the outputs of this state written before a failed one are good too
                    last_good = state_files
                if error is not None:
                    raise SimulationError(f"cycle {sim.cycle} (t={sim.time:.6g}): {error}. {_kept(last_good)}")
            written_state = False
            if finished:
                break
            result.dt_limits[sim.dt_set_by if dt == cfl_dt else "other"] += 1
            try:
                sim.step(dt)
            except ConfigError as e:  # a problem's SOURCE (the state is the cycle's start: see Sources.prepare)
                raise ConfigError(f"the step of cycle {sim.cycle} (t={sim.time:.6g}): {e}") from e
            if first_step_end is None:
                first_step_end = (_time.perf_counter(), sim.cycle)
            bar.update(sim.time, sim.cycle, dt)
    except BaseException:
        if history is not None:
            history.abort()
            history = None
        if lock is not None:
            lock.release()  # before the empty directories go: the lock file is in one
        remove_empty_dirs(new_dirs)
        raise
    finally:
        bar.close()
        try:
            if history is not None:
                history.close()
        finally:
            if lock is not None:
                lock.release()
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
        if sim.cycle == start_cycle:  # a restart at the end of the run: no rate, no share of a step to give
            limit = f"time.nlim={nlim}" if 0 <= nlim <= sim.cycle else f"time.tlim={tlim:g}"
            log(f"{cfg['problem']['name']}: 0 cycles to t={sim.time:.6g}: the state at cycle {sim.cycle} has reached "
                f"{limit} already; set a later {limit.split('=')[0]} to go on")
            return result
        log(f"{cfg['problem']['name']}: {sim.cycle - start_cycle} cycles to t={sim.time:.6g} in {result.wall:.1f} s"
            f"{ranks}, {result.zone_cycles_per_s:.3e} zone-cycles/s (after the first step), ghost exchange "
            f"{share:.1f} % of the wall time{_diffusion_note(sim, result)}")
    return result
