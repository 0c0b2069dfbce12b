"""Warp's tiled BVH and mesh queries: the typing rules of the builtins the frontend's calls become
(``frontend/tile_queries.py``); the C++ is in include/brickwork_tile_queries.h.

A block of a tiled launch is one thread here, so a tiled query is an ordinary query and a flag: each step
gives the thread the next index (``tile_query_next``, which the frontend wraps in a tile of shape (1,)), or
-1 when none is left, and ``tile_query_valid`` is true at the start and after a step that gave an index, as
on Warp's CPU."""

from __future__ import annotations

from ..types.composite import vector
from ..types.geometry_queries import BvhQueryTiled, MeshQueryAABBTiled, is_tiled_query_type
from ..types.scalars import bool_, float32, int32, uint64
from .registry import builtin, names, need

vec3 = vector(3, float32)

#: Warp's older (deprecated) names of the queries that start a tiled traversal
ALIASES = {"bvh_query_aabb_tiled": "tile_bvh_query_aabb", "bvh_query_ray_tiled": "tile_bvh_query_ray",
           "mesh_query_aabb_tiled": "tile_mesh_query_aabb"}
#: every builtin of this family (all in include/brickwork_tile_queries.h)
NAMES = ("tile_bvh_query_aabb", "tile_bvh_query_ray", "tile_mesh_query_aabb", *ALIASES, "tile_query_next",
         "tile_query_valid")


def _start(name: str, owner: str, second: str, result):
    alias = next((old for old, new in ALIASES.items() if new == name), None)

    @builtin(alias)
    @builtin(name)
    def rule(id, a, b):
        need(id is uint64 and a is vec3 and b is vec3,
             f"needs {owner} id (uint64) and {second} (vec3f), got {names(id, a, b)}")
        return result

    return rule


_start("tile_bvh_query_aabb", "a BVH", "the box's lower and upper corners", BvhQueryTiled)
_start("tile_bvh_query_ray", "a BVH", "a start and a direction", BvhQueryTiled)
_start("tile_mesh_query_aabb", "a mesh", "the box's lower and upper corners", MeshQueryAABBTiled)


@builtin("tile_query_next")
def _next(query):
    """Internal: advance the tiled query (a local variable, written) and give its next index, -1 when none."""
    need(is_tiled_query_type(query), f"needs a tiled query, got {names(query)}")
    return int32


@builtin("tile_query_valid")
def _valid(query):
    need(is_tiled_query_type(query), f"needs a tiled query (from tile_bvh_query_aabb/ray() or "
         f"tile_mesh_query_aabb()), got {names(query)}")
    return bool_
