"""Array shapes as allocations take them: an int or a tuple of ints (Warp converts each with ``int()``), or
Warp's older ``n=`` for 1-D; every dimension in [0, 2**31 - 1], checked before anything is allocated."""

from __future__ import annotations

import numpy as np

MAX_DIM = 2**31 - 1  # kernels index arrays with 32-bit ints (wp.tid(), shape[i]), as Warp's


def shape_tuple(shape) -> tuple:
    """``shape`` (an int or a sequence of them; Warp converts each with ``int()``) as a tuple of ints, checked."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    else:
        try:
            shape = tuple(int(s) for s in shape)
        except (TypeError, ValueError):  # not a sequence (3.5), or an item int() refuses (None, 'x')
            raise TypeError(f"an array shape is an int or a tuple of ints, got {shape!r}") from None
    check_array_shape(shape)
    return shape


def check_array_shape(shape: tuple) -> None:
    """Refuse, before anything is allocated, a shape with a negative dimension or one over 2**31 - 1 (Warp's
    limits and messages)."""
    for i, n in enumerate(shape):
        if n < 0:
            raise ValueError(f"Array shapes must be non-negative, got {n} in dimension {i}")
        if n > MAX_DIM:
            raise ValueError("Array shapes must not exceed the maximum representable value of a signed 32-bit "
                             f"integer, got {n} in dimension {i}.")


def given_shape(shape, n, what: str):
    """The shape of an allocation: ``shape`` (an int or a tuple), or Warp's older ``n=`` for 1-D."""
    if shape is None and n is None:
        raise TypeError(f"{what}() needs a shape (or n= for a 1-D array)")
    if shape is not None and n is not None:
        raise TypeError(f"{what}() takes a shape or n=, not both")
    return shape if shape is not None else n
