"""The kernel type of a tile stack (``wp.tile_stack(capacity=..., dtype=...)`` makes one in a kernel).

A stack of at most ``capacity`` values of ``dtype`` that a block pushes to and pops from
(``tile_stack_push``, ``tile_stack_pop``, ``tile_stack_count``, ``tile_stack_clear``). A block is one
thread here, so it is that thread's own: ``bw::tile_stack_t`` (include/brickwork_tile_stack.h), the values
inline and a count. It lives in kernels only.
"""

from __future__ import annotations

from .arrays import type_name
from .scalars import python_annotation_type


class TileStackType:
    """The type of a tile stack: element dtype and capacity."""

    __slots__ = ("dtype", "capacity")
    _cache: dict = {}

    def __new__(cls, dtype, capacity: int):
        dtype = python_annotation_type(dtype)
        key = (dtype, capacity)
        found = cls._cache.get(key)
        if found is None:
            found = cls._cache[key] = object.__new__(cls)
            found.dtype, found.capacity = dtype, capacity
        return found

    @property
    def __name__(self):
        return repr(self)

    def __repr__(self):
        return f"tile_stack(dtype={type_name(self.dtype)}, capacity={self.capacity})"

    def __reduce__(self):
        return (TileStackType, (self.dtype, self.capacity))


def is_tile_stack_type(t) -> bool:
    return isinstance(t, TileStackType)
