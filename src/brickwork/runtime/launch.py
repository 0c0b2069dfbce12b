"""``launch``: check arguments once per signature, then pack and call (the fast path).

The fast path is a per-kernel table from the launch signature (the tuple of argument types)
to the loaded instance and a packer generated for exactly that signature, so a repeated launch
costs one tuple, one dict lookup, one ``struct.pack`` and one ctypes call.
"""

from __future__ import annotations

import numbers
import operator
import os

import numpy as np

from .. import config
from .. import device as _devices
from ..device import get_device
from ..errors import LaunchArgumentError, LaunchError
from ..lang.determinism import runs_serially
from ..lang.function import Function
from ..lang.kernel import sibling_kernels
from ..types.array_constructors import empty, from_numpy, wrap_numpy
from ..types.array_kinds import SIGNED, cross_family
from ..types.arrays import ArrayType, array, is_foreign_cuda_array, type_name
from ..types.composite import CompositeBase, is_composite_type
from ..types.generic import describe_value, is_generic, matches, type_of_value
from ..types.held_arrays import read_only_at
from ..types.indexed_arrays import ARRAY_KINDS, IndexedArrayType, indexedarray
from ..types.scalars import NUMPY_SCALARS, ScalarBase, bool_, is_scalar_type, python_annotation_type, uint64
from ..types.structs import is_struct_type
from . import starvation as _starvation
from . import tape as _tape
from .launch_rank import MoreExtents, ranked_entry
from .packing import ComponentError, composite_converts, composite_values, make_packer

_MAX_EXTENT = 2**31 - 1
_MAX_POINTS = 2**63 - 1  # what the kernel's int64 count of the points holds
# The graph being captured (runtime/capture.py sets it; None: launches run). A global of this module, not
# of capture.py: launch reads it on every launch, and a global costs one lookup, an attribute two.
_capture = None


def _signature(args) -> tuple:
    return tuple([a._sig if type(a) in SIGNED else type(a) for a in args])


def _not_a_sequence(kernel, inputs) -> LaunchError:
    """The error for ``inputs`` that is not a list or tuple (a generator: the signature consumed it already)."""
    return LaunchError(f"launch of '{kernel.key}': inputs must be a list or tuple of arguments, got "
                       f"{type(inputs).__name__}")


def _stale(inst) -> bool:
    """An instance built for another mode or target than the current one (``config``)."""
    return inst.config_mode != config.mode or inst.target != config.target


def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=None, adj_outputs=None, device=None, stream=None,
           adjoint=False, record_tape=True, record_cmd=False, max_blocks=0, block_dim=256):
    """Run ``kernel`` over ``dim`` threads (an int or a tuple of up to 4 ints).

    Arguments may also be numpy arrays (used in place, without a copy) and ``None`` for an array
    parameter (an empty array). With ``record_cmd=True`` nothing runs: the returned ``Launch``
    runs it later (``cmd.launch()``), with parameters changed by ``set_param_*``. With
    ``adjoint=True`` the kernel's backward kernel runs instead, accumulating into the arrays of
    ``adj_inputs``/``adj_outputs`` (see ``Tape``); a launch inside ``with Tape()`` is recorded.
    ``max_blocks`` and ``block_dim`` are Warp's CUDA launch shape, taken and not used (a launch runs one thread
    per point, and ``wp.launch_tiled`` checks its ``block_dim``).
    """
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
    if stream is not None and device is None:
        device = stream.device  # a launch on a stream runs on the stream's device
    if device is not None and device != "cpu" or _devices._current is not _devices.CPU:
        dev = get_device(device)  # raises for unknown or unavailable devices
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
    sig = tuple([a._sig if type(a) in SIGNED else type(a) for a in args])
    try:
        entry = kernel.launch_table.get(sig)
    except AttributeError:  # free when nothing is raised: no check on the fast path
        _check_kernel(kernel)
        raise
    if entry is None or entry[0].config_mode != config.mode or entry[0].target != config.target:
        if type(args) is not list and type(args) is not tuple:  # here, off the fast path
            raise _not_a_sequence(kernel, args)
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
    try:
        launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)
    finally:
        _capture = outer


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


