"""DLPack export (``wp.to_dlpack``): a ``dltensor`` capsule (DLPack 0.x ``DLManagedTensor``, built with ctypes) for
``__dlpack__`` of CUDA arrays, and of host arrays whose element type numpy has no DLPack code for
(bfloat16).

numpy makes the capsule, of an ndarray over the same memory (whose base keeps the array, and so its allocation,
alive), and the device and element type are then written into its ``DLTensor``: the deleter and the capsule's
destructor are numpy's C functions. They run no Python code of ours, so a consumer that drops the capsule while an
exception is in flight (numpy's ``from_dlpack`` refusing a CUDA or bfloat16 tensor) keeps that exception; a
ctypes callback would turn it into a ``SystemError`` and lose it.
"""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

KDL_CUDA = 2
_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}  # kDLInt, kDLUInt, kDLFloat, kDLBool
_KDL_BFLOAT = 4
_NAME = b"dltensor"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

# Private function objects (item access makes new ones): others may set argtypes on pythonapi's attributes.
_capsule_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_capsule_valid.restype, _capsule_valid.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]


#: The capsules' arrays over read-only memory, by address (a capsule's ``manager_ctx``): DLPack 0.x cannot say that a
#: tensor is read-only, so ``from_dlpack`` asks here before it makes its view writable (a kernel writing an exported
#: read-only memory map died of a segmentation fault). Each entry goes with its array, when the consumer deletes it.
read_only_exports: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def contiguous_strides(shape) -> list[int]:
    """Element strides of a C-contiguous array of ``shape`` (DLPack's meaning of absent strides)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def capsule(arr, ptr: int, shape: tuple, comp: np.dtype, bfloat: bool, ordinal: int, device_type: int = KDL_CUDA,
            strides: tuple | None = None, read_only: bool = False):
    """A ``dltensor`` capsule of an array of ``shape`` elements of ``comp`` at ``ptr`` (``strides`` in
    elements; C-contiguous when None) on ``(device_type, ordinal)``; it keeps ``arr`` alive until the consumer
    calls its deleter, or, when no consumer takes it, until the capsule goes. ``read_only``: brickwork's import
    of it views the memory read-only (``read_only_exports``)."""
    if strides is None:
        strides = contiguous_strides(shape)
    size = comp.itemsize
    empty = 0 in shape
    low = 0 if empty else sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)  # elements from ptr
    high = 0 if empty else sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    span = (ctypes.c_uint8 * (0 if empty else (high - low + 1) * size)).from_address((ptr or 0) + low * size)
    span.owner = arr  # the ndarray's base: the capsule holds the array through it (the memory is not read)
    holder = np.ndarray(shape, dtype=comp, buffer=span, offset=-low * size, strides=[s * size for s in strides])
    made = holder.__dlpack__()
    if read_only:
        read_only_exports[id(holder)] = holder  # numpy's manager_ctx is the exported ndarray
    managed = DLManagedTensor.from_address(_capsule_pointer(id(made), _NAME))  # numpy's, in memory it allocated
    managed.dl_tensor.device = DLDevice(device_type, ordinal)
    if bfloat:
        managed.dl_tensor.dtype.code = _KDL_BFLOAT  # numpy wrote uint16, the bfloat16 storage
    return made


def to_dlpack(arr):
    """A DLPack capsule of ``arr``'s memory (no copy), for ``from_dlpack`` of another library."""
    if not hasattr(arr, "__dlpack__"):
        raise TypeError(f"wp.to_dlpack needs a brickwork array, got {type(arr).__name__}")
    return arr.__dlpack__()
