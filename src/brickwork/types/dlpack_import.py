"""``wp.from_dlpack``: DLPack import, a writable numpy view of a host tensor's capsule (DLPack 0.x
``DLManagedTensor`` or 1.x ``DLManagedTensorVersioned``, read with ctypes), and the element type rules of Warp's
``from_dlpack``. A producer is asked for a 1.x capsule first (``max_version=(1, 0)``), whose read-only flag is
honoured: numpy >= 2.1 exports read-only arrays so, and refuses them to a 0.x consumer.

numpy's own ``from_dlpack`` makes the view of an unversioned capsule read-only and knows no bfloat16;
Warp's import is writable and maps every DLPack element type it has, so brickwork reads the capsule
itself. The producer's deleter runs when the last view of its memory is gone.
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import array_constructors, arrays, scalars
from .dlpack_export import (
    _NAME,
    KDL_CUDA,
    DLManagedTensor,
    DLTensor,
    _capsule_pointer,
    _capsule_valid,
    contiguous_strides,
    read_only_exports,
)

KDL_CPU = 1
#: (DLPack type code, bits) -> brickwork scalar type
_SCALARS = {(0, 8): scalars.int8, (0, 16): scalars.int16, (0, 32): scalars.int32, (0, 64): scalars.int64,
            (1, 8): scalars.uint8, (1, 16): scalars.uint16, (1, 32): scalars.uint32, (1, 64): scalars.uint64,
            (2, 16): scalars.float16, (2, 32): scalars.float32, (2, 64): scalars.float64,
            (4, 16): scalars.bfloat16, (6, 8): scalars.bool_}
_CODE_NAMES = {0: "int", 1: "uint", 2: "float", 3: "opaque", 4: "bfloat", 5: "complex", 6: "bool"}
_INTEGERS = {scalars.int8, scalars.int16, scalars.int32, scalars.int64, scalars.uint8, scalars.uint16,
             scalars.uint32, scalars.uint64}

_capsule_set_name = ctypes.pythonapi["PyCapsule_SetName"]
_capsule_set_name.restype, _capsule_set_name.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]

_VERSIONED = b"dltensor_versioned"
_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY
_MAX_VERSION = (1, 0)  # what brickwork reads: any 1.x (a minor version only adds to the structure's end)


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))), ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor)]


def capsule_of(source, **kwargs):
    """``source.__dlpack__``'s capsule, a 1.x one where the producer takes ``max_version`` (DLPack's way to ask:
    a producer that does not know the keyword raises ``TypeError``, and is asked again without it)."""
    try:
        return source.__dlpack__(max_version=_MAX_VERSION, **kwargs)
    except TypeError:
        return source.__dlpack__(**kwargs)


def _read_only(managed) -> bool:
    """Whether the producer lent its memory read-only: the 1.x flag, or brickwork's own 0.x export of
    read-only memory (``read_only_exports``)."""
    m = managed.contents
    return bool(getattr(m, "flags", 0) & _READ_ONLY) or m.manager_ctx in read_only_exports


def _consume(cap, managed) -> None:
    """Rename ``cap`` as DLPack's consumers do: the capsule no longer calls the deleter (its new owner does)."""
    used = b"used_dltensor_versioned" if isinstance(managed.contents, DLManagedTensorVersioned) else b"used_dltensor"
    _capsule_set_name(id(cap), used)


def source_device(source) -> tuple[int, int]:
    """``(device_type, device_id)`` of a capsule's tensor or of an object with ``__dlpack_device__``."""
    if type(source).__name__ == "PyCapsule":
        device = _managed(source).contents.dl_tensor.device
        return device.device_type, device.device_id
    if not hasattr(source, "__dlpack_device__"):
        raise TypeError(f"wp.from_dlpack needs an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(source).__name__}")
    device = source.__dlpack_device__()
    try:
        device_type, device_id = device
        return _device_number(device_type), _device_number(device_id)
    except (TypeError, ValueError):
        raise TypeError(f"wp.from_dlpack: {type(source).__name__}.__dlpack_device__() must return a pair of "
                        f"integers (device type, device id), got {device!r:.80}") from None