_CPU_BLOCKS = ("{how} of '{key}': wp.config.enable_cpu_blocks is True, but a block runs as one thread here (Warp's "
               "CPU blocks of block_dim lanes are not supported); set it to False")


def launch_dims(dim, inst, kernel):
    """``(d0, d1, d2, d3, total)`` of a launch, or None when there is nothing to run."""
    if type(dim) is int and inst.tid_dims == 1:
        d0, d1, d2, d3, total = dim, 1, 1, 1, dim
    else:
        d0, d1, d2, d3, total = _dims(dim, inst, kernel)
    if total > _MAX_EXTENT and (type(dim) is int or inst.tid_dims == 1 or max(d0, d1, d2, d3) > _MAX_EXTENT):
        raise LaunchError(f"launch of '{kernel.key}': each extent of dim must be below 2**31 (tid() is int32), "
                          f"got {dim!r}")
    if total <= 0:
        if total < 0 or min(d0, d1, d2, d3) < 0:
            raise LaunchError(f"launch of '{kernel.key}': dim must not be negative, got {dim!r}")
        return None
    return d0, d1, d2, d3, total


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
        if entry is None or _tape.recording or \
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


def _thread_count() -> int:
    """The threads of a parallel launch: ``config.num_threads`` (else ``default_threads``), at most
    ``config.MAX_THREADS``; a value assigned at run time that is not a whole number is a ``SettingError``
    (the environment variables are checked when brickwork is imported)."""
    n = config.num_threads or config.default_threads
    if type(n) is not int:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise config.SettingError(f"brickwork.config.num_threads must be a positive integer or None, got "
                                      f"{n!r}")
        n = int(n)
    if n < 1:  # off the common path: positive counts return below
        raise config.SettingError(f"brickwork.config.num_threads must be a positive integer or None, got {n!r}")
    n = n if n <= config.MAX_THREADS else config.MAX_THREADS
    if n > 1:
        global _pool_started
        _pool_started = True  # the caller may run a parallel region now: OpenMP's threads exist (_serial_after_fork)
    return n


_pool_started = False


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


def starved() -> bool:
    """Whether launches that would run on several threads run on one now (``config.adaptive_threads``)."""
    return config.adaptive_threads and _starvation.GUARD.threads(2) == 1


def _serial_after_fork() -> None:
    """A child forked after a parallel launch runs its launches on one thread (``config.MAX_THREADS`` 1): the
    OpenMP pool's threads do not exist in the child, and GNU OpenMP's next parallel region there waited for
    them for ever (the child hung at its first parallel launch; Warp's CPU kernels use one thread)."""
    if _pool_started:
        config.MAX_THREADS = 1


os.register_at_fork(after_in_child=_serial_after_fork)


