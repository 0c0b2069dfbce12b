"""Warp 1.19's memory tracker: ``wp.config.track_memory``, ``wp.print_memory_report`` and ``wp.ScopedMemoryTracker``.

While tracking is on, every array memory brickwork allocates (host memory of CPU arrays and their gradients, device
memory of CUDA arrays) is recorded with its size, device, array type, the scope path of the trackers open on the
allocating thread, and the line of the program that asked for it (the first frame outside brickwork). A report
lists the totals, peak and live bytes per device, what each scope allocated, and the live allocations, in Warp's
layout. Tracking is off unless a tracker is open or ``wp.config.track_memory`` was set before ``wp.init()``: the
allocation paths then test one flag."""

from __future__ import annotations

import os
import sys
import threading
import weakref

import numpy as np

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_lock = threading.RLock()
_scopes = threading.local()  # .stack: the names of the trackers open on this thread


class _State:
    enabled = False
    global_started = False
    serial = 0
    live: dict = {}  # serial -> entry (device, nbytes, label, site)
    totals: dict = {}  # device -> [count, bytes]
    live_bytes: dict = {}  # device -> bytes
    peak: dict = {}  # device -> bytes
    scopes: dict = {}  # scope path -> {device: [count, bytes]}
    pending = None  # the last host allocation not yet named by the array it became: (serial, buffer ref)
    last_device = 0  # the serial of the last device allocation


def _stack() -> list:
    stack = getattr(_scopes, "stack", None)
    if stack is None:
        stack = _scopes.stack = []
    return stack


def active() -> bool:
    """Whether allocations are being recorded (``wp.config.track_memory`` starts the global scope at ``wp.init()``)."""
    return _State.enabled


def start_global() -> None:
    """``wp.init()`` with ``wp.config.track_memory`` set: record every later allocation under the scope 'global'."""
    with _lock:
        if _State.global_started:
            return
        _State.global_started = True
        _stack().insert(0, "global")
        _State.enabled = True


def _site() -> str:
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} : {frame.f_code.co_name}()"


def _record(device: str, nbytes: int, label: str, owner) -> int:
    with _lock:
        _State.serial += 1
        serial = _State.serial
        _State.live[serial] = (device, nbytes, label, _site())
        count = _State.totals.setdefault(device, [0, 0])
        count[0] += 1
        count[1] += nbytes
        live = _State.live_bytes[device] = _State.live_bytes.get(device, 0) + nbytes
        _State.peak[device] = max(_State.peak.get(device, 0), live)
        scope = _State.scopes.setdefault("/".join(_stack()), {}).setdefault(device, [0, 0])
        scope[0] += 1
        scope[1] += nbytes
    weakref.finalize(owner, _freed, serial)
    return serial


def _freed(serial: int) -> None:
    """An allocation's memory went back; recorded only while tracking is on, as Warp's tracker does."""
    if not _State.enabled:
        return
    with _lock:
        entry = _State.live.pop(serial, None)
        if entry is not None:
            _State.live_bytes[entry[0]] -= entry[1]


def host_allocated(buffer: np.ndarray, nbytes: int) -> None:
    """New host memory (``buffer``, the numpy array owning it; ``nbytes`` of it for the array's elements, the
    rest alignment) for a CPU array about to be made."""
    serial = _record("cpu", int(nbytes), f"array[{buffer.dtype}, {buffer.size}]", buffer)
    _State.pending = (serial, weakref.ref(buffer))


def name_host_array(a, given=None) -> None:
    """Give the last host allocation the type and shape of ``a``, the array made on it (Warp's
    ``array[vec3f, (10, 3)]``); for an array made from data, the dtype ``given`` only, as Warp's
    ``array[vec3f]`` (``array[Any]`` where none was)."""
    pending, _State.pending = _State.pending, None
    if pending is None:
        return
    root = a._np
    while getattr(root, "base", None) is not None:  # views, and as_strided's holder of a strided allocation
        root = root.base
    if pending[1]() is root:
        _rename(pending[0], a, given)


def device_allocated(allocation, a) -> None:
    """New CUDA memory (``allocation``) for the device array ``a``."""
    _State.last_device = _record(str(a.device), int(allocation.nbytes), "", allocation)
    _rename(_State.last_device, a)


def name_device_array(a, given) -> None:
    """The device array ``a`` just made was made from data: named by the dtype ``given``, as Warp names it."""
    _rename(_State.last_device, a, given)


class paused:
    """``with paused():`` records nothing in the block (the host copy a CUDA array is uploaded from, which
    Warp does not allocate)."""

    def __enter__(self):
        self.was, _State.enabled = _State.enabled, False

    def __exit__(self, *exc):
        _State.enabled = self.was


