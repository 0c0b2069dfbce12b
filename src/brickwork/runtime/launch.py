"""``launch``: check arguments once per signature, then pack and call (the fast path).

The fast path is a per-kernel table from the launch signature (the tuple of argument types)
to the loaded instance and a packer generated for exactly that signature, so a repeated launch
costs one tuple, one dict lookup, one ``struct.pack`` and one ctypes call.

Off that path, each step has a module of its own: the slow path once per signature (``launch_prepare``),
host values as arguments (``launch_arguments``), the grid's extents (``launch_grid``), the thread count
(``launch_threads``), a recorded launch (``launch_command``) and a launch on a CUDA device (``cuda_launch``).
"""

from __future__ import annotations

import numpy as np

from .. import config
from .. import device as _devices
from .. import timing_state as _timing_state
from ..device import get_device
from ..errors import LaunchArgumentError, LaunchError
from ..lang.determinism import runs_serially
from ..lang.function import Function
from ..types.array_kinds import SIGNED
from . import starvation as _starvation
from . import tape as _tape
from .launch_arguments import _NULL_ARRAYS  # noqa: F401 - its old home (tests read it here)
from .launch_arguments import host_arguments as _host_arguments
from .launch_arguments import host_value as _host_value
from .launch_command import Launch
from .launch_command import grads_for_missing as _grads_for_missing
from .launch_grid import MAX_EXTENT as _MAX_EXTENT
from .launch_grid import launch_dims
from .launch_options import check as _check_options
from .launch_prepare import CPU_BLOCKS as _CPU_BLOCKS
from .launch_prepare import prepare as _prepare
from .launch_rank import MoreExtents, ranked_entry
from .launch_threads import starved  # noqa: F401 - its old home (capture.py calls it here)
from .launch_threads import thread_count as _thread_count

# The graph being captured (runtime/capture.py sets it; None: launches run). A global of this module, not
# of capture.py: launch reads it on every launch, and a global costs one lookup, an attribute two.
_capture = None


def _signature(args) -> tuple:
    return tuple([a._sig if type(a) in SIGNED else type(a) for a in args])


def _not_a_sequence(kernel, inputs, name: str = "inputs") -> LaunchError:
    """The error for ``inputs`` (or ``outputs``) that is not a list or tuple (a generator: the signature consumed it
    already)."""
    return LaunchError(f"launch of '{kernel.key}': {name} must be a list or tuple of arguments, got "
                       f"{type(inputs).__name__}")


def _stale(inst) -> bool:
    """An instance built for another mode or target than the current one (``config``)."""
    return inst.config_mode != config.mode or inst.target != config.target


def not_a_stream(kernel, stream) -> LaunchError:
    """The error of a ``stream=`` that is no ``wp.Stream`` (``stream=5`` was "'int' object has no attribute
    'device'")."""
    return LaunchError(f"launch of '{getattr(kernel, 'key', kernel)}': stream must be a wp.Stream, got "
                       f"{type(stream).__name__} {stream!r:.40}")


