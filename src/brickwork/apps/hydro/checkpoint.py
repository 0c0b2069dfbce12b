"""Restart files of a hydro run: what one records besides the arrays, and the checks on loading it.

``metadata(sim, schedule)`` is the metadata a restart file records (time, cycle, schedule, the
settings that must match, the whole configuration). ``load(sim, path, schedule)`` checks a restart
file before it changes anything: that it was written by a run like this one (problem, mesh and
domain, precision), that it does not lie past this run's end, that every metadata entry has its
type and a possible value (a finite time >= 0, a cycle >= 0, a schedule consistent with them) and
that each array has the shape and dtype this run needs; then it loads the state and continues the schedule.
Every refusal is a ``RestartError`` naming the file and the entry. (The checksum of a restart
file covers its metadata too, so these checks matter for files edited by hand and files of the
first format.)
"""

from __future__ import annotations

import math

import numpy as np

from brickwork.io import block_restart
from brickwork.io.restart import RestartError
from brickwork.mesh.checkpoint import content_digest

from . import scalars
from .schedule import KINDS, TOLERANCE, Schedule
from .solver import Hydro

#: metadata entries that must equal this run's settings, with the setting's name
MATCHING = {"problem": "problem.name", "nx": "mesh.nx", "block_nx": "mesh.block_nx", "nghost": "mesh.nghost",
            "dtype": "hydro.dtype"}
#: settings that must equal this run's, read from the configuration a restart file stores (every
#: format does): the domain, without which the cells of the file would be given other widths
MATCHING_CONFIG = ("mesh.xmin", "mesh.xmax")
#: what to add to a mismatch of a setting the user may not have set
_HINTS = {"mesh.nghost": " (mesh.nghost = 0, the default, is what hydro.reconstruction needs: 2 for plm, 3 for "
                         "ppm and weno5; a restart keeps the ghost width of the run that wrote the file)"}


def metadata(sim: Hydro, schedule: Schedule) -> dict:
    """The metadata of a restart file of ``sim``'s current state."""
    m, h = sim.cfg["mesh"], sim.cfg["hydro"]
    config = sim.cfg.to_dict()
    if sim.nscalars:  # the names the outputs use, which a run restarted from this file keeps (its own, if loaded)
        config["hydro"]["scalar_names"] = list(sim.scalar_names)
    return {"time": sim.time, "cycle": sim.cycle, "schedule": schedule.to_meta(),
            "problem": sim.cfg["problem"]["name"], "nx": m["nx"], "block_nx": m["block_nx"], "nghost": m["nghost"],
            "dtype": h["dtype"], "config": config}


def load(sim: Hydro, path: str, schedule: Schedule) -> str:
    """Set ``sim``'s state, time and cycle from the restart file ``path`` and continue ``schedule``;
    ``RestartError`` (and nothing changed) when the file does not fit this run. Returns a digest of the
    file's content (``content_digest``), for the MPI ranks to check that they read the same file."""
    with block_restart.BlockFile(path) as source:  # this rank's blocks only, each checked against its digest
        return _load(sim, source, schedule)


def _load(sim: Hydro, source, schedule: Schedule) -> str:
    path, meta = source.path, source.meta
    check = Checker(path)
    settings = [(name, check.entry(meta, key)) for key, name in MATCHING.items()]
    config = check.table(meta, "config")
    for name in MATCHING_CONFIG:
        section, setting = name.split(".")
        settings.append((name, check.entry(check.table(config, section, "config."), setting, f"config.{section}.")))
    for name, theirs in settings:
        section, setting = name.split(".")
        mine = sim.cfg[section][setting]
        if theirs != mine:
            raise RestartError(f"restart file {path!r} was written with {name}={theirs!r}, but this run has "
                               f"{name}={mine!r}{_HINTS.get(name, '')}")
    time = check.number(meta, "time")
    cycle = check.count(meta, "cycle")
    _check_end(sim, path, time, cycle)
    stored = check.schedule(meta, time, cycle)
    nblocks = len(sim.mesh.block_list)
    scalars.check_restart(path, source.arrays, sim.nscalars)
    names = scalars.restart_names(path, meta, sim)
    for name in sim.conserved:
        _check_array(path, name, source.arrays.get(name), (nblocks, *sim.mesh.data(name).shape[1:]), sim.np_dtype)
    values = {}
    for name in sim.conserved:  # every block read (and checked) before anything changes
        host = values[name] = np.empty(sim.mesh.data(name).shape, sim.np_dtype)
        for block in sim.mesh.blocks:  # the file holds every block in global order
            source.read(name, block.gid, host[block.lid])
    for name in sim.conserved:
        sim.mesh.data(name)[...] = values[name]
    sim.time, sim.cycle = time, cycle
    sim.scalar_names = names
    schedule.load_meta(stored, time)
    return content_digest(meta)


