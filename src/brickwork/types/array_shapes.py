"""Array shapes as allocations take them: an int or a tuple of ints (whole-number floats too), or
Warp's older ``n=`` for 1-D; every dimension in [0, 2**31 - 1], checked before anything is allocated."""

from __future__ import annotations

import math
import operator

import numpy as np

MAX_DIM = 2**31 - 1  # kernels index arrays with 32-bit ints (wp.tid(), shape[i]), as Warp's
MAX_ELEMENTS = 2**55  # of the largest elements (mat44d, 128 bytes): 4 EiB; below it numpy sizes (or refuses) the bytes


def shape_tuple(shape) -> tuple:
    """``shape`` (an int or a sequence of them) as a tuple of ints, checked. Warp converts each entry with
    ``int()``; a float entry is taken only when it is a whole number (``2.5`` would silently become 2) and a
    string not at all (``"3"``, or the digits of ``"34"`` one by one)."""
    if isinstance(shape, (int, np.integer)):
        return shape_tuple((shape,))
    try:
        if isinstance(shape, (str, bytes)):
            raise TypeError
        dims = tuple(_extent(s) for s in shape)
    except (TypeError, ValueError):  # not a sequence (3.5), or an entry that is not a whole number (None, 'x')
        raise TypeError(f"an array shape is an int or a tuple of ints, got {shape!r}") from None
    check_array_shape(dims)
    return dims


def _extent(s) -> int:
    """One entry of a shape as an int: an integer (``__index__``), or a float holding a whole number."""
    if isinstance(s, (str, bytes)):
        raise TypeError(s)
    if isinstance(s, (float, np.floating)):
        if not float(s).is_integer():
            raise ValueError(s)
        return int(s)
    return operator.index(s)


def check_array_shape(shape: tuple) -> None:
    """Refuse, before anything is allocated, a shape with a negative dimension or one over 2**31 - 1 (Warp's
    limits and messages)."""
    for i, n in enumerate(shape):
        if n < 0:
            raise ValueError(f"Array shapes must be non-negative, got {n} in dimension {i}")
        if n > MAX_DIM:
            raise ValueError("Array shapes must not exceed the maximum representable value of a signed 32-bit "
                             f"integer, got {n} in dimension {i}.")
    if len(shape) > 1 and math.prod(shape) > MAX_ELEMENTS:  # numpy's words: 'Maximum allowed dimension exceeded'
        raise ValueError(f"an array of shape {tuple(shape)} would hold {math.prod(shape)} elements, far more than any "
                         f"machine's memory")


def given_shape(shape, n, what: str):
    """The shape of an allocation: ``shape`` (an int or a tuple), or Warp's older ``n=`` for 1-D."""
    if shape is None and n is None:
        raise TypeError(f"{what}() needs a shape (or n= for a 1-D array)")
    if shape is not None and n is not None:
        raise TypeError(f"{what}() takes a shape or n=, not both")
    return shape if shape is not None else n


def check_element_bytes(element_bytes: int, dtype_name: str = "an empty vector or matrix type") -> None:
    """Refuse elements of no bytes (``vector(length=0)``, ``matrix(shape=(0, 0))``): such an array has no memory
    and passes a kernel a null pointer, and element strides cannot be told from byte strides."""
    if not element_bytes:
        raise TypeError(f"an array's elements need at least one byte; {dtype_name} has none")


def overlapping(arr: np.ndarray, strides: tuple) -> bool:
    """Whether two elements of ``arr`` (of the array's ``strides``, in elements, over its outer dimensions) share an
    address (a 0 stride, ``as_strided``'s sliding windows): a kernel's threads writing them would race. Exact;
    1-D and contiguous data take one test, the layouts slicing, transposes and reshapes make one pass."""
    if len(strides) == 1:  # the common case first: one test
        return not strides[0] and arr.shape[0] > 1
    if arr.flags.c_contiguous:
        return False
    shape = arr.shape[:len(strides)]
    reach = 0  # the farthest element of the dimensions taken so far, the smallest strides first
    for stride, n in sorted(zip(map(abs, strides), shape)):
        if n > 1:
            if stride <= reach:
                return _addresses_repeat(shape, strides)
            reach += stride * (n - 1)
    return False


def _addresses_repeat(shape: tuple, strides: tuple) -> bool:
    """The exact test of ``overlapping`` for interleaved layouts: every element's offset, compared."""
    if math.prod(shape) > 2**24:
        return True  # too many to list: taken as overlapping, so that writes are refused rather than raced
    offsets = np.zeros((), dtype=np.int64)
    for n, s in zip(shape, strides):
        offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * s)
    return np.unique(offsets).size < offsets.size


def unshared(dest: np.ndarray, value):
    """``value`` to be stored into ``dest`` with the values it holds before the store: a copy of it where the two
    may share memory. numpy's own ``x[::2] = x[:5]`` (one dimension, strides of one direction) copies element
    by element and reads elements it has already written ([0, 1, 1, 3, 1, 5, 3, 7, 1, 9], not [..., 2, 5, 3,
    7, 4, 9]); a bounds test, so unrelated arrays cost no copy."""
    if isinstance(value, np.ndarray) and value.size > 1 and np.may_share_memory(dest, value):
        return value.copy()
    return value


def set_unshared(dest: np.ndarray, key, value) -> None:
    """``dest[key] = value``, ``value`` read as it was before the store (``unshared``)."""
    dest[key] = unshared(dest, value)