def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=None, adj_outputs=None, device=None, stream=None,
           adjoint=False, record_tape=True, record_cmd=False, max_blocks=0, block_dim=256):
    """Run ``kernel`` over ``dim`` threads (an int or a tuple of up to 4 ints).

    Arguments may also be numpy arrays (used in place, without a copy) and ``None`` for an array
    parameter (an empty array). With ``record_cmd=True`` nothing runs: the returned ``Launch``
    runs it later (``cmd.launch()``), with parameters changed by ``set_param_*``. With
    ``adjoint=True`` the kernel's backward kernel runs instead, accumulating into the arrays of
    ``adj_inputs``/``adj_outputs`` (see ``Tape``); a launch inside ``with Tape()`` is recorded.
    ``max_blocks`` and ``block_dim`` are Warp's CUDA launch shape, checked as Warp takes them and not used (a
    launch runs one thread per point, and ``wp.launch_tiled`` checks its ``block_dim``).
    """
    if block_dim != 256 or max_blocks != 0 or record_tape is not True:  # int compares: nothing on the fast path
        _check_options(kernel, block_dim, max_blocks, record_tape)
    if adjoint or record_cmd:
        _check_kernel(kernel)
    if adjoint:
        from .tape import launch_adjoint

        args = list(inputs) + list(outputs or ())
        adjs = list(adj_inputs or ()) + list(adj_outputs or ())
        adjs = _grads_for_missing(args, adjs) if adjs else None
        if record_cmd:
            return Launch(kernel, device, params=args, bounds=dim, adjoint=True, adj_params=adjs)
        return launch_adjoint(kernel, dim, args, (), adjs, None, device)
    args = list(inputs) + list(outputs) if outputs else inputs
    if record_cmd:
        return Launch(kernel, device, params=list(args), bounds=dim)
    if config.print_launches:  # the launch hooks (print_launches, or an open wp.timing_begin): runtime/launch_hooks
        from .launch_hooks import hooked_launch

        return hooked_launch(kernel, dim, inputs, outputs, device, stream, record_tape, max_blocks, block_dim)
    if stream is not None and device is None:
        try:
            device = stream.device  # a launch on a stream runs on the stream's device
        except AttributeError:
            raise not_a_stream(kernel, stream) from None
    if device is not None and device != "cpu" or _devices._current is not _devices.CPU:
        try:
            dev = get_device(device)  # raises for unknown or unavailable devices
        except ValueError as e:  # not a device: name the launch and the argument (a ValueError still)
            raise LaunchArgumentError(f"launch of '{getattr(kernel, 'key', kernel)}': device={device!r:.40}: "
                                      f"{e}") from None
        if dev.is_cuda:
            _check_kernel(kernel)
            if runs_serially(kernel):  # one-thread order is the CPU's; GPU atomics keep no order
                raise LaunchError(f"launch of '{kernel.key}' on {dev}: its module asks for deterministic atomics "
                                  f"(option 'deterministic'), which brickwork gives on the CPU only")
            (_launch_cuda or _import_launch_cuda())(kernel, dim, args, dev, stream)
            if _tape.recording and record_tape:  # after its checks passed, as on the CPU; replayed on dev
                _tape.recording[-1].record_launch(kernel, dim, inputs, outputs or (), dev)
            return None
    # _signature and _stale spelled inline: a function call is a measurable part of the fast path
    try:  # free when nothing is raised: no check on the fast path
        sig = tuple([a._sig if type(a) in SIGNED else type(a) for a in args])
        entry = kernel.launch_table.get(sig)
    except AttributeError:
        _check_kernel(kernel)
        raise
    except TypeError:  # inputs=None (nothing to iterate) was "'NoneType' object is not iterable"
        raise _not_a_sequence(kernel, args) from None
    if entry is None or entry[0].config_mode != config.mode or entry[0].target != config.target:
        if type(args) is not list and type(args) is not tuple:  # here, off the fast path
            raise _not_a_sequence(kernel, args)
        if outputs and type(outputs) is not list and type(outputs) is not tuple:  # its items became arguments
            raise _not_a_sequence(kernel, outputs, "outputs")
        if any(_host_value(a) for a in args):  # host values (np.memmap too): never in a table
            args = _host_arguments(kernel, args)
            sig = _signature(args)
            entry = kernel.launch_table.get(sig)
        if entry is None or _stale(entry[0]):
            entry = _prepare(kernel, sig, args, device)
    inst, pack = entry
    if type(dim) is int and inst.tid_dims == 1 and 0 < dim <= _MAX_EXTENT:
        d0, d1, d2, d3, total = dim, 1, 1, 1, dim
    else:
        try:  # no cost unless raised
            dims = launch_dims(dim, inst, kernel)
        except MoreExtents:  # more extents than tid() gives indices: the instance that repeats points
            inst, pack = ranked_entry(kernel, entry, dim, sig, lambda key, rank: _prepare(
                kernel, sig, args, device, table_key=key, rank=rank))
            dims = launch_dims(dim, inst, kernel)
        if dims is None:  # nothing runs, so a tape has nothing to record
            return None
        d0, d1, d2, d3, total = dims
    work = total * kernel.work_per_item  # loop bodies: each grid point is a whole slice or team
    # a deterministic module's kernels run on one thread, so their float atomics add in a fixed order.
    # A serial launch packs 1 (its count is never read); a count assigned at run time above MAX_THREADS
    # (the environment's are clamped at import) is clamped here, off the small launches' path
    try:  # no cost unless raised
        if work >= config.parallel_threshold and (nthreads := _launch_threads()) > 1 and not runs_serially(kernel):
            buf = pack(args, d0, d1, d2, d3, True, nthreads)
        else:
            buf = pack(args, d0, d1, d2, d3, False, 1)
    except TypeError:  # a generator of arguments whose signature was in the table: the packer cannot index it
        if type(args) is list or type(args) is tuple:
            raise
        raise _not_a_sequence(kernel, args) from None
    if _tape.recording and record_tape:  # after packing: a launch the packer refused never ran, nor is taped
        _tape.recording[-1].record_launch(kernel, dim, inputs, outputs or (), device)
    if _capture is not None:
        _capture.record(inst, buf, args)
        return None
    if inst.fn(buf):  # declined: an array with a non-unit innermost stride
        inst.run_with_general_strides(buf)
    if _tape.recording and record_tape and config.verify_autograd_array_access:
        from .array_access import after_launch

        after_launch(kernel, inst, args)
    if config.verify_fp:
        from .verify_fp import check_launch

        check_launch(kernel, inst, args)
    return None