def _host_arguments(kernel, args) -> list:
    """numpy arrays as brickwork arrays over the same memory; ``None`` as an empty array of the
    parameter's declared array type (Warp's null array: shape 0)."""
    params = getattr(kernel, "params", ())
    on_cpu = get_device(None).is_cpu
    out = []
    for i, a in enumerate(args):
        if a is not None and type(a) not in SIGNED and not isinstance(a, np.ndarray):
            a = _foreign_host_array(kernel, params, i, a)
        if type(a) is not np.ndarray and isinstance(a, np.ndarray):  # a subclass: a plain view (or refused)
            a = _plain_ndarray(kernel, params, i, a)
        if type(a) is np.ndarray:
            t = params[i][1] if i < len(params) else None
            scalar = NUMPY_SCALARS.get(a.dtype)
            try:  # costs nothing unless it raises
                if on_cpu and scalar is not None and a.ndim and isinstance(t, ArrayType) and (
                        t.dtype is scalar or is_generic(t)):
                    a = wrap_numpy(a, scalar)  # the common case, without from_numpy's inference and conversions
                elif a.ndim == 0 and (is_scalar_type(t) or is_generic(t)):
                    a = a[()]  # a 0-d array is a value (a numpy scalar), not an array
                elif is_composite_type(t) and not is_generic(t) and a.size == int(np.prod(t._shape)):
                    if a.dtype.kind not in "biuf":  # complex (its imaginary part would go), strings, objects
                        raise LaunchError(f"launch of '{kernel.key}': argument '{params[i][0]}' must be "
                                          f"{type_name(t)}: its numpy data is of dtype {a.dtype}, not real numbers")
                    a = t(a)  # a vector or matrix value given as numpy data, as Warp accepts
                elif (isinstance(t, ArrayType) and not is_generic(t) and is_composite_type(t.dtype)
                      and a.dtype == np.dtype(t.dtype._dtype._np)):
                    a = from_numpy(a, dtype=t.dtype)  # the same memory, seen as vectors or matrices
                else:
                    a = from_numpy(a)
            except ValueError as e:  # e.g. strides that are no whole elements (a field of a structured array)
                name = params[i][0] if i < len(params) else str(i)
                # still a ValueError, as it was before it named the argument
                raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}': {e}") from None
        elif a is None:
            t = params[i][1] if i < len(params) else None
            a = None if _tape.recording else _NULL_ARRAYS.get((t, _devices._current))  # checked when made
            if a is not None:
                out.append(a)
                continue
            name = params[i][0] if i < len(params) else str(i)
            if is_struct_type(t):
                raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}' expects {type_name(t)} but "
                                          f"got None")
            if is_composite_type(t):
                raise LaunchArgumentError(f"launch of '{kernel.key}': Failed to convert argument for param {name} to "
                                          f"{type_name(t)} (None stands only for an array parameter)")
            if not isinstance(t, ArrayType) or is_generic(t):
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is None, which stands only for an "
                                  f"array parameter of a known dtype (got {type_name(t) if t else 'no parameter'})")
            a = _null_array(t)
        out.append(a)
    return out


def _host_value(a) -> bool:
    """Whether launch argument ``a`` may be a host value that ``_host_arguments`` converts: None, a numpy array,
    an object with ``__array__`` (another library's CPU tensor), a ``from_torch(return_ctype=True)`` descriptor."""
    return a is None or isinstance(a, np.ndarray) or type(a) not in SIGNED and (
        hasattr(type(a), "__array__") or hasattr(a, "_bw_value"))


def _foreign_host_array(kernel, params, i: int, a):
    """A ``from_torch(..., return_ctype=True)`` descriptor as its array; for an array parameter, another
    library's CPU tensor as a numpy view of its memory (PyTorch's ``__array__`` copies nothing), which the numpy
    rules then take, as Warp reads such tensors through ``__array__``."""
    value = getattr(a, "_bw_value", None)
    if isinstance(value, ARRAY_KINDS):
        return value
    t = params[i][1] if i < len(params) else None
    if isinstance(t, ArrayType) and hasattr(type(a), "__array__") and not isinstance(a, (CompositeBase, *ARRAY_KINDS)) \
            and not is_foreign_cuda_array(a):  # CUDA memory: views on its device (cuda_launch), refused on the CPU
        try:
            return np.asarray(a)
        except (TypeError, ValueError, RuntimeError) as e:  # a tensor that requires grad, one on a GPU
            raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{params[i][0]}': its "
                                      f"{type(a).__name__} gives no host array ({e}); wp.from_torch(t) views a "
                                      f"tensor with its gradient") from None
    return a


_NULL_ARRAYS: dict = {}  # (array type, default device) -> the empty array that a None argument stands for


def _null_array(t):
    """The empty array (Warp's null array) of array type ``t`` on the default device that a ``None`` argument
    becomes: one per type and device, kept, so that a launch with ``None`` costs no allocation. Shape 0, it holds
    nothing a kernel could change; while a tape records, each launch gets its own, as the tape's checks of reads
    and writes follow array objects."""
    key = (t, _devices._current)
    a = _NULL_ARRAYS.get(key)
    if a is None or _tape.recording:
        a = empty((0,) * t.ndim, dtype=t.dtype)
        if isinstance(t, IndexedArrayType):
            a = indexedarray(a)
        if not _tape.recording:
            _NULL_ARRAYS[key] = a
    return a


