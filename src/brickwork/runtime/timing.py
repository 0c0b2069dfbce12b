"""Activity timing, as Warp's ``wp.timing_begin`` / ``wp.timing_end`` / ``wp.timing_print``: the device time of each
kernel launch, copy, memset and graph launch between the two calls, on the CPU and on CUDA devices.

On the CPU each activity is timed around its native call (``time.perf_counter``); on a CUDA device two timing
events are recorded around it on its stream and read at ``timing_end`` (``cuEventElapsedTime``), as Warp does.
While a range is open, the launch paths take their hooked branch (runtime/launch_hooks.py) and the CUDA entry's
launch and the driver's copies, memsets and graph launches are wrapped (``_install`` / ``_uninstall``); nothing is
read on the launch fast path beyond the ``config.print_launches`` check it always made.
"""

from __future__ import annotations

from .. import config
from .. import device as _devices
from .. import timing_state as _state
from ..errors import DeviceUnavailableError
from ..timing_state import (  # noqa: F401 - wp.TIMING_* and TimingResult are exported from here
    TIMING_ALL,
    TIMING_GRAPH,
    TIMING_KERNEL,
    TIMING_KERNEL_BUILTIN,
    TIMING_MEMCPY,
    TIMING_MEMSET,
    TimingResult,
    host_activity,
    time_host,
    wanted,
)


class _Range:
    """An open ``timing_begin``: its filter and what it collected (results, or CUDA event pairs read at the end)."""

    __slots__ = ("filter", "records")

    def __init__(self, flags: int):
        self.filter = flags
        self.records: list = []  # TimingResult, or (device, name, flag, driver, ordinal, start, end)


def check_filter(cuda_filter, caller: str = "timing_begin") -> int:
    """``cuda_filter`` if it is an int of ``TIMING_*`` flags (0, which times nothing, to ``TIMING_ALL``); else
    TypeError or ValueError."""
    if isinstance(cuda_filter, bool) or not isinstance(cuda_filter, int):
        raise TypeError(f"{caller}: cuda_filter must be an int of TIMING_* flags (wp.TIMING_KERNEL | "
                        f"wp.TIMING_MEMCPY, wp.TIMING_ALL), got {type(cuda_filter).__name__} {cuda_filter!r}")
    if not 0 <= cuda_filter <= TIMING_ALL:
        raise ValueError(f"{caller}: cuda_filter must be a combination of TIMING_* flags, from 0 to TIMING_ALL "
                         f"(0xFFFFFFFF), got {cuda_filter}")
    return cuda_filter


def timing_begin(cuda_filter: int = TIMING_ALL, synchronize: bool = True) -> None:
    """Start timing the activities selected by ``cuda_filter`` (``TIMING_*`` flags) on every device, until
    ``timing_end``. ``synchronize`` waits for the CUDA devices' earlier work first. A range begun inside another
    collects what runs until its own end, the outer one again after it (as Warp's)."""
    flags = check_filter(cuda_filter)
    if synchronize:
        _devices.synchronize()
    if not _state.ranges:
        _install()
    _state.ranges.append(_Range(flags))


def timing_end(synchronize: bool = True) -> list:
    """End the innermost ``timing_begin``: a ``TimingResult`` per activity, in the order they were issued.
    ``synchronize`` waits for the CUDA devices first (the events are waited for one by one otherwise)."""
    if not _state.ranges:
        raise RuntimeError("timing_end: no timing is active (call wp.timing_begin first)")
    try:
        if synchronize:
            _devices.synchronize()
    finally:
        rng = _state.ranges.pop()
        if not _state.ranges:
            _uninstall()
    results, failure = [], None
    for record in rng.records:  # every event pair released, even after a failed read
        try:
            results.append(_result(record))
        except Exception as e:  # noqa: BLE001 - the first failure is raised once all are released
            failure = failure or e
    if failure is not None:
        raise failure
    return results


def _result(record) -> TimingResult:
    if type(record) is TimingResult:
        return record
    device, name, flag, drv, ordinal, start, end = record
    try:
        drv.event_synchronize(ordinal, end)
        elapsed = drv.event_elapsed(ordinal, start, end)
    finally:
        drv.event_destroy(ordinal, start)
        drv.event_destroy(ordinal, end)
    return TimingResult(device, name, flag, elapsed)


def timing_print(results: list, indent: str = "") -> None:
    """Print ``results`` as Warp does: the timeline (one line per activity), then per activity and per device
    the total time and the count. The headings are Warp's ("CUDA timeline"), whatever the devices."""
    if not results:
        print("No activity")
        return
    width = max(len("Activity"), *(len(r.name) for r in results)) + 1
    rule = f"{indent}----------------+---------+{'-' * width}"
    activities: dict = {}
    devices: dict = {}
    print(f"{indent}CUDA timeline:")
    print(rule)
    print(f"{indent}Time            | Device  | Activity")
    print(rule)
    for r in results:
        for totals, key in ((activities, r.name), (devices, r.device.alias)):
            count, elapsed = totals.get(key, (0, 0.0))
            totals[key] = (count + 1, elapsed + r.elapsed)
        print(f"{indent}{r.elapsed:12.6f} ms | {r.device.alias:7s} | {r.name}")
    for title, column, totals in (("activity", "Activity", activities), ("device", "Device", devices)):
        print()
        print(f"{indent}CUDA {title} summary:")
        print(rule)
        print(f"{indent}Total time      | Count   | {column}")
        print(rule)
        for key, (count, elapsed) in totals.items():
            print(f"{indent}{elapsed:12.6f} ms | {count:7d} | {key}")


