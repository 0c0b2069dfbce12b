"""Adjoint rules of the builtins: how a builtin's result adjoint flows back to its arguments.

A rule is ``rule(E, args, r, g) -> contributions``: ``args`` are the call's argument values, ``r``
its result, ``g`` the adjoint of the result; it returns one contribution per argument (``None``:
nothing flows to that argument), of the argument's type. Rules build values only through ``E``,
the builder the adjoint pass hands in (``E.<builtin>(...)`` calls a builtin of this table, with
``E.type``, ``E.const``, ``E.zero``, ``E.comp``, ``E.make``, ``E.sel``, ``E.cast``), so a rule never sees the
IR and every target differentiates the same way. Builtins in ``NOT_DIFFERENTIABLE`` are piecewise
constant or integer-valued: nothing flows back. A builtin in neither table has no adjoint yet; the
adjoint pass reports it when a backward kernel needs it.

The rules of the decompositions (svd, eig, qr) live in ``decomposition_adjoints``, which this module
imports at its end so that ``ADJOINTS`` is complete once it is imported. Builtins differentiated
through their definition are in ``expansions``.
"""

from __future__ import annotations

import math

from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type, matrix
from ..types.scalars import bfloat16, float16, float32, is_scalar_type

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
    "mesh_query_ray_count_intersections mesh_get_point mesh_get_velocity "
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


def _cmap(E, t, fn, *vals):
    """A value of type ``t`` (scalar or vector) whose components are ``fn`` of the components."""
    if is_scalar_type(t):
        return fn(*vals)
    return E.make(t, [fn(*(E.comp(v, i) if not is_scalar_type(E.type(v)) else v for v in vals))
                      for i in range(t._length)])


# -- arithmetic --------------------------------------------------------------------------------------


@adjoint("add")
def _add(E, args, r, g):
    return g, g


@adjoint("sub")
def _sub(E, args, r, g):
    return g, E.neg(g)


@adjoint("neg")
def _neg(E, args, r, g):
    return (E.neg(g),)


@adjoint("pos")
def _pos(E, args, r, g):
    return (g,)


@adjoint("mul")
def _mul(E, args, r, g):
    a, b = args
    ta, tb = E.type(a), E.type(b)
    if is_scalar_type(ta) and is_scalar_type(tb):
        return E.mul(g, b), E.mul(g, a)
    if is_scalar_type(ta):
        return inner(E, g, b), E.mul(a, g)
    if is_scalar_type(tb):
        return E.mul(g, b), inner(E, g, a)
    if is_quat_type(ta):  # <a b, g> = <a, g conj(b)> = <b, conj(a) g>
        return E.mul(g, conj(E, b)), E.mul(conj(E, a), g)
    if is_matrix_type(ta) and is_matrix_type(tb):
        return E.mul(g, E.transpose(b)), E.mul(E.transpose(a), g)
    if is_matrix_type(ta):  # y = A x
        return E.outer(g, b), E.mul(E.transpose(a), g)
    if is_matrix_type(tb):  # y = x A
        return E.mul(b, g), E.outer(a, g)
    return None, None  # transform products: no rule yet (reported by the pass)


ADJOINTS["matmul"] = _mul


def conj(E, q):
    t = E.type(q)
    return E.make(t, [E.neg(E.comp(q, 0)), E.neg(E.comp(q, 1)), E.neg(E.comp(q, 2)), E.comp(q, 3)])


@adjoint("div", "div_approx")
def _div(E, args, r, g):
    a, b = args
    ta, tb = E.type(a), E.type(b)
    if is_scalar_type(ta) and is_scalar_type(tb):
        return E.div(g, b), E.neg(E.div(E.mul(g, r), b))
    if is_scalar_type(tb):  # v / s: -<g, v> / s^2 from v, not from the rounded result (half precision)
        return E.div(g, b), E.neg(E.div(inner(E, g, a), E.mul(b, b)))
    # s / v, componentwise (vectors, matrices, quaternions): r_i = s / v_i
    tb = E.type(b)
    q = _cmap2(E, tb, lambda gi, bi: E.div(gi, bi), g, b)
    return _sum(E, q), E.neg(_cmap2(E, tb, E.mul, q, r))


