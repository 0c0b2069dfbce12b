"""Adjoint rules of the decompositions (svd2/svd3, eig3, qr3), differentiated through their packed
forms: the typing rules return one packed matrix holding every factor, so one rule per
decomposition gives each factor's adjoint back to the input matrix. Registered in ``ADJOINTS`` when
``adjoints`` is imported.
"""

from __future__ import annotations

from .adjoints import ADJOINTS, adjoint, c, expansion, one_like


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
    return E.sel(distinct, E.div(x, E.sel(distinct, gap, one_like(E, a))), zero)


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
