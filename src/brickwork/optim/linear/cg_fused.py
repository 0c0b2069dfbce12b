"""CG's and CR's iterations on the CPU in four and five launches, for a CSR matrix and no preconditioner or a
Jacobi one.

The general iteration (conjugate.py) runs the product, each inner product (its parts, then their sum), the
step, the preconditioner and the direction as launches of their own: about ten, and a pass over the vectors
each. When ``A`` is a ``brickwork.sparse`` matrix of float32 or float64 scalars and ``M`` None or a diagonal of
them (``"diag"``, ``"diag_abs"``), with one system (no batches) on the CPU target, each inner product's parts
are computed by the kernel that writes its operand, part by part (the CPU's parts: consecutive runs,
``part_range``):

1. ``product_dot``: ``Ap = A p`` and the parts of ``p . Ap``;
2. ``step_dots``: ``p . Ap`` added from its parts, then ``x += alpha p``, ``r -= alpha Ap``, ``z = M r`` and the
   parts of ``r . z`` and ``r . r``;
3. ``fold``: one thread keeps the old ``r . z`` and adds up the new ones;
4. ``cg_direction``: ``p = z + beta p``, as the general iteration.

CR's: ``precondition_dot`` (``y = M Ap`` and the parts of ``Ap . y``), ``cr_step_dots`` (the step and the parts
of ``r . r``), ``product_dot`` (``Az = A z`` and the parts of ``z . Az``), ``fold``, and its ``cr_direction``.

Each value is computed by the same expression in the same order as the general kernels (the product's terms
row by row, each part's terms in order from zero, the parts in order, the Jacobi product as ``0 + 1 * (d r)``),
and brickwork keeps each rounding, so the iterates are bit for bit the general iteration's.
"""

from __future__ import annotations

from typing import Any

from ... import config
from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.arrays import array, array2d
from ...types.scalars import float32, float64, int32
from .kernels import element_dot, part_range

_tid, _where = _FUNCTIONS["tid"], _FUNCTIONS["where"]


@kernel(enable_backward=False)
def product_dot(offsets: array(dtype=int32), row_counts: array(dtype=int32), padded: int, columns: array(dtype=int32),
                values: array(dtype=Any), p: array(dtype=Any), ap: array(dtype=Any), parts: array2d(dtype=Any),
                col: int):
    """Part ``t``: ``Ap[i]`` for its rows, as ``bsr_mv`` (``alpha`` 1, ``beta`` 0), and ``parts[col, t]``, the sum
    of ``p[i] Ap[i]`` over them, as ``dot_parts``."""
    t = _tid()
    rows = part_range(0, ap.shape[0], t, parts.shape[1], 1)
    s = parts.dtype(0.0)
    for i in range(rows[0], rows[1]):
        end = offsets[i + 1]
        if padded != 0:
            end = offsets[i] + row_counts[i]
        total = ap.dtype(0)
        for b in range(offsets[i], end):
            total += values[b] * p[columns[b]]
        ap[i] = total  # bsr_mv's alpha * total, alpha 1: the same bits
        s += element_dot(p[i], total)
    parts[col, t] = s


@kernel(enable_backward=False)
def step_dots(tol: array(dtype=Any), rr: array(dtype=Any), rz: array(dtype=Any), parts: array2d(dtype=Any),
              x: array(dtype=Any), r: array(dtype=Any), p: array(dtype=Any), ap: array(dtype=Any),
              d: array(dtype=Any), z: array(dtype=Any), jacobi: int):
    """Part ``t``: ``alpha = rz / (p . Ap)`` (``p . Ap`` from ``parts[2]``, as ``fold_parts``; 0 once converged,
    as ``guarded_step``), its entries of ``x += alpha p``, ``r -= alpha Ap``, with ``jacobi`` ``z = d r`` (as
    ``diag_mv_scalar``), and the parts of ``r . r`` (``parts[0]``) and ``r . z`` (``parts[1]``)."""
    t = _tid()
    p_ap = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        p_ap += parts[2, k]
    alpha = _where(rr[0] > tol[0], rz[0] / p_ap, rz.dtype(0.0))
    zero = rz.dtype(0.0)
    one = rz.dtype(1.0)
    entries = part_range(0, x.shape[0], t, parts.shape[1], 1)
    s_rr = parts.dtype(0.0)
    s_rz = parts.dtype(0.0)
    for i in range(entries[0], entries[1]):
        x[i] = x[i] + alpha * p[i]
        ri = r[i] - alpha * ap[i]
        r[i] = ri
        if jacobi != 0:
            zi = zero + one * (d[i] * ri)
            z[i] = zi
            s_rz += element_dot(ri, zi)
        s_rr += element_dot(ri, ri)
    parts[0, t] = s_rr
    parts[1, t] = s_rz


@kernel(enable_backward=False)
def precondition_dot(ap: array(dtype=Any), d: array(dtype=Any), y: array(dtype=Any), parts: array2d(dtype=Any),
                     jacobi: int):
    """CR, part ``t``: with ``jacobi`` ``y = d Ap`` (as ``diag_mv_scalar``), and ``parts[2, t]``, its part of
    ``Ap . y`` (``y`` is ``Ap`` without ``jacobi``)."""
    t = _tid()
    zero = parts.dtype(0.0)
    one = parts.dtype(1.0)
    entries = part_range(0, ap.shape[0], t, parts.shape[1], 1)
    s = parts.dtype(0.0)
    for i in range(entries[0], entries[1]):
        yi = ap[i]
        if jacobi != 0:
            yi = zero + one * (d[i] * ap[i])
            y[i] = yi
        s += element_dot(ap[i], yi)
    parts[2, t] = s