def _flat(E, v):
    """The components of a vector, quaternion or matrix (row-major)."""
    t = E.type(v)
    if is_matrix_type(t):
        return [E.comp(v, i, j) for i in range(t._shape[0]) for j in range(t._shape[1])]
    return [E.comp(v, i) for i in range(t._length)]


def _cmap2(E, t, fn, a, b):
    """A composite of type ``t`` whose components are ``fn`` of the components of ``a`` and ``b``."""
    return E.make(t, [fn(x, y) for x, y in zip(_flat(E, a), _flat(E, b))])


def _sum(E, v):
    comps = _flat(E, v)
    total = comps[0]
    for x in comps[1:]:
        total = E.add(total, x)
    return total


@adjoint("cw_mul")
def _cw_mul(E, args, r, g):
    a, b = args
    return E.cw_mul(g, b), E.cw_mul(g, a)


@adjoint("cw_div")
def _cw_div(E, args, r, g):
    a, b = args
    q = E.cw_div(g, b)
    return q, E.neg(E.cw_mul(q, r))


@adjoint("mod")
def _mod(E, args, r, g):
    # Warp's convention: the whole adjoint goes to ``a``; ``b`` gets none (the true -trunc(a / b) is
    # zero while |a| < |b|, and Warp's gradient tests expect zero everywhere)
    a, b = args
    if not scalar_of(E.type(a)).is_float:
        return None, None
    return g, None  # per component for vectors


# -- elementary functions ----------------------------------------------------------------------------

ADJOINTS["sqrt"] = unary(lambda E, x, r: cdiv(E, c(E, 0.5, x), r) if is_scalar_type(E.type(x))
                         else E.cw_div(E.make(E.type(x), [c(E, 0.5, x)] * E.type(x)._length), r))
ADJOINTS["exp"] = unary(lambda E, x, r: r)
ADJOINTS["exp2"] = unary(lambda E, x, r: E.mul(r, c(E, math.log(2.0), x)))
ADJOINTS["sin"] = unary(lambda E, x, r: E.cos(x))
ADJOINTS["cos"] = unary(lambda E, x, r: E.neg(E.sin(x)))
ADJOINTS["sinh"] = unary(lambda E, x, r: E.cosh(x))
ADJOINTS["cosh"] = unary(lambda E, x, r: E.sinh(x))
ADJOINTS["frac"] = unary(lambda E, x, r: _ones(E, x))
ADJOINTS["degrees"] = unary(lambda E, x, r: _fill(E, x, 180.0 / math.pi))
ADJOINTS["radians"] = unary(lambda E, x, r: _fill(E, x, math.pi / 180.0))


def _fill(E, like, value):
    t = E.type(like)
    k = c(E, value, like)
    return k if is_scalar_type(t) else E.make(t, [k] * t._length)


def _ones(E, like):
    return _fill(E, like, 1.0)


def _scalar_unary(derivative):
    """A scalar function whose derivative needs scalar arithmetic; vectors apply it per component."""

    def rule(E, args, r, g):
        x = args[0]
        t = E.type(x)
        return (_cmap(E, t, lambda gi, xi, ri: E.mul(gi, derivative(E, xi, ri)), g, x, r),)

    return rule


def one_like(E, x):
    return c(E, 1.0, x)


ADJOINTS["log"] = _scalar_unary(lambda E, x, r: E.div(one_like(E, x), x))
ADJOINTS["log2"] = _scalar_unary(lambda E, x, r: E.div(one_like(E, x), E.mul(x, c(E, math.log(2.0), x))))
ADJOINTS["log10"] = _scalar_unary(lambda E, x, r: E.div(one_like(E, x), E.mul(x, c(E, math.log(10.0), x))))
ADJOINTS["cbrt"] = _scalar_unary(lambda E, x, r: E.div(one_like(E, x), E.mul(c(E, 3.0, x), E.mul(r, r))))
ADJOINTS["tan"] = _scalar_unary(lambda E, x, r: E.add(one_like(E, x), E.mul(r, r)))
ADJOINTS["tanh"] = _scalar_unary(lambda E, x, r: E.sub(one_like(E, x), E.mul(r, r)))


