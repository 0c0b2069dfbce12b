"""Adjoint rules of arithmetic (``+ - * / %``, componentwise products), of the elementary functions and of
min, max, clamp, lerp, smoothstep, select and where (the rule convention: ``adjoints``)."""

from __future__ import annotations

import math

from ..types.composite import is_matrix_type, is_quat_type, is_vector_type
from ..types.scalars import bfloat16, float16, float32, is_scalar_type
from .adjoints import ADJOINTS, adjoint, c, cdiv, conj, inner, one_like, scalar_of, unary


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
