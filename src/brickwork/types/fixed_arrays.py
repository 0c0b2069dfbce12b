"""Fixed-size arrays local to a kernel or ``@func`` (Warp's ``fixedarray``).

``wp.zeros(shape=(2, 3), dtype=T)`` called in a kernel gives an array whose shape is known when the
kernel compiles and whose elements live in the kernel's frame (zero-initialized). It is used like an
array (indexing, views, ``len``, ``.shape``, ``.ptr``, atomics) and passed to ``@func`` array
parameters as a view of the same elements; a ``@func`` returns one by value and ``b = a`` copies the
elements, as in Warp. ``fixedarray(shape=..., dtype=...)`` is the type, for a
``@func``'s return annotation.

In C++ it is a ``bw::fixedarray_t<T, S...>`` (include/brickwork.h): the elements inline, the shape, and
the element access of ``array_t`` through a view.
"""

from __future__ import annotations

import math

from .arrays import ArrayType, type_name
from .scalars import python_annotation_type


class FixedArrayType(ArrayType):
    """The type of a fixed-size local array: element dtype and a constant shape (1 to 4 dimensions)."""

    __slots__ = ("shape",)
    _cache: dict = {}  # its own: keyed by shape, never the array type of the same dtype and ndim
    _kind = "fixedarray"  # in messages (a subclass has its own cache and name: types/tiles.py)

    def __new__(cls, dtype, shape):
        dtype = python_annotation_type(dtype)
        shape = tuple(shape)
        key = (dtype, shape)
        found = cls._cache.get(key)
        if found is not None:
            return found
        if not 1 <= len(shape) <= 4:
            raise TypeError(f"{cls._kind} shape must have 1 to 4 dimensions, got {shape!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in shape):
            raise TypeError(f"{cls._kind} shape must be positive integers, got {shape!r}")
        self = object.__new__(cls)
        self.dtype, self.ndim, self.shape = dtype, len(shape), shape
        cls._cache[key] = self
        return self

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __repr__(self):
        return f"fixedarray(dtype={type_name(self.dtype)}, shape={self.shape})"

    def __reduce__(self):
        return (FixedArrayType, (self.dtype, self.shape))


class fixedarray:  # noqa: N801 - Warp's spelling
    """The type of a fixed-size array local to a kernel (``wp.zeros`` in a kernel makes one), e.g. a
    ``@func``'s return annotation ``-> wp.fixedarray(shape=(2, 3), dtype=int)``. A class (that calling
    gives the type), so that code deriving from it, as from Warp's, still loads."""

    def __new__(cls, dtype=float, shape=1) -> FixedArrayType:
        return FixedArrayType(dtype, shape if isinstance(shape, (tuple, list)) else (shape,))


def is_fixed_array_type(t) -> bool:
    return isinstance(t, FixedArrayType)


def view_type(t):
    """The array type through which a fixed-size array is seen (parameters, views); other types as they are."""
    return ArrayType(t.dtype, t.ndim) if isinstance(t, FixedArrayType) else t
