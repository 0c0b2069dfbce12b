"""FSAI support selection: the diagonal scaling and the adaptive growth of each factor row, one thread per row.

The matrix is read in place as 3-D scalar blocks (``BsrMatrix.scalar_values``), so one kernel serves CSR and
block storage, compact or padded rows; a block matrix is treated as its scalar expansion. Rows work on the
diagonally equilibrated matrix ``D A D`` (``D = diag(A)^-1/2``), whose diagonal is taken to be exactly one.

Row ``i`` starts from the support ``S = [i]`` and grows: the candidates are the columns ``c < i`` stored in the
rows of ``S``, scored by ``|(D A D)[c, S] z|`` where ``(D A D)[S, S] z = e_0`` (the gradient of the local
Kaporin number); the ``step`` best (largest score, then smallest column; zero scores never) are added, each by
bordering the Cholesky factor of ``(D A D)[S, S]``. Growth stops at ``width`` entries, when no candidate is
left, when a pivot is not above ``floor`` (the row is truncated before that candidate and counted), or when
the relative improvement ``1 - z_old[0] / z[0]`` is at most ``tolerance`` (zero: never). The row of ``G`` is
``z / sqrt(z[0])`` scaled back by ``D``. The per-thread work arrays (the support, the factor, ``z`` ...) are
interleaved device arrays sized for a chunk of ``stride`` rows, so the width is a runtime value.
"""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.function import func
from ...lang.kernel import kernel
from ...sparse import bsr_block_index
from ...types.arrays import array, array3d

_tid, _abs, _sqrt, _isfinite, _atomic_add = (_FUNCTIONS[n] for n in ("tid", "abs", "sqrt", "isfinite", "atomic_add"))

# status slots written by the kernels of this module
INVALID_DIAGONAL, TRUNCATED, INVALID_FACTOR = 0, 1, 2


@func
def row_stop(offsets: array(dtype=int), row_counts: array(dtype=int), row: int):
    """One past the last active block of block row ``row`` (``row_counts`` empty: compact rows)."""
    end = offsets[row + 1]
    if row_counts.shape[0] > 0:
        end = offsets[row] + row_counts[row]
    return end


