"""BiCGSTAB's iteration on the CPU in six launches, for a CSR matrix and no preconditioner or a Jacobi one on the
right (the cases of ``cg_fused.sources``; a left preconditioner takes the general iteration).

The general iteration (bicgstab.py) runs two products, two preconditioner products, five inner products (two
launches each) and three vector updates: nineteen launches and a pass over the vectors each. Here each inner
product's parts are computed by the kernel that writes its operand (``parts`` rows: 0 ``r0 . v``, 1 ``r . r``
after the half step, 2 ``r . t``, 3 ``t . t``, 4 ``r . r``, 5 ``r0 . r``):

1. ``cg_fused.product_dot``: ``v = A y`` and the parts of ``r0 . v``;
2. ``half_step``: ``alpha = rho / (r0 . v)``, ``x += alpha y``, ``r -= alpha v``, the parts of ``r . r``, and with
   a Jacobi ``M`` ``z = M r``;
3. ``cg_fused.product_dot``: ``t = A z`` and the parts of ``r . t`` and ``t . t``;
4. ``stabilize_dots``: ``omega = (r . t) / (t . t)``, ``x += omega z``, ``r -= omega t``, the parts of ``r . r``
   and ``r0 . r``;
5. ``fold``: one thread adds up the inner products into the solver's columns and computes the direction's
   ``beta`` and ``beta omega``;
6. ``direction``: ``p = r + beta p - beta omega v`` and with a Jacobi ``M`` the next ``y = M p``.

The start is CG's (``FusedCG.start`` given ``r0``): ``r = b - A x``, ``p = r0 = r``, ``y = M p``, the tolerance
and ``rho = r . r`` in two launches.

Each value is computed by the same expression in the same order as the general kernels (see cg_fused.py), so the
iterates are bit for bit the general iteration's.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array, array2d
from .cg_fused import FusedCG
from .kernels import element_dot, part_range

_tid, _where = _FUNCTIONS["tid"], _FUNCTIONS["where"]

#: ``parts`` rows: the inner products of an iteration, each written by one launch and read by a later one
R0V, RR_HALF, RT, TT, RR, R0R = range(6)


@func
def row_sum(parts: array2d(dtype=Any), row: int):
    """The parts of one inner product added in order (as ``fold_parts``)."""
    s = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        s += parts[row, k]
    return s


@kernel(enable_backward=False)
def half_step(tol: array(dtype=Any), rr: array(dtype=Any), rho: array(dtype=Any), parts: array2d(dtype=Any),
              x: array(dtype=Any), r: array(dtype=Any), y: array(dtype=Any), v: array(dtype=Any),
              d: array(dtype=Any), z: array(dtype=Any), jacobi: int):
    """Part ``t``: ``alpha = rho / (r0 . v)`` (its parts in ``parts[0]``; 0 once converged, as ``guarded_step``),
    its entries of ``x += alpha y`` and ``r -= alpha v``, with ``jacobi`` ``z = d r`` (as ``diag_mv_scalar``),
    and its part of ``r . r`` (``parts[1]``)."""
    t = _tid()
    r0v = row_sum(parts, 0)
    alpha = _where(rr[0] > tol[0], rho[0] / r0v, rho.dtype(0.0))
    zero = rho.dtype(0.0)
    one = rho.dtype(1.0)
    entries = part_range(0, x.shape[0], t, parts.shape[1], 1)
    s = parts.dtype(0.0)
    for i in range(entries[0], entries[1]):
        x[i] = x[i] + alpha * y[i]
        ri = r[i] - alpha * v[i]
        r[i] = ri
        if jacobi != 0:
            z[i] = zero + one * (d[i] * ri)
        s += element_dot(ri, ri)
    parts[1, t] = s


@kernel(enable_backward=False)
def stabilize_dots(tol: array(dtype=Any), parts: array2d(dtype=Any), x: array(dtype=Any), r: array(dtype=Any),
                   z: array(dtype=Any), t: array(dtype=Any), r0: array(dtype=Any)):
    """Part ``t``: ``omega = (r . t) / (t . t)`` (``parts[2]``, ``parts[3]``; 0 once ``r . r``, from ``parts[1]``, is
    within the tolerance, as ``bicgstab_stabilize``), its entries of ``x += omega z`` and ``r -= omega t``, and its
    parts of ``r . r`` (``parts[4]``) and ``r0 . r`` (``parts[5]``)."""
    part = _tid()
    st = row_sum(parts, 2)
    omega = _where(row_sum(parts, 1) > tol[0], st / row_sum(parts, 3), parts.dtype(0.0))
    entries = part_range(0, x.shape[0], part, parts.shape[1], 1)
    s_rr = parts.dtype(0.0)
    s_rho = parts.dtype(0.0)
    for i in range(entries[0], entries[1]):
        zi = z[i]  # z may be r itself (no preconditioner): read it before r changes
        x[i] = x[i] + omega * zi
        ri = r[i] - omega * t[i]
        r[i] = ri
        s_rr += element_dot(ri, ri)
        s_rho += element_dot(r0[i], ri)
    parts[4, part] = s_rr
    parts[5, part] = s_rho


@kernel(enable_backward=False)
def fold(parts: array2d(dtype=Any), tol: array(dtype=Any), dots: array2d(dtype=Any), beta: array(dtype=Any)):
    """One thread: the solver's columns (``dots[k, 0]``: ``r . r``, ``rho = r0 . r``, ``r0 . v``, ``r . t``,
    ``t . t``) from their parts, in order, and ``beta[0] = (rho / rho_old) (alpha / omega)``, ``beta[1] = beta
    omega`` (both 0 once converged), as ``bicgstab_direction``."""
    dots[0, 0] = row_sum(parts, 4)
    dots[1, 0] = row_sum(parts, 5)
    dots[2, 0] = row_sum(parts, 0)
    dots[3, 0] = row_sum(parts, 2)
    dots[4, 0] = row_sum(parts, 3)
    going = dots[0, 0] > tol[0]
    rho = dots[1, 0]
    r0v = dots[2, 0]
    beta[0] = _where(going, rho * dots[4, 0] / (r0v * dots[3, 0]), parts.dtype(0.0))
    beta[1] = _where(going, rho / r0v, parts.dtype(0.0))


@kernel(enable_backward=False)
def direction(beta: array(dtype=Any), count: int, r: array(dtype=Any), p: array(dtype=Any), v: array(dtype=Any),
              d: array(dtype=Any), y: array(dtype=Any), jacobi: int):
    """Part ``t`` of ``count``: its entries of ``p = r + beta p - (beta omega) v`` (as ``bicgstab_direction``), with
    ``jacobi`` also the next iteration's ``y = d p`` (as ``diag_mv_scalar``)."""
    t = _tid()
    b = beta[0]
    b_omega = beta[1]
    zero = p.dtype(0.0)
    one = p.dtype(1.0)
    entries = part_range(0, p.shape[0], t, count, 1)
    if jacobi != 0:
        for i in range(entries[0], entries[1]):
            pi = r[i] + b * p[i] - b_omega * v[i]
            p[i] = pi
            y[i] = zero + one * (d[i] * pi)
    else:
        for i in range(entries[0], entries[1]):
            p[i] = r[i] + b * p[i] - b_omega * v[i]