def _arcsine_slope(sign):
    """d asin / dx = 1 / sqrt(1 - x^2) (acos: its negative); 0 where that root is not positive (|x| >= 1,
    where the forward clamps, and NaN), as Warp does."""
    def slope(E, x, r):
        d = E.sqrt(E.sub(one_like(E, x), E.mul(x, x)))
        positive = E.gt(d, c(E, 0.0, x))
        return E.sel(positive, E.div(c(E, sign, x), E.sel(positive, d, one_like(E, x))), c(E, 0.0, x))
    return slope


ADJOINTS["asin"] = _scalar_unary(_arcsine_slope(1.0))
ADJOINTS["acos"] = _scalar_unary(_arcsine_slope(-1.0))
ADJOINTS["atan"] = _scalar_unary(lambda E, x, r: E.div(one_like(E, x), E.add(one_like(E, x), E.mul(x, x))))
def _gaussian_slope(scale: float):
    """``scale * exp(-x^2)``, the slope of erf (scale 2/sqrt(pi)) and erfc (its negative); the half types
    compute it in float32 and round once, as Warp does (in float16 it was 1-4 ulp off)."""
    def slope(E, x, r):
        t = E.type(x)
        wide = E.cast(x, float32) if t in (float16, bfloat16) else x
        return E.cast(E.mul(c(E, scale, wide), E.exp(E.neg(E.mul(wide, wide)))), t)
    return slope


ADJOINTS["erf"] = _scalar_unary(_gaussian_slope(2.0 / math.sqrt(math.pi)))
ADJOINTS["erfc"] = _scalar_unary(_gaussian_slope(-2.0 / math.sqrt(math.pi)))
ADJOINTS["erfinv"] = _scalar_unary(lambda E, x, r: E.mul(c(E, math.sqrt(math.pi) / 2.0, x), E.exp(E.mul(r, r))))
ADJOINTS["erfcinv"] = _scalar_unary(
    lambda E, x, r: E.mul(c(E, -math.sqrt(math.pi) / 2.0, x), E.exp(E.mul(r, r))))
ADJOINTS["abs"] = _scalar_unary(
    lambda E, x, r: E.sel(E.lt(x, c(E, 0.0, x)), c(E, -1.0, x), E.sel(E.gt(x, c(E, 0.0, x)), one_like(E, x),
                                                                         c(E, 0.0, x))))


@adjoint("atan2")
def _atan2(E, args, r, g):
    y, x = args
    d = E.add(E.mul(x, x), E.mul(y, y))
    d = E.sel(E.eq(d, c(E, 0.0, x)), c(E, 1.0, x), d)  # at (0, 0): no gradient rather than 0/0 (as Warp)
    return E.div(E.mul(g, x), d), E.neg(E.div(E.mul(g, y), d))


@adjoint("pow")
def _pow(E, args, r, g):
    x, y = args
    t = E.type(x)  # a float scalar, or a float vector taken per component

    def dx(gi, xi, yi):
        return E.mul(gi, E.mul(yi, E.pow(xi, E.sub(yi, one_like(E, xi)))))

    def dy(gi, xi, ri):
        zero = c(E, 0.0, xi)
        return E.sel(E.gt(xi, zero), E.mul(gi, E.mul(ri, E.log(xi))), zero)

    return _cmap(E, t, dx, g, x, y), _cmap(E, t, dy, g, x, r)