# -- recording ---------------------------------------------------------------------------------------------


def _time_cuda(rng, device, name: str, flag: int, stream, fn, *args):
    """``fn(*args)`` bracketed by two timing events on the CUDA ``stream`` of ``device``; read at ``timing_end``."""
    from .. import cuda_driver

    drv = cuda_driver.driver()
    ordinal = device.ordinal
    start, end = drv.event_create(ordinal, timing=True), drv.event_create(ordinal, timing=True)
    drv.event_record(ordinal, start, stream or 0)
    try:
        return fn(*args)
    finally:
        drv.event_record(ordinal, end, stream or 0)
        rng.records.append((device, name, flag, drv, ordinal, start, end))


def kernel_activity(kernel, backward: bool) -> tuple:
    """``(name, flag)`` of a launch of ``kernel``, named as Warp names it (its key, without Warp's hash suffix)."""
    if _state.builtin:
        return f"builtin kernel {kernel.key}", TIMING_KERNEL_BUILTIN
    return f"{'backward' if backward else 'forward'} kernel {kernel.key}", TIMING_KERNEL


# -- the hooks a range installs ----------------------------------------------------------------------------

_saved: dict = {}  # what _install replaced: ("print_launches", value), (class, method name) -> method
_capturing: set = set()  # (ordinal, stream) of the CUDA streams being captured into a graph: not timed


class HooksOn:
    """What ``config.print_launches`` holds while a timing range is open: true, so that each launch takes the
    hooked branch (the one check the fast path makes); ``printing`` is the setting it replaced."""

    __slots__ = ("printing",)

    def __init__(self, printing):
        self.printing = printing

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<timing active; print_launches={self.printing!r}>"


def _install() -> None:
    _saved["print_launches"] = HooksOn(config.print_launches)
    config.print_launches = _saved["print_launches"]
    from .. import cuda_driver

    try:
        drv = cuda_driver.driver()
    except DeviceUnavailableError:  # no CUDA: the CPU's activities only
        return
    from ..targets.cuda.loader import CudaEntry

    _wrap(CudaEntry, "launch", _timed_entry_launch)
    for method, wrapper in _DRIVER_WRAPPERS.items():
        _wrap(type(drv), method, wrapper)


def _uninstall() -> None:
    hooks = _saved.pop("print_launches", None)
    if config.__dict__.get("print_launches") is hooks:  # not assigned since: the setting as it was
        config.print_launches = hooks.printing
    for (cls, method), (own, original) in list(_saved.items()):
        if own:
            setattr(cls, method, original)
        else:  # inherited: the base class's again
            delattr(cls, method)
        del _saved[(cls, method)]
    _capturing.clear()


def _wrap(cls, method: str, make) -> None:
    original = getattr(cls, method)
    _saved[(cls, method)] = (method in cls.__dict__, original)
    setattr(cls, method, make(original))


def _timed_entry_launch(original):
    def launch(entry, buf, dims, device, args=(), params=(), stream=0):
        name, flag = _state.pending or (f"forward kernel {entry.label}", TIMING_KERNEL)
        rng = wanted(flag)
        if rng is None or (device.ordinal, stream or 0) in _capturing:
            return original(entry, buf, dims, device, args, params, stream)
        return _time_cuda(rng, device, name, flag, stream, original, entry, buf, dims, device, args, params, stream)

    return launch


def _driver_wrapper(name: str, flag: int, stream_at: int | None):
    """A wrapper of a driver method ``(self, ordinal, ...)`` whose stream is argument ``stream_at`` (None: the
    legacy default stream), timed as activity ``name``."""
    def make(original):
        def timed(drv, ordinal, *args, **kwargs):
            rng = wanted(flag)
            stream = kwargs.get("stream") if stream_at is None or len(args) <= stream_at else args[stream_at]
            if rng is None or (ordinal, stream or 0) in _capturing:
                return original(drv, ordinal, *args, **kwargs)
            device = _devices.get_device(f"cuda:{ordinal}")
            return _time_cuda(rng, device, name, flag, stream, original, drv, ordinal, *args, **kwargs)

        return timed

    return make


def _capture_tracker(original, begins: bool):
    def track(drv, ordinal, stream):
        (_capturing.add if begins else _capturing.discard)((ordinal, stream))
        return original(drv, ordinal, stream)

    return track


_DRIVER_WRAPPERS = {
    "copy_to_device": _driver_wrapper("memcpy HtoD", TIMING_MEMCPY, 3),
    "copy_to_host": _driver_wrapper("memcpy DtoH", TIMING_MEMCPY, None),
    "copy_on_device": _driver_wrapper("memcpy DtoD", TIMING_MEMCPY, 3),
    "memset": _driver_wrapper("memset", TIMING_MEMSET, 4),
    "memset_2d32": _driver_wrapper("memset", TIMING_MEMSET, 5),
    "graph_launch": _driver_wrapper("graph", TIMING_GRAPH, 1),
    "capture_begin": lambda original: _capture_tracker(original, True),
    "capture_end": lambda original: _capture_tracker(original, False),
}
