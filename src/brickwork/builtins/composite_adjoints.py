"""Adjoint rules of the vector, matrix and quaternion builtins (the rule convention: ``adjoints``)."""

from __future__ import annotations

from ..types.composite import is_vector_type, matrix
from .adjoints import ADJOINTS, adjoint, c, conj, inner, one_like

# -- vectors and matrices ----------------------------------------------------------------------------


@adjoint("dot", "ddot")
def _dot(E, args, r, g):
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
    # (v / r) * g, in Warp 1.19's order: (g / r) * v rounds an ulp apart in a third of the components
    return (E.sel(E.gt(r, zero), E.mul(E.div(v, E.sel(E.gt(r, zero), r, one_like(E, r))), g), E.zero(E.type(v))),)


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
