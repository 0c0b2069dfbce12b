"""FSAI factor storage and numerics on fixed supports: sorting the selected rows into CSR order, the transposed
index, the refit of every row on its support, the guarded publication of new values, and ``G^T G x``.

Rows of ``G`` are stored with ascending columns (the diagonal last); ``rank[e]`` is the growth position of
entry ``e`` (0 for the diagonal), so a refit factorizes the support in the order it was grown and its pivots
are those of the selection. ``GT`` stores the transpose with rows ascending in each column; ``gather[k]`` is
the entry of ``G`` whose value ``GT``'s entry ``k`` holds.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...types.arrays import array, array3d
from .fsai_select import row_stop, scaled_entry

_tid, _sqrt, _isfinite, _atomic_add = (_FUNCTIONS[n] for n in ("tid", "sqrt", "isfinite", "atomic_add"))


@kernel(enable_backward=False)
def sort_rows(width: int, columns: array(dtype=int), values: array(dtype=Any), rank: array(dtype=int),
              counts: array(dtype=int)):
    """Sort row ``i``'s ``width`` slots (-1: unused) by column in place, noting each entry's growth position in
    ``rank`` and the row's size in ``counts[i + 1]``."""
    i = _tid()
    base = i * width
    size = 0
    for p in range(width):
        c = columns[base + p]
        if c >= 0:
            value = values[base + p]
            q = size
            while q > 0 and columns[base + q - 1] > c:  # insertion sort: slots before p hold the sorted prefix
                columns[base + q] = columns[base + q - 1]
                values[base + q] = values[base + q - 1]
                rank[base + q] = rank[base + q - 1]
                q -= 1
            columns[base + q] = c
            values[base + q] = value
            rank[base + q] = p
            size += 1
    counts[i + 1] = size


@kernel(enable_backward=False)
def pack_rows(width: int, offsets: array(dtype=int), columns: array(dtype=int), values: array(dtype=Any),
              rank: array(dtype=int), out_columns: array(dtype=int), out_values: array(dtype=Any),
              out_rank: array(dtype=int)):
    """Copy the sorted rows into compact CSR storage (values converted to the storage type)."""
    i = _tid()
    for e in range(offsets[i], offsets[i + 1]):
        p = i * width + e - offsets[i]
        out_columns[e] = columns[p]
        out_values[e] = out_values.dtype(values[p])
        out_rank[e] = rank[p]


@kernel(enable_backward=False)
def check_factor(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                 values: array(dtype=Any), status: array(dtype=int), slot: int):
    """Count the rows whose stored values are not finite or whose diagonal is not positive."""
    i = _tid()
    bad = False
    for e in range(offsets[i], row_stop(offsets, row_counts, i)):
        if not _isfinite(values[e]):
            bad = True
        if columns[e] == i and values[e] <= values.dtype(0.0):
            bad = True
    if bad:
        _atomic_add(status, slot, 1)


@kernel(enable_backward=False)
def count_columns(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                  counts: array(dtype=int)):
    i = _tid()
    for e in range(offsets[i], row_stop(offsets, row_counts, i)):
        _atomic_add(counts, columns[e] + 1, 1)


@kernel(enable_backward=False)
def scatter_columns(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                    t_offsets: array(dtype=int), cursor: array(dtype=int), t_rows: array(dtype=int),
                    gather: array(dtype=int)):
    i = _tid()
    for e in range(offsets[i], row_stop(offsets, row_counts, i)):
        c = columns[e]
        k = t_offsets[c] + _atomic_add(cursor, c, 1)
        t_rows[k] = i
        gather[k] = e


@kernel(enable_backward=False)
def sort_columns(t_offsets: array(dtype=int), t_rows: array(dtype=int), gather: array(dtype=int)):
    """Order each transposed row by row of ``G`` (the scatter's order depends on thread timing)."""
    c = _tid()
    begin = t_offsets[c]
    for e in range(begin + 1, t_offsets[c + 1]):
        row = t_rows[e]
        entry_index = gather[e]
        q = e
        while q > begin and t_rows[q - 1] > row:
            t_rows[q] = t_rows[q - 1]
            gather[q] = gather[q - 1]
            q -= 1
        t_rows[q] = row
        gather[q] = entry_index


