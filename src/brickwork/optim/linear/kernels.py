"""The vector kernels every solver uses: which subproblem an entry belongs to, inner products in a fixed
order, the tolerances and the device-side loop condition.

Subproblems ("batches") are given to every kernel as ``offsets``, an int32 array of ``B + 1`` entry
offsets: entry ``i`` belongs to batch ``b`` where ``offsets[b] <= i < offsets[b + 1]``; entries outside
``[offsets[0], offsets[B])`` belong to none and are never changed. A single system is ``[0, n]``.

Inner products are deterministic: each batch's entries are split into a fixed number ``P`` of parts
(on a GPU strided, thread ``t`` summing entries ``start + t, start + t + P, ...`` in order; on the CPU
consecutive runs), and one thread per batch adds the parts in order. ``P`` is fixed when a solver's
buffers are allocated, so a solve gives the same bits every time it runs on a device.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...types.arrays import array, array2d, array3d
from ...types.composite import vector
from ...types.scalars import Float, int32

_tid, _dot, _sqrt, _max, _min, _where = (_FUNCTIONS[n] for n in ("tid", "dot", "sqrt", "max", "min", "where"))
_vec3i = vector(length=3, dtype=int32)


@func
def entry_batch(i: int, offsets: array(dtype=int32)):
    """The batch of entry ``i`` (a binary search in ``offsets``), or -1 when it belongs to none."""
    nb = offsets.shape[0] - 1
    found = -1
    if i >= offsets[0] and i < offsets[nb]:
        lo = 0
        hi = nb
        while hi - lo > 1:  # the last batch whose start is <= i (empty batches are skipped)
            mid = (lo + hi) // 2
            if offsets[mid] <= i:
                lo = mid
            else:
                hi = mid
        found = lo
    return found


@func
def element_dot(a: Float, b: Float):
    return a * b


@func
def element_dot(a: vector(length=Any, dtype=Float), b: vector(length=Any, dtype=Float)):  # noqa: F811 - overload
    return _dot(a, b)


@func
def part_range(start: int, end: int, t: int, count: int, contiguous: int):
    """Part ``t`` of ``count`` of the entries ``[start, end)`` as ``(first, stop, step)``: every ``count``-th entry
    from ``start + t`` (neighbouring GPU threads read neighbouring entries), or with ``contiguous`` the ``t``-th
    of ``count`` consecutive runs (a CPU thread streams through its own run; strided parts would each read a
    quarter or more of every cache line, the whole vector several times over)."""
    if contiguous != 0:
        chunk = (end - start + count - 1) // count
        first = _min(start + t * chunk, end)
        return _vec3i(first, _min(first + chunk, end), 1)
    return _vec3i(start + t, end, count)


@kernel(enable_backward=False)
def dot_parts(a: array(dtype=Any), b: array(dtype=Any), offsets: array(dtype=int32), parts: array2d(dtype=Any),
              contiguous: int):
    """``parts[batch, t]``: the sum of ``dot(a[i], b[i])`` over part ``t`` of the batch's entries (``part_range``)."""
    bid, t = _tid()
    s = parts.dtype(0.0)
    r = part_range(offsets[bid], offsets[bid + 1], t, parts.shape[1], contiguous)
    for i in range(r[0], r[1], r[2]):
        s += element_dot(a[i], b[i])
    parts[bid, t] = s


@kernel(enable_backward=False)
def dot_rows_parts(w: array(dtype=Any), V: array2d(dtype=Any), offsets: array(dtype=int32),
                   parts: array3d(dtype=Any), contiguous: int):
    """``parts[row, batch, t]``: as ``dot_parts`` for ``w`` against each row of ``V``."""
    row, bid, t = _tid()
    s = parts.dtype(0.0)
    r = part_range(offsets[bid], offsets[bid + 1], t, parts.shape[2], contiguous)
    for i in range(r[0], r[1], r[2]):
        s += element_dot(w[i], V[row, i])
    parts[row, bid, t] = s


@kernel(enable_backward=False)
def fold_parts(parts: array2d(dtype=Any), out: array(dtype=Any)):
    """``out[batch]``: the batch's parts added in order."""
    bid = _tid()
    s = parts.dtype(0.0)
    for t in range(parts.shape[1]):
        s += parts[bid, t]
    out[bid] = s


@kernel(enable_backward=False)
def fold_rows_into_column(parts: array3d(dtype=Any), H: array3d(dtype=Any), j: int):
    """``H[batch, row, j]``: the parts of each row added in order (GMRES's Hessenberg column)."""
    row, bid = _tid()
    s = parts.dtype(0.0)
    for t in range(parts.shape[2]):
        s += parts[row, bid, t]
    H[bid, row, j] = s


@kernel(enable_backward=False)
def init_tolerance(rtol: Any, atol: Any, b_norm_sq: array(dtype=Any), atol_sq: array(dtype=Any)):
    """``atol_sq[batch] = max(rtol * |b|, atol) ** 2``."""
    bid = _tid()
    a = _max(rtol * _sqrt(b_norm_sq[bid]), atol)
    atol_sq[bid] = a * a


@kernel(enable_backward=False)
def update_condition(maxiter: int, cycle_size: int, cur_iter: array(dtype=int32), r_norm_sq: array(dtype=Any),
                     atol_sq: array(dtype=Any), condition: array(dtype=int32)):
    """Count a cycle; ``condition[0]`` is 1 while some batch has not converged and ``maxiter`` is not reached."""
    converged = 1
    for bid in range(r_norm_sq.shape[0]):
        if r_norm_sq[bid] > atol_sq[bid]:
            converged = 0
    cur_iter[0] = cur_iter[0] + cycle_size
    condition[0] = _where(converged == 1 or cur_iter[0] >= maxiter, 0, 1)


@kernel(enable_backward=False)
def entry_offsets(batch_offsets: array(dtype=int32), dofs_per_entry: int, count: int, out: array(dtype=int32)):
    """Scalar degree-of-freedom offsets to entry offsets (vector entries hold ``dofs_per_entry`` each), clamped
    to ``[0, count]`` so that offsets past the vectors' end never index outside them (read on the device:
    the host never waits for the offsets)."""
    i = _tid()
    out[i] = _min(_max(batch_offsets[i] // dofs_per_entry, 0), count)


@kernel(enable_backward=False)
def guarded_step(tol: array(dtype=Any), resid: array(dtype=Any), num: array(dtype=Any), den: array(dtype=Any),
                 x: array(dtype=Any), r: array(dtype=Any), p: array(dtype=Any), ap: array(dtype=Any),
                 offsets: array(dtype=int32)):
    """``x += alpha p``, ``r -= alpha Ap`` with ``alpha = num / den`` per batch (CG's ``rz / (p . Ap)``,
    BiCGSTAB's ``rho / (r0 . v)``), 0 in a batch that has converged (``resid <= tol``)."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        alpha = _where(resid[bid] > tol[bid], num[bid] / den[bid], num.dtype(0.0))
        x[i] = x[i] + alpha * p[i]
        r[i] = r[i] - alpha * ap[i]
