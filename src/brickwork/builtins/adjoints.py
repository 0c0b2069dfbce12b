"""Adjoint rules of the builtins: how a builtin's result adjoint flows back to its arguments.

A rule is ``rule(E, args, r, g) -> contributions``: ``args`` are the call's argument values, ``r``
its result, ``g`` the adjoint of the result; it returns one contribution per argument (``None``:
nothing flows to that argument), of the argument's type. Rules build values only through ``E``,
the builder the adjoint pass hands in (``E.<builtin>(...)`` calls a builtin of this table, with
``E.type``, ``E.const``, ``E.zero``, ``E.comp``, ``E.make``, ``E.sel``), so a rule never sees the
IR and every target differentiates the same way. Builtins in ``NOT_DIFFERENTIABLE`` are piecewise
constant or integer-valued: nothing flows back. A builtin in neither table has no adjoint yet; the
adjoint pass reports it when a backward kernel needs it.
"""

from __future__ import annotations

import math

from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from ..types.scalars import is_scalar_type

ADJOINTS: dict = {}

NOT_DIFFERENTIABLE = frozenset(
    "floor ceil round trunc rint sign step eq ne lt le gt ge logical_and logical_or logical_not bit_and bit_or "
    "bit_xor bit_count lshift rshift invert isfinite isinf isnan argmin argmax nonzero floordiv rand_init randi "
    "randf randn randu sample_triangle sample_unit_cube sample_unit_disk sample_unit_hemisphere "
    "sample_unit_hemisphere_surface sample_unit_ring sample_unit_sphere sample_unit_sphere_surface "
    "sample_unit_square".split())


def adjoint(*names):
    """Register ``rule`` as the adjoint of the builtins ``names``."""

    def register(rule):
        for name in names:
            ADJOINTS[name] = rule
        return rule

    return register


# -- helpers over scalars, vectors, matrices, quaternions --------------------------------------------


def _scalar(t):
    return t if is_scalar_type(t) else t._dtype


def c(E, value, like):
    """The constant ``value`` of the scalar type of ``like``."""
    return E.const(value, _scalar(E.type(like)))


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
        return E.mul(g, _conj(E, b)), E.mul(_conj(E, a), g)
    if is_matrix_type(ta) and is_matrix_type(tb):
        return E.mul(g, E.transpose(b)), E.mul(E.transpose(a), g)
    if is_matrix_type(ta):  # y = A x
        return E.outer(g, b), E.mul(E.transpose(a), g)
    if is_matrix_type(tb):  # y = x A
        return E.mul(b, g), E.outer(a, g)
    return None, None  # transform products: no rule yet (reported by the pass)


ADJOINTS["matmul"] = _mul


def _conj(E, q):
    t = E.type(q)
    return E.make(t, [E.neg(E.comp(q, 0)), E.neg(E.comp(q, 1)), E.neg(E.comp(q, 2)), E.comp(q, 3)])


@adjoint("div")
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
    if not is_scalar_type(E.type(a)) or not E.type(a).is_float:
        return None, None
    return g, None


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


def _one(E, x):
    return c(E, 1.0, x)


ADJOINTS["log"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), x))
ADJOINTS["log2"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), E.mul(x, c(E, math.log(2.0), x))))
ADJOINTS["log10"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), E.mul(x, c(E, math.log(10.0), x))))
ADJOINTS["cbrt"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), E.mul(c(E, 3.0, x), E.mul(r, r))))
ADJOINTS["tan"] = _scalar_unary(lambda E, x, r: E.add(_one(E, x), E.mul(r, r)))
ADJOINTS["tanh"] = _scalar_unary(lambda E, x, r: E.sub(_one(E, x), E.mul(r, r)))
ADJOINTS["asin"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), E.sqrt(E.sub(_one(E, x), E.mul(x, x)))))
ADJOINTS["acos"] = _scalar_unary(lambda E, x, r: E.neg(E.div(_one(E, x), E.sqrt(E.sub(_one(E, x), E.mul(x, x))))))
ADJOINTS["atan"] = _scalar_unary(lambda E, x, r: E.div(_one(E, x), E.add(_one(E, x), E.mul(x, x))))
ADJOINTS["erf"] = _scalar_unary(lambda E, x, r: E.mul(c(E, 2.0 / math.sqrt(math.pi), x), E.exp(E.neg(E.mul(x, x)))))
ADJOINTS["erfc"] = _scalar_unary(
    lambda E, x, r: E.mul(c(E, -2.0 / math.sqrt(math.pi), x), E.exp(E.neg(E.mul(x, x)))))
