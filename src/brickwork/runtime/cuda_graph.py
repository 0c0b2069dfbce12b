"""CUDA graph objects for captured graphs: a ``Graph`` whose nodes are all CUDA launches, memsets and copies
on one device is replayed as one ``cuGraphLaunch`` of a CUDA graph made of them, instead of one driver call
each.

The CUDA graph is made at the graph's first replay (``capture_launch``), by issuing the recorded nodes (launches
with their arguments packed at capture, memsets and device-to-device copies: runtime/cuda_memory_nodes.py) on a
private stream under stream capture; it is instantiated once, kept with the ``Graph`` and destroyed when the
``Graph`` is collected. A graph with host writes (from host memory), nested graphs, conditional nodes or CPU
launches keeps the node-by-node replay (``capture.capture_launch``), as does one with a launch a CUDA graph
cannot hold (``CudaEntry.graph_node``).
"""

from __future__ import annotations

import weakref

from .. import config, cuda_driver, pending_checks
from ..errors import CaptureError, LaunchError
from . import streams


class CudaGraph:
    """The executable CUDA graph of a captured ``Graph``'s nodes on ``device`` (``count`` of them)."""

    __slots__ = ("driver", "device", "exe", "count", "checked")

    def __init__(self, driver, device, exe: int, count: int, checked=()):
        self.driver, self.device, self.exe, self.count = driver, device, exe, count
        self.checked = checked  # the entries of its kernels that check struct array fields (noted per launch)

    def launch(self, stream) -> None:
        """Launch the graph on ``stream`` where it is a stream of the graph's device, else on the device's
        current stream (as the node-by-node replay does)."""
        if stream is None or stream.device != self.device:
            stream = streams._current.get(self.device.ordinal)
        handle = 0 if stream is None else stream.cuda_stream
        self.driver.graph_launch(self.device.ordinal, self.exe, handle)
        for entry in self.checked:
            entry.noted(self.device.ordinal, handle)
        if config.verify_cuda:  # wait, so that an error of one of its kernels is raised here
            try:
                self.driver.stream_synchronize(self.device.ordinal, handle)
            except cuda_driver.CudaError as e:
                raise LaunchError(f"capture_launch: the CUDA graph of {self.count} nodes on {self.device} "
                                  f"failed: {e}") from e
            pending_checks.stream_synchronized(self.device.ordinal, handle)


def instantiate(graph) -> CudaGraph | None:
    """The CUDA graph of ``graph``'s nodes, all CUDA launches (``cuda_launch._CapturedLaunch``), memsets and
    copies (``cuda_memory_nodes.MemoryNode``), or None when they are on more than one device or one of them
    cannot be a node of a CUDA graph. A driver error while making it is a ``CaptureError`` that names the
    failing call; nothing is left allocated then."""
    nodes = [node for _, node in graph.calls]
    device = nodes[0].device
    if any(node.device != device for node in nodes):
        return None
    steps = [node.graph_step() for node in nodes]
    if any(step is None for step in steps):
        return None
    drv = cuda_driver.driver()
    ordinal = device.ordinal
    try:
        exe = _captured(drv, ordinal, steps)
    except cuda_driver.CudaError as e:
        raise CaptureError(f"capture_launch: cannot make a CUDA graph of the {len(steps)} nodes captured on "
                           f"{device}: {e}") from e
    # the finalizer holds the driver and the handle, never the Graph (which it would keep alive)
    weakref.finalize(graph, _destroy, drv, ordinal, exe)
    checked = tuple({id(e): e for e in (getattr(n, "entry", None) for n in nodes) if getattr(e, "checks_later", False)}
                    .values())
    return CudaGraph(drv, device, exe, len(steps), checked)


def _captured(drv, ordinal: int, steps: list) -> int:
    """The work of ``steps`` (each ``issue(drv, ordinal, stream)``) recorded by stream capture on a private
    stream (not blocking, so that no other stream's work joins the capture), instantiated; the stream and the
    graph template are destroyed."""
    stream = drv.stream_create(ordinal, non_blocking=True)
    try:
        drv.capture_begin(ordinal, stream)
        try:
            for issue in steps:
                issue(drv, ordinal, stream)
        except BaseException:
            _end_invalidated(drv, ordinal, stream)
            raise
        template = drv.capture_end(ordinal, stream)
        try:
            return drv.graph_instantiate(ordinal, template)
        finally:
            drv.graph_destroy(ordinal, template)  # the executable graph does not need it
    finally:
        drv.stream_destroy(ordinal, stream)


def _end_invalidated(drv, ordinal: int, stream: int) -> None:
    """End a capture that a failed launch interrupted (the stream stays capturing until it ends), freeing the
    graph it returns; its own error is not raised over the launch's."""
    try:
        drv.graph_destroy(ordinal, drv.capture_end(ordinal, stream))
    except cuda_driver.CudaError:
        pass  # an invalidated capture returns no graph: the launch's error says why


def _destroy(drv, ordinal: int, exe: int) -> None:
    try:
        drv.graph_exec_destroy(ordinal, exe)
    except cuda_driver.CudaError:
        pass  # at interpreter exit the context may be gone, and the graph with it