def _check_kernel(kernel) -> None:
    """Refuse what is not a kernel (a plain function, a ``wp.func``, None) as ``wp.launch``'s first argument."""
    if not hasattr(kernel, "launch_table"):
        if isinstance(kernel, Function):
            what = f"the wp.func '{kernel.key}'"
        elif callable(kernel) and hasattr(kernel, "__name__"):
            what = f"the Python function '{kernel.__name__}' (not decorated with @wp.kernel)"
        else:
            what = f"{type(kernel).__name__} {kernel!r:.60}"
        raise TypeError(f"wp.launch: the first argument must be a kernel (a function decorated with @wp.kernel), "
                        f"got {what}")


def launch_now(kernel, dim, device, *inputs) -> None:
    """A launch of one of brickwork's own kernels on ``device`` (a hash grid's build, a tree's build or refit):
    part of an object's update, never a step of a tape, and run now even while a graph is captured (an update
    that a graph repeats is recorded as a whole, ``recording.run_or_record``; a tree built during a capture is
    built)."""
    global _capture
    outer, _capture = _capture, None
    _timing_state.builtin += 1  # timed as a builtin kernel (wp.timing_begin)
    try:
        launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)
    finally:
        _capture = outer
        _timing_state.builtin -= 1


def launch_on_cpu(kernel, dim, *inputs) -> None:
    """``launch_now`` on the CPU."""
    launch_now(kernel, dim, "cpu", *inputs)


def launcher(device):
    """``launch_now`` on ``device`` as ``f(kernel, dim, *inputs)``: what the builds of trees and grids on any
    device take (``launch_on_cpu`` itself for the CPU)."""
    if device.is_cpu:
        return launch_on_cpu
    return lambda kernel, dim, *inputs: launch_now(kernel, dim, device, *inputs)


def launch_tiled(kernel, dim, inputs=(), outputs=(), block_dim: int = 256, **kwargs):
    """Run ``kernel`` over the tiles of ``dim`` (an int or a tuple of up to 4 ints), one block per point, as Warp's
    ``launch_tiled``. ``block_dim`` is the number of threads Warp gives a block on a GPU; here a block is one thread
    (``wp.block_dim()`` is 1 in the kernel, as on Warp's CPU), so it is checked and has no other effect; None, 0
    or a negative int asks for the default, as in Warp.
    ``wp.tid()`` gives a point's tile indices, and a trailing index unpacked beyond them (the thread in its
    block) is 0; unpacked into fewer, the first ones, each repeated over the other extents (as ``launch``, and
    Warp). Other arguments are ``launch``'s."""
    if block_dim is not None and (isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer))):
        raise LaunchError(f"launch_tiled of '{kernel.key}': block_dim must be an int (or None for the default), "
                          f"got {block_dim!r}")
    if config.enable_cpu_blocks:
        raise LaunchError(_CPU_BLOCKS.format(how="launch_tiled", key=kernel.key))
    return launch(kernel, dim, inputs, outputs, **kwargs)


def run_packed(inst, pack, args, dims, kernel) -> None:
    """Pack the arguments and call the instance (or record the call while a graph is captured).
    ``launch`` spells the same steps inline: a function call is a measurable part of its fast path."""
    d0, d1, d2, d3, total = dims
    work = total * kernel.work_per_item  # loop bodies: each grid point is a whole slice or team
    # as in launch: a serial launch packs 1, a parallel one at most MAX_THREADS
    if work >= config.parallel_threshold and (nthreads := _launch_threads()) > 1 and not runs_serially(kernel):
        buf = pack(args, d0, d1, d2, d3, True, nthreads)
    else:
        buf = pack(args, d0, d1, d2, d3, False, 1)
    if _capture is not None:
        _capture.record(inst, buf, args)
        return
    if inst.fn(buf):  # declined: see launch
        inst.run_with_general_strides(buf)