ADJOINTS["erfinv"] = _scalar_unary(lambda E, x, r: E.mul(c(E, math.sqrt(math.pi) / 2.0, x), E.exp(E.mul(r, r))))
ADJOINTS["erfcinv"] = _scalar_unary(
    lambda E, x, r: E.mul(c(E, -math.sqrt(math.pi) / 2.0, x), E.exp(E.mul(r, r))))
ADJOINTS["abs"] = _scalar_unary(
    lambda E, x, r: E.sel(E.lt(x, c(E, 0.0, x)), c(E, -1.0, x), E.sel(E.gt(x, c(E, 0.0, x)), _one(E, x),
                                                                         c(E, 0.0, x))))


@adjoint("atan2")
def _atan2(E, args, r, g):
    y, x = args
    d = E.add(E.mul(x, x), E.mul(y, y))
    return E.div(E.mul(g, x), d), E.neg(E.div(E.mul(g, y), d))


@adjoint("pow")
def _pow(E, args, r, g):
    x, y = args
    if not is_scalar_type(E.type(x)):
        return None, None
    zero = c(E, 0.0, x)
    dx = E.mul(g, E.mul(y, E.pow(x, E.sub(y, _one(E, x)))))
    dy = E.sel(E.gt(x, zero), E.mul(g, E.mul(r, E.log(x))), zero)
    return dx, dy


@adjoint("copysign")
def _copysign(E, args, r, g):
    a, b = args
    t = E.type(a)
    zero = c(E, 0.0, a)

    def d(gi, ai, ri):  # r = |a| with b's sign: dr/da = sign(a) sign(r)
        same = E.eq(E.lt(ai, zero), E.lt(ri, zero))
        return E.sel(same, gi, E.neg(gi))

    return _cmap(E, t, d, g, a, r), None


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

    def to_a(gi, ai, ri):  # ties go to the first argument, as Warp
        return E.sel(E.eq(ri, ai), gi, zero)

    def to_b(gi, ai, ri):
        return E.sel(E.eq(ri, ai), zero, gi)

    return _cmap(E, t, to_a, g, a, r), _cmap(E, t, to_b, g, a, r)


@adjoint("clamp")
def _clamp(E, args, r, g):
    x, lo, hi = args
    t = E.type(x)
    if not is_scalar_type(t):
        return None, None, None
    zero = c(E, 0.0, x)
    below, above = E.lt(x, lo), E.gt(x, hi)
    inside = E.logical_not(E.logical_or(below, above))
    return E.sel(inside, g, zero), E.sel(below, g, zero), E.sel(above, g, zero)


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
    ds = E.sel(inside, E.mul(c(E, 6.0, x), E.mul(t, E.sub(one, t))), zero)  # ds/dt
    gx = E.div(E.mul(g, ds), w)
    # t = (x - e0) / (e1 - e0): dt/de0 = (x - e1) / w^2, dt/de1 = -(x - e0) / w^2
    return E.mul(gx, E.div(E.sub(x, e1), w)), E.neg(E.mul(gx, t)), gx


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
    return (E.sel(E.gt(r, zero), E.mul(E.div(g, E.sel(E.gt(r, zero), r, _one(E, r))), v), E.zero(E.type(v))),)


@adjoint("length_sq")
def _length_sq(E, args, r, g):
    return (E.mul(E.mul(c(E, 2.0, r), g), args[0]),)