@adjoint("copysign")
def _copysign(E, args, r, g):
    a, b = args
    t = E.type(a)

    def d(gi, ai, bi):  # r = |a| with b's sign: dr/da is +1 where the sign bits agree (-0.0 counts), else -1
        one = c(E, 1.0, ai)
        same = E.eq(E.copysign(one, ai), E.copysign(one, bi))
        return E.sel(same, gi, E.neg(gi))

    return _cmap(E, t, d, g, a, b), None


@adjoint("min", "max")
def _minmax(E, args, r, g):
    if len(args) == 1:  # the smallest/largest component: all of g goes to it
        v = args[0]
        t = E.type(v)
        comps, taken = [], None
        for i in range(t._length):
            hit = E.eq(E.comp(v, i), r)
            first = hit if taken is None else E.logical_and(hit, E.logical_not(taken))
            comps.append(E.sel(first, g, c(E, 0.0, r)))
            taken = hit if taken is None else E.logical_or(taken, hit)
        return (E.make(t, comps),)
    a, b = args
    t = E.type(a)
    if not is_scalar_type(t) and not is_vector_type(t):
        return None, None
    zero = c(E, 0.0, a)

    def to_a(gi, ai, bi, ri):
        return E.sel(_picked_first(E, ai, bi, ri), gi, zero)

    def to_b(gi, ai, bi, ri):
        return E.sel(_picked_first(E, ai, bi, ri), zero, gi)

    return _cmap(E, t, to_a, g, a, b, r), _cmap(E, t, to_b, g, a, b, r)


def _picked_first(E, a, b, r):
    """Whether min/max(a, b) = r took ``a``, as Warp's adjoint decides: a tie (``a == b``) goes to ``b``,
    and a NaN operand loses to a number (min/max return the number)."""
    return E.logical_and(E.eq(r, a), E.ne(a, b))


@adjoint("clamp")
def _clamp(E, args, r, g):
    # clamp(x, lo, hi) = min(max(lo, x), hi): the chain rule of min and max, each giving its adjoint to the
    # operand it took (``_picked_first``), so a NaN operand passes it to the bound the result came from
    x, lo, hi = args
    t = E.type(x)
    zero = c(E, 0.0, x)

    def parts(gi, xi, loi, hii, ri):
        m = E.max(loi, xi)
        g_m = E.sel(_picked_first(E, m, hii, ri), gi, zero)
        to_lo = _picked_first(E, loi, xi, m)
        return E.sel(to_lo, zero, g_m), E.sel(to_lo, g_m, zero), E.sel(_picked_first(E, m, hii, ri), zero, gi)

    if is_scalar_type(t):
        return parts(g, x, lo, hi, r)
    per_component = [parts(*(E.comp(v, i) for v in (g, x, lo, hi, r))) for i in range(t._length)]
    return tuple(E.make(t, [p[k] for p in per_component]) for k in range(3))


@adjoint("lerp")
def _lerp(E, args, r, g):
    a, b, t = args
    one = c(E, 1.0, t)
    return E.mul(g, E.sub(one, t)) if is_scalar_type(E.type(a)) else E.mul(E.sub(one, t), g), \
        E.mul(g, t) if is_scalar_type(E.type(a)) else E.mul(t, g), inner(E, g, E.sub(b, a))


@adjoint("smoothstep")
def _smoothstep(E, args, r, g):
    e0, e1, x = args
    zero, one = c(E, 0.0, x), c(E, 1.0, x)
    w = E.sub(e1, e0)
    t = E.div(E.sub(x, e0), w)
    inside = E.logical_and(E.gt(t, zero), E.lt(t, one))
    # outside the ramp nothing flows; w may be 0 there (equal edges: a step), so divide by 1 instead of
    # making 0 * inf a NaN (Warp gives 0 too)
    w, t = E.sel(inside, w, one), E.sel(inside, t, zero)
    ds = E.sel(inside, E.mul(c(E, 6.0, x), E.mul(t, E.sub(one, t))), zero)  # ds/dt
    gx = E.div(E.mul(g, ds), w)
    # t = (x - e0) / (e1 - e0): dt/de0 = (x - e1) / w^2, dt/de1 = -(x - e0) / w^2
    # the edge's term is 0 outside the ramp even where x - e1 is infinite (0 * inf would be NaN)
    return E.sel(inside, E.mul(gx, E.div(E.sub(x, e1), w)), zero), E.neg(E.mul(gx, t)), gx


