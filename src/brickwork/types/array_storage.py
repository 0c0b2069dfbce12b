"""The numpy storage of a new host array (``array(data, dtype, shape, ...)``): memory at a caller's
pointer, a new allocation (optionally strided), or the data converted (copied, or viewed where
``copy=False`` allows), reshaped so that each element's components trail the array's dimensions.
"""

from __future__ import annotations

import collections.abc
import numbers

import numpy as np

from .array_conversions import checked_data, converted_for  # noqa: F401 - converted_for: for arrays.py
from .array_shapes import check_array_shape, shape_tuple
from .array_types import element_layout, type_name
from .bfloat16_numpy import is_ml_bfloat16
from .composite import CompositeBase
from .scalars import ScalarBase, bfloat16, bfloat16_bits, is_scalar_type


def host_storage(data, dtype, shape, copy: bool, kwargs: dict) -> tuple:
    """``(numpy array, source)`` for a new array of ``dtype``: the array it keeps (elements' components as
    trailing dimensions) and the data it was made from (the arrays a struct's elements point to are held
    from it; None without data)."""
    from .arrays import array  # it imports this module

    source = None
    comp, trailing = element_layout(dtype)
    strides, ptr = kwargs.get("strides"), kwargs.get("ptr")
    if ptr is not None:  # memory the caller owns (array_memory.py)
        from .array_memory import wrap_pointer

        if data is not None or shape is None:
            raise ValueError("array(ptr=...) takes a shape and no data (it views memory at that address)")
        arr = wrap_pointer(ptr, shape_tuple(shape), strides, np.dtype(comp), trailing,
                           kwargs.get("capacity"), kwargs.get("deleter"))
    elif data is None:
        shape = shape_tuple(shape)
        from .array_memory import allocate_strided, host_buffer

        if strides is None:
            arr = host_buffer(tuple(shape) + trailing, comp, zero=True)
        else:
            arr = allocate_strided(shape, strides, np.dtype(comp), trailing)
            arr[...] = 0
    else:
        if isinstance(data, (numbers.Number, np.number, np.bool_, ScalarBase)):  # Warp's words
            shown = data.item() if isinstance(data, np.generic) else _to_plain(data)
            raise RuntimeError(f"Data must be a sequence or array, got scalar {shown!r}: wp.full(n, "
                               f"value) makes n copies of one value, wp.array([value]) an array of one")
        source = data
        if isinstance(data, array):
            data = data._np
        elif not isinstance(data, np.ndarray) and hasattr(data, "__array_interface__"):
            # memory another object describes (its read-only flag kept): viewed, as a numpy array is, not
            # copied unless asked, so that the kernel's writes reach it and a read-only one refuses them
            from .array_interface_import import described_view

            data = described_view(data)
            if not copy:
                source = data
        elif not copy and not isinstance(data, np.ndarray) and _describes_memory(data):
            data = source = np.asarray(data)  # __array_struct__: numpy reads it (a C structure)
        if isinstance(data, np.ndarray) and _scalar_of(dtype) is bfloat16 and is_ml_bfloat16(data.dtype):
            data = data.view(np.uint16)  # ml_dtypes' bfloat16 values: their bits, in the same memory
        if isinstance(data, np.ndarray):
            check_array_shape(data.shape)  # before the copy: no huge allocation to refuse afterwards
        if getattr(dtype, "_bw_struct", False):
            from .array_values import struct_records

            arr = struct_records(data, dtype, comp, copy)
        elif _scalar_of(dtype) is bfloat16 and not (isinstance(data, np.ndarray) and data.dtype == comp):
            arr = bfloat16_bits(_to_plain(data))  # numbers to bit patterns; uint16 data are the bits
        elif copy or not isinstance(data, np.ndarray) or data.dtype != comp:
            from .array_memory import host_copy

            plain = checked_data(_to_plain(data), comp, dtype, f"wp.array(dtype={type_name(dtype)})", made=True)
            arr = host_copy(plain, comp)
        else:
            arr = data
        if trailing and arr.shape[arr.ndim - len(trailing):] != trailing:
            per = int(np.prod(trailing))
            if arr.size % per == 0 and arr.ndim == 1:
                arr = arr.reshape((-1,) + trailing)
            elif arr.ndim > 1 and arr.shape[-1] == per:  # (3, 4) of mat22: 3 matrices, as Warp
                arr = arr.reshape(arr.shape[:-1] + trailing)
            elif arr.ndim > 1 and arr.shape[-1] % per == 0:  # (4, 6) of vec3: 4 x 2 vectors, as Warp
                arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // per,) + trailing)
            elif arr.ndim > 1 and int(np.prod(arr.shape[1:])) == per:  # (n, 2, 1) column vectors of vec2
                arr = arr.reshape((arr.shape[0],) + trailing)
            else:
                raise ValueError(f"data of shape {arr.shape} does not end with the {type_name(dtype)} "
                                 f"shape {trailing}")
        if trailing and not dense_components(arr, len(trailing)):
            # components apart in memory (a[:, ::2] seen as vectors): kernels read an element's components
            # packed, so the data is copied, as Warp does (the view read other numbers without a word)
            arr = np.ascontiguousarray(arr)
        if shape is not None:
            arr = arr.reshape(_data_shape(shape, arr.size // max(1, int(np.prod(trailing)))) + trailing)
        if arr.ndim == len(trailing):
            arr = arr.reshape((1,) + trailing)
        own = arr.strides[:arr.ndim - len(trailing)]
        if strides is not None and tuple(strides) != own:
            raise ValueError(f"strides {tuple(strides)} differ from the data's {own}: strides lay out new memory "
                             f"(array(shape=..., strides=...)) or memory at ptr=")
    return arr, source


def _data_shape(shape, elements: int) -> tuple:
    """The ``shape=`` given with data, checked: numpy's reshape took any negative extent as its -1 (``shape=(-2,)``
    made an array of shape (2,), ``(-2, 2)`` one of (2, 2)), and a shape the data does not fill was numpy's bare
    'cannot reshape'. One -1 stands for the rest, as in ``reshape``."""
    given = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
        raise TypeError(f"an array shape is an int or a tuple of ints, got {shape!r}")
    dims = tuple(given)
    rest = [i for i, n in enumerate(dims) if isinstance(n, (int, np.integer)) and n == -1]
    if len(rest) == 1:  # checked with the one extent the others leave
        known = int(np.prod([n for i, n in enumerate(dims) if i != rest[0]], dtype=np.int64))
        if not known or elements % known:
            raise ValueError(f"shape {dims} does not fit the data's {elements} element(s)")
        dims = dims[:rest[0]] + (elements // known,) + dims[rest[0] + 1:]
    dims = shape_tuple(dims)  # negative, fractional or string extents refused by name
    if int(np.prod(dims, dtype=np.int64)) != elements:
        raise ValueError(f"shape {tuple(given)} does not fit the data's {elements} element(s)")
    return dims


def dense_components(arr: np.ndarray, k: int) -> bool:
    """Whether the last ``k`` dimensions of ``arr`` (an element's components) lie packed in row-major order."""
    step = arr.itemsize
    for n, stride in zip(reversed(arr.shape[arr.ndim - k:]), reversed(arr.strides[arr.ndim - k:])):
        if n != 1 and stride != step:
            return False
        step *= n
    return True


def _scalar_of(dtype):
    """The scalar type of a scalar or composite dtype (None for structs)."""
    return dtype if is_scalar_type(dtype) else getattr(dtype, "_dtype", None)


def _describes_memory(data) -> bool:
    """Whether ``data`` exposes its memory to numpy by address (``__array_interface__``, ``__array_struct__``)."""
    return hasattr(data, "__array_interface__") or hasattr(data, "__array_struct__")


def _to_plain(data):
    if isinstance(data, (list, tuple)):
        return [_to_plain(x) for x in data]
    if isinstance(data, CompositeBase):
        return data._data
    if isinstance(data, ScalarBase):
        return data.value
    return data


#: Data that numpy turns into one object element (a generator, an iterator, a set, a dict): float()'s or dtype
#: inference's errors named no cause ("float() argument must be ... not 'generator'")
_NO_SEQUENCE = (collections.abc.Iterator, set, frozenset, dict)


def refuse_unsequenced(data) -> None:
    """Refuse ``wp.array`` data that numpy would make one object of, naming its type and the fix."""
    if type(data) not in (list, tuple, np.ndarray) and isinstance(data, _NO_SEQUENCE):
        raise TypeError(f"Data must be a sequence or array, got a {type(data).__name__} (numpy makes one object "
                        f"of it): pass a list (wp.array(list(data), ...))")
