"""Kernel types of BVH and mesh queries: ``wp.BvhQuery`` (``bvh_query_aabb``, ``bvh_query_ray`` and
``bvh_query_sphere`` all make one; the kind is stored in it, so one variable may hold either kind and a
``@func`` parameter annotated ``wp.BvhQuery`` takes any), ``wp.MeshQuery`` (``mesh_query_aabb``,
``mesh_query_sphere``; also named ``wp.MeshQueryAABB``), their tiled kinds ``wp.BvhQueryTiled`` and
``wp.MeshQueryAABBTiled`` (``tile_bvh_query_*``, ``tile_mesh_query_aabb``), and
the results of point and ray queries of a mesh, ``wp.MeshQueryPoint`` and ``wp.MeshQueryRay``: structs
with Warp's fields. Queries live in kernels only: no host value, not kernel parameters."""

from __future__ import annotations

from .arrays import array
from .composite import vector
from .scalars import bool_, float32, int32
from .structs import struct


class BvhQuery:
    """The state of a query of a :class:`Bvh` (boxes overlapping a box, met by a ray, or near a sphere);
    advance it with ``wp.bvh_query_next(query, index)`` or iterate it with ``for index in query``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a BvhQuery exists in kernels only: wp.bvh_query_aabb(id, lower, upper) makes one there")


class MeshQuery:
    """The state of a query of the triangles of a :class:`Mesh` whose bounds overlap a box
    (``mesh_query_aabb``) or a sphere (``mesh_query_sphere``): the kind is stored in it, so one variable may
    hold either; advance it with ``wp.mesh_query_next(query, index)`` or iterate it with ``for index in
    query``. ``wp.MeshQueryAABB`` is another name of it (Warp's older one)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a MeshQuery exists in kernels only: wp.mesh_query_aabb(id, lower, upper) or "
                        "wp.mesh_query_sphere(id, center, radius) makes one there")


MeshQueryAABB = MeshQuery


class BvhQueryTiled:
    """The state of a tiled query of a :class:`Bvh` (``wp.tile_bvh_query_aabb``, ``wp.tile_bvh_query_ray``):
    ``wp.tile_bvh_query_next(query)`` gives each thread of the block its next index as a tile (here a block is
    one thread: a tile of shape (1,)), -1 when none is left; ``wp.tile_query_valid(query)`` says whether to go
    on."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a BvhQueryTiled exists in kernels only: wp.tile_bvh_query_aabb(id, lower, upper) makes one "
                        "there")


class MeshQueryAABBTiled:
    """The state of a tiled query of the triangles of a :class:`Mesh` whose bounds overlap a box
    (``wp.tile_mesh_query_aabb``), advanced by ``wp.tile_mesh_query_aabb_next``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("a MeshQueryAABBTiled exists in kernels only: wp.tile_mesh_query_aabb(id, lower, upper) "
                        "makes one there")


QUERY_TYPES = (BvhQuery, MeshQuery)
TILED_QUERY_TYPES = (BvhQueryTiled, MeshQueryAABBTiled)


def is_geometry_query_type(t) -> bool:
    """A query iterated one index at a time (``bvh_query_next``, ``for i in query``)."""
    return t is BvhQuery or t is MeshQuery


def is_tiled_query_type(t) -> bool:
    return t is BvhQueryTiled or t is MeshQueryAABBTiled


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


@struct
class Mesh:
    """A mesh's arrays in a kernel (``wp.mesh_get(id)``), as in Warp: ``points`` and ``velocities``
    (vec3f; ``velocities`` empty when the mesh has none) and ``indices`` (int32, three per triangle)."""

    points: array(dtype=vector(3, float32))
    velocities: array(dtype=vector(3, float32))
    indices: array(dtype=int32)