@adjoint("select")
def _select(E, args, r, g):
    cond, if_false, if_true = args
    z = E.zero(E.type(g))
    return None, E.sel(cond, z, g), E.sel(cond, g, z)


@adjoint("where")
def _where(E, args, r, g):
    cond, if_true, if_false = args
    z = E.zero(E.type(g))
    return None, E.sel(cond, g, z), E.sel(cond, z, g)


# -- vectors and matrices ----------------------------------------------------------------------------


@adjoint("dot")
def _dot(E, args, r, g):
    a, b = args
    return E.mul(g, b), E.mul(g, a)


@adjoint("ddot")
def _ddot(E, args, r, g):
    a, b = args
    return E.mul(g, b), E.mul(g, a)


@adjoint("cross")
def _cross(E, args, r, g):
    a, b = args
    return E.cross(b, g), E.cross(g, a)


@adjoint("length")
def _length(E, args, r, g):
    v = args[0]
    zero = c(E, 0.0, r)
    return (E.sel(E.gt(r, zero), E.mul(E.div(g, E.sel(E.gt(r, zero), r, one_like(E, r))), v), E.zero(E.type(v))),)


@adjoint("length_sq")
def _length_sq(E, args, r, g):
    return (E.mul(E.mul(c(E, 2.0, r), g), args[0]),)


@adjoint("normalize")
def _normalize(E, args, r, g):
    v = args[0]
    t = E.type(v)
    n = E.length(v) if is_vector_type(t) else E.sqrt(inner(E, v, v))
    zero = c(E, 0.0, n)
    safe = E.sel(E.gt(n, zero), n, one_like(E, n))
    d = E.div(E.sub(g, E.mul(inner(E, r, g), r)), safe)
    return (E.sel(E.gt(n, zero), d, E.zero(t)),)


@adjoint("outer")
def _outer(E, args, r, g):
    a, b = args  # M = a b^T
    return E.mul(g, b), E.mul(E.transpose(g), a)


@adjoint("transpose")
def _transpose(E, args, r, g):
    return (E.transpose(g),)


@adjoint("trace")
def _trace(E, args, r, g):
    t = E.type(args[0])
    n = t._shape[0]
    zero = c(E, 0.0, g)
    return (E.make(t, [g if i == j else zero for i in range(n) for j in range(n)]),)


@adjoint("determinant")
def _determinant(E, args, r, g):
    # d det(A) / dA is A's cofactor matrix; det(A) inverse(A)^T equals it only where A is invertible
    a = args[0]
    t = E.type(a)
    n = t._shape[0]
    if n == 1:
        return (E.make(t, [g]),)
    minor_t = matrix((n - 1, n - 1), t._dtype)
    cofactors = []
    for i in range(n):
        for j in range(n):
            rows, cols = [k for k in range(n) if k != i], [k for k in range(n) if k != j]
            if n == 2:
                minor = E.comp(a, rows[0], cols[0])
            else:
                minor = E.determinant(E.make(minor_t, [E.comp(a, p, q) for p in rows for q in cols]))
            cofactors.append(E.mul(g, minor if (i + j) % 2 == 0 else E.neg(minor)))
    return (E.make(t, cofactors),)


@adjoint("inverse", "inverse_approx")
def _inverse(E, args, r, g):
    rt = E.transpose(r)
    return (E.neg(E.mul(E.mul(rt, g), rt)),)


@adjoint("diag")
def _diag(E, args, r, g):
    return (E.get_diag(g),)


@adjoint("get_diag")
def _get_diag(E, args, r, g):
    return (E.diag(g),)


