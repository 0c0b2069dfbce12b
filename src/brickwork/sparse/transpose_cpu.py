"""The CPU's transpose of a matrix whose rows hold ascending, distinct columns: a counting sort by column.

The general path (``topology.build``) lists each block as a key ``(column, row)`` and sorts the keys. When
every row's columns are ascending and distinct (what every operation of this package writes; a matrix written
by hand may hold anything), the transposed blocks are distinct, and scattering the source's blocks in row order
into the counted and scanned columns gives each transposed row its blocks in ascending order: the sort's
layout, without the sort. One pass checks the rows and counts the columns (:func:`column_offsets`), a second
scatters the blocks: with their values for scalar blocks (:func:`scatter`), else as the plan the general build
would give (:func:`plan`), whose values the general copy kernel writes (which a tape records, and which reads
blocks faster than a serial loop of unknown block shape would). Both passes run on one thread: a scatter in
row order is serial, as the usual hand-written transpose is.
"""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from .indexing import row_end
from .matrix import BsrMatrix, counts_arg
from .topology import Plan, launcher


@wp.kernel(enable_backward=False)
def _count_columns(nrow: int, ncol: int, nnz: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                   padded: int, columns: wp.array(dtype=int), counts: wp.array(dtype=int),
                   status: wp.array(dtype=int)):
    # one thread: counts[c + 1] = the blocks of column c, scanned into the transpose's offsets; status[0] = 1
    # when the rows are in order (offsets ascending from 0, active ranges inside them) and each row's columns
    # ascending, distinct and in [0, ncol); 0 (counts unusable) as soon as something is not
    status[0] = 0
    for c in range(ncol + 1):
        counts[c] = 0
    if offsets[0] < 0:
        return
    for r in range(nrow):
        begin = offsets[r]
        end = row_end(offsets, row_counts, padded, r)
        if offsets[r + 1] < begin or end < begin or end > offsets[r + 1]:
            return
        previous = -1
        for s in range(begin, wp.min(end, nnz)):  # slots past nnz are no blocks (uncompress_rows)
            c = columns[s]
            if c <= previous or c >= ncol:
                return
            counts[c + 1] = counts[c + 1] + 1  # (not +=, which is an atomic add)
            previous = c
    for c in range(ncol):
        counts[c + 1] = counts[c + 1] + counts[c]
    status[0] = 1


@wp.kernel(enable_backward=False)
def _scatter(nrow: int, ncol: int, nnz: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
             padded: int, columns: wp.array(dtype=int), dest_offsets: wp.array(dtype=int), free: wp.array(dtype=int),
             dest_columns: wp.array(dtype=int), order: wp.array(dtype=int), values: wp.array(dtype=Any), scale: Any,
             dest_values: wp.array(dtype=Any)):
    # one thread: each block, in row order, to the next free slot of its column's transposed row, with its source
    # slot in order (for the plan) or, when order is empty, its scalar value in dest_values as _copy_blocks of
    # assign.py writes it from the plan (the copy, or scale times it), and in the slots past the last block the
    # value it writes for an empty range
    for c in range(ncol):
        free[c] = dest_offsets[c]
    to_plan = order.shape[0] > 0
    one = scale == dest_values.dtype(1.0)
    for r in range(nrow):
        for s in range(offsets[r], wp.min(row_end(offsets, row_counts, padded, r), nnz)):
            c = columns[s]
            p = free[c]
            free[c] = p + 1
            dest_columns[p] = r
            if to_plan:
                order[p] = s
            else:
                v = values[s]
                if not one:
                    v = scale * v
                dest_values[p] = v
    if not to_plan:
        zero = dest_values.dtype(0.0)
        if not one:
            zero = scale * zero
        for b in range(dest_offsets[ncol], nnz):
            dest_values[b] = zero


@wp.kernel(enable_backward=False)
def _one_each(dest_offsets: wp.array(dtype=int), ncol: int, starts: wp.array(dtype=int)):
    # block b's one contribution is order[b]; the slots past the last block have empty ranges
    b = wp.tid()
    starts[b] = wp.min(b, dest_offsets[ncol])


def column_offsets(src: BsrMatrix, work):
    """The transpose's row offsets (``src``'s column counts, scanned), or None when a row of ``src`` is not in
    ascending, distinct columns (or its storage is not in order) and the general build must sort."""
    offsets = wp.empty(src.ncol + 1, dtype=int, device=src.device)
    status = work.get("transpose_status", (1,))
    launcher(src.device)(_count_columns, 1, *_source(src), offsets, status)
    return offsets if int(status.numpy()[0]) else None  # a CPU array: a view, no copy


def _source(src: BsrMatrix) -> tuple:
    return (src.nrow, src.ncol, src.nnz, src.offsets, counts_arg(src), int(src.row_counts is not None), src.columns)


def plan(src: BsrMatrix, offsets, work):
    """``(plan, columns)``: the transpose's columns and the plan ``topology.build`` makes from the keys ``(column,
    row)`` of ``src``'s blocks (one contribution per block; ``plan.nnz``: ``src.nnz``)."""
    n = src.nnz
    columns = wp.empty(n, dtype=int, device=src.device)
    order, starts = work.get("order", (n,)), work.get("starts", (n + 1,))
    none = wp.empty(0, dtype=src.scalar_type, device=src.device)
    run = launcher(src.device)
    run(_scatter, 1, *_source(src), offsets, work.get("free", (src.ncol,)), columns, order, none,
        src.scalar_type(1.0), none)
    run(_one_each, n + 1, offsets, src.ncol, starts)
    return Plan(order, starts, n), columns


def scatter(src: BsrMatrix, scale, offsets, dest: BsrMatrix, work):
    """The transpose's columns, with ``scale`` times ``src``'s values written into ``dest.values`` (room for
    ``src.nnz`` values), as ``plan`` and the copy of its contributions would: for scalar blocks (CSR) only."""
    columns = wp.empty(src.nnz, dtype=int, device=src.device)
    launcher(src.device)(_scatter, 1, *_source(src), offsets, work.get("free", (src.ncol,)), columns,
                         work.get("no_order", (0,)), src.values, scale, dest.values)
    return columns
