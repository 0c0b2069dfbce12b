"""Copies between arrays: ``wp.clone`` (a new contiguous array) and ``wp.copy`` (into an existing one,
with Warp's offsets and count), checked before anything is written and recorded into a graph while one
is captured (recording.py)."""

from __future__ import annotations

import numpy as np

from .. import memory_tracking
from .. import timing_state as _timing
from .arrays import _copied, _grad_option, array, check_same_dtype
from .recording import run_or_record


def clone(a: array, **kwargs) -> array:
    """A contiguous copy of ``a`` on ``a``'s device (``requires_grad`` as ``a`` unless given; the gradient
    starts at zero)."""
    if not isinstance(a, array):  # an indexed array: a contiguous copy of its elements, without gradient
        return _grad_option(a.contiguous(), kwargs)
    if a.device.is_cuda:
        out = _grad_option(a.clone(), kwargs, a)
    else:
        from .array_memory import host_copy  # aligned as new arrays are (array_memory.ALIGNMENT)

        out = array._wrap(host_copy(a._np, a._np.dtype), a.dtype, a.device)
        if memory_tracking._State.pending is not None:  # its new memory, tracked: named by its type
            memory_tracking.name_host_array(out)
        out = _grad_option(out, kwargs, a)
    from .held_arrays import hold_from

    hold_from(out, a)
    _copied(out, a)
    return out



def check_copy(dest: array, src: array, dest_offset, src_offset, count) -> None:
    """Refuse a copy that does not fit, with Warp's reasons (``CopyError``/``CopyTypeError``, which are
    also ``RuntimeError`` as Warp's), before anything is written."""
    from ..errors import CopyError

    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in (dest_offset, src_offset, count)):
        raise CopyError(f"wp.copy: src_offset, dest_offset, and count must be integers, got src_offset="
                        f"{src_offset!r}, dest_offset={dest_offset!r}, count={count!r}")
    for what, value in (("Source offset", src_offset), ("Destination offset", dest_offset), ("Copy count", count)):
        if value < 0:
            raise CopyError(f"wp.copy: {what} must be non-negative, got {value}")
    check_same_dtype(dest, src, "wp.copy")
    if dest.readonly:  # numpy refuses a read-only host array itself, but CUDA memory lent read-only has no guard
        raise ValueError(f"wp.copy: the destination is a read-only array (it views read-only memory, on "
                         f"{dest.device}); copy into a writable one (wp.clone(a))")
    indexed = [a for a in (dest, src) if not isinstance(a, array)]  # indexed arrays (types/indexed_arrays.py)
    if indexed and (dest_offset or src_offset or count):
        raise CopyError("wp.copy: src_offset, dest_offset and count are not supported for indexed or Fabric arrays")
    if indexed and tuple(dest.shape) != tuple(src.shape):
        raise CopyError(f"wp.copy: Incompatible array shapes: destination shape={tuple(dest.shape)}, "
                        f"source shape={tuple(src.shape)}")
    strided_nd = any(not a.is_contiguous and a.ndim > 1 for a in (dest, src))
    if strided_nd and (dest_offset or src_offset or count):
        raise CopyError("wp.copy: dest_offset, src_offset, and count are only supported for 1-D non-contiguous "
                        "arrays (or contiguous ones)")
    if strided_nd and tuple(dest.shape) != tuple(src.shape):
        raise CopyError(f"wp.copy: Incompatible array shapes: destination shape={tuple(dest.shape)}, "
                        f"source shape={tuple(src.shape)}")
    n = count or src.size
    if src_offset + n > src.size:
        raise CopyError(f"wp.copy: a range of {n} element(s) from source offset ({src_offset}) exceeds the "
                        f"source size ({src.size})")
    if dest_offset + n > dest.size:
        raise CopyError(f"wp.copy: a range of {n} element(s) to destination offset ({dest_offset}) exceeds the "
                        f"destination size ({dest.size})")


def copy(dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0, stream=None) -> None:
    """Copy ``src`` into ``dest`` (between arrays of one CUDA device: on ``stream`` when given).

    As in Warp, ``count`` elements (0: all of ``src``) from element ``src_offset`` of ``src`` go to
    element ``dest_offset`` of ``dest``, elements counted in row-major order, so the shapes may
    differ as long as the elements fit."""
    check_copy(dest, src, dest_offset, src_offset, count)
    if stream is not None and dest.device.is_cuda and stream.device != dest.device:
        raise ValueError(f"wp.copy: the stream belongs to {stream.device}, the destination to {dest.device}")
    now = _copy_now
    if _timing.ranges and dest.device.is_cpu and src.device.is_cpu:  # wp.timing_begin: a copy on the host
        from ..timing_state import TIMING_MEMCPY, host_activity

        now = host_activity("memcpy HtoH", TIMING_MEMCPY, _copy_now)
    run_or_record(now, dest, src, dest_offset, src_offset, count, stream)
    whole = not (dest_offset or src_offset or count) and tuple(dest.shape) == tuple(src.shape)
    if whole or count or src.size:
        _copied(dest, src, None if whole else (dest_offset, src_offset, count or src.size))


def _copy_now(dest: array, src: array, dest_offset: int, src_offset: int, count: int, stream) -> None:
    on_device = dest.device.is_cuda
    if not (dest_offset or src_offset or count) and tuple(dest.shape) == tuple(src.shape):
        if stream is not None and on_device:
            dest._assign_now(src, stream)
        else:
            dest._assign_now(src)
        return
    n = count or src.size
    if n == 0:
        return
    if on_device and src.device == dest.device:  # device arrays are contiguous: one copy of the bytes
        step = dest._nbytes() // dest.size
        handle = None if stream is None else stream.cuda_stream
        dest._alloc.driver.copy_on_device(dest._alloc.ordinal, dest.ptr + dest_offset * step,
                                          src.ptr + src_offset * step, n * step, handle)
    else:
        data = np.asarray(src.numpy())
        values = data.reshape(src.size, *data.shape[src.ndim:])[src_offset:src_offset + n]
        target = dest.numpy()  # the data itself on the host, a copy of a device array's
        target[np.unravel_index(np.arange(dest_offset, dest_offset + n), tuple(dest.shape))] = values
        if on_device:
            dest._assign_now(target)
    from .held_arrays import hold_from

    hold_from(dest, src)
