"""The CPU's transposed product ``y = alpha * A^T x + beta * y`` with sums in a fixed order (the same bits every run,
whatever the thread count), for ``bsr_mv(transpose=True)``.

The block rows are cut into ``parts`` ranges of consecutive rows, a number that depends on the matrix alone. Each
range is one thread's: it adds its blocks' terms, in row order, into its own row of a scratch array, over the span
of columns its blocks reach (found by a first pass, and only that span zeroed: a banded matrix's ranges reach
narrow spans). A second kernel gives each entry of ``y`` the sum of the ranges' partial sums in range order, scaled
by ``alpha``, plus ``beta * y``. Where the atomic product adds each block's terms once, this one also zeroes and
reads the spans: about the matrix's column count more per range whose span covers a column.

The scratch is kept on the matrix per Python thread (a ``threading.local``): two threads' products on one matrix
would otherwise fill and read one scratch in turn and sum each other's partial sums.
"""

from __future__ import annotations

import threading
from typing import Any

from ..runtime.warp_names import wp
from .indexing import row_end

#: Most row ranges: enough threads for a CPU's cores, few partial sums per entry of ``y``.
MAX_PARTS = 16
#: Fewest blocks per range: a smaller matrix is split in fewer ranges (one below this count).
BLOCKS_PER_PART = 64


@wp.kernel(enable_backward=False)
def _partial_products(nrow: int, parts: int, nnz: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                      padded: int, columns: wp.array(dtype=int), values: wp.array3d(dtype=Any),
                      x: wp.array(dtype=Any), spans: wp.array2d(dtype=int), partials: wp.array2d(dtype=Any)):
    # one thread per range of rows: partials[p, k] = sum over its blocks, in row order, of (A^T x)[k]'s terms,
    # for k in spans[p, 0] <= k < spans[p, 1] (the columns its blocks reach; the rest of the row is not written)
    p = wp.tid()
    rows = values.shape[1]
    cols = values.shape[2]
    first = p * nrow // parts
    last = (p + 1) * nrow // parts
    lo = 2147483647
    hi = -1
    for r in range(first, last):
        for b in range(offsets[r], wp.min(row_end(offsets, row_counts, padded, r), nnz)):
            c = columns[b]
            lo = wp.min(lo, c)
            hi = wp.max(hi, c)
    if hi < 0:
        lo = 0
    begin = lo * cols
    end = (hi + 1) * cols
    spans[p, 0] = begin
    spans[p, 1] = end
    zero = partials.dtype(0.0)
    for k in range(begin, end):
        partials[p, k] = zero
    for r in range(first, last):
        for b in range(offsets[r], wp.min(row_end(offsets, row_counts, padded, r), nnz)):
            c = columns[b] * cols
            for j in range(cols):
                total = zero
                for i in range(rows):
                    total += values[b, i, j] * x[r * rows + i]
                partials[p, c + j] = partials[p, c + j] + total  # (not +=, which is an atomic add)


@wp.kernel(enable_backward=False)
def _sum_partials(spans: wp.array2d(dtype=int), partials: wp.array2d(dtype=Any), y: wp.array(dtype=Any), alpha: Any,
                  beta: Any, read_y: int):
    # y[k] = alpha * (the ranges' partial sums at k, in range order) + beta * y[k]
    k = wp.tid()
    total = y.dtype(0.0)
    for p in range(spans.shape[0]):
        if spans[p, 0] <= k and k < spans[p, 1]:
            total += partials[p, k]
    total = alpha * total
    if read_y != 0:
        total += beta * y[k]
    y[k] = total


def part_count(A) -> int:
    """The row ranges of ``A``'s transposed product: a function of its block count alone (not of the threads)."""
    return max(1, min(MAX_PARTS, A.nnz // BLOCKS_PER_PART, A.nrow))


#: Guards the first making of a matrix's per-thread scratch holder (two threads' first products at once).
_HOLDER_LOCK = threading.Lock()


def _scratch(A, parts: int, length: int, scalar):
    """The calling thread's scratch arrays of ``A`` for ``parts`` ranges of ``length`` partial sums, kept on the
    matrix between products (an adjoint solve applies ``A^T`` every iteration) and made again when the shape or
    type changes. Per thread: a thread's arrays are freed with the thread or the matrix."""
    holder = getattr(A, "_transpose_scratch", None)
    if holder is None:
        with _HOLDER_LOCK:
            holder = getattr(A, "_transpose_scratch", None)
            if holder is None:
                holder = A._transpose_scratch = threading.local()
    found = getattr(holder, "arrays", None)
    if found is None or found[1].shape != (parts, length) or found[1].dtype is not scalar:
        found = holder.arrays = (wp.empty((parts, 2), dtype=int, device=A.device),
                                 wp.empty((parts, length), dtype=scalar, device=A.device))
    return found


def mv_transpose(A, counts, padded: int, x_flat, y_flat, alpha, beta) -> None:
    """``y_flat = alpha * A^T x_flat + beta * y_flat`` (flat scalar vectors; ``beta == 0`` reads no ``y``), in a
    fixed order. Not recorded by a tape: ``bsr_mv`` takes the atomic product where a gradient flows."""
    parts = part_count(A)
    spans, partials = _scratch(A, parts, y_flat.shape[0], A.scalar_type)
    rows, cols = A.block_shape
    # parallel (or not) as the block terms and the sums of the ranges would be, one item each
    _partial_products.work_per_item = A.nnz * rows * cols / parts
    _sum_partials.work_per_item = parts
    wp.launch(_partial_products, parts, inputs=[A.nrow, parts, A.nnz, A.offsets, counts, padded, A.columns,
                                                A.scalar_values, x_flat, spans, partials], device=A.device,
              record_tape=False)
    wp.launch(_sum_partials, y_flat.shape[0], inputs=[spans, partials, y_flat, alpha, beta, int(float(beta) != 0.0)],
              device=A.device, record_tape=False)
