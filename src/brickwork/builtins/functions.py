"""Python-side names of kernel builtins (``brickwork.sin``, ``brickwork.tid``, ...).

They exist so that kernels can spell ``wp.sin(x)``; inside a kernel the frontend maps each to
its entry in the builtin table. Called from ordinary Python they compute on the host where
that is meaningful (scalars), else they say they belong in kernels.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .docs import BUILTIN_DOCS
from .host_composites import HOST_LINALG, HOST_ROTATIONS
from .host_decompositions import HOST_DECOMPOSITIONS
from .host_typing import TYPED_SCALAR, extremum, index_of, kernel_type, scalar_call
from .volume import NAMES as VOLUME_NAMES


class BuiltinFunction:
    """A kernel builtin exposed as a Python name."""

    __slots__ = ("name", "host", "doc")

    def __init__(self, name: str, host=None, doc: str = ""):
        self.name = name
        self.host = host
        self.doc = doc or f"Kernel builtin ``{name}``."

    @property
    def __name__(self):
        return self.name

    @property
    def key(self) -> str:
        """The builtin's name (Warp's ``Function.key``)."""
        return self.name

    def __call__(self, *args, **kwargs):
        if self.host is None:
            raise RuntimeError(f"{self.name}() can only be called inside a @kernel or @func")
        if self.name in TYPED_SCALAR and args and not kwargs and all(kernel_type(a) is not None for a in args):
            return scalar_call(self.name, self.host, args)
        if self.name in _ELEMENTWISE:
            return _elementwise(self.host, args)
        if self.name in _TYPED or self.name in KERNEL_EVALUATED:  # these read the argument's kernel type
            return self.host(*args, **kwargs)
        plain = [a if isinstance(a, type) else getattr(a, "value", a) for a in args]
        return self.host(*plain, **kwargs)

    def __repr__(self):
        return f"<brickwork builtin {self.name}>"


def _as_numpy(x):
    """A host argument as a numpy scalar of its kernel type: a brickwork scalar keeps its type, a
    Python float is a float32 and a Python int an int32, as in kernel code."""
    np_type = getattr(type(x), "_np", None)
    if np_type is not None and hasattr(x, "value"):
        return np_type(x.value)
    if isinstance(x, bool):
        return x
    if isinstance(x, float):
        return np.float32(x)
    if isinstance(x, int) and -2**31 <= x < 2**31:
        return np.int32(x)
    return x


def _elementwise(fn, args):
    """Scalar math with the kernel's types and IEEE results (log(0) = -inf, sqrt(-1) = nan), returned
    as a Python number: a float function is evaluated in float64 precision and rounded once to the
    argument's type, which gives the correctly rounded value the kernel's math library gives."""
    values = [_as_numpy(a) for a in args]
    floats = [v.dtype for v in values if isinstance(v, np.floating)]
    with np.errstate(all="ignore"):
        if floats:
            result = np.asarray(fn(*[np.float64(v) for v in values])).astype(floats[0])[()]
        else:
            result = fn(*values)
    return result.item() if isinstance(result, np.generic) else result


def _bit_count(x) -> int:
    """The set bits of an integer in its type's width, as in kernels: a Python int is an int32 (wrapping,
    as Warp's), a typed integer has its own width; anything else is refused with Warp's RuntimeError."""
    t = type(x)
    if isinstance(x, int) and not isinstance(x, bool):
        return bin(x & 0xFFFFFFFF).count("1")
    if getattr(t, "is_int", False) and hasattr(x, "value"):
        return bin(x.value & ((1 << (8 * t._size)) - 1)).count("1")
    raise RuntimeError(f"Couldn't find a function 'bit_count' compatible with the arguments '{t.__name__}'")


#: Host builtins that take their arguments as given (typed scalars keep their type).
_TYPED = frozenset({"bit_count", "min", "max", "lerp"})
#: Builtins whose host calls run as a one-thread kernel (``runtime/host_builtins.py`` installs them), so
#: that the host gets the kernels' values: random numbers and noise, and the builtins Warp also evaluates
#: on the host that have no numpy formula here (spatial algebra, transform matrices, norms, slerp, erfinv).
KERNEL_EVALUATED = frozenset({
    "rand_init", "randi", "randu", "randf", "randn", "poisson", "noise", "pnoise", "curlnoise",
    "sample_unit_square", "sample_unit_cube", "sample_unit_ring", "sample_unit_disk", "sample_triangle",
    "sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface",
    "sample_unit_hemisphere",
    "spatial_top", "spatial_bottom", "spatial_dot", "spatial_cross", "spatial_cross_dual", "velocity_at_point",
    "skew", "diag", "get_diag", "transform_to_matrix", "transform_from_matrix", "transform_compose",
    "quat_slerp", "norm_l1", "norm_l2", "norm_huber", "norm_pseudo_huber", "smooth_normalize",
    "rint", "erfinv", "erfcinv"})


def _round(x):
    """Half away from zero, as C's round and the kernel builtin."""
    r = np.trunc(x)
    return r + np.sign(x) if abs(x - r) >= 0.5 else r


def _sign(x):
    """-1 below zero, else 1 (zero included), as the kernel builtin."""
    return type(x)(-1) if x < 0 else type(x)(1)


