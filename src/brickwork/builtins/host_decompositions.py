"""svd3, svd2, qr3, eig3, quat_to_axis_angle and transform_decompose called from Python (outside kernels).

The same steps and branch decisions as the kernels' implementation (``include/brickwork_decompositions.h``,
which describes the method), in float64, so that both scopes give the same signs and orderings; the
results are rounded once to the argument's component type.
"""

from __future__ import annotations

import numpy as np

from ..types.composite import matrix, vector
from .host_composites import _parts, quat_from_matrix

_GAMMA = 3.0 + 2.0 * np.sqrt(2.0)
_CSTAR, _SSTAR = np.cos(np.pi / 8), np.sin(np.pi / 8)
_QR_EPSILON = 1e-150  # Warp: 1e-6, which loses small matrices (see the header)


def _rotate_columns(x, p, q, c, s):
    xp, xq = x[:, p].copy(), x[:, q].copy()
    x[:, p], x[:, q] = c * xp + s * xq, -s * xp + c * xq


def _rotate_rows(x, p, q, c, s):
    xp, xq = x[p, :].copy(), x[q, :].copy()
    x[p, :], x[q, :] = c * xp + s * xq, -s * xp + c * xq


def jacobi_sweeps(s):
    """(S', V) with S = V S' V^T, S' nearly diagonal: Warp's four sweeps of approximate Jacobi rotations."""
    s, v = np.array(s, dtype=np.float64), np.eye(3)
    for _ in range(4):
        for p, q in ((0, 1), (1, 2), (2, 0)):
            ch, sh = 2.0 * (s[p, p] - s[q, q]), s[q, p]
            if _GAMMA * sh * sh < ch * ch:
                w = 1.0 / np.sqrt(ch * ch + sh * sh)
                ch, sh = ch * w, sh * w
            else:
                ch, sh = _CSTAR, _SSTAR
            scale = ch * ch + sh * sh
            c, sn = (ch * ch - sh * sh) / scale, 2.0 * sh * ch / scale
            _rotate_columns(s, p, q, c, sn)
            _rotate_rows(s, p, q, c, sn)
            _rotate_columns(v, p, q, c, sn)
    return s, v


