"""Array writes captured on a CUDA device as memset and memcpy nodes, so that a graph holding them can still
be one CUDA graph (runtime/cuda_graph.py).

While a graph is captured, host writes to arrays are recorded (types/recording.py). Those that write device
memory from device memory or from a constant -- ``zero_``, ``fill_`` with a number, vector or matrix,
``assign``/``wp.copy``/``clone`` between arrays of one device, and the initialisation of ``wp.zeros``/
``wp.full`` -- become ``MemoryNode``: at each replay they are issued on the replay stream with the driver's
asynchronous calls (``cuMemsetD8/16/32Async``, ``cuMemsetD2D32Async``, ``cuMemcpyDtoDAsync``), the same calls a
stream capture makes into memset and memcpy nodes (the fills' memsets are those a fill outside a capture
issues: types/device_fill.py). Writes from host memory (numpy data, lists, CPU arrays,
item assignment) stay host calls: a memcpy node reads its host buffer asynchronously at each replay, which
needs page-locked memory living as long as the graph, and brickwork allocates no pinned host memory.
"""

from __future__ import annotations

from .. import cuda_driver
from ..types.device_fill import fill_ops, zero_ops
from . import capture


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
        ops = zero_ops(a)
        return None if ops is None else MemoryNode(a.device, ops, (a,))
    if func is DeviceArray._fill_now:
        return _fill_node(a, *args[:2])
    if func is DeviceArray._assign_now:
        return _copy_node(a, args[0], 0, 0, 0)
    return None


def _fill_node(a, converted, value) -> MemoryNode | None:
    ops = fill_ops(a, converted, value)
    return None if ops is None else MemoryNode(a.device, ops, (a,))


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

