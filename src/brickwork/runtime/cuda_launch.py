"""Launching on a CUDA device: the same checks, instances and argument packers as the CPU launch.

The launch table of a kernel holds CUDA entries under ``(device name, signature)``, so a repeated
launch costs one tuple, one dict lookup, one ``struct.pack`` and one ``cuLaunchKernel``. The packed
buffer is the CPU's (header, then the arguments); the CUDA entry takes it as its one parameter.
"""

from __future__ import annotations

from .. import config, cuda_driver, pending_checks
from ..errors import LaunchArgumentError, LaunchError
from ..lang.determinism import runs_serially
from ..types.arrays import ArrayType, is_foreign_cuda_array
from . import capture, streams
from . import launch as host  # the CPU launch: the graph being captured, the full path (it imports this lazily)
from . import tape as _tape
from .launch import _signature
from .launch_arguments import host_arguments, host_value
from .launch_grid import MAX_EXTENT, extents
from .launch_prepare import prepare
from .launch_rank import MoreExtents, ranked_entry
from .packing import UNIT_INNER_FLAG


def launch_cuda(kernel, dim, args, device, stream=None) -> None:
    """Run ``kernel`` over ``dim`` threads on the CUDA ``device``, on ``stream`` (None: the device's current
    stream, ``wp.get_stream``); arrays must be on that device."""
    sig = _signature(args)
    entry = kernel.launch_table.get((device.alias, sig))
    if entry is None or entry[0].config_mode != config.mode:
        if any(host_value(a) for a in args):  # np.memmap too
            args = host_arguments(kernel, args)  # numpy arrays are host memory: refused by prepare
            sig = _signature(args)
        if any(is_foreign_cuda_array(a) for a in args):  # CuPy, PyTorch, Numba: views of their memory, each launch
            args = _device_views(kernel, args, device)
            sig = _signature(args)
            entry = kernel.launch_table.get((device.alias, sig))
    if entry is None or entry[0].config_mode != config.mode:
        from ..targets.cuda import device_target

        entry = prepare(kernel, sig, args, device, device_target(device), (device.alias, sig))
    inst, pack = entry
    if type(dim) is int and inst.tid_dims == 1:
        d0, d1, d2, d3, total = dim, 1, 1, 1, dim
    else:
        try:  # no cost unless raised
            d0, d1, d2, d3, total = extents(dim, inst, kernel)
        except MoreExtents:  # more extents than tid() gives indices: the instance that repeats points
            inst, pack = ranked_entry(kernel, entry, dim, (device.alias, sig),
                                      _prepare_ranked(kernel, sig, args, device))
            d0, d1, d2, d3, total = extents(dim, inst, kernel)
    if total > MAX_EXTENT:
        raise LaunchError(f"launch of '{kernel.key}': the launch must have fewer than 2**31 threads, got {dim!r}")
    if total <= 0:
        if total < 0 or min(d0, d1, d2, d3) < 0:
            raise LaunchArgumentError(f"launch of '{kernel.key}': dim must not be negative, got {dim!r}")
        return None
    if stream is None:
        handle = streams._current.get(device.ordinal)
        handle = 0 if handle is None else handle.cuda_stream
    elif not hasattr(stream, "cuda_stream"):
        raise host.not_a_stream(kernel, stream)
    elif stream.device != device:
        raise LaunchError(f"launch of '{kernel.key}' on {device}: the stream belongs to {stream.device}")
    else:
        handle = stream.cuda_stream
    _issue(kernel, inst, pack, args, (d0, d1, d2, d3), device, handle)
    return None


def launch_repeated(repeated, args: list, sig: tuple, device) -> None:
    """A ``RepeatedLaunch`` (``repeated``: its kernel, grid and last extents) with ``args`` of signature ``sig``
    on the CUDA ``device``, on its current stream: the entry and extents found as ``launch_cuda`` finds them,
    without ``launch``'s steps before it (the device named, the kernel checked, the signature built again).
    Anything but the common case (an entry for the current mode, no tape recording, a kernel that may run in
    parallel, extents known and in range) goes through ``launch`` and all its checks."""
    kernel = repeated.kernel
    entry = kernel.launch_table.get((device.alias, sig))
    if entry is None or entry[0].config_mode != config.mode or _tape.recording or runs_serially(kernel) or \
            config.print_launches:
        return host.launch(kernel, repeated.dim, inputs=args)
    inst, pack = entry
    last = repeated.last
    if last[0] is inst:
        dims = last[1]
    else:
        try:
            dims = extents(repeated.dim, inst, kernel)
        except MoreExtents:  # the ranked instance: launch finds it
            return host.launch(kernel, repeated.dim, inputs=args)
        if not 0 < dims[4] <= MAX_EXTENT:  # nothing to run, or extents launch refuses
            return host.launch(kernel, repeated.dim, inputs=args)
        repeated.last = (inst, dims)
    handle = streams._current.get(device.ordinal)
    _issue(kernel, inst, pack, args, dims[:4], device, 0 if handle is None else handle.cuda_stream)
    return None


