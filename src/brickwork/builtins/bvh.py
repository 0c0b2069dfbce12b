"""Queries of a ``wp.Bvh`` and a ``wp.Mesh`` in kernels (Warp's names, parameters and types; float32 only,
as in Warp). A tree or a mesh is passed to kernels as its ``uint64`` id. ``bvh_query_*`` and
``mesh_query_aabb`` make queries advanced by ``bvh_query_next`` / ``mesh_query_aabb_next`` (which write
their arguments: ``frontend/bvh.py``); point and ray queries give ``MeshQueryPoint`` / ``MeshQueryRay``
structs (``include/brickwork_bvh.h``)."""

from __future__ import annotations

from ..types.composite import vector
from ..types.geometry_queries import BvhQuery, Mesh, MeshQuery, MeshQueryPoint, MeshQueryRay
from ..types.scalars import bool_, float32, int32, uint64
from .registry import builtin, names, need

vec3 = vector(3, float32)


def _need(ok: bool, what: str, *args) -> None:
    need(ok, f"needs {what}, got {names(*(a for a in args if a is not None))}")


def _bvh_query(name, second, third):
    @builtin(name)
    def rule(id, a, b, root=None):
        _need(id is uint64 and a is vec3 and b is (vec3 if third == "vec3" else float32) and root in (None, int32),
              f"a BVH id (uint64), {second} and optionally an int32 root node", id, a, b, root)
        return BvhQuery

    return rule


_bvh_query("bvh_query_aabb", None, "vec3")
_bvh_query("bvh_query_ray", None, "vec3")
_bvh_query("bvh_query_sphere", None, "float32")


def _ray_query(name, owner: str, last: str, result):
    """A query along ``start + t dir``: ``(id, start, dir, <last: float32>[, root])``."""

    @builtin(name)
    def rule(id, start, dir, x, root=None):
        _need(id is uint64 and start is vec3 and dir is vec3 and x is float32 and root in (None, int32),
              f"{owner} id (uint64), a vec3f start and direction, a float32 {last} and optionally an int32 root",
              id, start, dir, x, root)
        return result

    return rule


_ray_query("bvh_query_capsule", "a BVH", "radius", BvhQuery)


@builtin("bvh_query_next")
def _bvh_query_next(query, index, max_dist=None):
    _need(query is BvhQuery and index is int32 and max_dist in (None, float32),
          "a query from bvh_query_aabb/ray/sphere/capsule(), an int32 variable to receive the index and optionally a "
          "float32 max_dist", query, index, max_dist)
    return bool_


@builtin("mesh_query_aabb")
def _mesh_query_aabb(id, low, high):
    _need(id is uint64 and low is vec3 and high is vec3, "a mesh id (uint64) and two vec3f corners", id, low, high)
    return MeshQuery


@builtin("mesh_query_sphere")
def _mesh_query_sphere(id, center, radius):
    _need(id is uint64 and center is vec3 and radius is float32, "a mesh id (uint64), a vec3f center and a "
          "float32 radius", id, center, radius)
    return MeshQuery


def _mesh_query_next(query, index):
    _need(query is MeshQuery and index is int32,
          "a query from mesh_query_aabb() or mesh_query_sphere() and an int32 variable to receive the index",
          query, index)
    return bool_


builtin("mesh_query_next")(_mesh_query_next)
builtin("mesh_query_aabb_next")(_mesh_query_next)  # Warp's older name


def _point_query(name, *extra):
    @builtin(name)
    def rule(id, point, max_dist, a=None, b=None):
        ok = id is uint64 and point is vec3 and max_dist is float32
        for t, want in zip((a, b), extra):
            ok = ok and t in (None, want)
        if not extra:
            ok = ok and a is None and b is None
        _need(ok, "a mesh id (uint64), a vec3f point and a float32 distance"
              + (f" (and optionally {', '.join(t.__name__ for t in extra)})" if extra else ""), id, point, max_dist,
              a, b)
        return MeshQueryPoint

    return rule


_point_query("mesh_query_point")
_point_query("mesh_query_point_no_sign")
_point_query("mesh_query_furthest_point_no_sign")
_point_query("mesh_query_point_sign_normal", float32)
_point_query("mesh_query_point_sign_winding_number", float32, float32)
_point_query("mesh_query_point_sign_parity", int32, float32)