def _rename(serial: int, a, given=None) -> None:
    shape = a.shape[0] if len(a.shape) == 1 else a.shape
    label = f"array[{type_name(a.dtype)}, {shape}]" if given is None else f"array[{type_name(given)}]"
    with _lock:
        entry = _State.live.get(serial)
        if entry is not None:
            _State.live[serial] = (entry[0], entry[1], label, entry[3])


def type_name(t) -> str:
    """A dtype's name as Warp's report gives it (``vec3f``, ``float32``, ``Any``)."""
    return getattr(t, "__name__", None) or repr(t)


def _size(nbytes: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} B"


def _checked_sort(sort: str) -> None:
    if sort not in ("size", "chronological"):
        raise ValueError(f"Invalid sort order {sort!r}; expected 'size' or 'chronological'")


def report_text(sort: str = "size", max_items: int = 10) -> str:
    """The report Warp's tracker prints: totals, peaks, live counts per device, the scope breakdown (where
    more than one scope allocated), and each device's live allocations (largest first, or oldest first)."""
    _checked_sort(sort)
    with _lock:
        live = dict(_State.live)
        lines = ["Allocation Tracking Report", "  Total allocations:"]
        lines += [f"    {d:<16} {n} ({_size(b)})" for d, (n, b) in sorted(_State.totals.items())]
        lines.append("  Peak usage:")
        lines += [f"    {d:<16} {_size(b)}" for d, b in sorted(_State.peak.items())]
        lines.append("  Live allocations:")
        devices = sorted({e[0] for e in live.values()})
        for d in devices:
            mine = [e for e in live.values() if e[0] == d]
            lines.append(f"    {d:<16} {len(mine)} ({_size(sum(e[1] for e in mine))})")
        if not devices:
            lines.append("    (none)")
        if len(_State.scopes) > 1:
            lines += ["", "  Scope breakdown:"]
            for path, per_device in sorted(_State.scopes.items()):
                lines.append(f"    {path}:")
                lines += [f"      {d}: {n} allocs, {_size(b)}" for d, (n, b) in sorted(per_device.items())]
    for d in devices:
        mine = [e for _, e in sorted(live.items()) if e[0] == d]  # oldest first
        if sort == "size":
            mine.sort(key=lambda e: -e[1])  # stable: equal sizes oldest first
        order = "by size (largest first)" if sort == "size" else "chronological"
        lines += ["", f"  Live {d} allocations {order} (up to {max_items}):"]
        lines += [f"    {_size(n)} : {dev} : {label} : {site}" for dev, n, label, site in mine[:max_items]]
    return "\n".join(lines) + "\n"


def print_memory_report(file=None, sort: str = "size", max_items: int = 10) -> None:
    """Print the report of the allocations tracked so far (``wp.config.track_memory`` set before ``wp.init()``,
    or inside a ``wp.ScopedMemoryTracker``); a RuntimeError when tracking is off."""
    _checked_sort(sort)
    if not _State.enabled:
        raise RuntimeError("Allocation tracking is not active. Set wp.config.track_memory = True before calling "
                           "wp.init(), or use wp.ScopedMemoryTracker as a context manager.")
    print(report_text(sort, max_items), file=file or sys.stdout, end="")


class ScopedMemoryTracker:
    """Record the allocations made inside the block under the scope ``name`` (nested trackers make a path,
    ``run/init``) and, with ``print=True``, print the report at its end (to ``report_func(text)`` if given).
    ``active=False`` makes it do nothing. The records stay after the block; ``clear()`` forgets them."""

    def __init__(self, name: str = "root", active: bool = True, print: bool = True, report_func=None):
        self.name, self.active, self.print, self.report_func = name, active, print, report_func
        self._did_enable = False

    def __enter__(self):
        if self.active:
            _stack().append(self.name)
            if not _State.enabled:
                _State.enabled = self._did_enable = True
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return
        _stack().pop()
        try:
            if self.print:
                self.report()
        finally:
            if self._did_enable:
                _State.enabled = self._did_enable = False

    def report(self, file=None, sort: str = "size", max_items: int = 10) -> None:
        """Print the report now (or pass it to ``report_func``)."""
        text = report_text(sort, max_items)
        if self.report_func is not None:
            self.report_func(text)
        else:
            print(text, file=file or sys.stdout, end="")

    def clear(self) -> None:
        """Forget everything recorded so far (totals, peaks, scopes, live allocations); tracking goes on."""
        with _lock:
            _State.live, _State.totals, _State.live_bytes, _State.peak, _State.scopes = {}, {}, {}, {}, {}
            _State.pending = None
