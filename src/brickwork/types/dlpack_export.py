"""DLPack export (``wp.to_dlpack``): a ``dltensor`` capsule (DLPack 0.x ``DLManagedTensor``, built with ctypes) for
``__dlpack__`` of CUDA arrays, and of host arrays whose element type numpy has no DLPack code for
(bfloat16).

The capsule keeps the array (and so its allocation) alive until the consumer calls the deleter, or,
when no consumer takes it, until the capsule itself goes.
"""

from __future__ import annotations

import ctypes

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

_alive: dict = {}  # address of a DLManagedTensor -> what it points into (the array, shape and strides)


@_DELETER
def _delete(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# Private function objects (item access makes new ones): others may set argtypes on pythonapi's attributes.
_capsule_new = ctypes.pythonapi["PyCapsule_New"]
_capsule_new.restype, _capsule_new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, _DESTRUCTOR]
_capsule_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_capsule_valid.restype, _capsule_valid.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]


@_DESTRUCTOR
def _unconsumed(capsule):
    # A consumer renames the capsule "used_dltensor" and calls the deleter itself; otherwise we do.
    if _capsule_valid(capsule, _NAME):
        managed = ctypes.cast(_capsule_pointer(capsule, _NAME), ctypes.POINTER(DLManagedTensor))
        managed.contents.deleter(managed)


def contiguous_strides(shape) -> list[int]:
    """Element strides of a C-contiguous array of ``shape`` (DLPack's meaning of absent strides)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def capsule(arr, ptr: int, shape: tuple, comp: np.dtype, bfloat: bool, ordinal: int, device_type: int = KDL_CUDA,
            strides: tuple | None = None):
    """A ``dltensor`` capsule of an array of ``shape`` elements of ``comp`` at ``ptr`` (``strides`` in
    elements; C-contiguous when None) on ``(device_type, ordinal)``."""
    ndim = len(shape)
    dims = (ctypes.c_int64 * max(ndim, 1))(*shape)
    if strides is None:
        strides = contiguous_strides(shape)
    steps = (ctypes.c_int64 * max(ndim, 1))(*strides)
    code = _KDL_BFLOAT if bfloat else _CODES[comp.kind]
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(ptr, DLDevice(device_type, ordinal), ndim, DLDataType(code, 8 * comp.itemsize, 1),
                                 dims, steps, 0)
    managed.deleter = _delete
    address = ctypes.addressof(managed)
    _alive[address] = (managed, dims, steps, arr)
    return _capsule_new(address, _NAME, _unconsumed)


def to_dlpack(arr):
    """A DLPack capsule of ``arr``'s memory (no copy), for ``from_dlpack`` of another library."""
    if not hasattr(arr, "__dlpack__"):
        raise TypeError(f"wp.to_dlpack needs a brickwork array, got {type(arr).__name__}")
    return arr.__dlpack__()
