"""The array constructors: ``empty``, ``zeros``, ``ones``, ``full``, their ``*_like`` forms, and
``from_numpy`` (a copy, as Warp's), ``view_numpy`` and ``wrap_numpy`` (CPU arrays over numpy memory)."""

from __future__ import annotations

import math

import numpy as np

from .. import memory_tracking
from ..device import get_device
from .array_shapes import given_shape, shape_tuple
from .arrays import _grad_option, array, element_layout
from .composite import CompositeBase, matrix, vector
from .dtype_inference import fill_dtype, infer_dtype
from .recording import record
from .scalars import ScalarBase, float32, python_annotation_type


def empty(shape=None, dtype=float32, device=None, n=None, **kwargs) -> array:
    """An uninitialized array (``shape`` an int or a tuple; ``n=`` is Warp's 1-D spelling; ``strides=``
    in bytes lays the elements out apart, allocating only the bytes that reaches); structs holding arrays or
    textures are zeroed, so that their fields are unset rather than leftover addresses."""
    shape = shape_tuple(given_shape(shape, n, "empty"))
    dtype = python_annotation_type(dtype)
    comp, trailing = element_layout(dtype)
    dev = get_device(device)
    strides = kwargs.get("strides")
    # structs holding arrays or textures are zeroed: leftover bytes would be addresses a kernel follows (a null
    # one is named by the launch: runtime/element_fields), and shapes a host read trusts
    zero = getattr(dtype, "_bw_struct", False) and _holds_addresses(dtype)
    if dev.is_cuda:
        from .device_array import DeviceArray  # CUDA memory

        a = DeviceArray.empty(shape, dtype, dev)
        if strides is not None and tuple(strides) != a.strides:
            raise ValueError(f"strides {tuple(strides)} on {dev}: CUDA arrays are contiguous (strides {a.strides})")
        if zero:
            a.zero_()
        return _grad_option(a, kwargs)
    from .array_memory import allocate_strided, host_buffer

    if strides is None:
        data = host_buffer(shape + trailing, comp, zero=zero)
    else:
        data = allocate_strided(shape, strides, np.dtype(comp), trailing)
        if zero:
            data[...] = 0
    a = array._wrap(data, dtype, dev)
    if memory_tracking._State.pending is not None:  # its new memory, tracked: named by its type
        memory_tracking.name_host_array(a)
    return _grad_option(a, kwargs)


def _holds_addresses(struct_type) -> bool:
    from .structs import has_device_fields  # structs imports indexed arrays, which import this module

    return has_device_fields(struct_type)


def zeros(shape=None, dtype=float32, device=None, n=None, **kwargs) -> array:
    """An array of zeros (``requires_grad=True``: with a gradient array)."""
    a = empty(given_shape(shape, n, "zeros"), dtype, device, strides=kwargs.get("strides"))
    a._zero_now()
    record(a._zero_now)
    return _grad_option(a, kwargs)


def ones(shape=None, dtype=float32, device=None, n=None, **kwargs) -> array:
    """An array of ones."""
    return full(given_shape(shape, n, "ones"), 1, dtype, device, **kwargs)


def full(shape, value=0, dtype=None, device=None, **kwargs) -> array:
    """An array with every element set to ``value`` (0 by default, as Warp); dtype inferred from value when
    omitted."""
    if dtype is None:
        typed = isinstance(value, (ScalarBase, CompositeBase)) or getattr(type(value), "_bw_struct", False)
        dtype = type(value) if typed else fill_dtype(value)
    from .array_values import element_value

    element = python_annotation_type(dtype)
    element_layout(element)  # what is no dtype ("float32", np.float32) is refused by name, as zeros refuses it
    converted = element_value(element, value, "wp.full")  # refused before allocating
    a = empty(shape, dtype, device, strides=kwargs.get("strides"))
    a._fill_now(converted, value)
    record(a._fill_now, converted, value)
    return _grad_option(a, kwargs)


def zeros_like(a: array, **kwargs) -> array:
    """A zero-filled array of ``a``'s shape, dtype and device (``requires_grad`` as ``a`` unless given)."""
    return _grad_option(zeros(a.shape, a.dtype, a.device), kwargs, a)


def ones_like(a: array, **kwargs) -> array:
    """An array of ones of ``a``'s shape, dtype and device."""
    return _grad_option(ones(a.shape, a.dtype, a.device), kwargs, a)


def empty_like(a: array, **kwargs) -> array:
    """An uninitialized array of ``a``'s shape, dtype and device."""
    return _grad_option(empty(a.shape, a.dtype, a.device), kwargs, a)


def full_like(a: array, value, **kwargs) -> array:
    """An array of ``a``'s shape, dtype and device with every element set to ``value``."""
    return _grad_option(full(a.shape, value, a.dtype, a.device), kwargs, a)


def from_numpy(arr, dtype=None, shape=None, device=None, **kwargs) -> array:
    """A new array holding a copy of numpy data, as Warp's (``wp.array(arr, copy=False)`` views CPU memory).

    Without ``dtype``, as in Warp, a 2-D array is a 1-D array of vectors (one per row: ``(n, 3)`` float32 data
    gives ``n`` ``vec3f``) and a 3-D array a 1-D array of matrices; other ranks keep numpy's scalar type.
    ``wp.array(arr)`` keeps every dimension as it is."""
    return view_numpy(arr, dtype, shape, device, copy=True, **kwargs)


def view_numpy(arr, dtype=None, shape=None, device=None, copy=False, **kwargs) -> array:
    """``from_numpy``'s dtypes over ``arr``'s memory where it can (on the CPU, elements a whole number of elements
    apart: DLPack imports and numpy launch arguments, which kernels write through); a copy where it cannot."""
    if not isinstance(arr, np.ndarray) and hasattr(arr, "__array_interface__"):
        from .array_interface_import import described_view

        arr = described_view(arr)  # its description checked before numpy reads it
    arr = np.asarray(arr)
    if dtype is None:
        dtype = infer_dtype(arr)
        if arr.ndim == 2:
            dtype = vector(arr.shape[1], dtype)
        elif arr.ndim == 3:
            dtype = matrix((arr.shape[1], arr.shape[2]), dtype)
    if not _whole_element_strides(arr, dtype):
        arr = np.ascontiguousarray(arr)  # rows apart by no whole element (p[:, :3] as vec3): a copy, as Warp's
    return array(arr, dtype=dtype, shape=shape, device=device, copy=copy, **kwargs)


def _whole_element_strides(arr: np.ndarray, dtype) -> bool:
    """Whether ``arr``'s dimensions outside ``dtype``'s elements step by whole elements (kernels index elements)."""
    try:
        _, trailing = element_layout(python_annotation_type(dtype))
    except TypeError:
        return True  # no array dtype: the array constructor says so
    outer = arr.ndim - len(trailing)
    if outer < 0 or arr.shape[outer:] != trailing:
        return True  # reshaped (or refused) by the array constructor, which copies what it must
    element_bytes = arr.itemsize * math.prod(trailing)
    return not element_bytes or all(s % element_bytes == 0 for s in arr.strides[:outer])


def wrap_numpy(arr: np.ndarray, dtype) -> array:
    """A CPU array over the memory of the plain ndarray ``arr`` whose numpy dtype is the scalar ``dtype``'s:
    ``from_numpy`` without its inference and conversions, for numpy launch arguments (wrapped anew at every
    launch, so a few microseconds each count)."""
    self = object.__new__(array)
    self.device = get_device("cpu")
    self._init_from_numpy(arr, dtype, owner=None)
    return self