def _plain_ndarray(kernel, params, i: int, a: np.ndarray) -> np.ndarray:
    """Argument ``i``, an instance of an ndarray subclass, as a plain ndarray over the same memory (an
    ``np.memmap``: the kernel's writes reach the file); a masked array is refused, its mask would be ignored."""
    if isinstance(a, np.ma.MaskedArray):
        name = params[i][0] if i < len(params) else str(i)
        raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is a numpy.ma.MaskedArray, whose mask a "
                          f"kernel would ignore; pass its data (a.data, or a.filled(value)) instead")
    return a.view(np.ndarray)


class Launch:
    """A recorded launch (``launch(..., record_cmd=True)``): run it with ``launch()``, change its
    arguments with ``set_param_at_index``/``set_param_by_name``/``set_params`` and its grid with
    ``set_dim``. Each ``launch()`` goes through ``brickwork.launch`` with the current values.

    An adjoint launch (``adjoint=True``) runs the backward kernel; its adjoint arguments are set with
    ``adjoint=True`` on the setters. An array argument whose adjoint is unset accumulates into its own
    ``.grad`` (as Warp, where an array's gradient takes precedence)."""

    def __init__(self, kernel, device=None, hooks=None, params=None, params_addr=None, bounds=None, max_blocks=0,
                 block_dim=256, adjoint=False, adj_params=None):
        """Warp's constructor: ``Launch(kernel, device)`` starts with each parameter at its zero value (an
        empty array, a zero scalar, vector or struct) and ``dim`` 1; ``params``/``bounds`` give them."""
        self.kernel, self.device, self.adjoint = kernel, device, bool(adjoint)
        self.params = list(params) if params is not None else [_zero_argument(t) for _, t in kernel.params]
        self.adj_params = list(adj_params) if adj_params is not None else [None] * len(self.params)
        self.dim = bounds if bounds is not None else 1

    def _index(self, index: int) -> int:
        if not 0 <= index < len(self.params):
            raise IndexError(f"kernel '{self.kernel.key}' has {len(self.params)} parameters, no index {index}")
        return index

    def set_param_at_index(self, index: int, value, adjoint: bool = False) -> None:
        name, t = self.kernel.params[self._index(index)]
        if is_composite_type(t) and (isinstance(value, (int, float, ScalarBase)) or np.ndim(value) == 0):
            raise LaunchArgumentError(f"kernel '{self.kernel.key}': argument '{name}' expects {type_name(t)} but got "
                                      f"a single value")
        if adjoint:
            if not self.adjoint:
                raise ValueError(f"kernel '{self.kernel.key}': the launch is not an adjoint launch, so it has no "
                                 f"adjoint of '{name}' to set")
            self.adj_params[index] = value
        else:
            self.params[index] = value

    def set_param_at_index_from_ctype(self, index: int, value, adjoint: bool = False) -> None:
        """Warp's setter without conversion: the same as ``set_param_at_index`` here (values made by
        ``__ctype__()`` carry the value they were made from)."""
        self.set_param_at_index(index, _from_ctype(value), adjoint)

    def set_param_by_name(self, name: str, value, adjoint: bool = False) -> None:
        self.set_param_at_index(self._name_index(name), value, adjoint)

    def set_param_by_name_from_ctype(self, name: str, value) -> None:
        self.set_param_at_index_from_ctype(self._name_index(name), value)

    def _name_index(self, name: str) -> int:
        names = [n for n, _ in self.kernel.params]
        if name not in names:
            raise KeyError(f"kernel '{self.kernel.key}' has no parameter {name!r} (it has {', '.join(names)})")
        return names.index(name)

    def set_params(self, values) -> None:
        values = list(values)
        if len(values) != len(self.params):
            raise ValueError(f"kernel '{self.kernel.key}' takes {len(self.params)} parameters, got {len(values)}")
        self.params = values

    def set_params_from_ctypes(self, values) -> None:
        self.set_params([_from_ctype(v) for v in values])

    def set_dim(self, dim) -> None:
        self.dim = dim

    def launch(self, stream=None) -> None:
        if self.adjoint:
            from .tape import launch_adjoint

            adjs = _grads_for_missing(self.params, self.adj_params)
            launch_adjoint(self.kernel, self.dim, self.params, (), adjs, None, self.device)
            return
        launch(self.kernel, self.dim, inputs=self.params, device=self.device)


