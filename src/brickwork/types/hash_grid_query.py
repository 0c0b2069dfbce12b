"""The kernel type of a hash-grid neighbour query (``wp.hash_grid_query`` returns one).

As in Warp, ``wp.HashGridQuery`` is the float32 query and ``wp.HashGridQuery[dtype]`` names the query of
a float16 or float64 grid, for the annotations of ``@func`` parameters that take a live query. A query
lives in kernels only: it has no host value and is not a kernel parameter.
"""

from __future__ import annotations

from .scalars import float16, float32, float64, python_annotation_type


class HashGridQuery:
    """The state of a neighbour query of a :class:`HashGrid` (float32 coordinates); advance it with
    ``wp.hash_grid_query_next(query, index)`` or iterate it with ``for index in query``.
    ``HashGridQuery[wp.float16]`` and ``HashGridQuery[wp.float64]`` are the queries of grids of those
    precisions."""

    _dtype = float32

    def __init__(self, *args, **kwargs):
        raise TypeError("a HashGridQuery exists in kernels only: wp.hash_grid_query(grid_id, point, radius) "
                        "makes one there")

    def __class_getitem__(cls, dtype):
        return hash_grid_query_type(dtype)


class _HashGridQueryHalf(HashGridQuery):
    _dtype = float16


class _HashGridQueryDouble(HashGridQuery):
    _dtype = float64


_HashGridQueryHalf.__name__ = _HashGridQueryHalf.__qualname__ = "HashGridQuery[float16]"
_HashGridQueryDouble.__name__ = _HashGridQueryDouble.__qualname__ = "HashGridQuery[float64]"

_BY_DTYPE = {float16: _HashGridQueryHalf, float32: HashGridQuery, float64: _HashGridQueryDouble}


def hash_grid_query_type(dtype) -> type:
    """The query type of grids of scalar type ``dtype`` (float16, float32 or float64)."""
    found = _BY_DTYPE.get(python_annotation_type(dtype))
    if found is None:
        raise TypeError(f"HashGridQuery[{getattr(dtype, '__name__', dtype)}]: a hash grid holds float16, float32 "
                        f"or float64 coordinates")
    return found


def is_hash_grid_query_type(t) -> bool:
    return isinstance(t, type) and t in _BY_DTYPE.values()
