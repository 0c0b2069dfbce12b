"""Searches in BSR storage, for kernels: a block's row, a row's end, the block at (row, col).

``bsr_row_index`` and ``bsr_block_index`` are Warp's kernel-side functions (``@wp.func``, usable in user kernels).
"""

from __future__ import annotations

from ..runtime.warp_names import wp


@wp.func
def row_end(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int, row: int):
    """The end of ``row``'s active blocks."""
    if padded != 0:
        return offsets[row] + row_counts[row]
    return offsets[row + 1]


@wp.func
def first_at_least(a: wp.array(dtype=int), begin: int, end: int, value: int):
    """The first index of ``[begin, end)`` of the ascending ``a`` with ``a[i] >= value``, ``end`` if none (unlike
    ``wp.lower_bound``, which stops at the last element)."""
    lo = begin
    hi = end
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@wp.func
def block_row(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int, nrow: int, b: int):
    """The row of block slot ``b``, -1 when it is in no row's active range."""
    row = first_at_least(offsets, 0, nrow + 1, b + 1) - 1
    if row >= 0 and row < nrow:
        if b >= row_end(offsets, row_counts, padded, row):
            row = -1
    else:
        row = -1
    return row


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int) -> int:
    """The row of compact storage holding block ``block_index``, -1 if none."""
    if block_index < 0:
        return -1
    row = first_at_least(offsets, 0, row_count + 1, block_index + 1) - 1
    if row >= row_count:
        return -1
    return row


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int,  # noqa: F811 (an overload)
                  row_counts: wp.array(dtype=int)) -> int:
    """The row whose active blocks (``row_counts``: padded rows; an empty array: compact) hold ``block_index``,
    -1 if none."""
    row = bsr_row_index(offsets, row_count, block_index)
    if row >= 0 and row_counts.shape[0] > 0:
        if block_index >= offsets[row] + row_counts[row]:
            row = -1
    return row


@wp.func
def _find_column(col: int, begin: int, end: int, columns: wp.array(dtype=int)) -> int:
    b = first_at_least(columns, begin, end, col)
    if b < end:
        if columns[b] == col:
            return b
    return -1


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int), bsr_columns: wp.array(dtype=int)) -> int:
    """The index of the block at ``(row, col)`` (columns ascending in each row), -1 if there is none."""
    if row < 0:
        return -1
    return _find_column(col, bsr_offsets[row], bsr_offsets[row + 1], bsr_columns)


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int), bsr_columns: wp.array(dtype=int),  # noqa: F811
                    bsr_row_counts: wp.array(dtype=int)) -> int:
    """The index of the active block at ``(row, col)`` of padded rows (an empty ``bsr_row_counts``: compact),
    -1 if there is none."""
    if row < 0:
        return -1
    end = bsr_offsets[row + 1]
    if bsr_row_counts.shape[0] > 0:
        end = bsr_offsets[row] + bsr_row_counts[row]
    return _find_column(col, bsr_offsets[row], end, bsr_columns)
