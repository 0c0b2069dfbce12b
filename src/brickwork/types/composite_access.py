"""Checks of host-side access to vector and matrix values: keys, assigned values, constructor arguments,
and rows, columns and raw memory, with Warp's exceptions and messages (code written for Warp matches them).
"""

from __future__ import annotations

import ctypes
import numbers

import numpy as np

from .scalars import ScalarBase


def _is_index(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, bool)


def check_key(value, key):
    """Raise KeyError unless ``key`` indexes a vector (int, slice) or matrix (int, slice, pair of them)."""
    if value._kind != "matrix":
        if not (_is_index(key) or isinstance(key, slice)):
            raise KeyError(f"Invalid key {key}, expected int or slice")
        return
    if isinstance(key, tuple):
        if len(key) not in (1, 2):
            raise KeyError(f"Invalid key, expected one or two indices, got {len(key)}")
        if all(_is_index(k) or isinstance(k, slice) for k in key):
            return
    elif _is_index(key) or isinstance(key, slice):
        return
    raise KeyError(f"Invalid key {key}, expected int or pair of ints")


_PLAIN_NUMBERS = frozenset((float, int, bool))


def _is_number(x) -> bool:
    # Python's own numbers first: the ABC check costs about 1 us, paid per component of a host assignment
    return type(x) in _PLAIN_NUMBERS or isinstance(x, (numbers.Number, np.number, np.bool_, ScalarBase))


def check_assigned(value, key, new):
    """Raise TypeError/ValueError unless ``new`` fits the components ``key`` selects (Warp's messages)."""
    target = np.empty(value._shape, dtype=np.int8)[key]
    dtype = getattr(value._dtype, "__name__", str(value._dtype))
    if np.ndim(target) == 0:
        if not _is_number(new):
            raise TypeError(f"Expected to assign a `{dtype}` value but got `{type(new).__name__}` instead")
        return
    if _is_number(new):
        return  # a scalar fills the selection, as numpy does
    if not isinstance(new, (np.ndarray, list, tuple)) and hasattr(type(new), "__array__") and not hasattr(new, "_kind"):
        new = np.asarray(new)  # another library's tensor (PyTorch's): its numbers, as Warp reads it
    items = list(new) if not isinstance(new, np.ndarray) else new.ravel().tolist()
    flat = []
    for item in items:
        if _is_number(item):
            flat.append(item)
        elif np.ndim(target) == 2 and isinstance(item, (tuple, list)) and all(_is_number(i) for i in item):
            flat.extend(item)  # rows of a matrix block
        elif hasattr(item, "_kind") and np.ndim(target) == 2 and item._kind == "vector":
            flat.extend(item)
        else:
            raise TypeError(f"Expected to assign a slice from a sequence of `{dtype}` values but got "
                            f"`{type(item).__name__}` instead")
    if len(flat) != np.size(target):
        raise ValueError("Can only assign sequence of same size")


def check_constructor(cls, args, size: int):
    """Raise with Warp's message when ``args`` cannot make a ``cls`` value of ``size`` components."""
    kind = "matrix" if cls._kind == "matrix" else "vector"
    if kind == "matrix" and len(args) == cls._shape[0] and len(args) != size:
        for row in args:
            if np.ndim(getattr(row, "_data", row)) != 1 or np.size(getattr(row, "_data", row)) != cls._shape[1]:
                raise TypeError(f"Invalid argument in matrix constructor, expected row of length {cls._shape[1]}, "
                                f"got {row}")
        return
    if len(args) > 1 and sum(np.size(getattr(a, "_data", a)) for a in args) != size:  # parts: spatial_vector(w, v)
        raise ValueError(f"Invalid number of arguments in {kind} constructor, expected {size} elements, "
                         f"got {len(args)}")


def from_ptr(cls, ptr: int):
    """A value of ``cls`` copied from the memory at address ``ptr`` (Warp's ``vec3.from_ptr``)."""
    if not ptr:
        raise RuntimeError("NULL pointer exception")
    np_type = np.dtype(cls._dtype._np)
    nbytes = np_type.itemsize * int(np.prod(cls._shape))
    raw = (ctypes.c_char * nbytes).from_address(ptr)
    return cls(np.frombuffer(raw, dtype=np_type).reshape(cls._shape).copy())


def row_index(value, index: int) -> int:
    if not _is_index(index) or not -value._shape[0] <= index < value._shape[0]:
        raise IndexError("Invalid row index")
    return int(index)


def col_index(value, index: int) -> int:
    if not _is_index(index) or not -value._shape[1] <= index < value._shape[1]:
        raise IndexError("Invalid column index")
    return int(index)