@adjoint("normalize")
def _normalize(E, args, r, g):
    v = args[0]
    t = E.type(v)
    n = E.length(v) if is_vector_type(t) else E.sqrt(inner(E, v, v))
    zero = c(E, 0.0, n)
    safe = E.sel(E.gt(n, zero), n, _one(E, n))
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
    a = args[0]
    return (E.mul(E.mul(g, r), E.transpose(E.inverse(a))),)


@adjoint("inverse")
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
    return (_conj(E, g),)


def _rotate(sign):
    """r = p (2 w^2 - 1) + 2 s w (v x p) + 2 v (v . p), the formula the CPU target computes."""

    def rule(E, args, r, g):
        q, p = args
        qt, vt = E.type(q), E.type(p)
        w = E.comp(q, 3)
        v = E.make(vt, [E.comp(q, i) for i in range(3)])
        two = c(E, 2.0, w)
        sw = E.mul(c(E, 2.0 * sign, w), w)  # 2 s w
        a = E.sub(E.mul(two, E.mul(w, w)), _one(E, w))
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


def is_differentiable_type(t) -> bool:
    """Whether values of ``t`` carry an adjoint: floating-point scalars and composites of them."""
    if is_scalar_type(t):
        return t.is_float
    if is_vector_type(t) or is_matrix_type(t) or is_quat_type(t) or is_transform_type(t):
        return t._dtype.is_float
    return False


# -- expansions: builtins differentiated through their definition -----------------------------------
#
# A backward kernel replaces a call of one of these builtins by the same computation written with
# simpler builtins (the formula the CPU target computes), so its adjoint follows from their rules.
# ``EXPANSIONS[name](E, args)`` returns the result value, or None when these argument types have no
# expansion.

EXPANSIONS: dict = {}


def expansion(*names):
    def register(rule):
        for name in names:
            EXPANSIONS[name] = rule
        return rule

    return register


def _vec3(E, like_dtype_of, comps):
    from ..types.composite import vector

    return E.make(vector(3, _scalar(E.type(like_dtype_of))), comps)


def _top(E, a):
    return _vec3(E, a, [E.comp(a, i) for i in range(3)])


def _bottom(E, a):
    return _vec3(E, a, [E.comp(a, i) for i in range(3, 6)])


def _join(E, t, w, v):
    return E.make(t, [E.comp(w, i) for i in range(3)] + [E.comp(v, i) for i in range(3)])


@expansion("spatial_top")
def _x_top(E, args):
    return _top(E, args[0])


@expansion("spatial_bottom")
def _x_bottom(E, args):
    return _bottom(E, args[0])


@expansion("spatial_dot")
def _x_spatial_dot(E, args):
    return E.dot(args[0], args[1])


@expansion("spatial_cross")
def _x_spatial_cross(E, args):
    a, b = args
    wa, va, wb, vb = _top(E, a), _bottom(E, a), _top(E, b), _bottom(E, b)
    return _join(E, E.type(a), E.cross(wa, wb), E.add(E.cross(wa, vb), E.cross(va, wb)))


@expansion("spatial_cross_dual")
def _x_spatial_cross_dual(E, args):
    a, b = args
    wa, va, wb, vb = _top(E, a), _bottom(E, a), _top(E, b), _bottom(E, b)
    return _join(E, E.type(a), E.add(E.cross(wa, wb), E.cross(va, vb)), E.cross(wa, vb))


@expansion("velocity_at_point")
def _x_velocity_at_point(E, args):
    qd, r = args
    return E.add(E.cross(_top(E, qd), r), _bottom(E, qd))


@expansion("spatial_adjoint")
def _x_spatial_adjoint(E, args):
    from ..types.composite import matrix

    r, s = args
    dtype = _scalar(E.type(r))
    zero = E.const(0.0, dtype)
    comps = []
    for i in range(6):
        for j in range(6):
            if i < 3:
                comps.append(E.comp(r, i, j) if j < 3 else zero)
            else:
                comps.append(E.comp(s, i - 3, j) if j < 3 else E.comp(r, i - 3, j - 3))
    return E.make(matrix((6, 6), dtype), comps)


