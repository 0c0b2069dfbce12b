"""Kernel types of BVH and mesh queries: ``wp.BvhQuery`` (``bvh_query_aabb``, ``bvh_query_ray`` and
``bvh_query_sphere`` all make one; the kind is stored in it, so one variable may hold either kind and a
``@func`` parameter annotated ``wp.BvhQuery`` takes any), ``wp.MeshQueryAABB`` (``mesh_query_aabb``), and
the results of point and ray queries of a mesh, ``wp.MeshQueryPoint`` and ``wp.MeshQueryRay``: structs
with Warp's fields. Queries live in kernels only: no host value, not kernel parameters."""

from __future__ import annotations

from .composite import vector
from .scalars import bool_, float32, int32
from .structs import struct


class BvhQuery:
    """The state of a query of a :class:`Bvh` (boxes overlapping a box, met by a ray, or near a sphere);
    advance it with ``wp.bvh_query_next(query, index)`` or iterate it with ``for index in query``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a BvhQuery exists in kernels only: wp.bvh_query_aabb(id, lower, upper) makes one there")


class MeshQueryAABB:
    """The state of a query of the triangles of a :class:`Mesh` whose bounds overlap a box; advance it with
    ``wp.mesh_query_aabb_next(query, index)`` or iterate it with ``for index in query``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a MeshQueryAABB exists in kernels only: wp.mesh_query_aabb(id, lower, upper) makes one "
                        "there")


QUERY_TYPES = (BvhQuery, MeshQueryAABB)


def is_geometry_query_type(t) -> bool:
    return t is BvhQuery or t is MeshQueryAABB


@struct
class MeshQueryPoint:
    """The result of a closest-point query of a mesh: ``result`` (found within the distance), ``sign`` (-1
    inside, 1 outside; 0 for the unsigned queries), ``face`` and the barycentric ``u``, ``v`` of the point
    on it (``mesh_eval_position(id, face, u, v)``)."""

    result: bool_
    sign: float32
    face: int32
    u: float32
    v: float32


@struct
class MeshQueryRay:
    """The result of a ray query of a mesh: ``result`` (a hit), ``sign`` (1 when the ray meets the front of
    the triangle, -1 its back), ``face``, the distance ``t`` along the ray (in units of ``dir``'s length),
    the barycentric ``u``, ``v`` of the hit and the triangle's unit ``normal``."""

    result: bool_
    sign: float32
    face: int32
    t: float32
    u: float32
    v: float32
    normal: vector(3, float32)
