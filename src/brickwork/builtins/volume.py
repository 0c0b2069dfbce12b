"""Sparse-volume builtins (``wp.Volume``, NanoVDB grids), with Warp's names and types.

A volume is passed to kernels as its ``uint64`` id. ``volume_sample_*`` interpolate at an index-space point
(``CLOSEST`` or ``LINEAR``), ``volume_lookup_*`` read one voxel, ``volume_store_*`` write one leaf voxel,
``volume_*index*`` read values kept in an array by the grid's voxel indices, ``volume_index_to_world*`` and
``volume_world_to_index*`` apply the grid's map. The generic forms that take ``dtype=`` and the forms that
write a gradient into an output argument are typed by ``frontend/volume.py`` as the internal builtins here:
``volume_sample_typed``/``volume_lookup_typed`` (the dtype given as a zero value of it) and
``volume_sample_grad_pair``/``volume_sample_grad_index_pair`` (value and gradient as a tuple).

Internal builtins ``*_vjp``, ``*_grad_only`` and ``volume_*_dir_t`` are the derivatives the adjoint rules
(``volume_adjoints``) use; no ``wp.`` name reaches them.
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.composite import is_vector_type, matrix, vector
from ..types.opaque import TupleType
from ..types.scalars import float32, float64, int32, int64, uint32, uint64
from .registry import Unsupported, builtin, names, need

VEC3F, VEC3D, VEC4F, VEC4D = vector(3, float32), vector(3, float64), vector(4, float32), vector(4, float64)

#: The value types a volume holds (Warp 1.19's list).
VALUE_TYPES = (int32, int64, uint32, float32, float64, VEC3F, VEC3D, VEC4F, VEC4D)

#: Every kernel-language name of this family (the header ``brickwork_volume.h`` implements them all).
NAMES = ("volume_sample", "volume_sample_f", "volume_sample_v", "volume_sample_i", "volume_sample_grad",
         "volume_sample_grad_f", "volume_lookup", "volume_lookup_f", "volume_lookup_v", "volume_lookup_i",
         "volume_lookup_index", "volume_store", "volume_store_f", "volume_store_v", "volume_store_i",
         "volume_sample_index", "volume_sample_grad_index", "volume_voxel_count", "volume_index_to_world",
         "volume_world_to_index", "volume_index_to_world_dir", "volume_world_to_index_dir")
#: The internal builtins the frontend and the adjoint rules call.
INTERNAL = ("volume_sample_typed", "volume_lookup_typed", "volume_sample_grad_pair", "volume_sample_grad_only",
            "volume_sample_vjp", "volume_sample_hess_vjp", "volume_sample_grad_index_pair",
            "volume_sample_grad_index_only", "volume_sample_index_vjp", "volume_sample_index_hess_vjp",
            "volume_sample_index_bg_vjp", "volume_sample_index_bg_hess_vjp", "volume_sample_index_data_vjp",
            "volume_sample_index_data_hess_vjp", "volume_index_to_world_dir_t", "volume_world_to_index_dir_t")


def value_type_check(t, what: str = "volume type") -> None:
    """Refuse a type no volume holds (Warp's words: "unsupported volume type")."""
    if t not in VALUE_TYPES:
        raise Unsupported(f"unsupported {what} `{_name(t)}` (a volume holds int32, int64, uint32, float32, "
                          f"float64, vec3f, vec3d, vec4f or vec4d)")


def grad_type(t):
    """The gradient of a value of type ``t`` with respect to a point: vec3 of its scalar for a scalar, the
    N x 3 Jacobian for an N-vector."""
    if is_vector_type(t):
        return matrix((t._length, 3), t._dtype)
    return vector(3, t)


def _name(t) -> str:
    return names(t)


def _point(id_, uvw, mode=int32):
    need(id_ is uint64 and uvw is VEC3F and mode is int32,
         f"needs a volume id (uint64), an index-space point (vec3f) and a sampling mode (int32), got "
         f"{names(id_, uvw, mode)}")


def _voxel(id_, i, j, k):
    need(id_ is uint64 and i is int32 and j is int32 and k is int32,
         f"needs a volume id (uint64) and three int32 voxel coordinates, got {names(id_, i, j, k)}")


def _fixed(name: str, result):
    @builtin(name)
    def rule(id_, uvw, mode):
        _point(id_, uvw, mode)
        return result

    return rule


_fixed("volume_sample_f", float32)
_fixed("volume_sample_v", VEC3F)


@builtin("volume_sample_i")
def _sample_i(id_, uvw):
    _point(id_, uvw)
    return int32


@builtin("volume_sample_typed")
def _sample_typed(id_, uvw, mode, like):
    _point(id_, uvw, mode)
    value_type_check(like)
    return like


@builtin("volume_sample_vjp")
def _sample_vjp(id_, uvw, mode, g):
    _point(id_, uvw, mode)
    value_type_check(g)
    return VEC3F


@builtin("volume_sample_grad_pair")
def _sample_grad_pair(id_, uvw, mode, like):
    _point(id_, uvw, mode)
    value_type_check(like)
    return TupleType((like, grad_type(like)))


@builtin("volume_sample_grad_only")
def _sample_grad_only(id_, uvw, mode, like):
    _point(id_, uvw, mode)
    value_type_check(like)
    return grad_type(like)


@builtin("volume_sample_hess_vjp")
def _sample_hess_vjp(id_, uvw, mode, like, gg):
    _point(id_, uvw, mode)
    value_type_check(like)
    need(gg is grad_type(like), f"needs the gradient's adjoint ({names(grad_type(like))}), got {names(gg)}")
    return VEC3F


def _lookup(name: str, result):
    @builtin(name)
    def rule(id_, i, j, k):
        _voxel(id_, i, j, k)
        return result

    return rule


_lookup("volume_lookup_f", float32)
_lookup("volume_lookup_v", VEC3F)
_lookup("volume_lookup_i", int32)
_lookup("volume_lookup_index", int32)


@builtin("volume_lookup_typed")
def _lookup_typed(id_, i, j, k, like):
    _voxel(id_, i, j, k)
    value_type_check(like)
    return like


@builtin("volume_voxel_count")
def _voxel_count(id_):
    need(id_ is uint64, f"needs a volume id (uint64), got {names(id_)}")
    return int32


def _store(name: str, value_type):
    @builtin(name)
    def rule(id_, i, j, k, value):
        _voxel(id_, i, j, k)
        need(value is value_type, f"stores a {names(value_type)}, got {names(value)}")
        return int32  # no value (a statement); the C++ function returns 0

    return rule


_store("volume_store_f", float32)
_store("volume_store_v", VEC3F)
_store("volume_store_i", int32)


@builtin("volume_store")
def _store_generic(id_, i, j, k, value):
    _voxel(id_, i, j, k)
    value_type_check(value)
    return int32


# -- index grids: values in an array ------------------------------------------------------------------


def _indexed(id_, uvw, mode, data, background):
    _point(id_, uvw, mode)
    need(isinstance(data, ArrayType) and data.ndim == 1,
         f"needs a one-dimensional voxel_data array, got {names(data)}")
    value_type_check(data.dtype)
    if background is not data.dtype:
        raise Unsupported("the `voxel_data` array and the `background` value must have the same dtype, got "
                          f"{names(data.dtype, background)}")
    return data.dtype


@builtin("volume_sample_index")
def _sample_index(id_, uvw, mode, data, background):
    return _indexed(id_, uvw, mode, data, background)


@builtin("volume_sample_grad_index_pair")
def _sample_grad_index_pair(id_, uvw, mode, data, background):
    t = _indexed(id_, uvw, mode, data, background)
    return TupleType((t, grad_type(t)))


@builtin("volume_sample_grad_index_only")
def _sample_grad_index_only(id_, uvw, mode, data, background):
    return grad_type(_indexed(id_, uvw, mode, data, background))


def _index_adjoint(name: str, of_background: bool, result=None):
    @builtin(name)
    def rule(id_, uvw, mode, data, background, g):
        t = _indexed(id_, uvw, mode, data, background)
        need(g is t, f"needs the value's adjoint ({names(t)}), got {names(g)}")
        return result or (t if of_background else VEC3F)

    return rule


_index_adjoint("volume_sample_index_vjp", False)  # the adjoint of the point
_index_adjoint("volume_sample_index_bg_vjp", True)  # the adjoint of the background


_index_adjoint("volume_sample_index_data_vjp", False, int32)  # adds into voxel_data's gradient array


def _index_hess_adjoint(name: str, result):
    @builtin(name)
    def rule(id_, uvw, mode, data, background, gg):
        t = _indexed(id_, uvw, mode, data, background)
        need(gg is grad_type(t), f"needs the gradient's adjoint ({names(grad_type(t))}), got {names(gg)}")
        return result or t

    return rule


_index_hess_adjoint("volume_sample_index_hess_vjp", VEC3F)  # the adjoint of the point
_index_hess_adjoint("volume_sample_index_bg_hess_vjp", None)  # of the background
_index_hess_adjoint("volume_sample_index_data_hess_vjp", int32)  # adds into voxel_data's gradient array


# -- index <-> world -------------------------------------------------------------------------------


def _map(name: str):
    @builtin(name)
    def rule(id_, p):
        need(id_ is uint64 and p in (VEC3F, VEC3D), f"needs a volume id (uint64) and a vec3f or vec3d, got "
             f"{names(id_, p)}")
        return p

    return rule


for _n in ("volume_index_to_world", "volume_world_to_index", "volume_index_to_world_dir",
           "volume_world_to_index_dir", "volume_index_to_world_dir_t", "volume_world_to_index_dir_t"):
    _map(_n)


# -- the generic names: typed by frontend/volume.py (dtype=, output arguments) ----------------------


def _frontend_only(name: str, form: str):
    @builtin(name)
    def rule(*args):
        raise Unsupported(f"{name}() is called as {form}")

    return rule


_frontend_only("volume_sample", "volume_sample(id, uvw, sampling_mode, dtype=T)")
_frontend_only("volume_lookup", "volume_lookup(id, i, j, k, dtype=T)")
_frontend_only("volume_sample_grad", "volume_sample_grad(id, uvw, sampling_mode, grad, dtype=T)")
_frontend_only("volume_sample_grad_f", "volume_sample_grad_f(id, uvw, sampling_mode, grad)")
_frontend_only("volume_sample_grad_index",
               "volume_sample_grad_index(id, uvw, sampling_mode, voxel_data, background, grad)")