def _translation(E, t):
    return _vec3(E, t, [E.comp(t, i) for i in range(3)])


def _rotation(E, t):
    from ..types.composite import quaternion

    return E.make(quaternion(_scalar(E.type(t))), [E.comp(t, i) for i in range(3, 7)])


def _transform(E, t, p, q):
    return E.make(t, [E.comp(p, i) for i in range(3)] + [E.comp(q, i) for i in range(4)])


@expansion("transform_get_translation")
def _x_get_translation(E, args):
    return _translation(E, args[0])


@expansion("transform_get_rotation")
def _x_get_rotation(E, args):
    return _rotation(E, args[0])


@expansion("transform_vector")
def _x_transform_vector(E, args):
    t, x = args
    if is_matrix_type(E.type(t)):
        return _vec3(E, t, [E.add(E.add(E.mul(E.comp(t, i, 0), E.comp(x, 0)), E.mul(E.comp(t, i, 1), E.comp(x, 1))),
                                  E.mul(E.comp(t, i, 2), E.comp(x, 2))) for i in range(3)])
    return E.quat_rotate(_rotation(E, t), x)


@expansion("transform_point")
def _x_transform_point(E, args):
    t, x = args
    r = _x_transform_vector(E, args)
    if is_matrix_type(E.type(t)):
        return _vec3(E, t, [E.add(E.comp(r, i), E.comp(t, i, 3)) for i in range(3)])
    return E.add(_translation(E, t), r)


@expansion("transform_multiply")
def _x_transform_multiply(E, args):
    a, b = args
    p = _x_transform_point(E, [a, _translation(E, b)])
    return _transform(E, E.type(a), p, E.mul(_rotation(E, a), _rotation(E, b)))


@expansion("transform_inverse")
def _x_transform_inverse(E, args):
    t = args[0]
    qi = _conj(E, _rotation(E, t))
    return _transform(E, E.type(t), E.neg(E.quat_rotate(qi, _translation(E, t))), qi)


@expansion("transform_twist")
def _x_transform_twist(E, args):
    t, x = args
    q = _rotation(E, t)
    w = E.quat_rotate(q, _top(E, x))
    return _join(E, E.type(x), w, E.add(E.quat_rotate(q, _bottom(E, x)), E.cross(_translation(E, t), w)))


@expansion("transform_wrench")
def _x_transform_wrench(E, args):
    t, x = args
    q = _rotation(E, t)
    v = E.quat_rotate(q, _bottom(E, x))
    return _join(E, E.type(x), E.add(E.quat_rotate(q, _top(E, x)), E.cross(_translation(E, t), v)), v)


@expansion("quat_to_matrix")
def _x_quat_to_matrix(E, args):
    q = args[0]
    one, zero = c(E, 1.0, q), c(E, 0.0, q)
    axes = [[one, zero, zero], [zero, one, zero], [zero, zero, one]]
    return E.matrix_from_cols(*(E.quat_rotate(q, _vec3(E, q, a)) for a in axes))


@expansion("quat_rpy")
def _x_quat_rpy(E, args):
    from ..types.composite import quaternion

    roll, pitch, yaw = args
    half = c(E, 0.5, roll)
    cy, sy = E.cos(E.mul(yaw, half)), E.sin(E.mul(yaw, half))
    cr, sr = E.cos(E.mul(roll, half)), E.sin(E.mul(roll, half))
    cp, sp = E.cos(E.mul(pitch, half)), E.sin(E.mul(pitch, half))

    def m3(a, b, d):
        return E.mul(E.mul(a, b), d)

    comps = [E.sub(m3(sr, cp, cy), m3(cr, sp, sy)), E.add(m3(cr, sp, cy), m3(sr, cp, sy)),
             E.sub(m3(cr, cp, sy), m3(sr, sp, cy)), E.add(m3(cr, cp, cy), m3(sr, sp, sy))]
    return E.make(quaternion(E.type(roll)), comps)


