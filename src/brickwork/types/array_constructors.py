"""The array constructors: ``empty``, ``zeros``, ``ones``, ``full``, their ``*_like`` forms, and
``from_numpy`` / ``wrap_numpy`` (CPU arrays over numpy memory)."""

from __future__ import annotations

import numpy as np

from ..device import get_device
from .array_shapes import given_shape, shape_tuple
from .arrays import _grad_option, array, element_layout
from .composite import CompositeBase
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
    return _grad_option(array._wrap(data, dtype, dev), kwargs)


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

    a = empty(shape, dtype, device, strides=kwargs.get("strides"))
    converted = element_value(a.dtype, value, "fill_")
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
    """Wrap a numpy array (zero-copy when its dtype matches); vectors take trailing dimensions."""
    arr = np.asarray(arr)
    if dtype is None:
        dtype = infer_dtype(arr)
    return array(arr, dtype=dtype, shape=shape, device=device, copy=False, **kwargs)


def wrap_numpy(arr: np.ndarray, dtype) -> array:
    """A CPU array over the memory of the plain ndarray ``arr`` whose numpy dtype is the scalar ``dtype``'s:
    ``from_numpy`` without its inference and conversions, for numpy launch arguments (wrapped anew at every
    launch, so a few microseconds each count)."""
    self = object.__new__(array)
    self.device = get_device("cpu")
    self._init_from_numpy(arr, dtype, owner=None)
    return self