class FusedBiCGSTAB(FusedCG):
    """The fused iteration's launches, with ``parts`` (6 x the inner products' part count; rows as the module
    says) and ``beta`` (the direction's two coefficients)."""

    def __init__(self, parts: array, n: int):
        super().__init__(parts, n)
        self.beta = empty(2, dtype=parts.dtype, device=parts.device)

    def iteration(self, matrix, d, atol_sq, dots: array, x, r, r0, p, v, y, z, t) -> None:
        """One iteration: ``dots`` the solver's columns (``rho`` and ``r . r`` in, all five out); ``y`` and ``z``
        are ``p`` and ``r`` without a preconditioner (``d`` None), else ``M p`` (on entry) and ``M r``."""
        jacobi = int(d is not None)
        rr, rho = dots[0], dots[1]
        self.product_dot(matrix, y, v, R0V, r0)
        self._run(half_step, atol_sq, rr, rho, self.parts, x, r, y, v, r if d is None else d, z, jacobi)
        self.product_dot(matrix, z, t, RT, r, TT)
        self._run(stabilize_dots, atol_sq, self.parts, x, r, z, t, r0)
        launch(fold, dim=1, inputs=[self.parts, atol_sq, dots, self.beta], device=self.device, record_tape=False)
        self._run(direction, self.beta, self.parts.shape[1], r, p, v, r if d is None else d, y, jacobi)