def _device_number(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):  # an IntEnum (DLDeviceType) is an int
        raise TypeError(n)
    return int(n)


def _managed(cap):
    """A pointer to the capsule's ``DLManagedTensor`` or ``DLManagedTensorVersioned`` (both have ``dl_tensor``,
    ``manager_ctx`` and ``deleter``)."""
    if type(cap).__name__ == "PyCapsule" and _capsule_valid(id(cap), _VERSIONED):
        managed = ctypes.cast(_capsule_pointer(id(cap), _VERSIONED), ctypes.POINTER(DLManagedTensorVersioned))
        version = managed.contents.version
        if version.major != _MAX_VERSION[0]:  # another layout: nothing past the version may be read
            raise ValueError(f"wp.from_dlpack: the capsule is of DLPack {version.major}.{version.minor}; brickwork "
                             f"reads DLPack 0.x and 1.x capsules")
        return managed
    if type(cap).__name__ != "PyCapsule" or not _capsule_valid(id(cap), _NAME):
        raise ValueError("not an unconsumed DLPack capsule (a 'dltensor' or 'dltensor_versioned' PyCapsule; one "
                         "already imported is named 'used_dltensor' and cannot be imported again)")
    return ctypes.cast(_capsule_pointer(id(cap), _NAME), ctypes.POINTER(DLManagedTensor))


def element_type(cap, dtype) -> tuple:
    """(numpy view dtype, brickwork scalar) of the capsule's elements read as ``dtype``'s scalar (None:
    the tensor's own type). Same-size integers of either sign and bool with int8/uint8 alias each other,
    as in Warp; other pairs are a ``RuntimeError`` naming both."""
    t = _managed(cap).contents.dl_tensor
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    own = _SCALARS.get((code, bits)) if lanes == 1 else None
    name = f"{_CODE_NAMES.get(code, f'code{code}')}{bits}" + (f"x{lanes}" if lanes != 1 else "")
    if own is None:
        why = ": complex types are not supported (import the real and imaginary parts as a float array, e.g. " \
              "numpy's z.view(np.float32) for complex64)" if code == 5 else ""
        raise RuntimeError(f"Unsupported DLPack data type: {name}{why}")
    if dtype is None:
        return own
    want = dtype if scalars.is_scalar_type(dtype) else getattr(dtype, "_dtype", None)
    bool_alias = {own, want} <= {scalars.bool_, scalars.int8, scalars.uint8}
    same_size_ints = own in _INTEGERS and want in _INTEGERS and own._size == want._size
    if want is not own and not bool_alias and not same_size_ints:
        wanted = getattr(dtype, "__name__", str(dtype))
        raise RuntimeError(f"Incompatible data types: DLPack {name} and Warp {wanted}")
    return want


class _Producer:
    """What keeps an imported tensor's memory alive: calls the producer's deleter when the last view goes."""

    def __init__(self, managed):
        self.managed = managed

    def __del__(self):
        deleter = self.managed.contents.deleter
        if deleter:
            deleter(self.managed)


