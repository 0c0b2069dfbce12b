"""Adjoint rules of the builtins: how a builtin's result adjoint flows back to its arguments.

A rule is ``rule(E, args, r, g) -> contributions``: ``args`` are the call's argument values, ``r``
its result, ``g`` the adjoint of the result; it returns one contribution per argument (``None``:
nothing flows to that argument), of the argument's type. Rules build values only through ``E``,
the builder the adjoint pass hands in (``E.<builtin>(...)`` calls a builtin of this table, with
``E.type``, ``E.const``, ``E.zero``, ``E.comp``, ``E.make``, ``E.sel``, ``E.cast``), so a rule never sees the
IR and every target differentiates the same way. Builtins in ``NOT_DIFFERENTIABLE`` are piecewise
constant or integer-valued: nothing flows back. A builtin in neither table has no adjoint yet; the
adjoint pass reports it when a backward kernel needs it.

This module holds the tables, the decorators that fill them and the helpers the rules share. The rules live
in modules of their own, which this module imports at its end so that ``ADJOINTS`` is complete once it is
imported: arithmetic and elementary functions (``arithmetic_adjoints``), vectors, matrices and quaternions
(``composite_adjoints``), noise (``noise_adjoints``), the decompositions (svd, eig, qr:
``decomposition_adjoints``), geometry, meshes, textures and volumes. Builtins differentiated through their
definition are in ``expansions``.
"""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from ..types.scalars import is_scalar_type

ADJOINTS: dict = {}

# Builtins whose rules give an array argument an :class:`ArrayAdjoint` (run even when no other argument
# carries an adjoint).
ARRAY_ADJOINT_OPS: set = set()

# Builtins differentiated through their definition (``expansions``): name -> ``expand(E, args)``.
EXPANSIONS: dict = {}

NOT_DIFFERENTIABLE = frozenset(
    "floor ceil round trunc rint sign step eq ne lt le gt ge logical_and logical_or logical_not bit_and bit_or "
    "bit_xor bit_count lshift rshift invert isfinite isinf isnan argmin argmax nonzero floordiv rand_init randi "
    "randf randn randu sample_triangle sample_unit_cube sample_unit_disk sample_unit_hemisphere "
    "sample_unit_hemisphere_surface sample_unit_ring sample_unit_sphere sample_unit_sphere_surface "
    "sample_unit_square intersect_tri_tri hash_grid_query hash_grid_query_next hash_grid_point_id "
    "bvh_query_aabb bvh_query_ray bvh_query_sphere bvh_query_capsule "
    "bvh_query_next mesh_query_aabb mesh_query_aabb_next "
    "mesh_query_sphere mesh_query_next "
    "mesh_query_furthest_point_no_sign mesh_query_ray_anyhit "
    "mesh_query_ray_count_intersections mesh_get_point mesh_get_velocity mesh_eval_face_normal "
    "mesh_get_index mesh_get mesh_get_grads mesh_get_bvh "
    "bvh_get_group_root mesh_get_group_root tile_bvh_query_aabb tile_bvh_query_ray tile_mesh_query_aabb "
    "tile_query_next tile_query_valid tile_stack_push tile_stack_pop tile_stack_count tile_stack_clear".split())


class ArrayAdjoint:
    """A rule's contribution to an array argument (``volume_sample_index``'s ``voxel_data``):
    ``build(E, adj_array)`` gives the builtin call that adds the contribution into the array's gradient
    array (with atomic adds: other threads add into the same elements). The adjoint pass emits it where
    the argument has a gradient array; nothing flows where it has none."""

    def __init__(self, build):
        self.build = build


def adjoint(*names):
    """Register ``rule`` as the adjoint of the builtins ``names``."""

    def register(rule):
        for name in names:
            ADJOINTS[name] = rule
        return rule

    return register


def expansion(*names):
    """Register ``expand`` as the definition, in simpler builtins, of the builtins ``names``."""

    def register(expand):
        for name in names:
            EXPANSIONS[name] = expand
        return expand

    return register


# -- helpers over scalars, vectors, matrices, quaternions --------------------------------------------


def scalar_of(t):
    return t if is_scalar_type(t) else t._dtype


def c(E, value, like):
    """The constant ``value`` of the scalar type of ``like``."""
    return E.const(value, scalar_of(E.type(like)))


def cw(E, a, b):
    """Componentwise product (``b`` may be a scalar)."""
    ta, tb = E.type(a), E.type(b)
    if is_scalar_type(ta) or is_scalar_type(tb):
        return E.mul(a, b)
    return E.cw_mul(a, b)


def cdiv(E, a, b):
    if is_scalar_type(E.type(b)):
        return E.div(a, b)
    return E.cw_div(a, b)


def inner(E, a, b):
    """The sum of the componentwise products of two values of one type (a scalar)."""
    t = E.type(a)
    if is_scalar_type(t):
        return E.mul(a, b)
    if is_vector_type(t):
        return E.dot(a, b)
    if is_matrix_type(t):
        return E.ddot(a, b)
    total = None
    for i in range(t._length):
        term = E.mul(E.comp(a, i), E.comp(b, i))
        total = term if total is None else E.add(total, term)
    return total


def unary(derivative):
    """A componentwise function: ``g * f'(x)`` where ``derivative(E, x, r)`` is ``f'``."""

    def rule(E, args, r, g):
        return (cw(E, g, derivative(E, args[0], r)),)

    return rule


def conj(E, q):
    t = E.type(q)
    return E.make(t, [E.neg(E.comp(q, 0)), E.neg(E.comp(q, 1)), E.neg(E.comp(q, 2)), E.comp(q, 3)])


def one_like(E, x):
    return c(E, 1.0, x)


def is_differentiable_type(t) -> bool:
    """Whether values of ``t`` carry an adjoint: floating-point scalars and composites of them."""
    if is_scalar_type(t):
        return t.is_float
    if is_vector_type(t) or is_matrix_type(t) or is_quat_type(t) or is_transform_type(t):
        return t._dtype.is_float
    return False


# Registers the rules, the expansions and the decompositions' rules (those modules import the helpers above).
from . import (  # noqa: E402,F401
    arithmetic_adjoints,
    composite_adjoints,
    decomposition_adjoints,
    expansions,
    geometry_adjoints,
    mesh_adjoints,
    noise_adjoints,
    texture_adjoints,
    volume_adjoints,
)