def _grads_for_missing(args, adjs) -> list:
    """The adjoints of a backward launch: where one is missing (None), an array argument's own ``.grad``."""
    if len(adjs) != len(args):
        return adjs  # launch_adjoint reports the count
    return [a.grad if adj is None and isinstance(a, array) and a.grad is not None else adj
            for a, adj in zip(args, adjs)]


def _from_ctype(value):
    """The value a ``__ctype__()`` result stands for (other values as they are)."""
    return getattr(value, "_bw_value", value)


def _zero_argument(t):
    """The value a parameter of declared type ``t`` has in a Launch built by hand (None: an empty array)."""
    if is_generic(t) or isinstance(t, ArrayType):
        return None
    if is_composite_type(t):
        return t(0)  # zero-initialized, as Warp (a transform's rotation too)
    if is_scalar_type(t) or is_struct_type(t):
        return t()
    return None


def _dims(dim, inst, kernel):
    if type(dim) is not tuple:  # a tuple is never an integer: no exception to raise and catch (its cost)
        try:
            dim = (operator.index(dim),)  # an int, or an integer that is no Python int (numpy's: np.prod(shape))
        except TypeError:
            pass  # a sequence of extents
    try:
        dims = [operator.index(d) for d in dim]
    except (TypeError, ValueError):
        raise LaunchError(f"launch of '{kernel.key}': dim must be an int or a tuple of ints, got {dim!r}") from None
    if len(dims) > 4:
        raise LaunchError(f"launch of '{kernel.key}': dim has 1 to 4 entries, got {len(dims)}")
    if not dims:  # dim=(): the extent of a 0-d grid, one point, as in Warp
        dims = [1]
    total = 1
    bits = 0  # the extents or'ed: negative when one is (cheaper than min())
    for d in dims:
        total *= d
        bits |= d
    if bits < 0:  # an even count of negative extents, whose product is positive: (-2, -3) ran nothing, said nothing
        raise LaunchError(f"launch of '{kernel.key}': dim must not be negative, got {dim!r}")
    if total > _MAX_POINTS:  # the kernel multiplies the extents in int64: 65536**4 wrapped to 0 and ran nothing
        raise LaunchError(f"launch of '{kernel.key}': dim {tuple(dims)} has {total} points, more than a launch "
                          f"counts (2**63 - 1)")
    if len(dims) > inst.tid_dims:  # the callers then launch the ranked instance (launch_rank.ranked_entry)
        raise MoreExtents(f"launch of '{kernel.key}': dim {dim!r} has more entries than tid() gives indices")
    if inst.tid_dims == 1:
        return total, 1, 1, 1, total
    # fewer entries: the missing extents are 1 and their indices 0, as in Warp (i, j = wp.tid() with dim=n)
    dims += [1] * (4 - len(dims))
    return dims[0], dims[1], dims[2], dims[3], total


_launch_cuda = None  # cuda_launch.launch_cuda, imported at the first CUDA launch (it imports this module)
_launch_repeated_cuda = None  # cuda_launch.launch_repeated, with it


def _import_launch_cuda():
    global _launch_cuda, _launch_repeated_cuda
    from .cuda_launch import launch_cuda, launch_repeated

    _launch_cuda, _launch_repeated_cuda = launch_cuda, launch_repeated
    return launch_cuda


