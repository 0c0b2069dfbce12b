"""``bsr_mm`` on the CPU, row by row with a dense accumulator per thread (Gustavson's algorithm).

The general product (mm.py) lists every pair of blocks ``x[r, k] @ y[k, c]`` and sorts the pairs into the
result's blocks: for a 7-point Laplacian squared, 49 pairs per row, each written, sorted and read again. Here each
thread takes a contiguous run of rows and, per row, marks the columns its pairs reach in a row of markers of its
own (a first pass counts them: the row offsets), then adds each pair's product into its own row of ``ncol``
accumulators and writes the row's columns in ascending order with their sums.

A block's terms are added in the order of the general product (its pairs by ``x``'s block, then ``y``'s, from
zero, then ``beta * z``), so the sums are bit for bit the same (each pair's product starts from its first term
rather than from zero, and ``alpha`` 1 is left out: neither changes a sum from +0). A compact result without
``z``'s terms is written into ``z``'s arrays where they hold it (``_writable_storage``). Products that need
gradients, and those whose accumulators would take more than :data:`MAX_SCRATCH` bytes, take the general path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime import device_sort
from ..runtime.launch import _thread_count, split_threads
from ..runtime.warp_names import wp
from ..types.type_sizes import type_size_in_bytes
from .indexing import row_end
from .matrix import BsrMatrix, counts_arg, scalar_view3d
from .topology import native_cpu

#: the most bytes of markers and accumulators (one row of ``ncol`` each per thread) this path takes
MAX_SCRATCH = 1 << 28


@wp.func
def _mark(mark: wp.array(dtype=int), at: int, r: int):
    """Whether column slot ``at`` is new in row ``r`` (and mark it)."""
    if mark[at] == r:
        return 0
    mark[at] = r
    return 1


@wp.kernel(enable_backward=False)
def _widths(chunks: int, nrow: int, ncol: int, x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int),
            x_padded: int, x_columns: wp.array(dtype=int), y_offsets: wp.array(dtype=int),
            y_counts: wp.array(dtype=int), y_padded: int, y_columns: wp.array(dtype=int), use_z: int,
            z_offsets: wp.array(dtype=int), z_counts: wp.array(dtype=int), z_padded: int,
            z_columns: wp.array(dtype=int), mark: wp.array(dtype=int), widths: wp.array(dtype=int)):
    t = wp.tid()
    base = t * ncol
    for r in range(nrow * t // chunks, nrow * (t + 1) // chunks):
        w = 0
        for s in range(x_offsets[r], row_end(x_offsets, x_counts, x_padded, r)):
            k = x_columns[s]
            for yb in range(y_offsets[k], row_end(y_offsets, y_counts, y_padded, k)):
                w += _mark(mark, base + y_columns[yb], r)
        if use_z != 0:
            for zb in range(z_offsets[r], row_end(z_offsets, z_counts, z_padded, r)):
                w += _mark(mark, base + z_columns[zb], r)
        widths[r] = w
    if t == chunks - 1:
        widths[nrow] = 0


_ROW_KERNELS: dict = {}


def rows_kernel(rows: int, cols: int, inner: int, scaled: bool = True):
    """The numeric pass for ``rows x inner`` times ``inner x cols`` blocks, the shapes constants of the code;
    ``scaled`` False leaves out the products' multiplication by ``alpha`` (1: the same bits)."""
    found = _ROW_KERNELS.get((rows, cols, inner, scaled))
    if found is not None:
        return found

    @wp.func
    def _open(mark: wp.array(dtype=int), at: int, r: int, columns: wp.array(dtype=int), slot: int, c: int,
              acc: wp.array3d(dtype=Any), zero: Any):
        """1 if column ``c`` is new in row ``r``: recorded at ``columns[slot]``, its sum set to zero; else 0."""
        if _mark(mark, at, r) == 0:
            return 0
        columns[slot] = c
        for i in range(rows):
            for j in range(cols):
                acc[at, i, j] = zero
        return 1

    @wp.kernel(enable_backward=False)
    def _rows(chunks: int, nrow: int, ncol: int, x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int),
              x_padded: int, x_columns: wp.array(dtype=int), y_offsets: wp.array(dtype=int),
              y_counts: wp.array(dtype=int), y_padded: int, y_columns: wp.array(dtype=int), use_z: int,
              z_offsets: wp.array(dtype=int), z_counts: wp.array(dtype=int), z_padded: int,
              z_columns: wp.array(dtype=int), x: wp.array3d(dtype=Any), y: wp.array3d(dtype=Any), alpha: Any,
              z: wp.array3d(dtype=Any), beta: Any, mark: wp.array(dtype=int), acc: wp.array3d(dtype=Any),
              offsets: wp.array(dtype=int), columns: wp.array(dtype=int), out: wp.array3d(dtype=Any)):
        t = wp.tid()
        base = t * ncol
        zero = out.dtype(0.0)
        for r in range(nrow * t // chunks, nrow * (t + 1) // chunks):
            first = offsets[r]
            w = 0
            for s in range(x_offsets[r], row_end(x_offsets, x_counts, x_padded, r)):
                k = x_columns[s]
                for yb in range(y_offsets[k], row_end(y_offsets, y_counts, y_padded, k)):
                    c = y_columns[yb]
                    at = base + c
                    w += _open(mark, at, r, columns, first + w, c, acc, zero)
                    for i in range(rows):
                        for j in range(cols):
                            # the general product's 0 + first term, less its zero: only a zero's sign differs,
                            # which no sum from +0 keeps
                            product = x[s, i, 0] * y[yb, 0, j]
                            for m in range(1, inner):
                                product += x[s, i, m] * y[yb, m, j]
                            if scaled:
                                product = alpha * product
                            acc[at, i, j] = acc[at, i, j] + product
            if use_z != 0:
                for zb in range(z_offsets[r], row_end(z_offsets, z_counts, z_padded, r)):
                    c = z_columns[zb]
                    at = base + c
                    w += _open(mark, at, r, columns, first + w, c, acc, zero)
                    for i in range(rows):
                        for j in range(cols):
                            acc[at, i, j] = acc[at, i, j] + beta * z[zb, i, j]
            for q in range(first + 1, first + w):  # the row's columns in ascending order (they are distinct)
                c = columns[q]
                p = q
                while p > first:
                    if columns[p - 1] < c:
                        break
                    columns[p] = columns[p - 1]
                    p -= 1
                columns[p] = c
            for q in range(first, first + w):
                at = base + columns[q]
                for i in range(rows):
                    for j in range(cols):
                        out[q, i, j] = acc[at, i, j]

    _ROW_KERNELS[(rows, cols, inner, scaled)] = _rows
    return _rows


def applies(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix) -> bool:
    """Whether the row-by-row product takes this one: CPU matrices without gradients, scratch within bounds."""
    if not native_cpu(z.device) or x.requires_grad or y.requires_grad or z.requires_grad:
        return False
    chunks = max(1, min(_thread_count(), x.nrow))  # the most that product may take (split_threads)
    return chunks * y.ncol * (4 + type_size_in_bytes(z.values.dtype)) <= MAX_SCRATCH


def _writable_storage(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix, use_z: bool) -> BsrMatrix | None:
    """``z``, when the product may be written over its arrays where they hold it (as Warp's ``bsr_mm`` writes
    into ``z``'s storage): a compact result without ``z``'s terms, and no array of ``x`` or ``y`` sharing memory
    with ``z``'s (``bsr_mm(A, A, A)`` reads ``A`` while it writes). Else None: fresh arrays. The result's
    arrays were fresh each call before: allocating and first touching them (78 MB for a 64^3 Laplacian
    squared) took a third of a one-thread product's time."""
    if use_z or z.offsets.shape[0] != z.nrow + 1:
        return None
    ours = [a.numpy() for a in (z.offsets, z.columns, z.values)]
    for m in (x, y):
        for a in (m.offsets, m.row_counts, m.columns, m.values):
            if a is not None and any(np.may_share_memory(a.numpy(), b) for b in ours):
                return None
    return z


def product(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix, alpha, beta, use_z: bool, result: BsrMatrix, work) -> None:
    """``result`` (compact, empty) = ``alpha * x @ y`` (``+ beta * z``, with ``z``'s blocks, when ``use_z``)."""
    nrow, ncol = x.nrow, y.ncol
    chunks = split_threads(nrow, x.nnz)  # the threads the launches run on now: 1 while starved
    _widths.work_per_item = max(1, x.nnz // chunks) if chunks > 1 else 0  # parallel as that many items would be
    mark = work.get("mark", (chunks * ncol,))
    mark.fill_(-1)
    own = _writable_storage(x, y, z, use_z)
    offsets = own.offsets if own else wp.empty(nrow + 1, dtype=int, device=x.device)
    zc = counts_arg(z)
    tops = [x.offsets, counts_arg(x), int(x.row_counts is not None), x.columns, y.offsets, counts_arg(y),
            int(y.row_counts is not None), y.columns, int(use_z), z.offsets, zc, int(z.row_counts is not None),
            z.columns]
    wp.launch(_widths, chunks, inputs=[chunks, nrow, ncol, *tops, mark, offsets], device=x.device, record_tape=False)
    device_sort.exclusive_scan(offsets, nrow + 1, work.get, lambda k, d, *a: wp.launch(k, d, inputs=list(a),
                                                                                        device=x.device),
                               device_sort.GPU.segment)
    nnz = int(offsets.numpy()[nrow])
    columns = own.columns if own and own.columns.shape[0] >= nnz else wp.empty(nnz, dtype=int, device=x.device)
    values = own.values if own and own.values.shape[0] >= nnz else wp.empty(nnz, dtype=result.values.dtype,
                                                                            device=x.device)
    if nnz:
        scalar = result.scalar_type
        br, bc = result.block_shape
        acc = wp.empty((chunks * ncol, br, bc), dtype=scalar, device=x.device)
        mark.fill_(-1)
        kernel = rows_kernel(br, bc, x.block_shape[1], float(scalar(alpha)) != 1.0)
        kernel.work_per_item = _widths.work_per_item
        wp.launch(kernel, chunks, inputs=[chunks, nrow, ncol, *tops, x.scalar_values, y.scalar_values, scalar(alpha),
                                         z.scalar_values, scalar(beta), mark, acc, offsets, columns,
                                         scalar_view3d(values)], device=x.device, record_tape=False)
    result.offsets, result.columns, result.values, result.row_counts, result.nnz = offsets, columns, values, None, nnz