class RepeatedLaunch:
    """``launch(kernel, dim, inputs=values + tail)``, for launches repeated with one kernel, grid and list
    ``tail`` of trailing arguments (a loop body's geometry, fixed per index space): the tail's part of the
    signature and the grid's extents are found once. Anything but the common case (the CPU, no tape
    recording, an instance in the launch table for the current mode and target) goes through ``launch``
    and all its checks; the instance found is the one ``launch`` would find (the same signature). On a
    CUDA device (the current one) ``cuda_launch.launch_repeated`` does the same with that device's entries."""

    __slots__ = ("kernel", "dim", "tail", "tail_sig", "last")

    def __init__(self, kernel, dim, tail: list):
        self.kernel, self.dim, self.tail = kernel, dim, list(tail)
        self.tail_sig = _signature(self.tail)
        self.last = (None, None)  # the last instance run and its extents (launch_dims), replaced as one

    def __call__(self, values: list) -> None:
        args = values + self.tail
        kernel = self.kernel
        # _signature and _stale spelled inline, as in launch: each call is a measurable part of the path
        sig = tuple([a._sig if type(a) in SIGNED else type(a) for a in values])
        if _devices._current is not _devices.CPU:  # a CUDA device's entries, and its stream: cuda_launch
            if _launch_repeated_cuda is None:
                _import_launch_cuda()
            return _launch_repeated_cuda(self, args, sig + self.tail_sig, _devices._current)
        entry = kernel.launch_table.get(sig + self.tail_sig)  # looked up afresh: the table may have been reset
        if entry is None or _tape.recording or config.print_launches or \
                entry[0].config_mode != config.mode or entry[0].target != config.target:
            return launch(kernel, self.dim, inputs=args)
        inst, pack = entry
        last = self.last
        if last[0] is inst:
            dims = last[1]
        else:  # the extents depend on the grid and the instance's tid() arity only
            try:
                dims = launch_dims(self.dim, inst, kernel)
            except MoreExtents:  # the ranked instance (launch_rank.py): launch finds it
                return launch(kernel, self.dim, inputs=args)
            if dims is None:
                return None
            self.last = (inst, dims)
        run_packed(inst, pack, args, dims, kernel)
        if config.verify_fp and _capture is None:  # as launch, which stops once it has recorded into a graph
            from .verify_fp import check_launch

            check_launch(kernel, inst, args)
        return None


def _launch_threads() -> int:
    """The threads of a launch large enough to run in parallel: ``_thread_count()``, or 1 while the process
    is starved of CPU time (``config.adaptive_threads``, runtime/starvation.py). A launch recorded into a graph
    keeps the full count: its replays ask for each launch (``starved``)."""
    n = _thread_count()
    return _starvation.GUARD.threads(n) if n > 1 and config.adaptive_threads and _capture is None else n


def split_threads(items: int, work: float) -> int:
    """How many contiguous ranges a launch that splits ``items`` by hand, one range per thread (a counting
    sort's chunks, a sparse product's rows, a tree's levels), takes for ``work`` loop bodies: the threads such a
    launch runs on now, as ``launch`` decides them (1 below ``config.parallel_threshold``, 1 while the process
    is starved of CPU time: ``_launch_threads``), at most ``items`` and at least 1. Fewer ranges cost less
    scratch and bookkeeping when the launch would run them all on one thread anyway."""
    if work < config.parallel_threshold or items <= 1:
        return 1
    n = _launch_threads()
    return n if n < items else items


_launch_cuda = None  # cuda_launch.launch_cuda, imported at the first CUDA launch (it imports this module)
_launch_repeated_cuda = None  # cuda_launch.launch_repeated, with it


def _import_launch_cuda():
    global _launch_cuda, _launch_repeated_cuda
    from .cuda_launch import launch_cuda, launch_repeated

    _launch_cuda, _launch_repeated_cuda = launch_cuda, launch_repeated
    return launch_cuda


