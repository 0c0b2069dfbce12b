"""CUDA streams and events, as far as Warp's basic API goes.

Every CUDA device has a current stream: its default stream (the legacy default stream, handle 0)
until ``set_stream`` or ``ScopedStream`` changes it. Launches and device-to-device copies go to the
current stream of their device unless ``stream=`` names one. Streams brickwork creates are *blocking*
streams (``CU_STREAM_DEFAULT``): work on them is ordered with the legacy default stream, so host copies
(``numpy()``, ``wp.array(data, device=...)``), which run there, see every launch made before them.
Events mark a point in a stream's work: another stream can wait for it, the host can wait for it or
ask whether it has passed, and two timing events measure the GPU time between them.
"""

from __future__ import annotations

from .. import cuda_driver, pending_checks
from ..device import Device, get_device
from ..types import device_fill

_current: dict = {}  # device ordinal -> its current Stream
_default: dict = {}  # device ordinal -> its default Stream (the legacy default stream)


def _cuda(device, what: str) -> Device:
    dev = get_device(device)
    if dev.is_cpu:
        raise RuntimeError(f"{what}: {dev} has no streams; streams and events belong to CUDA devices ('cuda:N')")
    return dev


class Stream:
    """A CUDA stream of one device: work on it runs in order, work on other streams may overlap it.

    ``Stream(device)`` creates a stream (``device`` None: the current device, which must be a CUDA
    one). ``cuda_stream`` is the ``CUstream`` handle (0 for a device's default stream)."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device = _cuda(device, "wp.Stream")
        self.priority = priority
        handle = kwargs.get("cuda_stream")
        self._owned = handle is None
        self.cuda_stream = cuda_driver.driver().stream_create(self.device.ordinal) if handle is None else int(handle)
        if handle is not None:  # another library's stream: perhaps not ordered with host copies
            pending_checks.foreign_stream(self.cuda_stream)

    @classmethod
    def _default_of(cls, device: Device) -> "Stream":
        found = _default.get(device.ordinal)
        if found is None:
            found = _default[device.ordinal] = cls(device, cuda_stream=0)
        return found

    def __repr__(self):
        return f"Stream({self.device.alias!r}, cuda_stream={self.cuda_stream:#x})"

    def __eq__(self, other):
        return isinstance(other, Stream) and (other.device, other.cuda_stream) == (self.device, self.cuda_stream)

    def __hash__(self):
        return hash((self.device, self.cuda_stream))

    def __del__(self):
        if getattr(self, "_owned", False) and self.cuda_stream:
            try:
                cuda_driver.driver().stream_destroy(self.device.ordinal, self.cuda_stream)
            except Exception:  # noqa: BLE001 - interpreter shutdown: the context goes with the process
                pass

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one if None) at this point of the stream's work; returns it."""
        event = Event(self.device) if event is None else event
        if event.device != self.device:
            raise ValueError(f"record_event: the event belongs to {event.device}, the stream to {self.device}")
        cuda_driver.driver().event_record(self.device.ordinal, event.cuda_event, self.cuda_stream)
        return event

    def wait_event(self, event: "Event") -> None:
        """Work queued on this stream from now on waits until ``event`` has happened (the host does not wait)."""
        cuda_driver.driver().stream_wait_event(self.device.ordinal, self.cuda_stream, event.cuda_event)

    def wait_stream(self, other: "Stream", event: "Event | None" = None) -> None:
        """Work queued on this stream from now on waits for the work queued on ``other`` so far."""
        self.wait_event(other.record_event(event))

    @property
    def is_complete(self) -> bool:
        """Whether all work queued on the stream has finished."""
        return cuda_driver.driver().stream_query(self.device.ordinal, self.cuda_stream)

    def synchronize(self) -> None:
        """Wait on the host until all work queued on the stream has finished."""
        cuda_driver.driver().stream_synchronize(self.device.ordinal, self.cuda_stream)
        pending_checks.stream_synchronized(self.device.ordinal, self.cuda_stream)


