"""Work arrays that device algorithms (sorts: ``device_pairs``) keep from one call to the next.

A sort on a CUDA device used some twenty work arrays, each allocated for the call and freed after it: a
``cuMemAlloc`` and a ``cuMemFree`` apiece, and ``cuMemFree`` waits for the device, so a sort made the host wait
for it about twenty times. ``scratch(device, name, shape, dtype)`` instead returns an array viewing memory kept
under ``name`` for the calling thread, the device and its current stream: the launches of one thread on one
stream run in order, so the next call's launches see the memory only after this call's are done with it. The
memory grows to the largest size asked for and is kept until the thread ends (its arrays go with it) or
``release()``. On the CPU, and while a graph is captured (its launches keep their arrays), each call gets new
arrays, as before.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ..types import recording
from ..types.array_constructors import empty
from ..types.arrays import element_layout
from ..types.device_array import Allocation, DeviceArray
from .streams import current_handle

_kept = threading.local()  # .memory: (device alias, stream, name) -> Allocation


def scratch(device, name: str, shape: tuple, dtype):
    """An uninitialised array of ``shape`` and ``dtype`` on ``device`` for work named ``name`` (the names of one
    call must differ: arrays of one name share memory)."""
    if device.is_cpu or recording.recorder is not None:
        return empty(shape, dtype=dtype, device=device)
    comp, trailing = element_layout(dtype)
    nbytes = np.dtype(comp).itemsize * math.prod(tuple(shape) + tuple(trailing))
    memory = _kept.__dict__.setdefault("memory", {})
    key = (device.alias, current_handle(device), name)
    found = memory.get(key)
    if found is None or nbytes > found.nbytes:  # grown by half at least: sizes that creep up allocate seldom
        found = memory[key] = Allocation(device, max(nbytes, found.nbytes * 3 // 2 if found else 0))
    out = object.__new__(DeviceArray)
    out._allocate(dtype, tuple(shape), device, found)  # a view of its first bytes
    return out


def release() -> None:
    """Let the calling thread's kept work memory go (freed when no array views it)."""
    _kept.__dict__.pop("memory", None)