def _refuse_external_entry_point(kernel) -> None:
    """A kernel declared for an external launcher cannot run through ``launch`` (checked on the slow path:
    a kernel's options are fixed when it is declared)."""
    options = getattr(kernel, "options", None)
    if isinstance(options, dict) and options.get("entry_point_abi") == "external_constant_params":
        raise RuntimeError(f"kernel '{kernel.key}' has entry_point_abi='external_constant_params': an external "
                           f"launcher starts it, so it cannot be launched with wp.launch (brickwork has no such "
                           f"launcher; use the default entry_point_abi='warp')")


def _prepare(kernel, sig, args, device, target=None, table_key=None, rank: int = 0) -> tuple:
    """Slow path, once per signature: check, choose the instance (for ``target``; None: the CPU's),
    build it, make its packer; the entry goes in the launch table under ``table_key`` (default ``sig``).
    ``rank``: the entries of the launch's ``dim``, where more than the kernel's ``tid()`` gives indices
    (``Instance.ranked``)."""
    on = get_device(device) if device is not None else _devices.CPU  # raises for unavailable devices
    _refuse_external_entry_point(kernel)
    params = kernel.params
    if len(args) != len(params):
        sibling = _sibling_with_count(kernel, len(args))
        if sibling is not None:
            entry = _prepare(sibling, sig, args, device, target, table_key, rank)
            kernel.launch_table[sig if table_key is None else table_key] = entry
            return entry
        names = ", ".join(n for n, _ in params)
        raise LaunchError(f"launch of '{kernel.key}': expected {len(params)} arguments ({names}), "
                          f"got {len(args)}")
    for (name, _), a in zip(params, args):
        kinds = cross_family(a) if isinstance(a, ARRAY_KINDS) else None
        if kinds:
            raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is a {type(a).__name__}, which derives "
                              f"from more than one native array family ({kinds}); derive from one only")
        if isinstance(a, ARRAY_KINDS) and a.device != on:
            raise LaunchError(f"launch of '{kernel.key}' on {on}: argument '{name}' is an array on {a.device}; "
                              f"arrays must be on the launch device (copy it with a.to('{on}'))")
    if kernel.is_generic:
        types = []
        for (name, ann), value in zip(params, args):
            if not is_generic(ann) and not isinstance(value, ARRAY_KINDS):
                # a concrete parameter takes its annotation's type (a Python int for a uint64 grid id, as in
                # a kernel with no generic parameter); the packer checks and converts the value
                types.append(python_annotation_type(ann))
                continue
            t = type_of_value(value)
            if t is None:
                raise LaunchError(f"launch of '{kernel.key}': cannot infer a type for argument '{name}' from "
                                  f"a value of type {describe_value(value)}; pass a brickwork type, e.g. "
                                  f"wp.float32(x) or wp.vec3f(...)")
            if not matches(ann, t):
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(ann)}, got "
                                  f"{type_name(t)}")
            types.append(t)
        inst = kernel.get_instance(tuple(types), target)
    else:
        types = kernel.concrete_types()
        for (name, _), t, value in zip(params, types, args):
            _check_concrete(kernel, name, t, value)
        inst = kernel.get_instance(types, target)
    inst.ensure_loaded()
    if rank > inst.tid_dims:
        inst = inst.ranked(rank)
        inst.ensure_loaded()
    if inst.uses_tiles and config.enable_cpu_blocks:  # launch_tiled checks each launch; launch when it prepares one
        raise LaunchError(_CPU_BLOCKS.format(how="launch", key=kernel.key))
    for i in inst.writes:
        if isinstance(args[i], ARRAY_KINDS) and args[i].readonly:
            raise LaunchError(f"launch of '{kernel.key}': argument '{params[i][0]}' is a read-only array (it views "
                              f"read-only memory) but the kernel writes it; pass a writable copy (wp.clone(a))")
    pack = make_packer(inst.arg_types, sig, tuple(n for n, _ in params), on, kernel.key, inst.tid_bounds,
                       inst.range_bounds)
    if inst.writes_fields:  # a struct's fields can change between launches: checked at each
        pack = _refusing_read_only_fields(pack, kernel.key, params, inst.writes_fields)
    entry = (inst, pack)
    kernel.launch_table[sig if table_key is None else table_key] = entry
    return entry


