"""Neighbour queries of a ``wp.HashGrid`` (Warp's names and types): ``hash_grid_query`` starts a query of
the cells around a point, ``hash_grid_query_next`` advances it and writes the next candidate's index,
``hash_grid_point_id`` maps a position in the grid's cell order to a point's index. A grid is passed to
kernels as its ``uint64`` id."""

from __future__ import annotations

from ..types.composite import is_vector_type
from ..types.hash_grid_query import hash_grid_query_type, is_hash_grid_query_type
from ..types.scalars import bool_, float16, float32, float64, int32, uint64
from .registry import builtin, names, need


@builtin("hash_grid_query")
def _hash_grid_query(grid, point, max_dist, group=None):
    scalar = point._dtype if is_vector_type(point) and point._length == 3 else None
    need(grid is uint64 and scalar in (float16, float32, float64) and max_dist is scalar and group in (None, int32),
         "needs a grid id (uint64), a point (vec3h, vec3f or vec3d), a radius of the point's scalar type and "
         f"optionally an int32 group, got {names(*(t for t in (grid, point, max_dist, group) if t is not None))}")
    return hash_grid_query_type(scalar)


@builtin("hash_grid_query_next")
def _hash_grid_query_next(query, index):
    need(is_hash_grid_query_type(query) and index is int32,
         f"needs a query from hash_grid_query() and an int32 variable to receive the index, got {names(query, index)}")
    return bool_


@builtin("hash_grid_point_id")
def _hash_grid_point_id(grid, index):
    need(grid is uint64 and index is int32, f"needs a grid id (uint64) and an int32 position, got {names(grid, index)}")
    return int32
