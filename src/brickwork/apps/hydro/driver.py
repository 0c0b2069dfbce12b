"""``run(cfg)``: the time loop of a hydro run with its outputs.

Each pass of the loop checks the current state (``Hydro.check``: ghosts, primitives, CFL step,
and any non-finite or non-physical cell), writes the outputs that are due for that state, then
advances one step. Outputs therefore only ever hold checked states: when a step produces a bad
state the run stops with ``SimulationError`` and the last good output stays on disk.

Schedules (``output.*_dt``, in simulated time): -1 never, 0 the first state and the last (restart
files: only the last), > 0 every so often plus the last. A restart file records the state, time,
cycle and the schedules, so a restarted run repeats the rest of the uninterrupted one bit for bit.
"""

from __future__ import annotations

import os
import time as _time
from dataclasses import dataclass, field

import numpy as np

from brickwork.io import hdf5, png, restart
from brickwork.io.history import History

from .config import Config, ConfigError
from .progress import Progress
from .solver import CONSERVED, BadStateError, Hydro

KINDS = ("hdf5", "png", "restart")
HISTORY_COLUMNS = ["cycle", "time", "dt", "mass", "momentum_1", "momentum_2", "momentum_3", "energy"]


class SimulationError(RuntimeError):
    """The run cannot go on (a bad state appeared); the message names the cell and the last output."""


@dataclass
class RunResult:
    """What a run did: final time and cycle, files written, speed."""

    time: float
    cycle: int
    outputs: list = field(default_factory=list)
    wall: float = 0.0
    zone_cycles_per_s: float = 0.0
    hydro: Hydro | None = None

    @property
    def last_png(self):
        return next((p for p in reversed(self.outputs) if p.endswith(".png")), None)


class Schedule:
    """When each kind of output is due, and how many were written."""

    def __init__(self, cfg: Config):
        out = cfg["output"]
        self.every = {"hdf5": out["hdf5_dt"], "png": out["png_dt"], "restart": out["restart_dt"]}
        self.next = {k: (0.0 if k != "restart" else (dt if dt > 0 else float("inf"))) for k, dt in self.every.items()}
        self.count = dict.fromkeys(KINDS, 0)
        self.last_cycle = dict.fromkeys(KINDS, -1)

    def due(self, kind: str, t: float, cycle: int, final: bool) -> bool:
        every = self.every[kind]
        if every < 0 or self.last_cycle[kind] == cycle:
            return False
        if final:
            return True
        if every == 0:
            return kind != "restart" and self.count[kind] == 0
        return t >= self.next[kind] * (1.0 - 1e-12)

    def advance(self, kind: str, t: float, cycle: int) -> int:
        """Mark ``kind`` written at (t, cycle); returns the number of this output."""
        n = self.count[kind]
        self.count[kind] += 1
        self.last_cycle[kind] = cycle
        every = self.every[kind]
        if every > 0:
            while self.next[kind] <= t * (1.0 + 1e-12):
                self.next[kind] += every
        return n

    def to_meta(self) -> dict:
        return {"next": self.next, "count": self.count, "last_cycle": self.last_cycle}

    def load_meta(self, meta: dict) -> None:
        for kind in KINDS:
            self.count[kind] = int(meta["count"][kind])
            self.last_cycle[kind] = int(meta["last_cycle"][kind])
            if self.every[kind] > 0:
                # same cadence as before: keep the stored next time; a new cadence starts after now
                self.next[kind] = float(meta["next"][kind])


def _restart_meta(sim: Hydro, schedule: Schedule) -> dict:
    m, h = sim.cfg["mesh"], sim.cfg["hydro"]
    return {"time": sim.time, "cycle": sim.cycle, "schedule": schedule.to_meta(),
            "problem": sim.cfg["problem"]["name"], "nx": m["nx"], "block_nx": m["block_nx"], "nghost": m["nghost"],
            "dtype": h["dtype"], "config": sim.cfg.to_dict()}


def _load_restart(sim: Hydro, path: str, schedule: Schedule) -> None:
    arrays, meta = restart.load(path)
    m, h = sim.cfg["mesh"], sim.cfg["hydro"]
    for key, mine in (("problem", sim.cfg["problem"]["name"]), ("nx", m["nx"]), ("block_nx", m["block_nx"]),
                      ("nghost", m["nghost"]), ("dtype", h["dtype"])):
        if meta.get(key) != mine:
            name = {"problem": "problem.name", "dtype": "hydro.dtype"}.get(key, f"mesh.{key}")
            raise restart.RestartError(f"restart file {path!r} was written with {name}={meta.get(key)!r}, but this "
                                       f"run has {name}={mine!r}")
    for name in CONSERVED:
        dest = sim.mesh.data(name)
        src = arrays.get(name)
        if src is None or src.shape != dest.shape or src.dtype != dest.dtype:
            raise restart.RestartError(f"restart file {path!r}: array {name!r} is missing or has the wrong shape")
        dest[...] = src
    sim.time = float(meta["time"])
    sim.cycle = int(meta["cycle"])
    schedule.load_meta(meta["schedule"])


