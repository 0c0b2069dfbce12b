"""CUDA launches whose bounds records the host has not read yet, read where the host waits for the device.

A release kernel whose accesses of struct array fields are tested as they run (``ir/field_checks``) writes the
first failing access into its module's bounds record, a device global. Reading it right after each launch made the
host wait for every such launch (Warp's launches never wait); instead the launch notes the kernel here, without a
driver call, and the record is read where the host has waited for that launch anyway:

- ``wp.synchronize()`` and ``wp.synchronize_device(d)``: every launch on the device;
- ``Stream.synchronize()`` (``wp.synchronize_stream``): the kernels launched on that stream only; on the legacy
  default stream, as a copy to the host;
- a copy of device memory to the host (``numpy()``, printing, an element read, ``.to("cpu")``) and the DLPack
  export: the kernels launched on the legacy default stream or on streams brickwork created (their work is
  ordered before the copy); a kernel also launched on another library's stream waits for one of the above.

The entry (``targets/cuda/loader.CudaEntry``) reads and clears the record, and raises its ``BoundsError``. Where
several kernels recorded an access, the first launched is raised, and the others at the next wait.
"""

from __future__ import annotations

import threading

#: (device ordinal, module) -> [the entry, the stream handles it was launched on since its record was read]
pending: dict = {}
_lock = threading.Lock()
#: the handles of streams another library made (``Stream(cuda_stream=...)``; handles are unique in a process):
#: they may not be ordered with the legacy default stream, so a host copy does not show that their launches finished
_foreign: set = set()


def note(entry, ordinal: int, module: int, stream: int) -> None:
    """A launch of ``entry`` (loaded as ``module`` on device ``ordinal``) was queued on ``stream``."""
    found = pending.get((ordinal, module))
    if found is None:
        with _lock:
            found = pending.setdefault((ordinal, module), [entry, set()])
    found[1].add(stream)


def foreign_stream(stream: int) -> None:
    """The stream handle ``stream`` was made by another library (not necessarily ordered with host copies)."""
    if stream:
        _foreign.add(stream)


def synchronized(ordinal: int) -> None:
    """The host waited for all work of device ``ordinal``: raise what any launch there recorded."""
    if pending:
        _read(ordinal, lambda streams: True)


def stream_synchronized(ordinal: int, stream: int) -> None:
    """The host waited for ``stream``: raise what the launches made on it alone recorded."""
    if pending:
        _read(ordinal, _ordered_with_host_copies if stream == 0 else lambda streams: streams <= {stream})


def copied_to_host(ordinal: int) -> None:
    """A copy from device ``ordinal`` to the host returned: it waited for the legacy default stream and for
    brickwork's streams, so raise what the launches made there recorded."""
    if pending:
        _read(ordinal, _ordered_with_host_copies)


def forget(ordinal: int | None = None) -> None:
    """Drop every noted launch (of device ``ordinal``; all when None): tests that replace the driver."""
    with _lock:
        for key in [k for k in pending if ordinal is None or k[0] == ordinal]:
            del pending[key]
        if ordinal is None:
            _foreign.clear()


def _ordered_with_host_copies(streams: set) -> bool:
    return not _foreign or streams.isdisjoint(_foreign)


def _read(ordinal: int, finished) -> None:
    """Read the records of device ``ordinal``'s noted kernels whose launches ``finished(streams)`` says are done,
    in the order they were noted; at the first one set, the rest stay noted and its error is raised."""
    with _lock:
        ready = [(key, found) for key, found in pending.items() if key[0] == ordinal and finished(found[1])]
        for key, _ in ready:
            del pending[key]
    for n, ((_, module), (entry, _)) in enumerate(ready):
        try:
            entry.raise_recorded(ordinal, module)
        except BaseException:
            with _lock:  # the others were not read: they stay noted (with any launch noted since)
                for key, (other, streams) in ready[n + 1:]:
                    pending.setdefault(key, [other, set()])[1].update(streams)
            raise
