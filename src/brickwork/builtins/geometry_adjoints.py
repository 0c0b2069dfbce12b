"""Adjoint rule of ``closest_point_edge_edge``, registered in ``ADJOINTS`` when ``adjoints`` is imported.

The result ``(s, t, d)`` minimizes ``d = |u|``, ``u = p1 + s d1 - p2 - t d2`` (``d1 = q1 - p1``,
``d2 = q2 - p2``), over ``s, t`` in ``[0, 1]``. At a minimum the distance's gradient is that of ``|u|``
with ``s`` and ``t`` held (the envelope theorem), which stays bounded for nearly parallel segments. A
parameter strictly inside ``(0, 1)`` satisfies its stationarity condition ``F1 = d1.u = 0`` (``s``) or
``F2 = d2.u = 0`` (``t``); differentiating those conditions gives the derivatives of ``s`` and ``t``. A
clamped parameter is constant. Nearly parallel segments (``|d1 x d2|^2 <= 1e-6 |d1|^2 |d2|^2``) keep ``s``
constant, as their ``s`` is not determined by the distance.
"""

from __future__ import annotations

from .adjoints import adjoint, c


@adjoint("closest_point_edge_edge")
def _closest_point_edge_edge(E, args, r, g):
    p1, q1, p2, q2, _eps = args
    s, t = E.comp(r, 0), E.comp(r, 1)
    gs, gt, gd = E.comp(g, 0), E.comp(g, 1), E.comp(g, 2)
    zero, one = c(E, 0.0, s), c(E, 1.0, s)
    d1, d2 = E.sub(q1, p1), E.sub(q2, p2)
    u = E.sub(E.add(p1, E.mul(d1, s)), E.add(p2, E.mul(d2, t)))
    a, e, b = E.dot(d1, d1), E.dot(d2, d2), E.dot(d1, d2)
    cross_sq = E.length_sq(E.cross(d1, d2))

    def inside(x):
        return E.logical_and(E.lt(zero, x), E.lt(x, one))

    s_free, t_free = inside(s), inside(t)
    parallel = E.le(cross_sq, E.mul(c(E, 1e-6, s), E.mul(a, e)))
    both = E.logical_and(E.logical_and(s_free, t_free), E.logical_not(parallel))
    t_only = E.logical_and(t_free, E.logical_not(both))
    s_only = E.logical_and(s_free, E.logical_not(t_free))

    def safe(cond, x):
        return E.sel(cond, x, one)

    denom = E.sub(E.mul(a, e), E.mul(b, b))
    # J^T (l1, l2) = (gs, gt), J = d(F1, F2)/d(s, t) = [[a, -b], [b, -e]] (for the free parameters only)
    l1 = E.sel(both, E.div(E.add(E.mul(e, gs), E.mul(b, gt)), safe(both, denom)),
               E.sel(s_only, E.div(gs, safe(s_only, a)), zero))
    l2 = E.sel(both, E.neg(E.div(E.add(E.mul(a, gt), E.mul(b, gs)), safe(both, denom))),
               E.sel(t_only, E.neg(E.div(gt, safe(t_only, e))), zero))

    n = E.mul(E.normalize(u), gd)  # the distance's part: d|u| with s and t held
    one_s, one_t = E.sub(one, s), E.sub(one, t)
    # minus l1 dF1/dx + l2 dF2/dx for each end point x, plus the distance's part
    g_p1 = E.sub(E.mul(n, one_s), E.add(E.mul(E.sub(E.mul(d1, one_s), u), l1), E.mul(d2, E.mul(one_s, l2))))
    g_q1 = E.sub(E.mul(n, s), E.add(E.mul(E.add(u, E.mul(d1, s)), l1), E.mul(d2, E.mul(s, l2))))
    g_p2 = E.sub(E.neg(E.mul(n, one_t)),
                 E.add(E.neg(E.mul(d1, E.mul(one_t, l1))), E.mul(E.neg(E.add(u, E.mul(d2, one_t))), l2)))
    g_q2 = E.sub(E.neg(E.mul(n, t)), E.add(E.neg(E.mul(d1, E.mul(t, l1))), E.mul(E.sub(u, E.mul(d2, t)), l2)))
    return g_p1, g_q1, g_p2, g_q2, None
