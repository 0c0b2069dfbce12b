"""The CPU's topology of a list of contributions: sorted by row with the CPU counting sort (one pass), then each
row by column with an insertion sort, one thread per row, which also counts the row's blocks; the offsets are the
scan of those counts, and a second pass per row writes each block's column and contribution range.

``topology.build`` on the GPU sorts the (row, col) keys with the device sort's radix passes: about six passes of
8-bit digits for a million rows and columns, each over every contribution. On the CPU one counting pass by row
(``runtime.counting_sort``, whole keys) and short rows sorted in place cost a fraction of that. Both sorts are
stable, so the order is the same: contributions to one block keep their input order, and the sums do too.

A row of many contributions makes the insertion sort slow (its cost grows with the square of the row's length):
:func:`build` then returns None and the caller sorts with the radix passes.
"""

from __future__ import annotations

from ..runtime import counting_sort
from ..runtime.warp_names import wp
from ..types.arrays import array

#: the longest row that the insertion sort takes (its cost per row grows with the square of the length)
MAX_ROW = 512


@wp.kernel(enable_backward=False)
def _sort_rows(by_row: wp.array(dtype=int), starts: wp.array(dtype=int), ends: wp.array(dtype=int),
               cols: wp.array(dtype=int), nrow: int, sorted_cols: wp.array(dtype=int), order: wp.array(dtype=int),
               widths: wp.array(dtype=int), max_row: int, too_long: wp.array(dtype=int)):
    # row r's contributions (in input order) inserted one by one after the ones of smaller or equal columns;
    # widths[r]: its block count (0 for the discarded ones, row nrow). A row longer than max_row is left unsorted
    # and sets too_long[0] (the caller then sorts with the radix passes)
    r = wp.tid()
    lo = starts[r]
    hi = ends[r]
    if r < nrow and hi - lo > max_row:
        too_long[0] = 1
        return
    for i in range(lo, hi):
        item = by_row[i]
        c = cols[item]
        j = i
        while j > lo:
            if sorted_cols[j - 1] <= c:
                break
            sorted_cols[j] = sorted_cols[j - 1]
            order[j] = order[j - 1]
            j -= 1
        sorted_cols[j] = c
        order[j] = item
    w = 0
    if r < nrow:
        for i in range(lo, hi):
            if i == lo or sorted_cols[i] != sorted_cols[i - 1]:
                w += 1
    widths[r] = w


@wp.kernel(enable_backward=False)
def _row_blocks(row_starts: wp.array(dtype=int), row_ends: wp.array(dtype=int), sorted_cols: wp.array(dtype=int),
                nrow: int, offsets: wp.array(dtype=int), starts: wp.array(dtype=int), columns: wp.array(dtype=int)):
    # each block's column and first contribution; thread nrow ends the last block's range where the discarded
    # contributions (row nrow, sorted last) begin. starts holds n + 1 entries
    r = wp.tid()
    if r == nrow:  # the kept count: n less the discarded (a missing key's range is (0, 0))
        starts[offsets[nrow]] = starts.shape[0] - 1 - (row_ends[nrow] - row_starts[nrow])
        return
    b = offsets[r]
    lo = row_starts[r]
    for i in range(lo, row_ends[r]):
        if i == lo or sorted_cols[i] != sorted_cols[i - 1]:
            columns[b] = sorted_cols[i]
            starts[b] = i
            b += 1


@wp.kernel(enable_backward=False)
def _empty_tail(offsets: wp.array(dtype=int), nrow: int, starts: wp.array(dtype=int)):
    # the slots past the last block (one thread each): empty ranges at the end of the kept contributions
    nnz = offsets[nrow]
    starts[nnz + 1 + wp.tid()] = starts[nnz]


def build(rows: array, cols: array, n: int, nrow: int, order: array, work, scan):
    """The compact topology of the ``n`` CPU keys ``(rows[i], cols[i])`` (``rows`` in ``[0, nrow]``):
    ``(starts, offsets, columns)`` as ``topology.build`` makes them (``order`` written), or None (nothing useful
    written) when a row is too long for the insertion sort. ``scan(values, count)``: an exclusive scan in place."""
    by_row = work("by_row", (n,))
    row_starts, row_ends = work("row_starts", (nrow + 1,)), work("row_ends", (nrow + 1,))
    counting_sort.sort([(rows, counting_sort.WHOLE, 0)], n, by_row, work, (row_starts, row_ends, nrow + 1))
    sorted_cols = work("sorted_cols", (n,))
    offsets = wp.empty(nrow + 1, dtype=int, device="cpu")
    run = launcher("cpu")
    too_long = work("too_long", (1,))
    too_long.zero_()
    # the discarded ones (row nrow) keep their input order, however many
    run(_sort_rows, nrow + 1, by_row, row_starts, row_ends, cols, nrow, sorted_cols, order, offsets, MAX_ROW,
        too_long)
    if too_long.numpy()[0]:  # a CPU array: a view, no copy
        return None
    scan(offsets, nrow + 1)  # the row widths (0 last) into offsets
    starts = work("starts", (n + 1,))
    columns = wp.empty(n, dtype=int, device="cpu")
    run(_row_blocks, nrow + 1, row_starts, row_ends, sorted_cols, nrow, offsets, starts, columns)
    tail = n - int(offsets.numpy()[nrow])  # a CPU array: a view, no copy
    if tail:  # none when every contribution is a block of its own (a pass over the n + 1 slots before)
        run(_empty_tail, tail, offsets, nrow, starts)
    return starts, offsets, columns


def launcher(device):
    def run(kernel, dim, *inputs):
        wp.launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    return run