class Event:
    """A point in a stream's work (``record_event``); ``enable_timing`` lets ``get_event_elapsed_time`` use it."""

    def __init__(self, device=None, enable_timing: bool = False):
        self.device = _cuda(device, "wp.Event")
        self.enable_timing = enable_timing
        self.cuda_event = cuda_driver.driver().event_create(self.device.ordinal, enable_timing)

    def __repr__(self):
        return f"Event({self.device.alias!r}, enable_timing={self.enable_timing})"

    def __del__(self):
        if getattr(self, "cuda_event", None):
            try:
                cuda_driver.driver().event_destroy(self.device.ordinal, self.cuda_event)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    @property
    def is_complete(self) -> bool:
        """Whether the work before the event's last recording has finished (True if never recorded)."""
        return cuda_driver.driver().event_query(self.device.ordinal, self.cuda_event)

    def synchronize(self) -> None:
        """Wait on the host until the event has happened."""
        cuda_driver.driver().event_synchronize(self.device.ordinal, self.cuda_event)


def get_stream(device=None) -> Stream:
    """The current stream of a CUDA device (the current device when None): launches and copies go there."""
    dev = _cuda(device, "wp.get_stream")
    return _current.get(dev.ordinal) or Stream._default_of(dev)


def _checked_stream(stream, what: str) -> None:
    """``TypeError`` naming ``what`` for a ``stream`` that is no ``Stream`` (a device name, say: it said "'str'
    object has no attribute 'device'")."""
    if not isinstance(stream, Stream):
        raise TypeError(f"{what}: stream must be a wp.Stream (such as wp.Stream('cuda:0') or "
                        f"wp.get_stream('cuda:0')), got {type(stream).__name__} {stream!r:.60}")


def set_stream(stream: Stream, device=None, sync: bool = False) -> None:
    """Make ``stream`` the current stream of its device; ``sync``: it first waits for the previous one."""
    _checked_stream(stream, "wp.set_stream")
    dev = stream.device if device is None else _cuda(device, "wp.set_stream")
    if dev != stream.device:
        raise ValueError(f"set_stream: the stream belongs to {stream.device}, not {dev}")
    if sync:
        stream.wait_stream(get_stream(dev))
    _current[dev.ordinal] = stream


def current_handle(device: Device) -> int:
    """The ``CUstream`` of the device's current stream (the launch path's one lookup)."""
    found = _current.get(device.ordinal)
    return 0 if found is None else found.cuda_stream


device_fill.current_stream = current_handle  # fills of CUDA arrays are memsets on the current stream


class ScopedStream:
    """Inside ``with wp.ScopedStream(s):`` the stream's device is the current device and ``s`` its
    current stream. ``sync_enter`` (default): ``s`` first waits for the stream that was current;
    ``sync_exit``: on leaving, that stream waits for ``s``. ``None`` changes nothing."""

    def __init__(self, stream: Stream | None, sync_enter: bool = True, sync_exit: bool = False):
        if stream is not None:
            _checked_stream(stream, "wp.ScopedStream")
        self.stream = stream
        self.sync_enter, self.sync_exit = sync_enter, sync_exit

    def __enter__(self):
        from ..device import ScopedDevice

        if self.stream is None:
            return None
        self._device = ScopedDevice(self.stream.device)
        self._device.__enter__()
        self._saved = get_stream(self.stream.device)
        set_stream(self.stream, sync=self.sync_enter)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return
        if self.sync_exit:
            self._saved.wait_stream(self.stream)
        _current[self.stream.device.ordinal] = self._saved
        self._device.__exit__(*exc)


def record_event(event: Event | None = None) -> Event:
    """Record ``event`` (a new one if None) on the current stream of the current device."""
    return get_stream().record_event(event)


def wait_event(event: Event) -> None:
    """The current stream of the current device waits for ``event``."""
    get_stream().wait_event(event)


def wait_stream(other: Stream, event: Event | None = None) -> None:
    """The current stream of the current device waits for the work queued on ``other`` so far."""
    get_stream().wait_stream(other, event)


def synchronize_stream(stream: Stream | None = None) -> None:
    """Wait on the host for ``stream`` (the current device's current stream when None)."""
    (stream or get_stream()).synchronize()


def synchronize_event(event: Event) -> None:
    """Wait on the host until ``event`` has happened."""
    event.synchronize()


def get_event_elapsed_time(start: Event, end: Event, synchronize: bool = True) -> float:
    """Milliseconds of GPU time between two recorded timing events (``synchronize``: wait for ``end``)."""
    for e in (start, end):
        if not e.enable_timing:
            raise ValueError("get_event_elapsed_time: both events need Event(..., enable_timing=True)")
    if synchronize:
        end.synchronize()
    return cuda_driver.driver().event_elapsed(start.device.ordinal, start.cuda_event, end.cuda_event)


def forget_device_streams() -> None:
    """Drop every current and default stream (tests that replace the driver)."""
    _current.clear()
    _default.clear()