def _refusing_read_only_fields(pack, key: str, params, fields: tuple):
    """``pack`` that first refuses a launch whose struct argument holds a read-only array (numpy
    memory that is not writable) at a field path the kernel writes."""

    def packer(a, d0, d1, d2, d3, par, nt):
        for i, path in fields:
            if read_only_at(a[i], path) is not None:
                where = ".".join((params[i][0], *path)).replace(".[]", "[i]")
                raise LaunchError(f"launch of '{key}': '{where}' is a read-only array (it views read-only "
                                  f"memory) but the kernel writes it; assign a writable copy (wp.clone(...))")
        return pack(a, d0, d1, d2, d3, par, nt)

    return packer


def _sibling_with_count(kernel, nargs):
    """Another kernel of the same name and module taking ``nargs`` arguments, if one exists."""
    for k in sibling_kernels(kernel):
        if k is not kernel and len(k.params) == nargs:
            return k
    return None


def _dtype_hint(want, got) -> str:
    """How to convert an array whose elements are of another scalar type than the parameter's ("" otherwise)."""
    if not (isinstance(got, ArrayType) and want.ndim == got.ndim and is_scalar_type(want.dtype)
            and is_scalar_type(got.dtype) and want.dtype is not got.dtype):
        return ""
    name = want.dtype.__name__
    numpy_form = f"numpy_array.astype(numpy.{name}) or " if want.dtype._np.__name__ == name else ""  # not bfloat16
    return (f" (its elements are {got.dtype.__name__}, the kernel's {name}: convert the data, e.g. {numpy_form}"
            f"wp.array(numpy_array, dtype=wp.{name}))")


def _check_concrete(kernel, name, t, value):
    def fail(got):
        raise LaunchError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(t)}, got {got}")

    if isinstance(t, ArrayType):
        if is_foreign_cuda_array(value):
            raise LaunchError(f"launch of '{kernel.key}' on the CPU: argument '{name}' is CUDA memory "
                              f"({describe_value(value)}); launch on its device (device='cuda:0', ...) or copy it "
                              f"to the host")
        if not isinstance(value, ARRAY_KINDS):
            fail(describe_value(value))
        if value._key is not t:
            fail(type_name(value._key) + _dtype_hint(t, value._key))
        return
    if is_scalar_type(t):
        if isinstance(value, ScalarBase):
            # another scalar type of the same kind converts as its Python value would (wp.int64(5) for an int
            # parameter, wp.float64(0.5) for a float one), as in Warp; an integer out of range is refused below
            if type(value) is not t and not (t.is_float and type(value).is_float) and \
                    not (_is_int_type(t) and _is_int_type(type(value))):
                fail(type_name(type(value)))
        elif isinstance(value, (bool, np.bool_, int, np.integer)):  # an int for a bool: its truth, as Warp
            pass
        elif isinstance(value, (float, np.floating)) and t.is_float:
            pass
        elif t is uint64 and isinstance(getattr(value, "id", None), int):  # a Mesh, a Bvh, a HashGrid, a Volume
            fail(f"{describe_value(value)}: pass its id ({type(value).__name__.lower()}.id)")
        else:
            fail(describe_value(value))
        return
    if is_composite_type(t):
        if isinstance(value, (int, float, ScalarBase, np.number, np.bool_)):  # Warp refuses promoting one number
            raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}' expects {type_name(t)} but got "
                                      f"a single value")
        if isinstance(value, CompositeBase):
            if type(value) is not t and not composite_converts(type(value), t):
                fail(type_name(type(value)))
        elif isinstance(value, (list, tuple)):
            try:
                composite_values(t, value)
            except ComponentError as e:
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(t)}: {e}") from None
        else:
            fail(describe_value(value))
        return
    if is_struct_type(t) and type(value) is not t:
        fail(describe_value(value))


_ = is_generic


def _is_int_type(t) -> bool:
    return is_scalar_type(t) and not t.is_float and t is not bool_