@expansion("mul")
def _x_mul(E, args):
    a, b = args
    if is_transform_type(E.type(a)) and E.type(a) is E.type(b):
        return _x_transform_multiply(E, args)
    return None


def _delta(E, args, v):
    return args[1] if len(args) > 1 else c(E, 1.0, v)


@expansion("norm_l1")
def _x_norm_l1(E, args):
    v = args[0]
    total = E.abs(E.comp(v, 0))
    for i in range(1, E.type(v)._length):
        total = E.add(total, E.abs(E.comp(v, i)))
    return total


@expansion("norm_l2")
def _x_norm_l2(E, args):
    return E.length(args[0])


@expansion("norm_huber")
def _x_norm_huber(E, args):
    v = args[0]
    delta = _delta(E, args, v)
    a = E.length(v)
    half = c(E, 0.5, v)
    return E.sel(E.le(a, delta), E.mul(E.mul(half, a), a), E.mul(delta, E.sub(a, E.mul(half, delta))))


@expansion("norm_pseudo_huber")
def _x_norm_pseudo_huber(E, args):
    v = args[0]
    delta = _delta(E, args, v)
    return E.sqrt(E.add(E.length_sq(v), E.mul(delta, delta)))


@expansion("smooth_normalize")
def _x_smooth_normalize(E, args):
    return E.div(args[0], _x_norm_pseudo_huber(E, args))


@expansion("quat_to_rpy")
def _x_quat_to_rpy(E, args):
    q = args[0]
    x, y, z, w = (E.comp(q, i) for i in range(4))
    one, two = c(E, 1.0, q), c(E, 2.0, q)
    roll = E.atan2(E.mul(two, E.add(E.mul(w, x), E.mul(y, z))),
                   E.sub(one, E.mul(two, E.add(E.mul(x, x), E.mul(y, y)))))
    pitch = E.asin(E.clamp(E.mul(two, E.sub(E.mul(w, y), E.mul(z, x))), c(E, -1.0, q), one))
    yaw = E.atan2(E.mul(two, E.add(E.mul(w, z), E.mul(x, y))),
                  E.sub(one, E.mul(two, E.add(E.mul(y, y), E.mul(z, z)))))
    return _vec3(E, q, [roll, pitch, yaw])


def _axis_angle(E, q):
    """``quat_to_axis_angle``'s formula: the axis ``v / |v|`` (pointing away when ``w < 0``, zero when ``v``
    is) and the angle ``2 atan2(|v|, |w|)``."""
    v = _vec3(E, q, [E.comp(q, i) for i in range(3)])
    w = E.comp(q, 3)
    zero, one = c(E, 0.0, q), _one(E, w)
    n = E.length(v)
    has_axis = E.gt(n, zero)
    k = E.sel(has_axis, E.div(E.sel(E.lt(w, zero), c(E, -1.0, q), one), E.sel(has_axis, n, one)), zero)
    return E.mul(v, k), E.mul(c(E, 2.0, q), E.atan2(n, E.abs(w)))


@expansion("quat_to_axis_angle")
def _x_quat_to_axis_angle(E, args):
    from ..types.opaque import TupleType

    axis, angle = _axis_angle(E, args[0])
    return E.make(TupleType((E.type(axis), E.type(angle))), [axis, angle])


@expansion("quat_slerp")
def _x_quat_slerp(E, args):
    q0, q1, t = args  # q0 times the rotation from q0 to q1, its angle scaled by t
    axis, angle = _axis_angle(E, E.mul(E.quat_inverse(q0), q1))
    return E.mul(q0, E.quat_from_axis_angle(axis, E.mul(t, angle)))


