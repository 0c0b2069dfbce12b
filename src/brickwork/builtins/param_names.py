"""Warp's parameter names of the builtins brickwork has, so that builtins take keyword arguments as in Warp
(``wp.pow(x=2.0, y=4.0)``, ``wp.randf(state, low=0.0, high=1.0)``). Data from Warp 1.19's builtin signatures."""

from ..errors import BrickworkError
from ..types.scalars import float32, uint32

_BY_SIGNATURE = {
    ('a',): (
        "argmax argmin determinant inverse inverse_approx invert isfinite isinf isnan len length length_sq "
        "normalize trace transpose unot"
    ),
    ('mat',): (
        "get_diag quat_from_matrix"
    ),
    ('q',): (
        "quat_to_rpy"
    ),
    ('quat',): (
        "quat_inverse quat_to_matrix"
    ),
    ('state',): (
        "randn sample_triangle sample_unit_square sample_unit_cube sample_unit_ring sample_unit_disk "
        "sample_unit_sphere sample_unit_sphere_surface sample_unit_hemisphere sample_unit_hemisphere_surface"
    ),
    ('v',): (
        "norm_l1 norm_l2"
    ),
    ('vec',): (
        "diag skew"
    ),
    ('x',): (
        "abs acos asin atan cbrt ceil cos cosh degrees exp floor frac log log10 log2 neg nonzero "
        "pos radians rint round sign sin sinh sqrt step tan tanh trunc"
    ),
    ('xform',): (
        "transform_get_rotation transform_get_translation transform_inverse"
    ),
    ('a', 'b'): (
        "add bit_and bit_or bit_xor cross cw_div cw_mul ddot div div_approx dot expect_eq expect_neq floordiv "
        "lshift max min mod mul outer quat_between_vectors rshift sub transform_multiply"
    ),
    ('axis', 'angle'): (
        "quat_from_axis_angle"
    ),
    ('quat', 'vec'): (
        "quat_rotate quat_rotate_inv"
    ),
    ('seed', 'offset'): (
        "rand_init"
    ),
    ('v', 'delta'): (
        "norm_huber norm_pseudo_huber smooth_normalize"
    ),
    ('x', 'y'): (
        "pow"
    ),
    ('xform', 'point'): (
        "transform_point"
    ),
    ('xform', 'vec'): (
        "transform_vector"
    ),
    ('y', 'x'): (
        "atan2"
    ),
    ('a', 'b', 't'): (
        "lerp quat_slerp"
    ),
    ('a', 'b', 'tolerance'): (
        "expect_near"
    ),
    ('a', 'b', 'x'): (
        "smoothstep"
    ),
    ('cond', 'value_if_false', 'value_if_true'): (
        "select"
    ),
    ('cond', 'value_if_true', 'value_if_false'): (
        "where"
    ),
    ('roll', 'pitch', 'yaw'): (
        "quat_rpy"
    ),
    ('state', 'low', 'high'): (
        "randf randi randu"
    ),
    ('x', 'low', 'high'): (
        "clamp"
    ),
    ('arr', 'i', 'j', 'k', 'l', 'value'): (
        "atomic_add atomic_max atomic_min atomic_sub"
    ),
}

_BY_SIGNATURE[('position', 'rotation', 'scale')] = "transform_compose"
_BY_SIGNATURE[('e', 'i', 'j', 'k')] = "quat_from_euler"
_BY_SIGNATURE[('q', 'i', 'j', 'k')] = "quat_to_euler"
_BY_SIGNATURE[('axis', 'q')] = "quat_twist quat_twist_angle quat_twist_angle_signed"
_BY_SIGNATURE[('state', 'xy', 'octaves', 'lacunarity', 'gain')] = "curlnoise"
_BY_SIGNATURE[('state', 'x')] = "noise"
_BY_SIGNATURE[('state', 'lam')] = "poisson"
_BY_SIGNATURE[('state', 'x', 'px', 'py', 'pz', 'pt')] = "pnoise"
_BY_SIGNATURE[('id', 'point', 'max_dist', 'group')] = "hash_grid_query"
_BY_SIGNATURE[('query', 'index')] = "hash_grid_query_next"
_BY_SIGNATURE[('id', 'index')] = "hash_grid_point_id mesh_get_point mesh_get_velocity mesh_get_index"
_BY_SIGNATURE[('id', 'low', 'high', 'root')] = "bvh_query_aabb"
_BY_SIGNATURE[('id', 'start', 'dir', 'root')] = "bvh_query_ray mesh_query_ray_count_intersections"
_BY_SIGNATURE[('id', 'center', 'radius', 'root')] = "bvh_query_sphere"
_BY_SIGNATURE[('id', 'group')] = "bvh_get_group_root mesh_get_group_root"
_BY_SIGNATURE[('id', 'start', 'dir', 'radius', 'root')] = "bvh_query_capsule"
_BY_SIGNATURE[('query', 'index', 'max_dist')] = "bvh_query_next"
_BY_SIGNATURE[('query', 'index')] = "hash_grid_query_next mesh_query_aabb_next mesh_query_next"
_BY_SIGNATURE[('id', 'center', 'radius')] = "mesh_query_sphere"
_BY_SIGNATURE[('id', 'low', 'high')] = ("mesh_query_aabb tile_bvh_query_aabb tile_mesh_query_aabb bvh_query_aabb_tiled "
                                         "mesh_query_aabb_tiled")
