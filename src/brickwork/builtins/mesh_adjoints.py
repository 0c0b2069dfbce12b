"""Adjoint rules of the mesh queries, as far as Warp 1.19 differentiates them: the barycentric ``u``, ``v`` of the
closest point (``mesh_query_point`` and its signed variants) with respect to the query point, ``t``, ``u`` and
``v`` of a ray hit (``mesh_query_ray``) with respect to its start and direction, and ``mesh_eval_position`` /
``mesh_eval_velocity`` with respect to ``u`` and ``v``. The face, the sign and the ray's normal are piecewise
constant: no gradient. The mesh's points get none from these queries (nor in Warp).

The closest point's region of the triangle (a vertex, an edge, the face) is found again from the query point,
by the tests of the forward routine (include/brickwork_bvh.h: closest_on_triangle), so each region's
derivative is the one of its own formula: zero at a vertex, the edge's projection, the plane's projection.
"""

from __future__ import annotations

from .adjoints import adjoint, c


def _triangle(E, mesh, face):
    """The corners of triangle ``face`` (the weights ``u``, ``v`` are the first two's)."""
    first = E.add(E.add(face, face), face)
    return tuple(E.mesh_get_point(mesh, E.add(first, E.int_const(k))) for k in range(3))


def _plane_weights_gradient(E, a, b, cc, gu, gv):
    """``gu du/dp + gv dv/dp`` for ``(u, v)`` of the projection of ``p`` onto the triangle's plane."""
    e0, e1 = E.sub(a, cc), E.sub(b, cc)
    g00, g01, g11 = E.dot(e0, e0), E.dot(e0, e1), E.dot(e1, e1)
    det = E.sub(E.mul(g00, g11), E.mul(g01, g01))
    du = E.sub(E.mul(e0, g11), E.mul(e1, g01))  # det * du/dp
    dv = E.sub(E.mul(e1, g00), E.mul(e0, g01))  # det * dv/dp
    zero = c(E, 0.0, gu)
    safe = E.sel(E.eq(det, zero), c(E, 1.0, gu), det)
    return E.div(E.add(E.mul(du, gu), E.mul(dv, gv)), safe)


def _edge_gradient(E, start, end, weight):
    """``weight * dt/dp`` for ``t`` of the projection of ``p`` onto the line from ``start`` to ``end``."""
    edge = E.sub(end, start)
    length_sq = E.dot(edge, edge)
    zero = c(E, 0.0, weight)
    return E.mul(edge, E.div(weight, E.sel(E.eq(length_sq, zero), c(E, 1.0, weight), length_sq)))


def _closest_point_gradient(E, p, a, b, cc, gu, gv):
    """``gu du/dp + gv dv/dp`` for the weights of the point of triangle ``(a, b, cc)`` closest to ``p``."""
    zero = c(E, 0.0, gu)
    ab, ac = E.sub(b, a), E.sub(cc, a)
    ap, bp, cp = E.sub(p, a), E.sub(p, b), E.sub(p, cc)
    d1, d2, d3, d4, d5, d6 = E.dot(ab, ap), E.dot(ac, ap), E.dot(ab, bp), E.dot(ac, bp), E.dot(ab, cp), E.dot(ac, cp)
    at_a = E.logical_and(E.le(d1, zero), E.le(d2, zero))
    at_b = E.logical_and(E.ge(d3, zero), E.le(d4, d3))
    vc = E.sub(E.mul(d1, d4), E.mul(d3, d2))
    on_ab = E.logical_and(E.le(vc, zero), E.logical_and(E.ge(d1, zero), E.le(d3, zero)))
    at_c = E.logical_and(E.ge(d6, zero), E.le(d5, d6))
    vb = E.sub(E.mul(d5, d2), E.mul(d1, d6))
    on_ac = E.logical_and(E.le(vb, zero), E.logical_and(E.ge(d2, zero), E.le(d6, zero)))
    va = E.sub(E.mul(d3, d6), E.mul(d5, d4))
    on_bc = E.logical_and(E.le(va, zero), E.logical_and(E.ge(E.sub(d4, d3), zero), E.ge(E.sub(d5, d6), zero)))
    none = E.zero(E.type(p))
    # the forward routine's order: A, B, AB, C, AC, BC, the face
    # on ab: u = 1 - t, v = t; on ac: u = 1 - t, v = 0; on bc: u = 0, v = 1 - t (t along the edge)
    result = _plane_weights_gradient(E, a, b, cc, gu, gv)
    result = E.sel(on_bc, _edge_gradient(E, b, cc, E.neg(gv)), result)
    result = E.sel(on_ac, _edge_gradient(E, a, cc, E.neg(gu)), result)
    result = E.sel(at_c, none, result)
    result = E.sel(on_ab, _edge_gradient(E, a, b, E.sub(gv, gu)), result)
    return E.sel(E.logical_or(at_a, at_b), none, result)


@adjoint("mesh_query_point", "mesh_query_point_no_sign", "mesh_query_point_sign_normal",
         "mesh_query_point_sign_winding_number", "mesh_query_point_sign_parity")
def _mesh_query_point(E, args, r, g):
    mesh, point = args[0], args[1]
    found = E.field(r, "result")
    face = E.sel(found, E.field(r, "face"), E.int_const(0))  # a miss has no face: read the first, add nothing
    a, b, cc = _triangle(E, mesh, face)
    gradient = _closest_point_gradient(E, point, a, b, cc, E.field(g, "u"), E.field(g, "v"))
    return (None, E.sel(found, gradient, E.zero(E.type(point)))) + (None,) * (len(args) - 2)


@adjoint("mesh_query_ray")
def _mesh_query_ray(E, args, r, g):
    mesh, start, direction = args[0], args[1], args[2]
    found = E.field(r, "result")
    face = E.sel(found, E.field(r, "face"), E.int_const(0))
    t = E.field(r, "t")
    a, b, cc = _triangle(E, mesh, face)
    zero, one = c(E, 0.0, t), c(E, 1.0, t)
    normal = E.cross(E.sub(b, a), E.sub(cc, a))
    facing = E.dot(normal, direction)
    # the hit h = start + t dir on the plane: t = n.(a - start) / n.dir, so dt/dstart = -n / n.dir and
    # dt/ddir = t dt/dstart; u and v are the plane's weights of h
    dt_dstart = E.div(E.neg(normal), E.sel(E.eq(facing, zero), one, facing))
    weights = _plane_weights_gradient(E, a, b, cc, E.field(g, "u"), E.field(g, "v"))
    through_t = E.add(E.field(g, "t"), E.dot(direction, weights))
    g_start = E.add(weights, E.mul(dt_dstart, through_t))
    g_dir = E.mul(g_start, t)
    none = E.zero(E.type(start))
    return (None, E.sel(found, g_start, none), E.sel(found, g_dir, none)) + (None,) * (len(args) - 3)


def _eval(getter):
    def rule(E, args, r, g):
        mesh, face = args[0], args[1]
        first = E.add(E.add(face, face), face)
        a, b, cc = (getattr(E, getter)(mesh, E.add(first, E.int_const(k))) for k in range(3))
        return None, None, E.dot(g, E.sub(a, cc)), E.dot(g, E.sub(b, cc))

    return rule


adjoint("mesh_eval_position")(_eval("mesh_get_point"))
adjoint("mesh_eval_velocity")(_eval("mesh_get_velocity"))
