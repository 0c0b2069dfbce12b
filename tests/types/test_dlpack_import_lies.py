"""``wp.from_dlpack`` of a host capsule whose tensor cannot be one (a null data pointer with elements, a negative
ndim or extent, more than 32 dimensions) is a ValueError naming what is wrong, and the capsule stays unconsumed
(its producer's deleter still belongs to it). A null pointer was read as memory at address 0 (garbage); a
negative ndim was taken as a 0-d tensor and read."""

import ctypes

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.dlpack_export import DLManagedTensor

_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype, _new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype, _is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]


def _capsule(keep: list, data, shape, ndim=None):
    """A host float32 capsule over ``data`` with ``shape`` (and ``ndim``, if it lies), no strides, no deleter."""
    managed = DLManagedTensor()
    tensor = managed.dl_tensor
    tensor.data, tensor.device.device_type, tensor.device.device_id = data, 1, 0
    tensor.ndim = len(shape) if ndim is None else ndim
    tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes = 2, 32, 1
    extents = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    tensor.shape = ctypes.cast(extents, type(tensor.shape))
    keep += [managed, extents]
    return _new_capsule(ctypes.addressof(managed), b"dltensor", None)


def test_an_honest_capsule_is_viewed():
    keep, data = [], np.arange(4, dtype=np.float32)
    a = wp.from_dlpack(_capsule(keep, data.ctypes.data, (4,)))
    a.numpy()[0] = 9.0
    np.testing.assert_array_equal(data, [9.0, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("lie, message", [
    (dict(data=None, shape=(4,)), r"of shape \(4,\) has a null data pointer"),
    (dict(shape=(-4,)), r"has shape \(-4,\): no extent may be negative"),
    (dict(shape=(4,), ndim=-3), r"has ndim=-3; a tensor has 0 to 32 dimensions"),
    (dict(shape=(4,), ndim=1000), r"has ndim=1000; a tensor has 0 to 32 dimensions"),
])
def test_impossible_tensors_are_refused_and_the_capsule_is_left_unconsumed(lie, message):
    keep, data = [], np.arange(4, dtype=np.float32)
    lie = dict(lie)
    capsule = _capsule(keep, lie.pop("data", data.ctypes.data), **lie)
    with pytest.raises(ValueError, match=rf"^wp.from_dlpack: the capsule's tensor {message}"):
        wp.from_dlpack(capsule)
    assert _is_valid(capsule, b"dltensor")
    np.testing.assert_array_equal(data, np.arange(4))


def test_a_null_pointer_without_elements_is_an_empty_array():
    keep = []
    a = wp.from_dlpack(_capsule(keep, None, (0, 3)))
    assert a.shape == (0, 3) and a.numpy().size == 0