@adjoint("skew")
def _skew(E, args, r, g):
    t = E.type(args[0])

    def m(i, j):
        return E.comp(g, i, j)

    return (E.make(t, [E.sub(m(2, 1), m(1, 2)), E.sub(m(0, 2), m(2, 0)), E.sub(m(1, 0), m(0, 1))]),)


@adjoint("matrix_from_rows")
def _from_rows(E, args, r, g):
    return tuple(E.comp(g, i) for i in range(len(args)))


@adjoint("matrix_from_cols")
def _from_cols(E, args, r, g):
    gt = E.transpose(g)
    return tuple(E.comp(gt, i) for i in range(len(args)))


# -- quaternions ------------------------------------------------------------------------------------


@adjoint("quat_inverse")
def _quat_inverse(E, args, r, g):
    return (conj(E, g),)


def _rotate(sign):
    """r = p (2 w^2 - 1) + 2 s w (v x p) + 2 v (v . p), the formula the CPU target computes."""

    def rule(E, args, r, g):
        q, p = args
        qt, vt = E.type(q), E.type(p)
        w = E.comp(q, 3)
        v = E.make(vt, [E.comp(q, i) for i in range(3)])
        two = c(E, 2.0, w)
        sw = E.mul(c(E, 2.0 * sign, w), w)  # 2 s w
        a = E.sub(E.mul(two, E.mul(w, w)), one_like(E, w))
        vg = E.dot(v, g)
        adj_p = E.add(E.add(E.mul(a, g), E.mul(sw, E.cross(g, v))), E.mul(E.mul(two, vg), v))
        adj_w = E.dot(g, E.add(E.mul(E.mul(c(E, 4.0, w), w), p), E.mul(c(E, 2.0 * sign, w), E.cross(v, p))))
        adj_v = E.add(E.add(E.mul(sw, E.cross(p, g)), E.mul(E.mul(two, E.dot(v, p)), g)), E.mul(E.mul(two, vg), p))
        adj_q = E.make(qt, [E.comp(adj_v, 0), E.comp(adj_v, 1), E.comp(adj_v, 2), adj_w])
        return adj_q, adj_p

    return rule


ADJOINTS["quat_rotate"] = _rotate(1.0)
ADJOINTS["quat_rotate_inv"] = _rotate(-1.0)


@adjoint("quat_from_axis_angle")
def _quat_from_axis_angle(E, args, r, g):
    axis, angle = args  # q = (axis sin(h), cos(h)), h = angle / 2
    h = E.mul(angle, c(E, 0.5, angle))
    s, co = E.sin(h), E.cos(h)
    gv = E.make(E.type(axis), [E.comp(g, i) for i in range(3)])
    d_angle = E.mul(c(E, 0.5, angle), E.sub(E.mul(E.dot(gv, axis), co), E.mul(E.comp(g, 3), s)))
    return E.mul(s, gv), d_angle


# -- noise: the gradient at the point (nothing flows to the state or the integer arguments) --------------


@adjoint("noise")
def _noise(E, args, r, g):
    return None, E.mul(g, E.noise_grad(*args))


@adjoint("pnoise")
def _pnoise(E, args, r, g):
    return (None, E.mul(g, E.pnoise_grad(*args))) + (None,) * (len(args) - 2)


@adjoint("curlnoise")
def _curlnoise(E, args, r, g):
    state, p, *options = args
    return (None, E.curlnoise_vjp(state, p, g, *options)) + (None,) * len(options)


def is_differentiable_type(t) -> bool:
    """Whether values of ``t`` carry an adjoint: floating-point scalars and composites of them."""
    if is_scalar_type(t):
        return t.is_float
    if is_vector_type(t) or is_matrix_type(t) or is_quat_type(t) or is_transform_type(t):
        return t._dtype.is_float
    return False


# Registers the expansions and the decompositions' rules (those modules import the helpers above).
from . import (  # noqa: E402,F401
    decomposition_adjoints,
    expansions,
    geometry_adjoints,
    mesh_adjoints,
    texture_adjoints,
    volume_adjoints,
)
