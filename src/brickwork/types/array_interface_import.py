"""Memory another object describes by ``__array_interface__``, checked before numpy reads it: numpy trusts the
description, so a null pointer with elements, a negative or mismatched shape or strides, or ``data=None`` for an
object without a buffer gave numpy's own messages (``a bytes-like object is required``), and a huge shape given
to ``wp.array(obj)`` (a copy) asked for terabytes. What cannot be right is refused naming the object; where the
memory lies is the producer's word (a pointer, its strides and extents cannot be checked against the process's
memory, and a description of memory below a negative stride's start is the producer's to get right)."""

from __future__ import annotations

import numbers

import numpy as np

from .array_shapes import check_array_shape


def _refuse(owner, what: str, kind=ValueError):
    return kind(f"{type(owner).__name__}.__array_interface__ {what}")


def _ints(value) -> bool:
    return isinstance(value, tuple) and all(isinstance(n, numbers.Integral) and not isinstance(n, bool)
                                            for n in value)


def described_view(owner) -> np.ndarray:
    """A numpy view of the memory ``owner.__array_interface__`` describes (its read-only flag kept), after the
    description's own consistency is checked."""
    interface = owner.__array_interface__
    if not isinstance(interface, dict):
        raise _refuse(owner, f"must be a dict, got {type(interface).__name__}", TypeError)
    shape, strides, data = interface.get("shape"), interface.get("strides"), interface.get("data")
    if not _ints(shape):
        raise _refuse(owner, f"has shape {shape!r:.60}; a shape is a tuple of ints", TypeError)
    if any(n < 0 for n in shape):
        raise _refuse(owner, f"has shape {shape}: no extent may be negative")
    check_array_shape(shape)  # before numpy reads (or wp.array copies) it
    if strides is not None and (not _ints(strides) or len(strides) != len(shape)):
        raise _refuse(owner, f"has strides {strides!r:.60} for shape {shape}; strides are a tuple of ints, one "
                             f"per dimension (or None: C order)")
    try:
        itemsize = np.dtype(interface.get("typestr")).itemsize
    except (TypeError, ValueError):
        raise _refuse(owner, f"has typestr {interface.get('typestr')!r:.40}, which names no element type",
                      TypeError) from None
    elements = int(np.prod(shape, dtype=object))
    if data is None:
        try:
            memoryview(owner).release()
        except TypeError:
            raise _refuse(owner, f"has data None (the object's own buffer) but {type(owner).__name__} has no "
                                 f"buffer") from None
    elif isinstance(data, tuple):
        if len(data) != 2 or not isinstance(data[0], numbers.Integral) or isinstance(data[0], bool):
            raise _refuse(owner, f"has data {data!r:.60}; data is (address, read-only flag)", TypeError)
        if data[0] == 0 and elements and itemsize:
            raise _refuse(owner, f"has a null data pointer for shape {shape}")
    return np.asarray(owner)