def _orthogonalizing_rotation(alpha, beta, g):
    zeta = (beta - alpha) / (2.0 * g)
    t = (1.0 if zeta >= 0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
    c = 1.0 / np.sqrt(1.0 + t * t)
    return c, -t * c


def refine_symmetric(s, v):
    """Exact Jacobi rotations until S is diagonal to rounding (eig3)."""
    for _ in range(16):
        diagonal = (np.diag(s) ** 2).sum()
        off = ((s - np.diag(np.diag(s))) ** 2).sum()
        if not off > 1e-28 * (diagonal + off):  # off-diagonal below 1e-14 relative
            return
        for p, q in ((0, 1), (1, 2), (2, 0)):
            if s[q, p] == 0:
                continue
            c, sn = _orthogonalizing_rotation(s[p, p], s[q, q], s[q, p])
            _rotate_columns(s, p, q, c, sn)
            _rotate_rows(s, p, q, c, sn)
            _rotate_columns(v, p, q, c, sn)


def refine_columns(b, v):
    """One-sided Jacobi on B = A V until its columns are orthogonal to rounding (svd3)."""
    frob = (b * b).sum()  # columns at rounding level of the whole (a null space): nothing to refine
    for _ in range(16):
        rotated = False
        for p, q in ((0, 1), (1, 2), (2, 0)):
            alpha, beta, g = b[:, p] @ b[:, p], b[:, q] @ b[:, q], b[:, p] @ b[:, q]
            if not (abs(g) > 1e-14 * np.sqrt(alpha * beta) and abs(g) > 1e-30 * frob):
                continue
            c, sn = _orthogonalizing_rotation(alpha, beta, g)
            _rotate_columns(b, p, q, c, sn)
            _rotate_columns(v, p, q, c, sn)
            rotated = True
        if not rotated:
            return


def givens_qr(b):
    r, q = np.array(b, dtype=np.float64), np.eye(3)
    for p, k in ((0, 1), (0, 2), (1, 2)):
        a1, a2 = r[p, p], r[k, p]
        rho = np.sqrt(a1 * a1 + a2 * a2)
        sh = a2 if rho > _QR_EPSILON else 0.0
        ch = abs(a1) + max(rho, _QR_EPSILON)
        if a1 < 0:
            sh, ch = ch, sh
        w = 1.0 / np.sqrt(ch * ch + sh * sh)
        ch, sh = ch * w, sh * w
        c, s = 1.0 - 2.0 * sh * sh, 2.0 * ch * sh
        _rotate_rows(r, p, k, c, s)
        _rotate_columns(q, p, k, c, s)
    return q, r


def _svd3(a):
    _, v = jacobi_sweeps(a.T @ a)
    b = a @ v
    refine_columns(b, v)
    rho = (b * b).sum(axis=0)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        if rho[i] < rho[j]:
            for x in (b, v):
                x[:, i], x[:, j] = x[:, j].copy(), -x[:, i]
            rho[i], rho[j] = rho[j], rho[i]
    u, r = givens_qr(b)
    return u, np.diag(r).copy(), v


def _svd2(a):
    e, f = 0.5 * (a[0, 0] + a[1, 1]), 0.5 * (a[0, 0] - a[1, 1])
    g, h = 0.5 * (a[1, 0] + a[0, 1]), 0.5 * (a[1, 0] - a[0, 1])
    qn, rn = np.hypot(e, h), np.hypot(f, g)
    a1, a2 = np.arctan2(g, f), np.arctan2(h, e)
    theta, phi = 0.5 * (a2 - a1), 0.5 * (a2 + a1)
    flip = -1.0 if qn - rn < 0 else 1.0
    u = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    v = np.array([[np.cos(theta), np.sin(theta) * flip], [-np.sin(theta), np.cos(theta) * flip]])
    return u, np.array([qn + rn, abs(qn - rn)]), v


def _matrix_input(a, n: int):
    values, dtype = _parts(a)
    if values.shape != (n, n):
        raise TypeError(f"needs a {n}x{n} matrix, got {a!r}")
    return values, dtype


def svd3(a):
    values, dtype = _matrix_input(a, 3)
    u, s, v = _svd3(values)
    return matrix((3, 3), dtype)(u), vector(3, dtype)(s), matrix((3, 3), dtype)(v)


def svd2(a):
    values, dtype = _matrix_input(a, 2)
    u, s, v = _svd2(values)
    return matrix((2, 2), dtype)(u), vector(2, dtype)(s), matrix((2, 2), dtype)(v)


def qr3(a):
    values, dtype = _matrix_input(a, 3)
    q, r = givens_qr(values)
    return matrix((3, 3), dtype)(q), matrix((3, 3), dtype)(r)


def eig3(a):
    values, dtype = _matrix_input(a, 3)
    s, v = jacobi_sweeps(np.tril(values) + np.tril(values, -1).T)
    refine_symmetric(s, v)
    return matrix((3, 3), dtype)(v), vector(3, dtype)(np.diag(s).copy())


def quat_to_axis_angle(q):
    values, dtype = _parts(q)
    v, w = values[:3], values[3]
    n = np.linalg.norm(v)
    axis = v * ((-1.0 if w < 0 else 1.0) / n) if n > 0 else np.zeros(3)
    return vector(3, dtype)(axis), dtype(2.0 * np.arctan2(n, abs(w)))


def transform_decompose(m):
    values, dtype = _matrix_input(m, 4)
    block = values[:3, :3]
    scale = np.linalg.norm(block, axis=0)
    rotation = np.divide(block, scale, out=np.zeros_like(block), where=scale > 0)
    q = quat_from_matrix(matrix((3, 3), dtype)(rotation))
    return vector(3, dtype)(values[:3, 3]), q, vector(3, dtype)(scale)


HOST_DECOMPOSITIONS = {name: globals()[name] for name in (
    "svd3", "svd2", "qr3", "eig3", "quat_to_axis_angle", "transform_decompose")}