_ray_query("mesh_query_ray", "a mesh", "max_t", MeshQueryRay)
_ray_query("mesh_query_ray_anyhit", "a mesh", "max_t", bool_)


@builtin("mesh_query_ray_count_intersections")
def _mesh_query_ray_count(id, start, dir, root=None):
    _need(id is uint64 and start is vec3 and dir is vec3 and root in (None, int32),
          "a mesh id (uint64), a vec3f start and direction and optionally an int32 root", id, start, dir, root)
    return int32


def _eval(name):
    @builtin(name)
    def rule(id, face, bary_u, bary_v):
        _need(id is uint64 and face is int32 and bary_u is float32 and bary_v is float32,
              "a mesh id (uint64), an int32 face and float32 barycentric u, v", id, face, bary_u, bary_v)
        return vec3

    return rule


_eval("mesh_eval_position")
_eval("mesh_eval_velocity")


def _getter(name, result):
    @builtin(name)
    def rule(id, index):
        _need(id is uint64 and index is int32, "a mesh id (uint64) and an int32 index", id, index)
        return result

    return rule


_getter("mesh_get_point", vec3)
_getter("mesh_get_velocity", vec3)
_getter("mesh_get_index", int32)


@builtin("mesh_eval_face_normal")
def _mesh_eval_face_normal(id, face):
    _need(id is uint64 and face is int32, "a mesh id (uint64) and an int32 face", id, face)
    return vec3


def _group_root(name, what):
    @builtin(name)
    def rule(id, group):
        _need(id is uint64 and group is int32, f"{what} id (uint64) and an int32 group", id, group)
        return int32

    return rule


_group_root("bvh_get_group_root", "a BVH")
_group_root("mesh_get_group_root", "a mesh")


@builtin("mesh_get")
def _mesh_get(id):
    _need(id is uint64, "a mesh id (uint64)", id)
    return Mesh


@builtin("mesh_get_grads")
def _mesh_get_grads(id):
    """Internal: the Mesh struct over the gradients of the mesh's points and velocities, where the backward
    pass of ``mesh_get`` sends the adjoints of what a kernel read through it (``GRADIENT_STRUCTS``)."""
    _need(id is uint64, "a mesh id (uint64)", id)
    return Mesh


#: builtins that return a struct of arrays -> the internal builtin giving the struct of those arrays' gradients
#: (the adjoint pass reads and writes the gradients of the arrays through it, as through a struct parameter's)
GRADIENT_STRUCTS = {"mesh_get": "mesh_get_grads"}


@builtin("mesh_get_bvh")
def _mesh_get_bvh(id):
    _need(id is uint64, "a mesh id (uint64)", id)
    return uint64


#: builtins returning a struct: the C++ function is a template over the struct's generated type
STRUCT_RESULTS = ("mesh_get", "mesh_get_grads", "mesh_query_point", "mesh_query_point_no_sign",
                  "mesh_query_furthest_point_no_sign",
                  "mesh_query_point_sign_normal", "mesh_query_point_sign_winding_number",
                  "mesh_query_point_sign_parity", "mesh_query_ray")
#: the builtins of a mesh's arrays (in include/brickwork_mesh_arrays.h)
ARRAY_NAMES = ("mesh_get", "mesh_get_grads", "mesh_get_bvh", "mesh_eval_position", "mesh_eval_velocity",
               "mesh_get_point", "mesh_get_velocity", "mesh_get_index", "mesh_eval_face_normal")
#: every builtin of this family (in include/brickwork_bvh.h, but those of ARRAY_NAMES)
NAMES = ("bvh_query_aabb", "bvh_query_ray", "bvh_query_sphere", "bvh_query_capsule", "bvh_query_next",
         "mesh_query_aabb", "mesh_query_sphere", "mesh_query_next", "mesh_query_aabb_next", *STRUCT_RESULTS,
         "mesh_query_ray_anyhit", "mesh_query_ray_count_intersections", *ARRAY_NAMES[2:],
         "bvh_get_group_root", "mesh_get_group_root")