def host_view(cap, scalar) -> np.ndarray:
    """A writable view of the host tensor in ``cap`` with ``scalar``'s numpy type (of the tensor's element
    size: ``element_type`` checked it), read-only where the producer lent it read-only (``_read_only``); the
    capsule is consumed (renamed ``used_dltensor`` or ``used_dltensor_versioned``)."""
    managed = _managed(cap)
    t = managed.contents.dl_tensor
    dtype = np.dtype(scalars.dtype_to_numpy(scalar))
    # what the producer says is all there is to go on; what cannot be a tensor is refused before it is read
    if not 0 <= t.ndim <= 32 or t.ndim and not t.shape:
        raise ValueError(f"wp.from_dlpack: the capsule's tensor has ndim={t.ndim}"
                         f"{' and no shape' if 0 <= t.ndim <= 32 else ''}; a tensor has 0 to 32 dimensions")
    shape = tuple(int(t.shape[d]) for d in range(t.ndim))
    if any(n < 0 for n in shape):
        raise ValueError(f"wp.from_dlpack: the capsule's tensor has shape {shape}: no extent may be negative")
    if not t.data and 0 not in shape:
        raise ValueError(f"wp.from_dlpack: the capsule's tensor of shape {shape} has a null data pointer")
    steps = [int(t.strides[d]) for d in range(t.ndim)] if t.strides else contiguous_strides(shape)
    owner = _Producer(managed)
    _consume(cap, managed)  # ours now: the capsule no longer calls the deleter
    if 0 in shape:
        return np.empty(shape, dtype)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, steps))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, steps))
    start = (t.data or 0) + t.byte_offset + lo * dtype.itemsize
    memory = (ctypes.c_char * ((hi - lo + 1) * dtype.itemsize)).from_address(start)
    memory._producer = owner  # the views' base chain ends in `memory`, which keeps the producer
    flat = np.frombuffer(memory, dtype=dtype)
    writable = not _read_only(managed)
    return np.lib.stride_tricks.as_strided(flat[-lo:], shape, [s * dtype.itemsize for s in steps], writeable=writable)


def import_host(source, dtype) -> tuple[np.ndarray, object]:
    """(view, brickwork dtype) of a host producer or capsule for ``view_numpy``."""
    cap = source if type(source).__name__ == "PyCapsule" else capsule_of(source)
    if type(cap).__name__ != "PyCapsule":
        raise TypeError(f"Expected a valid DLPack capsule, got {type(cap).__name__}")
    scalar = element_type(cap, dtype)
    return host_view(cap, scalar), scalar if dtype is None else dtype


def from_dlpack(source, dtype=None) -> arrays.array:
    """An array sharing the memory of ``source`` (no copy): an object with ``__dlpack__`` (a numpy array, a
    tensor of another library on the host or a CUDA device) or a DLPack capsule (``to_dlpack``). ``dtype``:
    read the elements as this type (``wp.vec3`` over trailing dimensions of 3), as ``from_numpy`` does."""
    device_type, device_id = source_device(source)
    if device_type == KDL_CUDA:
        return _import_cuda(source, dtype, device_id)
    if device_type != KDL_CPU:
        raise TypeError(f"Unsupported source device for DLPack: device_type={device_type}, device_id={device_id}")
    view, dtype = import_host(source, dtype)
    return array_constructors.view_numpy(view, dtype=dtype)


def _import_cuda(source, dtype, device_id: int):
    """A device array viewing a CUDA tensor's memory (``source`` a capsule, or an object asked for one on the
    legacy default stream, where brickwork's work runs: the producer orders its own work before it)."""
    from .device_import import is_contiguous, view

    if type(source).__name__ != "PyCapsule" and not hasattr(source, "__dlpack__"):
        raise TypeError(f"wp.from_dlpack needs an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(source).__name__} (it has __dlpack_device__ only)")
    cap = source if type(source).__name__ == "PyCapsule" else capsule_of(source, stream=1)
    scalar = element_type(cap, dtype)
    managed = _managed(cap)
    t = managed.contents.dl_tensor
    shape = tuple(int(t.shape[d]) for d in range(t.ndim))
    strides = tuple(int(t.strides[d]) for d in range(t.ndim)) if t.strides else None
    if strides is not None and not is_contiguous(shape, strides):
        raise ValueError(f"wp.from_dlpack: the CUDA tensor of shape {shape} is strided (strides {strides}); "
                         f"brickwork's device arrays are contiguous: copy it first (PyTorch's .contiguous(), CuPy's "
                         f"ascontiguousarray)")
    comp = np.dtype(scalars.dtype_to_numpy(scalar))
    out = view(int(t.data or 0) + int(t.byte_offset), shape, comp, scalar if dtype is None else dtype,
               device_id, None, "wp.from_dlpack: the CUDA tensor",
               read_only=_read_only(managed))
    out._alloc.owner = _Producer(managed)  # only now: a refused import leaves the deleter to the capsule
    _consume(cap, managed)  # ours now: the array's owner calls the deleter
    return out
