"""Array annotation types: ``ArrayType`` (dtype and ndim), the subscripts that make them, their names in
messages, the numpy layout of an element, dense strides, and the launch-signature entry of a read-only
array. The array values themselves are ``arrays.array``.
"""

from __future__ import annotations

import typing

import numpy as np

from .composite import is_composite_type
from .scalars import is_scalar_type, python_annotation_type


class ArrayType:
    """The type of an array: element dtype and number of dimensions (1 to 4)."""

    __slots__ = ("dtype", "ndim", "__weakref__")
    _cache: dict = {}

    def __new__(cls, dtype=typing.Any, ndim=1):
        dtype = python_annotation_type(dtype)
        key = (dtype, ndim)
        found = cls._cache.get(key)
        if found is not None:
            return found
        if not (isinstance(ndim, int) and 1 <= ndim <= 4):
            raise TypeError(f"array ndim must be 1 to 4, got {ndim!r}")
        self = object.__new__(cls)
        self.dtype = dtype
        self.ndim = ndim
        cls._cache[key] = self
        return self

    def __repr__(self):
        return f"array(dtype={type_name(self.dtype)}, ndim={self.ndim})"

    def __reduce__(self):
        return (ArrayType, (self.dtype, self.ndim))


def subscript_dtype_ndim(params, what: str) -> tuple:
    """``(dtype, ndim)`` of an annotation subscript ``what[T]`` or ``what[T, N]``, N an int or ``Literal[N]``
    (Warp's two spellings)."""
    if not isinstance(params, tuple):
        return params, 1
    if len(params) != 2:
        raise TypeError(f"{what}[...] takes a dtype and optionally an ndim, got {len(params)} items")
    dtype, n = params
    args = typing.get_args(n)
    return dtype, (args[0] if typing.get_origin(n) is typing.Literal and len(args) == 1 else n)


def type_name(t) -> str:
    """A short readable name of a kernel-language type, for messages and logs."""
    if t is typing.Any:
        return "Any"
    if isinstance(t, ArrayType):
        return repr(t)
    if typing.get_origin(t) is tuple and typing.get_args(t):  # a tuple annotation: tuple[int32, ...]
        return "tuple[" + ", ".join("..." if a is ... else type_name(python_annotation_type(a))
                                    for a in typing.get_args(t)) + "]"
    return getattr(t, "__name__", None) or repr(t)


def element_layout(dtype) -> tuple[np.dtype, tuple]:
    """numpy dtype of one scalar component and the trailing shape of one element."""
    if is_scalar_type(dtype):
        return np.dtype(dtype._np), ()
    if is_composite_type(dtype):
        return np.dtype(dtype._dtype._np), tuple(dtype._shape)
    if getattr(dtype, "_bw_struct", False):
        return dtype._numpy_dtype(), ()
    raise TypeError(f"{type_name(dtype)} is not a valid array dtype{_numpy_spelling(dtype)}")


def _numpy_spelling(dtype) -> str:
    """``" (numpy's float32: write dtype=wp.float32)"`` for numpy's scalar classes, dtypes and their names."""
    from .scalars import SCALAR_TYPES

    try:
        name = np.dtype(dtype).name if not isinstance(dtype, str) or dtype.isidentifier() else None
    except TypeError:
        return ""
    return f" (numpy's {name}: write dtype=wp.{name})" if name in {t.__name__ for t in SCALAR_TYPES} else ""


def dense_strides(shape: tuple, itemsize: int) -> tuple:
    """Row-major strides in bytes of ``shape``, also across an extent of 0 (numpy gives 0 there)."""
    strides = []
    for extent in reversed(shape):
        strides.append(itemsize)
        itemsize *= extent
    return tuple(reversed(strides))


class ReadOnly:
    """The launch-signature entry of a read-only array of type ``key``."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        return isinstance(other, ReadOnly) and other.key is self.key

    def __hash__(self):
        return hash((ReadOnly, self.key))
