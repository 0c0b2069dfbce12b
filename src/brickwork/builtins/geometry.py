"""Warp's geometric queries between segments and triangles: ``closest_point_edge_edge`` (float32) and
``intersect_tri_tri`` (float32 or float64)."""

from __future__ import annotations

from ..types.composite import vector
from ..types.scalars import float32, float64, int32
from .registry import builtin, names, need


@builtin("closest_point_edge_edge")
def _closest_point_edge_edge(p1, q1, p2, q2, epsilon):
    vec3 = vector(3, float32)
    need(all(t is vec3 for t in (p1, q1, p2, q2)) and epsilon is float32,
         f"needs the end points of two segments as vec3f and a float32 epsilon, got {names(p1, q1, p2, q2, epsilon)}")
    return vec3


@builtin("intersect_tri_tri")
def _intersect_tri_tri(v0, v1, v2, u0, u1, u2):
    points = (v0, v1, v2, u0, u1, u2)
    need(any(v0 is vector(3, s) for s in (float32, float64)) and all(t is v0 for t in points),
         f"needs the corners of two triangles as six vec3f or six vec3d, got {names(*points)}")
    return int32