@expansion("quat_from_matrix")
def _x_quat_from_matrix(E, args):
    # the four branches of the formula the target computes (on the trace, then on the largest diagonal
    # entry), each with a square root of 1 where it is not taken, so that no NaN meets a zero adjoint
    m = args[0]

    def a(i, j):
        return E.comp(m, i, j)

    one, zero, half = c(E, 1.0, m), c(E, 0.0, m), c(E, 0.5, m)
    m00, m11, m22 = a(0, 0), a(1, 1), a(2, 2)
    tr = E.add(E.add(m00, m11), m22)
    on_trace = E.ge(tr, zero)
    on_x = E.logical_and(E.logical_not(on_trace), E.logical_and(E.ge(m00, m11), E.ge(m00, m22)))
    on_y = E.logical_and(E.logical_not(E.logical_or(on_trace, on_x)), E.ge(m11, m22))
    on_z = E.logical_not(E.logical_or(E.logical_or(on_trace, on_x), on_y))

    def branch(taken, radicand, i, j, k):
        """Components (x, y, z, w): the ``i``-th is ``h / 2``; ``k`` gives the sums (or the difference
        for w) of off-diagonal pairs scaled by ``1 / (2 h)``; ``i = 3`` is the trace branch."""
        h = E.sqrt(E.sel(taken, E.add(radicand, one), one))
        s = E.div(half, h)
        comps = [None] * 4
        comps[i] = E.mul(half, h)
        for slot, (p, q, sign) in zip(j, k):
            pair = E.add(a(*p), a(*q)) if sign > 0 else E.sub(a(*p), a(*q))
            comps[slot] = E.mul(pair, s)
        return comps

    cases = [
        (on_trace, branch(on_trace, tr, 3, (0, 1, 2), [((2, 1), (1, 2), -1), ((0, 2), (2, 0), -1),
                                                         ((1, 0), (0, 1), -1)])),
        (on_x, branch(on_x, E.sub(m00, E.add(m11, m22)), 0, (1, 2, 3), [((0, 1), (1, 0), 1), ((2, 0), (0, 2), 1),
                                                                       ((2, 1), (1, 2), -1)])),
        (on_y, branch(on_y, E.sub(m11, E.add(m22, m00)), 1, (2, 0, 3), [((1, 2), (2, 1), 1), ((0, 1), (1, 0), 1),
                                                                       ((0, 2), (2, 0), -1)])),
        (on_z, branch(on_z, E.sub(m22, E.add(m00, m11)), 2, (0, 1, 3), [((2, 0), (0, 2), 1), ((1, 2), (2, 1), 1),
                                                                       ((1, 0), (0, 1), -1)])),
    ]
    comps = []
    for slot in range(4):
        value = cases[3][1][slot]
        for taken, branch_comps in reversed(cases[:3]):
            value = E.sel(taken, branch_comps[slot], value)
        comps.append(value)
    from ..types.composite import quaternion

    return E.normalize(E.make(quaternion(_scalar(E.type(m))), comps))


# -- decompositions: differentiated through their packed forms ---------------------------------------


def _block(E, p, start: int, n: int):
    """Rows ``start .. start + n - 1`` of the packed matrix ``p`` as an n x n matrix."""
    return E.matrix_from_rows(*(E.comp(p, start + i) for i in range(n)))


def _entrywise(E, t, n: int, fn):
    """The n x n matrix of type ``t`` with entries ``fn(i, j)``."""
    return E.make(t, [fn(i, j) for i in range(n) for j in range(n)])


def _over_gap(E, x, a, b):
    """``x / (b - a)``, or 0 where ``a == b`` (a repeated eigen- or singular value: no rotation among
    them). A quotient, not ``x`` times ``1 / (b - a)``: in half precision a tiny gap's inverse overflows,
    and a zero ``x`` must stay zero."""
    zero = c(E, 0.0, a)
    gap = E.sub(b, a)
    distinct = E.ne(gap, zero)
    return E.sel(distinct, E.div(x, E.sel(distinct, gap, _one(E, a))), zero)


