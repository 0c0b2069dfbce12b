"""Host memory of arrays laid out by the caller, as Warp's ``strides=`` and ``ptr=`` arguments give it:
``wp.empty(shape, dtype, strides=...)`` (and ``zeros``, ``ones``, ``full``, ``array(shape=...)``)
allocates just the bytes a strided layout reaches (``capacity``); ``wp.array(ptr=p, shape=..., dtype=...,
strides=..., deleter=...)`` views memory the caller owns (nothing is copied; ``deleter(ptr, capacity)``
runs when the last view of it goes). Both give numpy arrays that ``array`` wraps as usual.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import memory_tracking
from ..errors import BrickworkError
from .array_shapes import check_element_bytes
from .arrays import dense_strides


class NegativeStridesError(BrickworkError, ValueError, NotImplementedError):
    """Allocating with a negative stride: Warp raises NotImplementedError, brickwork's earlier releases ValueError."""


def checked_strides(shape: tuple, strides, element_bytes: int, allocating: bool) -> tuple:
    """``strides`` as a tuple of Python ints after Warp's checks (count, sign when allocating), and
    brickwork's own: kernels step over whole elements, so each stride is a multiple of the element size."""
    try:
        strides = tuple(strides)
    except TypeError:
        raise TypeError(f"strides must be a tuple of integers, got {strides!r}") from None
    if len(strides) != len(shape):
        raise ValueError(f"Invalid number of strides, expected {len(shape)} strides, got {len(strides)}")
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) for s in strides):
        raise TypeError(f"strides must be integers (bytes), got {strides!r}")
    strides = tuple(int(s) for s in strides)
    check_element_bytes(element_bytes)
    if allocating and any(s < 0 for s in strides):
        raise NegativeStridesError(f"Negative strides are not supported for newly allocated arrays, got {strides}: "
                                   f"allocate with positive strides and take a reversed view (a[::-1])")
    if any(s % element_bytes for s in strides):
        raise ValueError(f"strides {strides} must be multiples of the element size ({element_bytes} bytes): kernels "
                         f"step over whole elements")
    return strides


def span_bytes(shape: tuple, strides: tuple, element_bytes: int) -> int:
    """Bytes from the lowest to the end of the highest element a layout reaches (0 when it has none)."""
    if any(n == 0 for n in shape):
        return 0
    return element_bytes + sum((n - 1) * abs(s) for n, s in zip(shape, strides))


def allocate_strided(shape: tuple, strides, comp: np.dtype, trailing: tuple) -> np.ndarray:
    """Uninitialized memory for ``shape`` elements (each ``trailing`` scalars of ``comp``) at ``strides``
    bytes apart, as a numpy array of shape ``shape + trailing``."""
    element_bytes = comp.itemsize * int(np.prod(trailing, dtype=np.int64))
    strides = checked_strides(shape, strides, element_bytes, allocating=True)
    buffer = np.empty(span_bytes(shape, strides, element_bytes) // comp.itemsize, dtype=comp)
    if memory_tracking._State.enabled:  # wp.ScopedMemoryTracker, wp.config.track_memory
        memory_tracking.host_allocated(buffer, buffer.nbytes)
    full = strides + dense_strides(trailing, comp.itemsize)
    return np.lib.stride_tricks.as_strided(buffer, shape=shape + trailing, strides=full, writeable=True)


#: Bytes to which new host arrays are aligned: Warp's host allocations are, and JAX's CPU (``wp.to_jax``) views
#: memory so aligned without copying it; numpy alone aligns to 16
ALIGNMENT = 64


def host_buffer(shape: tuple, comp: np.dtype, zero: bool) -> np.ndarray:
    """A C-contiguous numpy array of ``shape`` scalars of ``comp`` starting on an ``ALIGNMENT``-byte boundary
    (zeroed when ``zero``: numpy's zeros come from calloc, cheap for large arrays)."""
    comp = np.dtype(comp)
    nbytes = int(np.prod(shape, dtype=np.int64)) * comp.itemsize
    if nbytes == 0:  # no memory to align (and numpy's own strides of empty shapes)
        return np.empty(shape, comp)
    raw = (np.zeros if zero else np.empty)(nbytes + ALIGNMENT, np.uint8)
    if memory_tracking._State.enabled:  # wp.ScopedMemoryTracker, wp.config.track_memory
        memory_tracking.host_allocated(raw, nbytes)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + nbytes].view(comp).reshape(shape)


def host_copy(data, comp: np.dtype) -> np.ndarray:
    """``data`` (a numpy array or nested sequences) copied into a new ``host_buffer`` of ``comp`` scalars."""
    plain = np.asarray(data, dtype=comp)
    out = host_buffer(plain.shape, comp, zero=False)
    out[...] = plain
    return out


class _Borrowed:
    """Memory at an address the caller owns, seen by numpy through ``__array_interface__``; numpy keeps
    this object alive as long as any view of the memory, and its finalizer runs the caller's deleter."""

    def __init__(self, ptr: int, shape: tuple, strides: tuple, comp: np.dtype, deleter, capacity: int):
        self.__array_interface__ = {"data": (ptr, False), "shape": shape, "strides": strides,
                                    "typestr": comp.str, "version": 3}
        self.capacity = capacity  # the bytes the caller says are there: the capacity of the array at ptr
        self.deleter = deleter
        if deleter is not None:
            weakref.finalize(self, deleter, ptr, capacity)


def wrap_pointer(ptr, shape: tuple, strides, comp: np.dtype, trailing: tuple, capacity=None,
                 deleter=None) -> np.ndarray:
    """A numpy array of shape ``shape + trailing`` over the memory at address ``ptr`` (dense row-major
    strides unless ``strides`` are given, in bytes)."""
    if not isinstance(ptr, (int, np.integer)) or isinstance(ptr, bool) or not 0 <= ptr < 2**64:
        raise TypeError(f"ptr must be a memory address (an int from 0 to 2**64 - 1), got {ptr!r}")
    element_bytes = comp.itemsize * int(np.prod(trailing, dtype=np.int64))
    if strides is None:
        strides = dense_strides(shape, element_bytes)
    strides = checked_strides(shape, strides, element_bytes, allocating=False)
    needed = span_bytes(shape, strides, element_bytes)
    if ptr == 0 and needed:
        raise ValueError(f"ptr is 0 (null) but shape {shape} has elements")
    before = -sum((n - 1) * st for n, st in zip(shape, strides) if st < 0 and n > 0)
    if capacity is not None and before > 0:  # capacity counts the bytes from ptr up: none lie below it
        raise ValueError(f"strides {strides} of shape {shape} reach {before} bytes below ptr, but capacity "
                         f"{capacity} counts the bytes from ptr up: pass the lowest element's address as ptr "
                         f"with positive strides, and take a reversed view (a[::-1])")
    if capacity is not None and capacity < needed:
        raise ValueError(f"capacity {capacity} is smaller than the {needed} bytes shape {shape} with strides "
                         f"{strides} reaches")
    full = strides + dense_strides(trailing, comp.itemsize)
    holder = _Borrowed(int(ptr), shape + trailing, full, comp, deleter, needed if capacity is None else capacity)
    return np.asarray(holder)