_BY_SIGNATURE[('id', 'start', 'dir')] = "tile_bvh_query_ray bvh_query_ray_tiled"
_BY_SIGNATURE[('query',)] = ("tile_query_valid tile_bvh_query_next tile_mesh_query_aabb_next bvh_query_next_tiled "
                             "mesh_query_aabb_next_tiled")
_BY_SIGNATURE[('id', 'point', 'max_dist')] = "mesh_query_point mesh_query_point_no_sign"
_BY_SIGNATURE[('id', 'point', 'min_dist')] = "mesh_query_furthest_point_no_sign"
_BY_SIGNATURE[('id', 'point', 'max_dist', 'epsilon')] = "mesh_query_point_sign_normal"
_BY_SIGNATURE[('id', 'point', 'max_dist', 'accuracy', 'threshold')] = "mesh_query_point_sign_winding_number"
_BY_SIGNATURE[('id', 'point', 'max_dist', 'n_sample', 'perturbation_scale')] = "mesh_query_point_sign_parity"
_BY_SIGNATURE[('id', 'start', 'dir', 'max_t', 'root')] = "mesh_query_ray mesh_query_ray_anyhit"
_BY_SIGNATURE[('id', 'face', 'bary_u', 'bary_v')] = "mesh_eval_position mesh_eval_velocity"
_BY_SIGNATURE[('id', 'face')] = "mesh_eval_face_normal"

#: builtin name -> parameter names in order
PARAM_NAMES = {name: params for params, names in _BY_SIGNATURE.items() for name in names.split()}

#: builtin name -> {other name: the parameter in PARAM_NAMES}: names that only some of Warp's overloads use
#: (a noise point is named after its dimension: x, xy, xyz or xyzt).
PARAM_ALIASES = {"curlnoise": {"xyz": "xy", "xyzt": "xy"}, "noise": {"xy": "x", "xyz": "x", "xyzt": "x"},
                 "pnoise": {"xy": "x", "xyz": "x", "xyzt": "x"}}

#: builtin name -> {parameter: (value, type)}: Warp's defaults of optional parameters, taken by one left out
#: before a later one given by keyword (wp.curlnoise(state, p, gain=0.25)).
PARAM_DEFAULTS = {"curlnoise": {"octaves": (1, uint32), "lacunarity": (2.0, float32), "gain": (0.5, float32)}}


class BindError(BrickworkError, TypeError):
    """A builtin call's keywords do not bind to its parameters (the message says why)."""


def spellings(name: str, param: str) -> str:
    """How a parameter may be spelled as a keyword: ``x/xy/xyz/xyzt`` for a noise point."""
    return "/".join([param] + [a for a, p in PARAM_ALIASES.get(name, {}).items() if p == param])


def bind_keywords(name: str, positional: list, keywords: list, default) -> list:
    """The arguments of builtin ``name`` in parameter order from ``positional`` values and ``keywords``
    ((name, value) pairs, by Warp's parameter names); trailing optional parameters left out, a gap before a
    keyword given filled by ``default(value, type)`` from ``PARAM_DEFAULTS``. ``BindError`` otherwise.
    The kernel frontend binds typed expressions with it, host calls Python values."""
    params = PARAM_NAMES.get(name)
    if params is None:
        raise BindError(f"{name}() takes no keyword arguments")
    slots = list(positional) + [_MISSING] * max(0, len(params) - len(positional))
    aliases = PARAM_ALIASES.get(name, {})
    for key, value in keywords:
        param = aliases.get(key, key)
        if param not in params:
            shown = ", ".join(spellings(name, p) for p in params)
            raise BindError(f"{name}() has no parameter '{key}' (its parameters: {shown})")
        i = params.index(param)
        if slots[i] is not _MISSING:
            raise BindError(f"{name}() got two values for '{key}'")
        slots[i] = value
    while slots and slots[-1] is _MISSING:  # trailing optional parameters left out
        slots.pop()
    defaults = PARAM_DEFAULTS.get(name, {})  # a gap before a keyword given takes its default
    slots = [default(*defaults[params[i]]) if a is _MISSING and params[i] in defaults else a
             for i, a in enumerate(slots)]
    if any(a is _MISSING for a in slots):
        missing = [spellings(name, params[i]) for i, a in enumerate(slots) if a is _MISSING]
        raise BindError(f"{name}() is missing the argument(s) {', '.join(missing)}")
    return slots


_MISSING = object()
