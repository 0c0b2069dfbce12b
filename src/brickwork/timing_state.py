"""The state of activity timing (``wp.timing_begin``, runtime/timing.py) and what records into it, in a module the
array types' copy and fill paths can read (it imports only the device module): the open ranges, the innermost of
which collects what runs (as in Warp), the ``TIMING_*`` flags and ``TimingResult``."""

from __future__ import annotations

import time

from . import device as _devices

#: The open ranges, the innermost last (empty: nothing is timed).
ranges: list = []
#: How deep the current code is in a launch of one of brickwork's own kernels (utils' sorts, scans and reductions,
#: trees' and grids' builds): a kernel launched there is a ``TIMING_KERNEL_BUILTIN`` activity.
builtin: int = 0
#: ``(name, filter)`` of the kernel a hooked CUDA launch is about to issue (runtime/launch_hooks.py), or None.
pending = None
#: Whether a graph is being replayed by the host as one timed activity: what it launches is not timed again.
replaying: bool = False

TIMING_KERNEL = 1  #: kernels launched by the program (``wp.launch``, ``launch_tiled``, recorded, backward)
TIMING_KERNEL_BUILTIN = 2  #: brickwork's own kernels (utils' sorts, scans and reductions; trees' and grids' builds)
TIMING_MEMCPY = 4  #: copies (``wp.copy``, ``assign``, ``numpy()`` of a device array)
TIMING_MEMSET = 8  #: memsets (``zero_``, ``fill_``)
TIMING_GRAPH = 16  #: graph launches (``wp.capture_launch``)
TIMING_ALL = 0xFFFFFFFF  #: every activity


class TimingResult:
    """One timed activity: the ``device`` it ran on, its ``name`` (``"forward kernel scale"``, ``"memcpy HtoD"``),
    its ``filter`` flag (``TIMING_KERNEL`` ...) and its ``elapsed`` time in milliseconds."""

    __slots__ = ("device", "name", "filter", "elapsed")

    def __init__(self, device, name: str, filter: int, elapsed: float):  # noqa: A002 - Warp's name
        self.device, self.name, self.filter, self.elapsed = device, name, filter, elapsed

    def __repr__(self) -> str:
        return f"TimingResult({self.device.alias!r}, {self.name!r}, {self.filter}, {self.elapsed:.6f})"


def wanted(flag: int):
    """The innermost open range if it collects ``flag`` activities, else None (also inside a timed graph)."""
    if ranges and ranges[-1].filter & flag and not replaying:
        return ranges[-1]
    return None


def time_host(rng, name: str, flag: int, fn, *args):
    """``fn(*args)`` on the CPU, its wall time recorded into ``rng`` as activity ``name``."""
    start = time.perf_counter()
    try:
        return fn(*args)
    finally:
        rng.records.append(TimingResult(_devices.CPU, name, flag, (time.perf_counter() - start) * 1000.0))


def host_activity(name: str, flag: int, fn):
    """``fn`` as an activity of the CPU: run, and timed as ``name`` when the innermost range wants ``flag``."""
    def run(*args):
        rng = wanted(flag)
        return fn(*args) if rng is None else time_host(rng, name, flag, fn, *args)

    return run




def graph_activity(replay, graph, stream) -> None:
    """``replay(graph, stream)``: a graph replayed by the host (``wp.capture_launch``), timed as one ``"graph"``
    activity of the CPU when the innermost range wants ``TIMING_GRAPH`` (its launches and copies are not timed)."""
    global replaying
    rng = wanted(TIMING_GRAPH)
    replaying = True
    try:
        if rng is None:
            replay(graph, stream)
        else:
            time_host(rng, "graph", TIMING_GRAPH, replay, graph, stream)
    finally:
        replaying = False
