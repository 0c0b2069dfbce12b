"""Device memory another library owns, as a brickwork array without a copy: objects with
``__cuda_array_interface__`` (CuPy, PyTorch, Numba; versions 2 and 3) and DLPack capsules of CUDA tensors.

The memory must be C-contiguous, as brickwork's device arrays are (a strided view is refused with advice to
copy it first). The array keeps the producer (its object, or the capsule's deleter) alive while any array
views the memory, and never frees the memory itself. brickwork launches and copies run on the legacy default
stream, so work the producer queued on another stream it names (the interface's ``stream``) is waited for
before the array is made.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import cuda_driver
from ..device import get_device
from .array_shapes import check_array_shape
from .arrays import element_layout, type_name
from .device_array import DeviceArray
from .dlpack_export import contiguous_strides
from .scalars import is_scalar_type, scalar_from_numpy

_DEFAULT_STREAMS = (None, 0, 1, 2)  # no stream, the legacy default stream (0 read as 1), per-thread default


class Borrowed:
    """Device memory another library owns (an ``Allocation`` that is never freed): ``owner`` keeps it alive."""

    __slots__ = ("driver", "ordinal", "ptr", "nbytes", "owner", "read_only")

    def __init__(self, ordinal: int, ptr: int, nbytes: int, owner, read_only: bool = False):
        self.driver = cuda_driver.driver()
        self.ordinal, self.ptr, self.nbytes, self.owner = ordinal, ptr, nbytes, owner
        self.read_only = read_only  # the producer lent it read-only: no kernel, fill or copy may write it


def from_cuda_interface(data, dtype=None, device=None) -> DeviceArray:
    """A device array viewing the memory ``data.__cuda_array_interface__`` describes (no copy)."""
    desc = data.__cuda_array_interface__
    what = f"the __cuda_array_interface__ of {type(data).__name__}"
    if not isinstance(desc, dict) or not {"shape", "typestr", "data"} <= desc.keys():
        raise ValueError(f"{what} is not a dict with 'shape', 'typestr' and 'data'")
    if desc.get("version", 0) < 2:
        raise ValueError(f"{what} has version {desc.get('version', 0)}; brickwork reads versions 2 and 3")
    if desc.get("mask") is not None:
        raise ValueError(f"{what} has a mask; masked arrays cannot be imported")
    try:
        comp = np.dtype(desc["typestr"])
    except TypeError:
        raise TypeError(f"{what} has typestr {desc['typestr']!r}, which names no numpy type") from None
    shape, ptr, read_only = _described_memory(desc, what)
    strides = desc.get("strides")
    if strides is not None and not is_contiguous(shape, [s / comp.itemsize for s in strides]):  # bytes
        raise ValueError(f"{what} describes a strided view (strides {tuple(strides)} bytes for shape {shape}); "
                         f"brickwork's device arrays are contiguous: copy it first (CuPy's ascontiguousarray, "
                         f"PyTorch's .contiguous())")
    ordinal = _memory_device(ptr, device, what)
    stream = desc.get("stream")
    if stream not in _DEFAULT_STREAMS:  # the producer's work on its stream is done before ours reads the memory
        if not isinstance(stream, (int, np.integer)) or isinstance(stream, bool) or not 0 < stream < 2**64:
            raise ValueError(f"{what} has stream {stream!r}, not a CUDA stream handle (a positive int)")
        cuda_driver.driver().stream_synchronize(ordinal, int(stream))
    return view(ptr, shape, comp, dtype, ordinal, data, what, read_only=read_only)


def _described_memory(desc: dict, what: str) -> tuple:
    """``(shape, pointer, read-only)`` of a CUDA array interface, checked before any view is made: a shape of
    integers in arrays' range (a float, a negative or a 2**62 extent made an array of that shape), a ``(pointer,
    read-only)`` pair whose pointer is an address, not null when there are elements (a kernel would fault on it), and
    whose flag is a bool (a kernel wrote memory lent read-only when the flag was dropped)."""
    try:
        shape = tuple(operator.index(n) for n in desc["shape"])
    except TypeError:
        raise ValueError(f"{what} has shape {desc['shape']!r}, not a tuple of integers") from None
    try:
        check_array_shape(shape)
    except ValueError as e:
        raise ValueError(f"{what} has shape {shape}: {e}") from None
    data = desc["data"]
    ptr = data[0] if isinstance(data, (tuple, list)) and len(data) == 2 else "?"
    ptr = 0 if ptr is None else ptr
    if not isinstance(ptr, (int, np.integer)) or isinstance(ptr, bool) or not 0 <= ptr < 2**64:
        raise ValueError(f"{what} has data {data!r}, not a (pointer, read-only) pair with a pointer from 0 to "
                         f"2**64 - 1")
    if not isinstance(data[1], (bool, np.bool_, int, np.integer)) or data[1] not in (0, 1):
        raise ValueError(f"{what} has data {data!r}, whose read-only flag is not a bool")
    if not ptr and math.prod(shape):
        raise ValueError(f"{what} has a null data pointer but shape {shape} has elements")
    return shape, int(ptr), bool(data[1])


def is_contiguous(shape: tuple, steps) -> bool:
    """Whether element strides ``steps`` lay ``shape`` out row-major without gaps, as a device array is (the
    stride of an extent of 1 does not matter)."""
    return all(s == t for s, t, n in zip(steps, contiguous_strides(shape), shape) if n > 1)


def _memory_device(ptr: int, device, what: str) -> int:
    """The ordinal of the device holding ``ptr``; ``ValueError`` when ``device`` names another one."""
    asked = None if device is None else get_device(device)
    if asked is not None and asked.is_cpu:
        raise ValueError(f"{what} describes CUDA memory; an array of it is on a CUDA device, not {asked}")
    if not ptr:  # an empty array: no memory to ask about
        return 0 if asked is None else asked.ordinal
    ordinal = cuda_driver.driver().pointer_device(ptr)
    if asked is not None and asked.ordinal != ordinal:
        raise ValueError(f"{what} is memory of cuda:{ordinal}, not of {asked}: pass device='cuda:{ordinal}' "
                         f"(or copy it to {asked} first)")
    return ordinal


def view(ptr: int, shape: tuple, comp: np.dtype, dtype, ordinal: int, owner, what: str,
         read_only: bool = False) -> DeviceArray:
    """A device array of ``dtype`` (None: the scalar type of ``comp``) over ``shape`` elements of ``comp``
    (vector and matrix types take the trailing dimensions) at ``ptr`` on device ``ordinal``; ``owner`` is
    kept alive with it; ``read_only``: the producer lent the memory read-only (``DeviceArray.readonly``)."""
    scalar = scalar_from_numpy(comp) if comp.isnative else None
    if scalar is None:
        raise TypeError(f"{what} has elements of type {comp.str}, which brickwork has no scalar type for")
    dtype = scalar if dtype is None else dtype
    want, trailing = element_layout(dtype)
    if np.dtype(want) != comp or (not is_scalar_type(dtype) and shape[len(shape) - len(trailing):] != trailing):
        raise TypeError(f"{what} holds {comp.name} data of shape {shape}, which is no array of {type_name(dtype)}")
    shape = shape[:len(shape) - len(trailing)]
    out = object.__new__(DeviceArray)
    nbytes = comp.itemsize * math.prod(shape) * math.prod(trailing)
    out._allocate(dtype, shape, get_device(f"cuda:{ordinal}"), Borrowed(ordinal, ptr, nbytes, owner, read_only))
    return out