def _smoothstep(a, b, x):
    t = min(max((x - a) / (b - a), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def _frac(x):
    return x - np.trunc(x)


def _clamped_to_unit(f):
    """asin/acos of the argument clamped to [-1, 1], NaN counting as -1 (as in kernels and in Warp)."""
    return lambda x: f(np.clip(np.nan_to_num(x, nan=-1.0), -1.0, 1.0))


def _lerp(a, b, t):
    """Warp's form a (1 - t) + b t, as in kernels: scalars in their kernel type, vectors as vectors."""
    from ..types.composite import CompositeBase

    if isinstance(a, CompositeBase):
        return a * (1 - t) + b * t
    return _elementwise(lambda x, y, s: x * (1 - s) + y * s, (a, b, t))


_HOST = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": _clamped_to_unit(np.arcsin), "acos": _clamped_to_unit(np.arccos), "atan": np.arctan,
    "atan2": np.arctan2, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "cbrt": np.cbrt,
    "abs": abs, "pow": np.power,
    "min": extremum("min", min, np.fmin, np.min), "max": extremum("max", max, np.fmax, np.max),
    "argmin": index_of(np.argmin), "argmax": index_of(np.argmax), "isnan": math.isnan, "isinf": math.isinf,
    "isfinite": math.isfinite, "clamp": lambda x, a, b: min(max(a, x), b),
    "step": lambda x: type(x)(1 if x < 0 else 0), "nonzero": lambda x: type(x)(0 if x == 0 else 1),
    "smoothstep": lambda a, b, x: _smoothstep(a, b, x), "lerp": _lerp,
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "mod": operator.mod, "floordiv": operator.floordiv,
    "div": lambda a, b: int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b,  # ints: toward zero
    "neg": operator.neg, "pos": operator.pos, "bit_and": operator.and_, "bit_or": operator.or_,
    "bit_xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift, "invert": operator.invert,
    "unot": operator.not_,
    "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc), "copysign": np.copysign,
    "bit_count": _bit_count,
    "sign": _sign, "round": _round, "frac": _frac, "degrees": np.degrees, "radians": np.radians,
}
#: Host builtins computed through ``_elementwise`` (in the arguments' kernel types).
_ELEMENTWISE = frozenset({"smoothstep", "erf", "erfc", "copysign",
                          "sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                          "tanh", "floor", "ceil", "trunc", "log2", "log10", "exp2", "cbrt", "pow", "sign", "round",
                          "frac", "degrees", "radians"})

NAMES = (
    "tid print printf expect_eq expect_neq expect_near "
    "min max abs sign clamp floor ceil round trunc frac rint sqrt cbrt exp exp2 log log2 log10 pow sin cos tan "
    "asin acos atan atan2 sinh cosh tanh isnan isinf isfinite degrees radians lerp "
    "dot cross length length_sq normalize outer transpose determinant inverse diag identity ddot trace skew "
    "div_approx inverse_approx "
    "cw_mul cw_div quat_rotate quat_rotate_inv quat_inverse quat_identity quat_from_axis_angle quat_between_vectors "
    "transform_identity transform_point transform_vector transform_multiply transform_inverse "
    "transform_get_translation transform_get_rotation transform_set_translation transform_set_rotation "
    "norm_l1 norm_l2 norm_huber norm_pseudo_huber smooth_normalize argmin argmax get_diag matrix_from_cols "
    "matrix_from_rows quat_to_matrix quat_from_matrix quat_rpy quat_to_rpy quat_slerp "
    "quat_from_euler quat_to_euler quat_twist quat_twist_angle quat_twist_angle_signed "
    "spatial_top spatial_bottom spatial_dot spatial_cross spatial_cross_dual velocity_at_point spatial_adjoint "
    "transform_twist transform_wrench transform_to_matrix transform_from_matrix transform_compose "
    "svd3 svd2 qr3 eig3 quat_to_axis_angle transform_decompose poisson sample_cdf lower_bound "
    "erf erfc erfinv erfcinv copysign bit_count "
    "rand_init randi randu randf randn sample_unit_square sample_unit_cube sample_unit_ring sample_unit_disk "
    "sample_triangle sample_unit_sphere_surface sample_unit_sphere sample_unit_hemisphere_surface "
    "sample_unit_hemisphere noise pnoise curlnoise closest_point_edge_edge intersect_tri_tri "
    "hash_grid_query hash_grid_query_next hash_grid_point_id "
    "texture_sample "
    f"{' '.join(VOLUME_NAMES)} "
    "bvh_query_aabb bvh_query_ray bvh_query_sphere bvh_query_capsule "
    "bvh_query_next mesh_query_aabb mesh_query_aabb_next "
    "mesh_query_sphere mesh_query_next "
    "mesh_query_point mesh_query_point_no_sign mesh_query_furthest_point_no_sign mesh_query_point_sign_normal "
    "mesh_query_point_sign_winding_number mesh_query_point_sign_parity mesh_query_ray mesh_query_ray_anyhit "
    "mesh_query_ray_count_intersections mesh_eval_position mesh_eval_velocity mesh_eval_face_normal "
    "mesh_get_point mesh_get_velocity "
    "mesh_get_index mesh_get mesh_get_bvh "
    "bvh_get_group_root mesh_get_group_root "
    "tile_bvh_query_aabb tile_bvh_query_ray tile_mesh_query_aabb tile_bvh_query_next tile_mesh_query_aabb_next "
    "tile_query_valid bvh_query_aabb_tiled bvh_query_ray_tiled mesh_query_aabb_tiled bvh_query_next_tiled "
    "mesh_query_aabb_next_tiled "
    "step nonzero smoothstep add sub mul div mod floordiv neg pos bit_and bit_or bit_xor lshift rshift invert unot "
    "select where atomic_add atomic_sub atomic_min atomic_max atomic_and atomic_or atomic_xor atomic_exch atomic_cas "
    "len "
    "par_for_inner ScratchPad1D ScratchPad2D ScratchPad3D"
).split()

_HOST.update(HOST_ROTATIONS)
_HOST.update(HOST_LINALG)
_HOST.update(HOST_DECOMPOSITIONS)
FUNCTIONS = {name: BuiltinFunction(name, _HOST.get(name), BUILTIN_DOCS.get(name, ('', ''))[1]) for name in NAMES}