def _block_geometry(sim: Hydro):
    blocks = sim.mesh.blocks
    xmin = np.array([b.coords.xmin for b in blocks])
    dx = np.array([[b.coords.dx(d) for d in (1, 2, 3)] for b in blocks])
    return xmin, dx


def _write_hdf5(sim: Hydro, stem: str) -> list[str]:
    dtype = sim.np_dtype
    variables = {"density": sim.interior("density")}
    for c in range(3):
        variables[f"momentum_{c + 1}"] = sim.interior("momentum", c)
    variables["energy"] = sim.interior("energy")
    for name in ("pressure", "velocity_1", "velocity_2", "velocity_3"):
        variables[name] = sim.primitive(name).astype(dtype)
    xmin, dx = _block_geometry(sim)
    return list(hdf5.write(stem, variables, xmin, dx, sim.time, sim.cycle))


def _write_png(sim: Hydro, path: str) -> str:
    cfg = sim.cfg
    var = cfg["output"]["png_variable"]
    values = sim.to_global(sim.primitive(var))
    m = cfg["mesh"]
    reference = None
    problem = cfg.problem
    if sim.ndim == 1 and hasattr(problem, "exact") and var in ("density", "velocity_1", "pressure"):
        x = np.linspace(m["xmin"][0], m["xmax"][0], 2000)
        rho, u, p = problem.exact(x, sim.time, cfg["problem"], sim.gamma)
        reference = (x, {"density": rho, "velocity_1": u, "pressure": p}[var], "exact")
    title = f"{cfg['problem']['name']}  t = {sim.time:.4g}  (cycle {sim.cycle})"
    return png.save(path, values, m["xmin"], m["xmax"], sim.ndim, var, title, reference)


def _check_writers(cfg: Config) -> None:
    out = cfg["output"]
    if out["hdf5_dt"] >= 0:
        try:
            import h5py  # noqa: F401
        except ImportError:
            raise ConfigError("output.hdf5_dt >= 0 needs h5py: pip install 'brickwork[io]', or set "
                              "output.hdf5_dt = -1") from None
    if out["png_dt"] >= 0:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ConfigError("output.png_dt >= 0 needs matplotlib: pip install 'brickwork[io]', or set "
                              "output.png_dt = -1") from None


def run(cfg: Config, restart_file: str | None = None, progress: bool | None = None, log=None) -> RunResult:
    """Run the simulation ``cfg`` describes (from ``restart_file`` if given) and write its outputs."""
    _check_writers(cfg)
    out = cfg["output"]
    os.makedirs(out["dir"], exist_ok=True)
    stem = os.path.join(out["dir"], out["basename"])
    sim = Hydro(cfg)
    schedule = Schedule(cfg)
    if restart_file is not None:
        _load_restart(sim, restart_file, schedule)
    else:
        sim.set_initial()
    history = History(stem + ".hst", HISTORY_COLUMNS, restart_cycle=sim.cycle if restart_file else None) \
        if out["history"] else None
    tlim, nlim = cfg["time"]["tlim"], cfg["time"]["nlim"]
    bar = Progress(tlim, sim.ncells, enabled=out["progress"] if progress is None else progress)
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
                where = ", ".join(last_good) if last_good else "none was written"
                raise SimulationError(f"cycle {sim.cycle} (t={sim.time:.6g}): {e}. The run stops; the last good "
                                      f"output is kept ({where}).") from None
            finished = tlim - sim.time <= 1e-12 * max(abs(tlim), 1.0) or (0 <= nlim <= sim.cycle)
            dt = min(dt, tlim - sim.time) if not finished else dt
            if not written_state:
                state_files: list[str] = []
                if history is not None:
                    history.write([sim.cycle, sim.time, dt] + list(sim.totals().values()))
                for kind in KINDS:
                    if schedule.due(kind, sim.time, sim.cycle, finished):
                        n = schedule.advance(kind, sim.time, sim.cycle)
                        if kind == "hdf5":
                            files = _write_hdf5(sim, f"{stem}.out.{n:05d}")
                        elif kind == "png":
                            files = [_write_png(sim, f"{stem}.{n:05d}.png")]
                        else:
                            files = [restart.save(f"{stem}.rst.{n:05d}.npz", sim.state(),
                                                  _restart_meta(sim, schedule))]
                        result.outputs += files
                        state_files += files
                if state_files:
                    last_good = state_files
            written_state = False
            if finished:
                break
            sim.step(dt)
            if first_step_end is None:
                first_step_end = (_time.perf_counter(), sim.cycle)
            bar.update(sim.time, sim.cycle, dt)
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
    if log is not None:
        log(f"{cfg['problem']['name']}: {sim.cycle - start_cycle} cycles to t={sim.time:.6g} in {result.wall:.1f} s, "
            f"{result.zone_cycles_per_s:.3e} zone-cycles/s (after the first step)")
    return result
