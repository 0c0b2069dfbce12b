"""The CPU's sort of a topology's contributions: by row with the CPU counting sort (one pass), then each row by
column with an insertion sort, one thread per row.

``topology.build`` on the GPU sorts the (row, col) keys with the device sort's radix passes: about six passes of
8-bit digits for a million rows and columns, each over every contribution. On the CPU one counting pass by row
(``runtime.counting_sort``, whole keys) and short rows sorted in place cost a fraction of that. Both sorts are
stable, so the order is the same: contributions to one block keep their input order, and the sums do too.

A row of many contributions makes the insertion sort slow (its cost grows with the square of the row's length):
:func:`sort` then returns False and the caller sorts with the radix passes.
"""

from __future__ import annotations

from ..runtime import counting_sort
from ..types.arrays import array
from ._wp import wp

#: the longest row that the insertion sort takes (its cost per row grows with the square of the length)
MAX_ROW = 512


@wp.kernel(enable_backward=False)
def _sort_rows(by_row: wp.array(dtype=int), starts: wp.array(dtype=int), ends: wp.array(dtype=int),
               cols: wp.array(dtype=int), sorted_rows: wp.array(dtype=int), sorted_cols: wp.array(dtype=int),
               order: wp.array(dtype=int)):
    # row r's contributions (in input order) inserted one by one after the ones of smaller or equal columns
    r = wp.tid()
    lo = starts[r]
    for i in range(lo, ends[r]):
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
        sorted_rows[i] = r


def sort(rows: array, cols: array, n: int, nrow: int, order: array, sorted_rows: array, sorted_cols: array,
         work) -> bool:
    """Sort the ``n`` CPU keys ``(rows[i], cols[i])`` (``rows`` in ``[0, nrow]``) stably into ``order``,
    ``sorted_rows`` and ``sorted_cols``; False (nothing useful written) when a row is too long for it."""
    by_row = work("by_row", (n,))
    starts, ends = work("row_starts", (nrow + 1,)), work("row_ends", (nrow + 1,))
    counting_sort.sort([(rows, counting_sort.WHOLE, 0)], n, by_row, work, (starts, ends, nrow + 1))
    lengths = ends.numpy() - starts.numpy()  # CPU arrays: views, no copy
    if int(lengths[:nrow].max(initial=0)) > MAX_ROW:  # the discarded ones (row nrow) keep their input order
        return False
    wp.launch(_sort_rows, nrow + 1, inputs=[by_row, starts, ends, cols, sorted_rows, sorted_cols, order],
              device="cpu", record_tape=False)
    return True