@func
def entry(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
          blocks: array3d(dtype=Any), r: int, c: int):
    """Scalar coefficient ``A[r, c]`` (zero where no block is stored)."""
    bs = blocks.shape[1]
    slot = bsr_block_index(r // bs, c // bs, offsets, columns, row_counts)
    result = blocks.dtype(0.0)
    if slot >= 0:
        result = blocks[slot, r % bs, c % bs]
    return result


@kernel(enable_backward=False)
def diagonal_scaling(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                     blocks: array3d(dtype=Any), scale: array(dtype=Any), status: array(dtype=int), slot: int):
    """``scale[i] = A[i, i]^-1/2``, or 0 (counted in ``status[slot]``) for a diagonal that is not finite and
    positive."""
    i = _tid()
    d = entry(offsets, row_counts, columns, blocks, i, i)
    zero = blocks.dtype(0.0)
    if d > zero and _isfinite(d):
        scale[i] = blocks.dtype(1.0) / _sqrt(d)
    else:
        scale[i] = zero
        _atomic_add(status, slot, 1)


@func
def scaled_entry(offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                 blocks: array3d(dtype=Any), scale: array(dtype=Any), r: int, c: int):
    return entry(offsets, row_counts, columns, blocks, r, c) * scale[r] * scale[c]


@kernel(enable_backward=False)
def select_rows(row0: int, offsets: array(dtype=int), row_counts: array(dtype=int), columns: array(dtype=int),
                blocks: array3d(dtype=Any), scale: array(dtype=Any), tolerance: Any, floor: Any, width: int,
                step: int, stride: int, support: array(dtype=int), chol: array(dtype=Any), z: array(dtype=Any),
                v: array(dtype=Any), w: array(dtype=Any), cand: array(dtype=int), score: array(dtype=Any),
                cols_out: array(dtype=int), vals_out: array(dtype=Any), status: array(dtype=int),
                ready: array(dtype=int)):
    """Grow row ``row0 + tid`` (module docstring); its ``width`` slots of ``cols_out``/``vals_out`` get the
    support in growth order and the factor values, -1 and 0 past its size. Nothing when ``ready[0]`` is set
    (the supports of a deferred pattern exist already)."""
    t = _tid()
    i = row0 + t
    if ready[0] != 0:
        return
    bs = blocks.shape[1]
    zero = blocks.dtype(0.0)
    one = blocks.dtype(1.0)
    # work arrays: slot k of thread t at k * stride + t (neighbouring threads touch neighbouring words)
    support[t] = i
    chol[t] = one
    z[t] = one
    v[t] = one
    size = 1
    while size < width:
        for q in range(step):
            cand[q * stride + t] = -1
            score[q * stride + t] = zero
        # the frontier: every stored column of the support's rows (repeats are skipped; scores are exact)
        for p in range(size):
            row = support[p * stride + t]
            brow = row // bs
            for e in range(offsets[brow], row_stop(offsets, row_counts, brow)):
                for k in range(bs):
                    c = columns[e] * bs + k
                    seen = c >= i
                    for q in range(size):
                        if support[q * stride + t] == c:
                            seen = True
                    for q in range(step):
                        if cand[q * stride + t] == c:
                            seen = True
                    if not seen:
                        residual = zero
                        for q in range(size):
                            residual += scaled_entry(offsets, row_counts, columns, blocks, scale, c,
                                                     support[q * stride + t]) * z[q * stride + t]
                        s = _abs(residual)
                        for rank in range(step):
                            here = rank * stride + t
                            if s > score[here] or (s == score[here] and c < cand[here]):
                                for back in range(step - 1 - rank):  # shift the worse ones down a rank
                                    dest = step - 1 - back
                                    cand[dest * stride + t] = cand[(dest - 1) * stride + t]
                                    score[dest * stride + t] = score[(dest - 1) * stride + t]
                                cand[rank * stride + t] = c
                                score[rank * stride + t] = s
                                break
        if cand[t] < 0:
            break
        old_z0 = z[t]
        stopped = False
        for rank in range(step):
            best = cand[rank * stride + t]
            if best < 0 or size == width:
                break
            # border the Cholesky factor with the candidate: L w = (D A D)[S, best], pivot 1 - |w|^2
            pivot = one
            for p in range(size):
                a = scaled_entry(offsets, row_counts, columns, blocks, scale, best, support[p * stride + t])
                for q in range(p):
                    a -= chol[(p * width + q) * stride + t] * w[q * stride + t]
                w[p * stride + t] = a / chol[(p * width + p) * stride + t]
                pivot -= w[p * stride + t] * w[p * stride + t]
            if pivot <= floor or not _isfinite(pivot):
                _atomic_add(status, 1, 1)
                stopped = True
                break
            support[size * stride + t] = best
            for p in range(size):
                chol[(size * width + p) * stride + t] = w[p * stride + t]
            diag = _sqrt(pivot)
            chol[(size * width + size) * stride + t] = diag
            # the forward solve L v = e_0 keeps its entries when L is bordered: one more entry
            rhs = zero
            for p in range(size):
                rhs -= w[p * stride + t] * v[p * stride + t]
            v[size * stride + t] = rhs / diag
            size += 1
        for back in range(size):  # L^T z = v
            p = size - 1 - back
            a = v[p * stride + t]
            for q in range(p + 1, size):
                a -= chol[(q * width + p) * stride + t] * z[q * stride + t]
            z[p * stride + t] = a / chol[(p * width + p) * stride + t]
        if stopped:
            break
        if tolerance > zero and one - old_z0 / z[t] <= tolerance:
            break
    norm = _sqrt(z[t])
    valid = True
    for p in range(width):
        e = i * width + p
        cols_out[e] = -1
        vals_out[e] = zero
        if p < size:
            value = z[p * stride + t] / norm * scale[support[p * stride + t]]
            cols_out[e] = support[p * stride + t]
            vals_out[e] = value
            if not _isfinite(value):
                valid = False
            if p == 0 and value <= zero:
                valid = False
    if not valid:
        _atomic_add(status, 2, 1)
