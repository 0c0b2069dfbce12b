"""Arrays in CUDA device memory (``wp.array(..., device="cuda:0")``): the ``array`` interface, with
copies where the CPU array shares memory.

A ``DeviceArray`` owns (or views) one contiguous allocation. ``numpy()``, ``str()``, ``list()`` and
``np.asarray`` copy to the host; ``assign`` and item assignment copy back; ``zero_`` and ``fill_`` are
memsets on the device's current stream where the element allows (types/device_fill.py), else host fills copied
back. Other libraries share the memory through ``__cuda_array_interface__`` (CuPy, PyTorch, Numba) and DLPack.
Launches pass the device pointer, shape and strides in the same packed layout as CPU arrays.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from .. import cuda_driver, memory_tracking, pending_checks
from ..allocators import MemoryKind, custom_allocator
from ..device import get_device
from ..errors import CaptureError
from . import array_display, device_fill, recording
from .array_conversions import checked_data
from .array_shapes import check_element_bytes
from .array_types import ReadOnly
from .arrays import (
    ArrayType,
    _grad_option,
    _to_plain,
    array,
    check_same_dtype,
    element_layout,
    is_foreign_cuda_array,
    type_name,
)
from .bfloat16_numpy import as_values
from .held_arrays import hold_from
from .recording import run_or_record
from .scalars import bfloat16


class OnDevice:
    """The launch-signature entry of an array of type ``key`` on a CUDA device (never a CPU table's key): one
    object per type and device name (``on_device``), so a launch's table lookup hashes and compares it by
    identity, without a call into Python per array."""

    __slots__ = ("key", "device")

    def __init__(self, key, device):
        self.key = key
        self.device = device


_ON_DEVICE: dict = {}  # (array type, device name) -> its OnDevice


def on_device(key, device) -> OnDevice:
    """The signature entry of arrays of type ``key`` on ``device``."""
    found = _ON_DEVICE.get((key, device.alias))
    if found is None:
        found = _ON_DEVICE[(key, device.alias)] = OnDevice(key, device)
    return found


class Allocation:
    """``nbytes`` of device memory, freed when the last array using it goes: from the device's custom allocator
    where one is set (``wp.set_device_allocator``), given back to it, else by the driver."""

    __slots__ = ("driver", "ordinal", "ptr", "nbytes", "allocator", "__weakref__")

    def __init__(self, device, nbytes: int):
        self.driver = cuda_driver.driver()
        self.ordinal = device.ordinal
        self.nbytes = nbytes
        self.allocator = custom_allocator(self.ordinal)
        if self.allocator is None:
            self.ptr = self.driver.alloc(self.ordinal, nbytes)
        else:
            self.ptr = int(self.allocator.allocate(nbytes))

    @property
    def memory_kind(self) -> MemoryKind:
        """cuMemAlloc's device memory, or what the custom allocator says its memory is (UNKNOWN if it does not)."""
        if self.allocator is None:
            return MemoryKind.CUDA_DEVICE
        kind = getattr(self.allocator, "memory_kind", None)
        return kind if isinstance(kind, MemoryKind) else MemoryKind.UNKNOWN

    def __del__(self):
        try:
            if self.allocator is None:
                self.driver.free(self.ordinal, self.ptr)
            else:
                self.allocator.deallocate(self.ptr, self.nbytes)
        except Exception:  # noqa: BLE001 - at interpreter exit the driver may be gone
            pass


class DeviceArray(array):
    """A contiguous array in the memory of one CUDA device."""

    __slots__ = ("_alloc", "_offset", "_comp", "_trailing")
    deleter = None  # device memory brickwork allocated, or a view of another library's (array(ptr=...) is host only)

    def __init__(self, data=None, dtype=None, shape=None, ndim=None, device=None, copy=True, **kwargs):
        from typing import Any

        if kwargs.get("ptr") is not None:
            raise ValueError(f"array(ptr=...) views CPU memory only, not memory on {get_device(device)}")
        if is_foreign_cuda_array(data):
            self._view_foreign(data, dtype, shape, device, kwargs)
            return
        # The CPU's rules turn data, dtype and shape into host memory; that is then uploaded.
        tracked = memory_tracking._State.enabled
        with memory_tracking.paused():  # Warp's memory tracker sees the device memory, not this host copy
            host = array(data, dtype=Any if dtype is None else dtype, shape=shape, ndim=ndim, device="cpu", copy=True)
        self._allocate(host.dtype, host.shape, get_device(device))
        if tracked:
            memory_tracking.name_device_array(self, Any if dtype is None else dtype)
        if kwargs.get("strides") is not None and tuple(kwargs["strides"]) != self.strides:
            raise ValueError(f"strides {tuple(kwargs['strides'])} on {self.device}: CUDA arrays are contiguous "
                             f"(strides {self.strides})")
        self._upload(np.ascontiguousarray(host._np))
        hold_from(self, host)  # an array of structs: the arrays its elements point to
        _grad_option(self, kwargs)  # requires_grad=True: a zero gradient on the same device

    def _view_foreign(self, data, dtype, shape, device, kwargs) -> None:
        """Become a view of another library's CUDA memory (no copy, whatever ``copy`` says: as in Warp)."""
        from typing import Any

        from .device_import import from_cuda_interface
        from .scalars import python_annotation_type

        src = from_cuda_interface(data, None if dtype in (None, Any) else python_annotation_type(dtype), device)
        if shape is not None and tuple(np.atleast_1d(shape)) != src.shape:
            raise ValueError(f"shape {shape} does not fit the {type(data).__name__} of shape {src.shape}")
        self._allocate(src.dtype, src.shape, src.device, src._alloc)
        _grad_option(self, kwargs)

    @classmethod
    def empty(cls, shape: tuple, dtype, device) -> "DeviceArray":
        """An uninitialized array on ``device``."""
        self = object.__new__(cls)
        self._allocate(dtype, tuple(shape), device)
        return self

    def _allocate(self, dtype, shape: tuple, device, alloc: Allocation | None = None, offset: int = 0) -> None:
        if not 1 <= len(shape) <= 4:
            raise ValueError(f"arrays have 1 to 4 dimensions, got shape {shape}")
        comp, trailing = element_layout(dtype)
        check_element_bytes(np.dtype(comp).itemsize * math.prod(trailing), type_name(dtype))
        self._comp, self._trailing = np.dtype(comp), trailing
        self.dtype, self.shape, self.ndim, self.device, self._owner = dtype, shape, len(shape), device, None
        self._grad, self._requires_grad = None, False
        self._alloc = alloc or Allocation(device, self._nbytes())
        if alloc is None and memory_tracking._State.enabled:  # wp.ScopedMemoryTracker, wp.config.track_memory
            memory_tracking.device_allocated(self._alloc, self)
        self._offset = offset
        self._key = ArrayType(dtype, self.ndim)
        # memory its producer lent read-only is told apart in launch signatures, as a CPU array's is: the launch
        # table would otherwise skip the refusal of writers once a writable array of the type had run
        self._sig = on_device(ReadOnly(self._key) if self.readonly else self._key, device)
        elem_strides = [1] * self.ndim
        for d in range(self.ndim - 2, -1, -1):
            elem_strides[d] = elem_strides[d + 1] * shape[d + 1]
        self._packed = struct.pack(f"<Q{2 * self.ndim}q", self.ptr, *shape, *elem_strides)
        # the device's unit-stride variant also takes 32-bit element offsets (brickwork.h, bw::at)
        self._unit_inner = int(np.prod(shape, dtype=np.int64)) < 2**31

    def _nbytes(self) -> int:
        n = self._comp.itemsize * int(np.prod(self.shape + self._trailing, dtype=np.int64))
        return n

    def _upload(self, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data, dtype=self._comp)
        if data.nbytes != self._nbytes():
            raise ValueError(f"cannot copy {data.nbytes} bytes into a device array of {self._nbytes()} bytes")
        if data.nbytes:
            # On the legacy default stream, asynchronously: ordered after every launch made before it (as the
            # synchronous copy is) but the host does not wait for the device; the driver has read ``data``
            # (pageable memory) when the call returns.
            self._alloc.driver.copy_to_device(self._alloc.ordinal, self.ptr, data.ctypes.data, data.nbytes, 0)

    # -- the host side sees copies ------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A host copy of the data (vectors add trailing dimensions; bfloat16 data as ``ml_dtypes.bfloat16``
        where ml_dtypes is installed, else as its uint16 bits)."""
        out = self._host_copy()
        return as_values(out) if _scalar_dtype(self.dtype) is bfloat16 else out

    def _host_copy(self) -> np.ndarray:
        if recording.recorder is not None:  # the captured launches run only at replay: a read now is stale
            raise CaptureError(f"reading a {self.device} array on the host while a graph is captured: the launches "
                               f"recorded so far run only at wp.capture_launch; read it after the capture ends")
        out = np.empty(self.shape + self._trailing, dtype=self._comp)
        if out.nbytes:
            self._alloc.driver.copy_to_host(self._alloc.ordinal, out.ctypes.data, self.ptr, out.nbytes)
            pending_checks.copied_to_host(self._alloc.ordinal)  # the copy waited: raise what a launch recorded
        return out

    @property
    def _np(self) -> np.ndarray:  # the CPU array's code reads _np: on the device that is a host copy
        return self._host_copy()

    @property
    def __array_interface__(self):
        raise AttributeError("a CUDA array has no host memory to share: use .numpy() (a copy) or "
                             "__cuda_array_interface__")

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict:
        """Version 3 of the CUDA array interface: the memory, shape and element type; brickwork launches
        run on the legacy default stream (1)."""
        return {"shape": self.shape + self._trailing, "typestr": self._comp.str, "data": (self.ptr, self.readonly),
                "strides": None, "version": 3, "stream": 1}

    def __dlpack__(self, stream=None, **kwargs):
        """A DLPack capsule of the device memory (no copy). Work launched so far is finished first,
        whatever stream the consumer names."""
        from . import dlpack_export

        self._alloc.driver.synchronize(self._alloc.ordinal)
        pending_checks.synchronized(self._alloc.ordinal)
        return dlpack_export.capsule(self, self.ptr, self.shape + self._trailing, self._comp,
                                     _scalar_dtype(self.dtype) is bfloat16, self.device.ordinal,
                                     read_only=self.readonly)

    def __dlpack_device__(self):
        return 2, self.device.ordinal  # kDLCUDA

    def __repr__(self):
        return array_display.array_repr(self, self.numpy())  # one host copy

    @property
    def readonly(self) -> bool:
        """True when another library lent the memory read-only (``__cuda_array_interface__``'s ``data`` of
        ``(ptr, True)``, brickwork's own DLPack export of such an array): kernels that write it are refused at
        launch, and fills, assignments and copies into it raise ``ValueError``."""
        return getattr(self._alloc, "read_only", False)

    def _check_writable(self, what: str) -> None:
        if getattr(self._alloc, "read_only", False):
            raise ValueError(f"{what}: this {self.device} array views memory its producer lent read-only (its "
                             f"__cuda_array_interface__ or DLPack export says so); write a copy (wp.clone(a))")

    def fill_(self, value) -> "DeviceArray":
        self._check_writable("fill_")
        return super().fill_(value)

    def zero_(self) -> "DeviceArray":
        self._check_writable("zero_")
        return super().zero_()

    @property
    def strides(self) -> tuple:
        step, out = self._comp.itemsize * int(np.prod(self._trailing, dtype=np.int64)), []
        for d in reversed(self.shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))

    @property
    def ptr(self) -> int:
        return self._alloc.ptr + self._offset

    @property
    def memory_kind(self) -> MemoryKind:
        """``CUDA_DEVICE`` (brickwork's cuMemAlloc), the custom allocator's kind, or ``UNKNOWN`` for another
        library's memory."""
        return getattr(self._alloc, "memory_kind", MemoryKind.UNKNOWN)

    @property
    def is_contiguous(self) -> bool:
        return True

    # -- fills are memsets on the current stream (types/device_fill.py); other writes go through the host ------
    def _fill_now(self, converted, value) -> None:
        ops = device_fill.fill_ops(self, converted, value) if self.size else []
        if ops is not None:
            device_fill.run_fill(self, ops, "fill_")
            return
        host = array(np.empty(self.shape + self._trailing, dtype=self._comp), dtype=self.dtype, device="cpu",
                     copy=False)
        host._fill_now(converted, value)
        self._upload(host._np)
        hold_from(self, host)

    def _zero_now(self) -> None:
        ops = device_fill.zero_ops(self) if self.size else []
        if ops is None:  # memory another library lent at an odd address
            self._upload(np.zeros(self.shape + self._trailing, dtype=self._comp))
            return
        device_fill.run_fill(self, ops, "zero_")

    def assign(self, src, stream=None) -> "DeviceArray":
        """Copy ``src`` (a device or host array, numpy array or nested list of the same shape) into this array.

        A copy between arrays of one device runs on ``stream`` (a ``wp.Stream``; the host does not wait)
        when given; copies that involve host memory wait for the device."""
        self._check_writable("assign")
        if isinstance(src, array):
            check_same_dtype(self, src, "assign")
            if tuple(src.shape) != tuple(self.shape) and src.size != self.size:
                raise ValueError(f"cannot assign data of shape {tuple(src.shape)} to an array of shape "
                                 f"{tuple(self.shape)}")
        else:
            data = np.asarray(checked_data(_to_plain(src), self._comp, self.dtype, "assign", made=False))
            if data.size != int(np.prod(self.shape + self._trailing, dtype=np.int64)):
                raise ValueError(f"cannot assign data of shape {data.shape} to an array of shape {tuple(self.shape)}")
            src = np.array(data) if recording.recorder is not None else data
        run_or_record(self._assign_now, src, stream)
        return self

    def _assign_now(self, src, stream=None) -> None:
        if isinstance(src, DeviceArray) and src.device == self.device and src.shape == self.shape:
            handle = None if stream is None else stream.cuda_stream
            self._alloc.driver.copy_on_device(self._alloc.ordinal, self.ptr, src.ptr, self._nbytes(), handle)
            hold_from(self, src)
            return
        host = self._host_scratch()  # an assignment writes every element: no download (a wait for the GPU)
        host._assign_now(src if isinstance(src, array) else src.reshape(host._np.shape))
        self._upload(host._np)
        hold_from(self, host)

    def __getitem__(self, key):
        if isinstance(key, array) or isinstance(key, tuple) and any(isinstance(k, array) for k in key):
            from .indexed_arrays import index_array_view  # a[idx]: an indexed array, as Warp

            return index_array_view(self, key)
        view = self.numpy()[key if isinstance(key, tuple) else (key,)]
        if isinstance(view, np.ndarray) and view.ndim > len(self._trailing):
            raise TypeError(f"indexing a CUDA array gives elements, not views: {key!r} selects a sub-array; "
                            f"copy it with .numpy() or launch a kernel")
        return self._element(view)

    def __setitem__(self, key, value):
        self._check_writable("a[i] = v")
        scratch = self._host_scratch()  # converts and checks ``value`` now; it holds what a struct value points to
        run_or_record(self._set_now, key, scratch._item_value(key, value), scratch)

    def _host_scratch(self) -> array:
        """An uninitialised CPU array of this array's shape and type."""
        data = np.empty(self.shape + self._trailing, dtype=self._comp)
        return array(data, dtype=self.dtype, device="cpu", copy=False)

    def _set_now(self, key, value, scratch) -> None:
        host = array(self.numpy(), dtype=self.dtype, device="cpu", copy=False)
        host._np[key] = value
        self._upload(host._np)
        hold_from(self, scratch)

    def to(self, device) -> array:
        """This array on ``device`` (itself when it is there already; otherwise a copy)."""
        dev = get_device(device)
        if dev == self.device:
            return self
        out = array(self.numpy(), dtype=self.dtype, device=dev, copy=False) if dev.is_cpu else \
            DeviceArray(self.numpy(), dtype=self.dtype, device=dev)
        hold_from(out, self)
        return out

    def clone(self) -> "DeviceArray":
        out = DeviceArray.empty(self.shape, self.dtype, self.device)
        out.assign(self)
        return out

    def _view(self, shape: tuple) -> "DeviceArray":
        out = object.__new__(DeviceArray)
        out._allocate(self.dtype, shape, self.device, self._alloc, self._offset)
        out._owner = self
        return out

    def flatten(self) -> "DeviceArray":
        return self._view((self.size,))

    def reshape(self, shape) -> "DeviceArray":
        """A view with ``shape`` (one -1: the rest): CUDA arrays are contiguous, so there always is one."""
        from .array_views import resolved_shape

        return self._view(resolved_shape(self, shape))


def _scalar_dtype(dtype):
    """The scalar type of an element type (a vector's component type)."""
    return getattr(dtype, "_dtype", dtype)