def _check_end(sim: Hydro, path: str, time: float, cycle: int) -> None:
    """``RestartError`` when the restart lies past this run's end: there would be nothing to run."""
    tlim, nlim = sim.cfg["time"]["tlim"], sim.cfg["time"]["nlim"]
    if time - tlim > TOLERANCE * max(abs(tlim), 1.0):
        raise RestartError(f"restart file {path!r} is at t={time:.6g}, past this run's time.tlim={tlim:g}: there is "
                           f"nothing to run; set time.tlim to a later time")
    if 0 <= nlim < cycle:
        raise RestartError(f"restart file {path!r} is at cycle {cycle}, past this run's time.nlim={nlim}: there is "
                           f"nothing to run; set time.nlim to a later cycle or -1")


def _check_array(path: str, name: str, found: tuple | None, shape: tuple, dtype) -> None:
    """``found``: the file's ``(dtype, shape)`` of array ``name`` (``BlockFile.arrays``), None if it has none."""
    if found is None:
        raise RestartError(f"restart file {path!r}: array {name!r} is missing")
    if found[0] != dtype:
        raise RestartError(f"restart file {path!r}: array {name!r} has dtype {found[0]}, but this run's fields "
                           f"are {dtype} (hydro.dtype)")
    if tuple(found[1]) != shape:
        raise RestartError(f"restart file {path!r}: array {name!r} has shape {tuple(found[1])}, but this run needs "
                           f"{shape}")


class Checker:
    """Typed reads of a restart file's metadata: each raises ``RestartError`` naming the entry (its
    path in the metadata, ``schedule.next.hdf5``) and what was expected."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, name: str, expected: str, value) -> RestartError:
        return RestartError(f"restart file {self.path!r}: its metadata entry {name!r} must be {expected}, got "
                            f"{value!r}")

    def entry(self, table: dict, key: str, prefix: str = ""):
        if key not in table:
            raise RestartError(f"restart file {self.path!r}: its metadata has no entry {prefix + key!r}")
        return table[key]

    def table(self, table: dict, key: str, prefix: str = "") -> dict:
        value = self.entry(table, key, prefix)
        if not isinstance(value, dict):
            raise self.fail(prefix + key, "a table", value)
        return value

    def number(self, table: dict, key: str, prefix: str = "", minimum: float = 0.0, infinite: bool = False) -> float:
        """A number >= ``minimum``, finite unless ``infinite`` (NaN never)."""
        value = self.entry(table, key, prefix)
        try:
            x = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        except OverflowError:  # an integer beyond the doubles
            x = math.nan
        if not (x >= minimum and (math.isfinite(x) or (infinite and x == math.inf))):
            raise self.fail(prefix + key, f"a {'' if infinite else 'finite '}number >= {minimum:g}", value)
        return x

    def count(self, table: dict, key: str, prefix: str = "", minimum: int = 0, maximum: int = 2**53) -> int:
        """An integer in [minimum, maximum] (by default at most 2**53: a count no run reaches, exact as a
        float and an HDF5 attribute; a larger one used to fail only when the first output was written)."""
        value = self.entry(table, key, prefix)
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.fail(prefix + key, f"an integer from {minimum} to {maximum}", value)
        return value

    def schedule(self, meta: dict, time: float, cycle: int) -> dict:
        """The output schedule stored at (time, cycle), checked: counts >= 0, each kind's last cycle
        -1 (none yet) exactly when its count is 0 and at most ``cycle``, cadences >= -1, and for
        each periodic kind a next time after ``time``. Files from before the cadences were stored
        take them from their configuration; files from before VTK outputs had a schedule of their own
        (``output.vtk_dt``) have none written."""
        table = self.table(meta, "schedule")
        if "every" in table:
            every, prefix, key = self.table(table, "every", "schedule."), "schedule.every.", "{}"
        else:  # a file from before the cadences were stored: those of its configuration
            every = self.table(self.table(meta, "config"), "output", "config.")
            prefix, key = "config.output.", "{}_dt"
        parts = {name: self.table(table, name, "schedule.") for name in ("next", "count", "last_cycle")}
        out: dict = {name: {} for name in ("every", "next", "count", "last_cycle")}
        for kind in KINDS:
            if kind == "vtk" and kind not in parts["count"]:  # a file from before VTK had a schedule of its own
                out["every"][kind], out["count"][kind], out["last_cycle"][kind], out["next"][kind] = -1.0, 0, -1, 0.0
                continue
            out["every"][kind] = cadence = self.number(every, key.format(kind), prefix, minimum=-1.0)
            out["count"][kind] = n = self.count(parts["count"], kind, "schedule.count.")
            out["last_cycle"][kind] = last = self.count(parts["last_cycle"], kind, "schedule.last_cycle.", minimum=-1,
                                                        maximum=cycle)
            if (last == -1) != (n == 0):
                raise RestartError(f"restart file {self.path!r}: its metadata is inconsistent: schedule.count.{kind}="
                                   f"{n} but schedule.last_cycle.{kind}={last} (-1 exactly when none was written)")
            out["next"][kind] = due = self.number(parts["next"], kind, "schedule.next.", infinite=True)
            if cadence > 0 and not time < due < math.inf:
                raise RestartError(f"restart file {self.path!r}: its metadata is inconsistent: schedule.next.{kind}="
                                   f"{due!r} is not a time after the file's time {time!r}")
        return out
