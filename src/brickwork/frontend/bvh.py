"""Typing rules of BVH and mesh box queries in kernels (the builtins are in ``builtins/bvh.py``):
``bvh_query_next(query, index[, max_dist])``, ``mesh_query_next(query, index)`` (and its older name
``mesh_query_aabb_next``), and ``for index in <a query>`` loops (``frontend/query_loops.py``)."""

from __future__ import annotations

import numpy as np

from .. import ir
from ..builtins import FUNCTIONS
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.geometry_queries import BvhQuery, MeshQuery, is_geometry_query_type
from ..types.scalars import bool_, float32
from .intrinsics import INTRINSICS
from .query_loops import loop_rules, next_call_rule


def _max_dist(typer, arg, node) -> ir.IRExpr:
    """``bvh_query_next``'s third argument: a float32 (a literal such as ``1.0`` or ``1`` taken as one)."""
    limit = typer.value(arg)
    if isinstance(limit, ir.IRConst) and isinstance(limit.value, (int, float)) and limit.type is not bool_:
        limit = ir.IRConst(float(np.float32(limit.value)), float32)
    if getattr(limit, "type", None) is not float32:
        raise typer.error(KernelTypeError, f"bvh_query_next(): max_dist must be a float32, got "
                          f"{type_name(getattr(limit, 'type', None))}", node)
    return limit


_NEXT_OF = {BvhQuery: "bvh_query_next", MeshQuery: "mesh_query_next"}
_for_new_query, _for_query_value = loop_rules(_NEXT_OF.__getitem__)

INTRINSICS.register(FUNCTIONS["bvh_query_next"], call=next_call_rule(
    "bvh_query_next", lambda t: t is BvhQuery, "bvh_query_aabb/ray/sphere/capsule()", _max_dist))
for _name in ("mesh_query_next", "mesh_query_aabb_next"):
    INTRINSICS.register(FUNCTIONS[_name], call=next_call_rule(_name, lambda t: t is MeshQuery,
                                                              "mesh_query_aabb/sphere()"))
for _name in ("bvh_query_aabb", "bvh_query_ray", "bvh_query_sphere", "bvh_query_capsule", "mesh_query_aabb",
              "mesh_query_sphere"):
    INTRINSICS.register(FUNCTIONS[_name], for_iter=_for_new_query)
INTRINSICS.register_type(is_geometry_query_type, for_iter=_for_query_value)