@kernel(enable_backward=False)
def cr_step_dots(tol: array(dtype=Any), rr: array(dtype=Any), zaz: array(dtype=Any), parts: array2d(dtype=Any),
                 x: array(dtype=Any), r: array(dtype=Any), z: array(dtype=Any), p: array(dtype=Any),
                 ap: array(dtype=Any), y: array(dtype=Any), jacobi: int):
    """CR, part ``t``: ``alpha = zAz / (Ap . y)`` (``Ap . y`` from ``parts[2]``; 0 once converged, and with
    ``jacobi`` when ``Ap . y`` is not positive, as ``cr_step``, else as ``guarded_step``), its entries of
    ``x += alpha p``, ``r -= alpha Ap``, with ``jacobi`` ``z -= alpha y``, and its part of ``r . r``
    (``parts[0]``)."""
    t = _tid()
    y_ap = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        y_ap += parts[2, k]
    go = rr[0] > tol[0]
    if jacobi != 0:
        go = go and y_ap > parts.dtype(0.0)
    alpha = _where(go, zaz[0] / y_ap, zaz.dtype(0.0))
    entries = part_range(0, x.shape[0], t, parts.shape[1], 1)
    s = parts.dtype(0.0)
    for i in range(entries[0], entries[1]):
        x[i] = x[i] + alpha * p[i]
        ri = r[i] - alpha * ap[i]
        r[i] = ri
        if jacobi != 0:
            z[i] = z[i] - alpha * y[i]
        s += element_dot(ri, ri)
    parts[0, t] = s


@kernel(enable_backward=False)
def fold(parts: array2d(dtype=Any), rr: array(dtype=Any), rz: array(dtype=Any), rz_old: array(dtype=Any),
         jacobi: int):
    """One thread: ``rz_old = rz``, then the new ``r . r`` (and with ``jacobi`` ``r . z``) from their parts, in
    order (``rz`` is ``rr`` without ``jacobi``)."""
    rz_old[0] = rz[0]
    s = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        s += parts[0, k]
    rr[0] = s
    if jacobi != 0:
        s = parts.dtype(0.0)
        for k in range(parts.shape[1]):
            s += parts[1, k]
        rz[0] = s


def sources(A, M):
    """``(matrix, diagonal)`` when the fused iteration applies to ``A`` and ``M`` (operators), else None: a CSR
    matrix of ``brickwork.sparse`` (float32 or float64) without batches, ``M`` None or a diagonal of its scalars,
    on the CPU target."""
    matrix = getattr(A, "_bsr_matrix", None)
    if matrix is None or A.batch_offsets is not None or not A.device.is_cpu or config.target != "cpu":
        return None
    if matrix.values.dtype is not matrix.scalar_type or matrix.scalar_type not in (float32, float64):
        return None
    if M is None:
        return matrix, None
    d = getattr(M, "_diagonal", None)
    if d is None or d.dtype is not matrix.scalar_type:
        return None
    return matrix, d


class FusedCG:
    """The fused iterations' launches, with ``parts`` (3 x the inner products' part count) for the parts of
    ``r . r``, ``r . z`` (CR: ``z . Az``) and ``p . Ap`` (CR: ``Ap . y``) in rows 0, 1, 2."""

    def __init__(self, parts: array, n: int):
        self.parts, self.device = parts, parts.device
        # each part holds about n / part_count entries: the launch runs in parallel as that many items would
        self.work_per_item = max(1, n // parts.shape[1])

    def _run(self, step, *inputs) -> None:
        step.work_per_item = self.work_per_item
        launch(step, dim=self.parts.shape[1], inputs=list(inputs), device=self.device, record_tape=False)

    def product_dot(self, matrix, p: array, ap: array, row: int = 2) -> None:
        """``Ap = A p`` and the parts of ``p . Ap`` in ``parts[row]``."""
        from ...sparse.matrix import counts_arg

        self._run(product_dot, matrix.offsets, counts_arg(matrix), int(matrix.row_counts is not None),
                  matrix.columns, matrix.values, p, ap, self.parts, row)

    def step_dots(self, atol_sq, rr, rz, x, r, p, ap, d, z) -> None:
        self._run(step_dots, atol_sq, rr, rz, self.parts, x, r, p, ap, r if d is None else d, z, int(d is not None))

    def precondition_dot(self, ap, d, y) -> None:
        self._run(precondition_dot, ap, ap if d is None else d, y, self.parts, int(d is not None))

    def cr_step_dots(self, atol_sq, rr, zaz, x, r, z, p, ap, y, jacobi: bool) -> None:
        self._run(cr_step_dots, atol_sq, rr, zaz, self.parts, x, r, z, p, ap, y, int(jacobi))

    def fold(self, rr, rz, rz_old, jacobi: bool) -> None:
        launch(fold, dim=1, inputs=[self.parts, rr, rz, rz_old, int(jacobi)], device=self.device, record_tape=False)