def _unpack(decomposition):
    @expansion(decomposition)
    def expand(E, args):
        from ..types.opaque import TupleType
        from .decompositions import PACKED

        packed, n, rows = PACKED[decomposition]
        p = getattr(E, packed)(args[0])
        parts, at = [], 0
        for k in rows:
            parts.append(_block(E, p, at, n) if k == n else E.comp(p, at))
            at += k
        return E.make(TupleType(tuple(E.type(x) for x in parts)), parts)

    return expand


for _decomposition in ("svd3", "svd2", "qr3", "eig3"):
    _unpack(_decomposition)


def _svd_adjoint(n: int):
    """A = U diag(s) V^T: A' = U [J diag(s) + diag(s') + diag(s) K] V^T with J = F o (U^T U' - U'^T U),
    K = F o (V^T V' - V'^T V), F_ij = 1 / (s_j^2 - s_i^2) (0 for equal values)."""

    def rule(E, args, r, g):
        a = args[0]
        t = E.type(a)
        u, v, gu, gv = _block(E, r, 0, n), _block(E, r, n + 1, n), _block(E, g, 0, n), _block(E, g, n + 1, n)
        s, gs = E.comp(r, n), E.comp(g, n)
        sq = [E.mul(E.comp(s, i), E.comp(s, i)) for i in range(n)]
        ut_gu, vt_gv = E.mul(E.transpose(u), gu), E.mul(E.transpose(v), gv)

        def middle(i, j):
            if i == j:
                return E.comp(gs, i)
            jt = _over_gap(E, E.sub(E.comp(ut_gu, i, j), E.comp(ut_gu, j, i)), sq[i], sq[j])
            kt = _over_gap(E, E.sub(E.comp(vt_gv, i, j), E.comp(vt_gv, j, i)), sq[i], sq[j])
            return E.add(E.mul(jt, E.comp(s, j)), E.mul(E.comp(s, i), kt))

        return (E.mul(E.mul(u, _entrywise(E, t, n, middle)), E.transpose(v)),)

    return rule


ADJOINTS["svd3_packed"] = _svd_adjoint(3)
ADJOINTS["svd2_packed"] = _svd_adjoint(2)


@adjoint("eig3_packed")
def _eig3_packed(E, args, r, g):
    # A = Q diag(d) Q^T (A symmetric): A' = Q [diag(d') + F o (Q^T Q')] Q^T, F_ij = 1 / (d_j - d_i) (0 for
    # equal eigenvalues), symmetrized as A is
    a = args[0]
    t = E.type(a)
    q, gq = _block(E, r, 0, 3), _block(E, g, 0, 3)
    d, gd = E.comp(r, 3), E.comp(g, 3)
    qt_gq = E.mul(E.transpose(q), gq)

    def middle(i, j):
        if i == j:
            return E.comp(gd, i)
        return _over_gap(E, E.comp(qt_gq, i, j), E.comp(d, i), E.comp(d, j))

    full = E.mul(E.mul(q, _entrywise(E, t, 3, middle)), E.transpose(q))
    return (E.mul(c(E, 0.5, a), E.add(full, E.transpose(full))),)


@adjoint("qr3_packed")
def _qr3_packed(E, args, r, g):
    # A = Q R: M = R R'^T - Q'^T Q, A' = (Q' + Q copyltu(M)) R^-T with copyltu(M)_ij = M_max(i,j),min(i,j)
    a = args[0]
    t = E.type(a)
    q, rr, gq, gr = _block(E, r, 0, 3), _block(E, r, 3, 3), _block(E, g, 0, 3), _block(E, g, 3, 3)
    m = E.sub(E.mul(rr, E.transpose(gr)), E.mul(E.transpose(gq), q))
    lower = _entrywise(E, t, 3, lambda i, j: E.comp(m, max(i, j), min(i, j)))
    return (E.mul(E.add(gq, E.mul(q, lower)), E.transpose(E.inverse(rr))),)