@kernel(enable_backward=False)
def refit_rows(row0: int, offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
               blocks: array3d(dtype=Any), scale: array(dtype=Any), g_offsets: array(dtype=int),
               g_counts: array(dtype=int), g_columns: array(dtype=int), rank: array(dtype=int), floor: Any,
               regularize: int, width: int, stride: int, member: array(dtype=int), chol: array(dtype=Any),
               z: array(dtype=Any), out: array(dtype=Any), status: array(dtype=int)):
    """Recompute row ``row0 + tid`` of ``G`` on its support for the matrix's current values (the local
    Cholesky factor in growth order, then ``(D A D)[S, S] z = e_0``), into ``out`` at the row's entries.

    A pivot that is not finite, or not above ``floor``, fails the row (``status[2]``); with ``regularize`` a
    low pivot is raised to ``floor`` instead (``status[3]``), and a failed row becomes its scaled diagonal
    (1 where the diagonal is unusable).
    """
    t = _tid()
    i = row0 + t
    start = g_offsets[i]
    size = row_stop(g_offsets, g_counts, i) - start
    zero = blocks.dtype(0.0)
    one = blocks.dtype(1.0)
    # work arrays: slot k of thread t at k * stride + t
    for p in range(size):
        member[rank[start + p] * stride + t] = start + p  # the entry grown at position rank
    valid = True
    raised = False
    for k in range(size):
        r = g_columns[member[k * stride + t]]
        for m in range(k + 1):
            a = one  # the equilibrated diagonal is exactly one, as in the selection
            if m != k:
                a = scaled_entry(offsets, row_counts, columns, blocks, scale, r, g_columns[member[m * stride + t]])
            for q in range(m):
                a -= chol[(k * width + q) * stride + t] * chol[(m * width + q) * stride + t]
            if m == k:
                if not _isfinite(a):
                    valid = False
                    a = one
                elif a <= floor:
                    if regularize != 0:
                        raised = True
                        a = floor
                    else:
                        valid = False
                        a = one
                chol[(k * width + k) * stride + t] = _sqrt(a)
            else:
                chol[(k * width + m) * stride + t] = a / chol[(m * width + m) * stride + t]
    for k in range(size):  # L y = e_0
        a = zero
        if k == 0:
            a = one
        for q in range(k):
            a -= chol[(k * width + q) * stride + t] * z[q * stride + t]
        z[k * stride + t] = a / chol[(k * width + k) * stride + t]
    for back in range(size):  # L^T z = y
        k = size - 1 - back
        a = z[k * stride + t]
        for q in range(k + 1, size):
            a -= chol[(q * width + k) * stride + t] * z[q * stride + t]
        z[k * stride + t] = a / chol[(k * width + k) * stride + t]
    norm = _sqrt(z[t])
    for p in range(size):
        value = out.dtype(z[rank[start + p] * stride + t] / norm * scale[g_columns[start + p]])
        out[start + p] = value
        if not _isfinite(value):
            valid = False
        if p == size - 1 and value <= out.dtype(0.0):  # the diagonal, last of a sorted lower row
            valid = False
    if regularize != 0 and not valid:
        fallback = out.dtype(scale[i])
        if not (scale[i] > zero and _isfinite(fallback) and fallback > out.dtype(0.0)):
            fallback = out.dtype(1.0)
        for p in range(size):
            out[start + p] = out.dtype(0.0)
        out[start + size - 1] = fallback
    if not valid:
        _atomic_add(status, 2, 1)
    elif raised:
        _atomic_add(status, 3, 1)


@kernel(enable_backward=False)
def commit_values(candidate: array(dtype=Any), status: array(dtype=int), regularize: int, values: array(dtype=Any)):
    """Publish refit values unless the update was rejected (a topology mismatch; without ``regularize`` also an
    invalid diagonal or a failed row): the previous factor stays otherwise."""
    e = _tid()
    accepted = status[0] == 0
    if regularize == 0:
        accepted = accepted and status[1] == 0 and status[2] == 0
    if accepted:
        values[e] = candidate[e]


@kernel(enable_backward=False)
def commit_transposed(candidate: array(dtype=Any), gather: array(dtype=int), status: array(dtype=int),
                      regularize: int, values: array(dtype=Any)):
    k = _tid()
    accepted = status[0] == 0
    if regularize == 0:
        accepted = accepted and status[1] == 0 and status[2] == 0
    if accepted:
        values[k] = candidate[gather[k]]


@kernel(enable_backward=False)
def compare(a: array(dtype=int), b: array(dtype=int), status: array(dtype=int)):
    i = _tid()
    if a[i] != b[i]:
        _atomic_add(status, 0, 1)


@kernel(enable_backward=False)
def factor_mv(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
              values: array(dtype=Any), x: array(dtype=Any), y: array(dtype=Any), z: array(dtype=Any), alpha: Any,
              beta: Any):
    """``z = alpha * F x + beta * y`` for a scalar factor ``F`` stored in any float type, summing in ``x``'s
    type; ``x`` is unread when ``alpha`` is 0, ``y`` when ``beta`` is 0."""
    row = _tid()
    zero = x.dtype(0.0)
    result = zero
    if alpha != zero:
        for e in range(offsets[row], row_stop(offsets, row_counts, row)):
            result += x.dtype(values[e]) * x[columns[e]]
        result = result * alpha
    if beta != zero:
        result += beta * y[row]
    z[row] = result


@kernel(enable_backward=False)
def gather_values(values: array(dtype=Any), gather: array(dtype=int), out: array(dtype=Any)):
    k = _tid()
    out[k] = values[gather[k]]
