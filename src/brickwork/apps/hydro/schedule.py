"""``Schedule``: when each kind of output is due, in simulated time, and how many were written.

``output.*_dt``: -1 never, 0 the first state and the last (restart files: only the last), > 0 the
first state at or past each multiple of the cadence, plus the last. A restart file stores the
schedule; a restarted run with the same cadence continues it exactly (so it writes what the
uninterrupted run would have), and one with a changed cadence starts the new cadence at the
restart: its next output is due at the first multiple of the new value past the restart time.

``output.*_dn``, in cycles: -1 (the default) never, ``n >= 1`` every state whose cycle is a multiple
of ``n`` (restart files: not cycle 0), plus the last. An output is due when either its ``*_dt`` or its
``*_dn`` says so, and is written once per state. A cycle cadence needs nothing stored: a restarted
run counts cycles from the file's, so it continues the cadence whether or not ``n`` changed.
"""

from __future__ import annotations

import math

#: "hdf5": the outputs of ``output.format`` (HDF5, VTK or both); "vtk": VTK outputs on a schedule of their own
KINDS = ("hdf5", "vtk", "png", "restart")
#: a state within this relative distance of a due time counts as reaching it (rounding of sums of dt)
TOLERANCE = 1e-12


def first_multiple_past(t: float, every: float) -> float:
    """The first of every, 2 every, ... past ``t`` (within ``TOLERANCE``), found without counting up
    to it; the state after ``t`` when the cadence is too fine to tell its multiples apart there."""
    limit = t * (1.0 + TOLERANCE)
    q = limit / every
    if math.isfinite(q):
        k = math.floor(q) + 1
        for _ in range(3):  # q rounded down across a multiple: the next one or two
            if k * every > limit:
                return k * every
            k += 1
    return math.nextafter(limit, math.inf)


def scheduled(out: dict, kind: str) -> bool:
    """Whether the ``[output]`` section ``out`` schedules ``kind`` (by time, by cycle or both)."""
    return out.get(f"{kind}_dt", -1.0) >= 0 or out.get(f"{kind}_dn", -1) >= 1


class Schedule:
    """When each kind of output is due, and how many were written."""

    def __init__(self, cfg):
        out = cfg["output"]
        self.every = {kind: out.get(f"{kind}_dt", -1.0) for kind in KINDS}
        #: the cycle cadences, ``output.*_dn`` (-1: none)
        self.every_cycles = {kind: out.get(f"{kind}_dn", -1) for kind in KINDS}
        self.next = {k: (0.0 if k != "restart" else (dt if dt > 0 else math.inf)) for k, dt in self.every.items()}
        self.count = dict.fromkeys(KINDS, 0)
        self.last_cycle = dict.fromkeys(KINDS, -1)

    def due(self, kind: str, t: float, cycle: int, final: bool) -> bool:
        every, cycles = self.every[kind], self.every_cycles[kind]
        if (every < 0 and cycles < 1) or self.last_cycle[kind] == cycle:
            return False
        if final:
            return True
        if cycles >= 1 and cycle % cycles == 0 and not (kind == "restart" and cycle == 0):
            return True
        if every == 0:
            return kind != "restart" and self.count[kind] == 0
        return every > 0 and t >= self.next[kind] * (1.0 - TOLERANCE)

    def advance(self, kind: str, t: float, cycle: int) -> int:
        """Mark ``kind`` written at (t, cycle); returns the number of this output."""
        n = self.count[kind]
        self.count[kind] += 1
        self.last_cycle[kind] = cycle
        every = self.every[kind]
        if every > 0:
            # one addition per due time passed (bit for bit what earlier runs stored), unless a long
            # stretch was passed at once: a tiny cadence must not take 1e300 additions
            if (t - self.next[kind]) / every > 1000:
                self.next[kind] = first_multiple_past(t, every)
            while self.next[kind] <= t * (1.0 + TOLERANCE):
                if self.next[kind] + every == self.next[kind]:  # below the spacing of doubles: no sum moves it
                    self.next[kind] = first_multiple_past(t, every)
                    break
                self.next[kind] += every
        return n

    def to_meta(self) -> dict:
        return {"every": dict(self.every), "next": dict(self.next), "count": dict(self.count),
                "last_cycle": dict(self.last_cycle)}

    def load_meta(self, meta: dict, t: float) -> None:
        """Continue the schedule ``meta`` (checked: see ``checkpoint``) stored at time ``t``. A cadence
        that differs from the stored one starts at ``t``: the first multiple of it past ``t``."""
        for kind in KINDS:
            self.count[kind] = meta["count"][kind]
            self.last_cycle[kind] = meta["last_cycle"][kind]
            every = self.every[kind]
            if every > 0:
                same = meta["every"][kind] == every
                self.next[kind] = meta["next"][kind] if same else first_multiple_past(t, every)
