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
3. ``fold``: one thread keeps the old ``r . z``, adds up the new ones and computes ``beta``;
4. ``direction``: ``p = z + beta p``, part by part (a loop the compiler vectorizes; the general iteration's
   ``cg_direction`` reads the batch's ``beta`` for each entry).

CG's start: ``start_dots`` (``r = b - A x``, ``z = M r``, ``p = z`` and the parts of ``r . r``, ``r . z`` and
``b . b``) and ``fold_start`` (the tolerance, as ``init_tolerance``, and the sums), instead of about twelve.

CR's: ``precondition_dot`` (``y = M Ap`` and the parts of ``Ap . y``), ``cr_step_dots`` (the step and the parts
of ``r . r``), ``product_dot`` (``Az = A z`` and the parts of ``z . Az``), ``fold`` and ``direction`` (as its
``cr_direction``).

Each value is computed by the same expression in the same order as the general kernels (the product's terms
row by row, each part's terms in order from zero, the parts in order, the Jacobi product as ``0 + 1 * (d r)``),
and brickwork keeps each rounding, so the iterates are bit for bit the general iteration's.
"""

from __future__ import annotations

from typing import Any

from ... import config
from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array, array2d
from ...types.scalars import float32, float64, int32
from .kernels import element_dot, part_range

_tid, _where, _max, _sqrt = (_FUNCTIONS[n] for n in ("tid", "where", "max", "sqrt"))



@func
def row_product(offsets: array(dtype=int32), row_counts: array(dtype=int32), padded: int, columns: array(dtype=int32),
                values: array(dtype=Any), v: array(dtype=Any), i: int):
    """Row ``i`` of ``A v``: its terms in column order from zero, as ``bsr_mv`` adds them (``padded``: the row's
    entries end at ``offsets[i] + row_counts[i]``)."""
    end = offsets[i + 1]
    if padded != 0:
        end = offsets[i] + row_counts[i]
    total = v.dtype(0)
    for k in range(offsets[i], end):
        total += values[k] * v[columns[k]]
    return total

@kernel(enable_backward=False)
def product_dot(offsets: array(dtype=int32), row_counts: array(dtype=int32), padded: int, columns: array(dtype=int32),
                values: array(dtype=Any), p: array(dtype=Any), ap: array(dtype=Any), w: array(dtype=Any),
                parts: array2d(dtype=Any), col: int, square: int):
    """Part ``t``: ``Ap[i]`` for its rows, as ``bsr_mv`` (``alpha`` 1, ``beta`` 0), and ``parts[col, t]``, the sum
    of ``w[i] Ap[i]`` over them, as ``dot_parts`` (with ``square`` >= 0 also ``parts[square, t]``, that of
    ``Ap[i] Ap[i]``)."""
    t = _tid()
    rows = part_range(0, ap.shape[0], t, parts.shape[1], 1)
    s = parts.dtype(0.0)
    s2 = parts.dtype(0.0)
    for i in range(rows[0], rows[1]):
        total = row_product(offsets, row_counts, padded, columns, values, p, i)
        ap[i] = total  # bsr_mv's alpha * total, alpha 1: the same bits
        s += element_dot(w[i], total)
        if square >= 0:
            s2 += element_dot(total, total)
    parts[col, t] = s
    if square >= 0:
        parts[square, t] = s2


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
def start_dots(offsets: array(dtype=int32), row_counts: array(dtype=int32), padded: int, columns: array(dtype=int32),
               values: array(dtype=Any), b: array(dtype=Any), x: array(dtype=Any), r: array(dtype=Any),
               d: array(dtype=Any), z: array(dtype=Any), p: array(dtype=Any), r0: array(dtype=Any),
               parts: array2d(dtype=Any), jacobi: int, bicg: int):
    """CG's start, part ``t``: its rows of ``r = b - A x`` (as ``bsr_mv`` with ``alpha`` -1, ``beta`` 1), with
    ``jacobi`` ``z = d r`` (as ``diag_mv_scalar``), ``p = z``, and its parts of ``r . r`` (``parts[0]``), ``r . z``
    (``parts[1]``) and ``b . b`` (``parts[2]``). BiCGSTAB's (``bicg``): ``p = r0 = r`` instead, ``z`` its ``y``."""
    t = _tid()
    rows = part_range(0, r.shape[0], t, parts.shape[1], 1)
    minus_one = r.dtype(-1.0)
    zero = r.dtype(0.0)
    one = r.dtype(1.0)
    s_rr = parts.dtype(0.0)
    s_rz = parts.dtype(0.0)
    s_bb = parts.dtype(0.0)
    for i in range(rows[0], rows[1]):
        total = minus_one * row_product(offsets, row_counts, padded, columns, values, x, i)
        total += one * b[i]
        r[i] = total
        zi = total
        if jacobi != 0:
            zi = zero + one * (d[i] * total)
            z[i] = zi
            s_rz += element_dot(total, zi)
        if bicg != 0:
            p[i] = total
            r0[i] = total
        else:
            p[i] = zi
        s_rr += element_dot(total, total)
        s_bb += element_dot(b[i], b[i])
    parts[0, t] = s_rr
    parts[1, t] = s_rz
    parts[2, t] = s_bb


@kernel(enable_backward=False)
def fold_start(parts: array2d(dtype=Any), rtol: Any, atol: Any, atol_sq: array(dtype=Any), rr: array(dtype=Any),
               rz: array(dtype=Any), jacobi: int, bicg: int):
    """One thread: ``atol_sq = max(rtol |b|, atol) ** 2`` (as ``init_tolerance``), ``r . r`` and with ``jacobi``
    ``r . z`` from the parts of ``start_dots``, in order; with ``bicg`` ``rz`` is BiCGSTAB's ``rho``, ``r . r``."""
    s = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        s += parts[2, k]
    a = _max(rtol * _sqrt(s), atol)
    atol_sq[0] = a * a
    s = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        s += parts[0, k]
    rr[0] = s
    if bicg != 0:
        rz[0] = s
    elif jacobi != 0:
        s = parts.dtype(0.0)
        for k in range(parts.shape[1]):
            s += parts[1, k]
        rz[0] = s


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
def fold(parts: array2d(dtype=Any), tol: array(dtype=Any), rr: array(dtype=Any), rz: array(dtype=Any),
         rz_old: array(dtype=Any), beta: array(dtype=Any), jacobi: int, cr: int):
    """One thread: ``rz_old = rz``, then the new ``r . r`` (and with ``jacobi`` ``r . z``) from their parts, in
    order (``rz`` is ``rr`` without ``jacobi``), and the direction's ``beta = rz / rz_old`` (0 once converged,
    as ``cg_direction``; with ``cr`` also while ``rz_old`` is not positive, as ``cr_direction``)."""
    old = rz[0]
    rz_old[0] = old
    s = parts.dtype(0.0)
    for k in range(parts.shape[1]):
        s += parts[0, k]
    rr[0] = s
    if jacobi != 0:
        s = parts.dtype(0.0)
        for k in range(parts.shape[1]):
            s += parts[1, k]
        rz[0] = s
    go = rr[0] > tol[0]
    if cr != 0:
        go = go and old > rz.dtype(0.0)
    beta[0] = _where(go, rz[0] / old, rz.dtype(0.0))


@kernel(enable_backward=False)
def direction(beta: array(dtype=Any), count: int, z: array(dtype=Any), p: array(dtype=Any), az: array(dtype=Any),
              ap: array(dtype=Any), cr: int):
    """Part ``t`` of ``count``: its entries of ``p = z + beta p`` (as ``cg_direction``), with ``cr`` also
    ``Ap = Az + beta Ap`` (as ``cr_direction``); a loop over consecutive entries, which the compiler
    vectorizes (the general kernels' one point per entry reads the batch's ``beta`` for each)."""
    t = _tid()
    b = beta[0]
    entries = part_range(0, p.shape[0], t, count, 1)
    if cr != 0:
        for i in range(entries[0], entries[1]):
            p[i] = z[i] + b * p[i]
            ap[i] = az[i] + b * ap[i]
    else:
        for i in range(entries[0], entries[1]):
            p[i] = z[i] + b * p[i]


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


def prepare(state, A, M, fused_type, rows: int):
    """``(fused, matrix, diagonal)`` when the fused iteration applies to ``A`` and ``M`` (``sources``), else None;
    ``fused`` is the solver ``state``'s ``fused_type`` (``rows`` inner products' parts), made when a solve first
    takes that iteration."""
    found = sources(A, M)
    if found is None:
        return None
    if getattr(state, "_fused", None) is None:
        parts = empty((rows, state._dot.parts_per_batch), dtype=state._scalar_type, device=state._device)
        state._fused = fused_type(parts, state._b.shape[0])
    return (state._fused, *found)


class FusedCG:
    """The fused iterations' launches, with ``parts`` (3 x the inner products' part count) for the parts of
    ``r . r``, ``r . z`` (CR: ``z . Az``) and ``p . Ap`` (CR: ``Ap . y``) in rows 0, 1, 2."""

    def __init__(self, parts: array, n: int):
        self.parts, self.device = parts, parts.device
        self.beta = empty(1, dtype=parts.dtype, device=parts.device)  # the direction's, from ``fold``
        # each part holds about n / part_count entries: the launch runs in parallel as that many items would
        self.work_per_item = max(1, n // parts.shape[1])

    def _run(self, step, *inputs) -> None:
        step.work_per_item = self.work_per_item
        launch(step, dim=self.parts.shape[1], inputs=list(inputs), device=self.device, record_tape=False)

    def product_dot(self, matrix, p: array, ap: array, row: int = 2, w: array | None = None, square: int = -1):
        """``Ap = A p`` and the parts of ``w . Ap`` (``w`` None: ``p``) in ``parts[row]`` (and with ``square`` >= 0
        those of ``Ap . Ap`` in ``parts[square]``)."""
        from ...sparse.matrix import counts_arg

        self._run(product_dot, matrix.offsets, counts_arg(matrix), int(matrix.row_counts is not None),
                  matrix.columns, matrix.values, p, ap, p if w is None else w, self.parts, row, square)

    def start(self, matrix, scalar, rtol: float, atol: float, atol_sq, rr, rz, b, x, r, d, z, p, r0=None) -> None:
        """CG's start: ``r = b - A x``, ``z = M r``, ``p = z``, the tolerance ``atol_sq``, ``r . r`` and ``r . z``
        (``rtol``, ``atol``: the solver's, as ``LinearSolverState._init_tolerance`` takes them). BiCGSTAB's, given
        ``r0``: ``p = r0 = r``, ``z`` (its ``y``) ``= M p``, and ``rz`` (its ``rho``) ``= r . r``."""
        from ...sparse.matrix import counts_arg

        jacobi, bicg = int(d is not None), int(r0 is not None)
        self._run(start_dots, matrix.offsets, counts_arg(matrix), int(matrix.row_counts is not None),
                  matrix.columns, matrix.values, b, x, r, r if d is None else d, z, p, r if r0 is None else r0,
                  self.parts, jacobi, bicg)
        launch(fold_start, dim=1, inputs=[self.parts, scalar(rtol), scalar(atol), atol_sq, rr, rz, jacobi, bicg],
               device=self.device, record_tape=False)

    def step_dots(self, atol_sq, rr, rz, x, r, p, ap, d, z) -> None:
        self._run(step_dots, atol_sq, rr, rz, self.parts, x, r, p, ap, r if d is None else d, z, int(d is not None))

    def precondition_dot(self, ap, d, y) -> None:
        self._run(precondition_dot, ap, ap if d is None else d, y, self.parts, int(d is not None))

    def cr_step_dots(self, atol_sq, rr, zaz, x, r, z, p, ap, y, jacobi: bool) -> None:
        self._run(cr_step_dots, atol_sq, rr, zaz, self.parts, x, r, z, p, ap, y, int(jacobi))

    def fold_direction(self, atol_sq, rr, rz, rz_old, jacobi: bool, z, p, az=None, ap=None) -> None:
        """``fold``, then ``direction``: ``p = z + beta p`` (CR, given ``Az`` and ``Ap``: ``Ap = Az + beta Ap``
        too)."""
        cr = int(ap is not None)
        launch(fold, dim=1, inputs=[self.parts, atol_sq, rr, rz, rz_old, self.beta, int(jacobi), cr],
               device=self.device, record_tape=False)
        self._run(direction, self.beta, self.parts.shape[1], z, p, p if az is None else az, p if ap is None else ap,
                  cr)
