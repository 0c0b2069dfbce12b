"""Array writes captured on a CUDA device as memset and memcpy nodes, so that a graph holding them can still
be one CUDA graph (runtime/cuda_graph.py).

While a graph is captured, host writes to arrays are recorded (types/recording.py). Those that write device
memory from device memory or from a constant -- ``zero_``, ``fill_`` with a number, vector or matrix,
``assign``/``wp.copy``/``clone`` between arrays of one device, and the initialisation of ``wp.zeros``/
``wp.full`` -- become ``MemoryNode``: at each replay they are issued on the replay stream with the driver's
asynchronous calls (``cuMemsetD8/16/32Async``, ``cuMemsetD2D32Async``, ``cuMemcpyDtoDAsync``), the same calls a
stream capture makes into memset and memcpy nodes. Writes from host memory (numpy data, lists, CPU arrays,
item assignment) stay host calls: a memcpy node reads its host buffer asynchronously at each replay, which
needs page-locked memory living as long as the graph, and brickwork allocates no pinned host memory.
"""

from __future__ import annotations

import numpy as np

from .. import cuda_driver
from . import capture

# an element whose bytes are not one repeated 1-, 2- or 4-byte value is set one 32-bit word at a time
# (cuMemsetD2D32Async, the element's size as pitch): up to this many words (a float64, an int64, a vec4)
_MAX_WORDS = 4


class MemoryNode:
    """A graph node: memsets or a copy on one CUDA device, each ``(driver method, arguments)`` before the
    stream; it keeps the arrays whose memory it writes or reads alive."""

    __slots__ = ("device", "ops", "arrays")

    def __init__(self, device, ops: list, arrays: tuple):
        self.device, self.ops, self.arrays = device, ops, arrays

    def issue(self, drv, ordinal: int, stream: int) -> None:
        """Issue the calls on ``stream``: run them at replay, or record them into a stream capture."""
        for method, args in self.ops:
            getattr(drv, method)(ordinal, *args, stream)

    def graph_step(self):
        """How a stream capture records this node: ``issue(drv, ordinal, stream)``."""
        return self.issue

    def run(self) -> None:
        self.issue(cuda_driver.driver(), self.device.ordinal, capture.replay_stream_handle(self.device))


def memory_node(fn, args) -> MemoryNode | None:
    """The ``MemoryNode`` of the recorded host write ``fn(*args)``, or None when it is not a memset or a copy
    within one CUDA device (it then stays a host call)."""
    from ..types import array_copy
    from ..types.device_array import DeviceArray

    func = getattr(fn, "__func__", fn)
    if func is array_copy._copy_now:
        return _copy_node(*args[:5])
    a = getattr(fn, "__self__", None)
    if type(a) is not DeviceArray or not a._nbytes():
        return None
    if func is DeviceArray._zero_now:
        return MemoryNode(a.device, [("memset", (a.ptr, 0, a._nbytes(), 1))], (a,))
    if func is DeviceArray._fill_now:
        return _fill_node(a, *args[:2])
    if func is DeviceArray._assign_now:
        return _copy_node(a, args[0], 0, 0, 0)
    return None


def _fill_node(a, converted, value) -> MemoryNode | None:
    if getattr(a.dtype, "_bw_struct", False):  # a struct's array fields: held arrays to record, a host call
        return None
    from ..types.arrays import array

    one = array(np.empty((1,) + a._trailing, dtype=a._comp), dtype=a.dtype, device="cpu", copy=False)
    one._fill_now(converted, value)  # the element's bytes, converted as the host fill converts them
    ops = fill_memsets(a.ptr, one._np.tobytes(), a.size)
    return None if ops is None else MemoryNode(a.device, ops, (a,))


def fill_memsets(ptr: int, pattern: bytes, count: int) -> list | None:
    """The driver calls that write ``count`` copies of the element ``pattern`` from ``ptr``: one memset where
    the element is one value repeated (a byte, 16 or 32 bits), else one 2-D memset per 32-bit word of it; None
    for an element of more than ``_MAX_WORDS`` distinct words or of a size that is no multiple of 4."""
    size = len(pattern)
    for width in (1, 2, 4):
        if size % width == 0 and pattern == pattern[:width] * (size // width):
            return [("memset", (ptr, int.from_bytes(pattern[:width], "little"), count * size // width, width))]
    if size % 4 or size // 4 > _MAX_WORDS:
        return None
    return [("memset_2d32", (ptr + 4 * w, size, int.from_bytes(pattern[4 * w:4 * w + 4], "little"), 1, count))
            for w in range(size // 4)]


def _copy_node(dest, src, dest_offset: int, src_offset: int, count: int) -> MemoryNode | None:
    """A copy of ``count`` elements (0: all of ``src``) between arrays of one device, as ``wp.copy`` counts
    them (row-major, contiguous device arrays)."""
    from ..types.device_array import DeviceArray
    from ..types.held_arrays import hold_from

    if type(dest) is not DeviceArray or type(src) is not DeviceArray or src.device != dest.device:
        return None
    n = count or src.size
    if not n or not dest._nbytes():
        return None
    step = dest._nbytes() // dest.size
    hold_from(dest, src)  # an array of structs: what the copied records point to (the host copy holds it at replay)
    return MemoryNode(dest.device, [("copy_on_device", (dest.ptr + dest_offset * step, src.ptr + src_offset * step,
                                                        n * step))], (dest, src))