def _issue(kernel, inst, pack, args, dims: tuple, device, handle: int) -> None:
    """Pack the arguments and launch the instance over ``dims`` (four extents) on the ``CUstream`` ``handle``,
    or record the launch into the graph being captured."""
    d0, d1, d2, d3 = dims
    buf = pack(args, d0, d1, d2, d3, 0, 0)
    entry = inst.fn
    if not buf[UNIT_INNER_FLAG] and entry.unit_only:  # an array of non-unit innermost stride (or of 2**31 elements)
        entry = inst.general_entry()
    if host._capture is not None:
        node = _CapturedLaunch(entry, buf, dims, device, args, inst.kernel.params)
        graph = host._capture
        graph.calls.append((None, node))
        graph.cuda_nodes += 1
        graph._keep_alive.append(tuple(args))
        return
    entry.launch(buf, dims, device, args, inst.kernel.params, handle)
    if config.verify_cuda:
        _verify_cuda(kernel, device, handle)


def _prepare_ranked(kernel, sig, args, device):
    """``make`` of ``launch_rank.ranked_entry`` for a launch on the CUDA ``device``."""
    def make(key, rank):
        from ..targets.cuda import device_target

        return prepare(kernel, sig, args, device, device_target(device), key, rank)

    return make


def _device_views(kernel, args, device) -> list:
    """``args`` with each foreign CUDA array replaced by a device array viewing its memory, typed by its
    parameter (``wp.vec3`` over a trailing dimension of 3), as Warp passes such arrays without a copy."""
    from ..types.device_import import from_cuda_interface
    from ..types.generic import is_generic

    params = getattr(kernel, "params", ())
    out = []
    for i, a in enumerate(args):
        if is_foreign_cuda_array(a):
            t = params[i][1] if i < len(params) else None
            dtype = t.dtype if isinstance(t, ArrayType) and not is_generic(t) else None
            try:
                a = from_cuda_interface(a, dtype, device)
            except (TypeError, ValueError) as e:
                name = params[i][0] if i < len(params) else str(i)
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}': {e}") from None
        out.append(a)
    return out


def _verify_cuda(kernel, device, stream: int) -> None:
    """config.verify_cuda: wait for the launch, so the CUDA error it caused is raised here, naming the kernel."""
    try:
        cuda_driver.driver().stream_synchronize(device.ordinal, stream)
    except cuda_driver.CudaError as e:
        raise LaunchError(f"launch of '{kernel.key}' on {device} failed: {e}") from e
    pending_checks.stream_synchronized(device.ordinal, stream)  # a struct field check's error: here too


class _CapturedLaunch:
    """A graph node: a CUDA launch made while a graph was captured, with its packed arguments, run at each
    replay on the stream the graph is launched on (``capture_launch(graph, stream)``), or else the device's
    current stream: one ``cuLaunchKernel`` where the graph is replayed node by node, a node of its CUDA graph
    where it has one (runtime/cuda_graph.py)."""

    __slots__ = ("entry", "buf", "dims", "device", "args", "params")

    def __init__(self, entry, buf, dims, device, args, params):
        self.entry, self.buf, self.dims, self.device = entry, buf, dims, device
        self.args, self.params = tuple(args), params

    def run(self) -> None:
        self.entry.launch(self.buf, self.dims, self.device, self.args, self.params,
                          capture.replay_stream_handle(self.device))

    def graph_step(self):
        """How a stream capture records this launch, ``issue(drv, ordinal, stream)``, or None where a CUDA graph
        cannot hold it (``CudaEntry.graph_node``)."""
        graph_node = getattr(self.entry, "graph_node", None)
        plan = graph_node(self.device, self.dims, self.args, self.params) if graph_node is not None else None
        if plan is None:
            return None
        function, grid, block, shared = plan
        buf = self.buf

        def issue(drv, ordinal: int, stream: int) -> None:
            drv.launch(ordinal, function, grid, block, buf, shared=shared, stream=stream)

        return issue
