"""Compact BSR topology from lists of (row, column) keys, built on the keys' device.

Every operation that creates blocks (triplets, sums, products, transposes, compression) lists its
contributions as keys ``(row, col)`` (``row == nrow`` marks a discarded one), then :func:`build`:

1. sorts the contributions by row then column, stably (contributions to one block keep their input order, so
   sums are deterministic): on a GPU with the radix passes of ``runtime.device_sort``, on the CPU by row and
   then within each row (``row_sort``; the radix passes when a row is very long), in the same order;
2. marks the first contribution of each block and scans the marks into block indices;
3. writes each block's column and its range of sorted contributions, then the row offsets (a binary search per
   row on a GPU, a pass over the blocks on the CPU).

Nothing is read back from a GPU: as in Warp, the host's ``nnz`` is the contribution count, an upper bound
of the block count (``BsrMatrix.nnz_sync`` reads the exact one), and the arrays are sized by it. The caller
then computes each block's value from its range (``Plan.order[starts[b]:starts[b + 1]]`` are the contribution
indices of block ``b``; the ranges of the slots past the last block are empty).
"""

from __future__ import annotations

from .. import config
from ..runtime import device_sort
from ..runtime.warp_names import wp
from ..types.arrays import array
from . import row_sort
from .indexing import first_at_least


@wp.kernel(enable_backward=False)
def _heads(rows: wp.array(dtype=int), cols: wp.array(dtype=int), n: int, nrow: int, heads: wp.array(dtype=int)):
    i = wp.tid()
    if i == n:
        heads[i] = 0
        return
    head = 0
    if rows[i] < nrow:
        head = 1
        if i > 0:
            if rows[i - 1] == rows[i] and cols[i - 1] == cols[i]:
                head = 0
    heads[i] = head


@wp.kernel(enable_backward=False)
def _blocks(rows: wp.array(dtype=int), cols: wp.array(dtype=int), index: wp.array(dtype=int), n: int, nrow: int,
            starts: wp.array(dtype=int), columns: wp.array(dtype=int), block_rows: wp.array(dtype=int)):
    # index: the exclusive scan of the heads (n + 1 entries: index[n] is the block count)
    i = wp.tid()
    if rows[i] >= nrow:
        return
    b = index[i]
    if index[i + 1] > b:  # the head of block b
        starts[b] = i
        columns[b] = cols[i]
        block_rows[b] = rows[i]
    last = i == n - 1
    if not last:
        last = rows[i + 1] >= nrow
    if last:  # the end of the last block's range
        starts[index[n]] = i + 1


@wp.kernel(enable_backward=False)
def _offsets_search(block_rows: wp.array(dtype=int), index: wp.array(dtype=int), n: int,
                    offsets: wp.array(dtype=int)):
    # a GPU's: one thread per row, a binary search (a thread per slot could meet a long run of empty rows)
    r = wp.tid()
    offsets[r] = first_at_least(block_rows, 0, index[n], r)


@wp.kernel(enable_backward=False)
def _offsets(block_rows: wp.array(dtype=int), index: wp.array(dtype=int), n: int, nrow: int,
             offsets: wp.array(dtype=int)):
    # slot b (0..nnz) writes the offsets of the rows after the previous block's row, up to its own (every row
    # after the last block's at slot nnz): each row once
    b = wp.tid()
    nnz = index[n]
    if b > nnz:
        return
    first = 0
    if b > 0:
        first = block_rows[b - 1] + 1
    last = nrow
    if b < nnz:
        last = block_rows[b]
    for r in range(first, last + 1):
        offsets[r] = b


@wp.kernel(enable_backward=False)
def _empty_tail(index: wp.array(dtype=int), n: int, starts: wp.array(dtype=int)):
    # slots past the last block: empty ranges at the end of the used contributions
    b = wp.tid()
    nnz = index[n]
    if b > nnz:
        starts[b] = starts[nnz]


@wp.kernel(enable_backward=False)
def _fill(a: wp.array(dtype=int), value: int):
    a[wp.tid()] = value


class Work:
    """int32 work arrays of one device, kept by name while their shape does not change (``work_arrays``)."""

    def __init__(self, device):
        self.device = device
        self.arrays: dict = {}

    def get(self, name: str, shape: tuple) -> array:
        a = self.arrays.get(name)
        if a is None or a.shape != tuple(shape) or a.device != self.device:
            a = self.arrays[name] = wp.empty(shape, dtype=int, device=self.device)
        return a


class WorkArrays:
    """The base of Warp's ``*_work_arrays`` classes: a ``Work`` of the last device asked for, which repeated
    calls of one operation reuse."""

    def __init__(self):
        self._work = None

    def _get(self, device) -> Work:
        if self._work is None or self._work.device != device:
            self._work = Work(device)
        return self._work


def native_cpu(device) -> bool:
    """Whether the CPU's own algorithms run on ``device``: the CPU, unless the target is cuda-emulation, which runs
    the GPU's (so that tests on the CPU cover them)."""
    return device.is_cpu and config.target == "cpu"


class Plan:
    """A built topology's contribution order (``order``), each block slot's contribution range (``starts``,
    nnz + 1 entries) and the slot count ``nnz`` (the contribution count: an upper bound of the blocks)."""

    def __init__(self, order: array, starts: array, nnz: int):
        self.order, self.starts, self.nnz = order, starts, nnz


def launcher(device):
    def run(kernel, dim, *inputs):
        wp.launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    return run


def build(rows: array, cols: array, n: int, nrow: int, ncol: int, work: Work):
    """Sort the ``n`` keys ``(rows[i], cols[i])`` (``rows[i] == nrow``: discarded; ``cols`` in ``[0, ncol)``),
    and return ``(plan, offsets, columns)``: the compact topology's ``nrow + 1`` offsets and ``nnz`` columns
    (fresh arrays) and the contribution ranges."""
    device = work.device
    run = launcher(device)
    order = work.get("order", (n,))
    if n == 0:
        offsets = wp.empty(nrow + 1, dtype=int, device=device)
        run(_fill, nrow + 1, offsets, 0)
        starts = work.get("starts", (1,))
        run(_fill, 1, starts, 0)
        return Plan(order, starts, 0), offsets, wp.empty(0, dtype=int, device=device)
    plan = device_sort.GPU
    if native_cpu(device):
        built = row_sort.build(rows, cols, n, nrow, order, work.get,
                               lambda a, count: device_sort.exclusive_scan(a, count, work.get, run, plan.segment))
        if built is not None:
            starts, offsets, columns = built
            return Plan(order, starts, n), offsets, columns
    offsets = wp.empty(nrow + 1, dtype=int, device=device)
    sorted_rows, sorted_cols = work.get("sorted_rows", (n,)), work.get("sorted_cols", (n,))
    passes = [(1, s) for s in plan.digits(ncol)] + [(0, s) for s in plan.digits(nrow + 1)]
    device_sort.sort([rows, cols], passes, n, order, [sorted_rows, sorted_cols], work.get, run, plan)
    index = work.get("index", (n + 1,))
    run(_heads, n + 1, sorted_rows, sorted_cols, n, nrow, index)
    device_sort.exclusive_scan(index, n + 1, work.get, run, plan.segment)
    starts = work.get("starts", (n + 1,))
    columns = wp.empty(n, dtype=int, device=device)
    block_rows = work.get("block_rows", (n,))
    run(_fill, 1, starts, 0)  # no kept contribution: every range empty
    run(_blocks, n, sorted_rows, sorted_cols, index, n, nrow, starts, columns, block_rows)
    run(_empty_tail, n + 1, index, n, starts)
    if native_cpu(device):  # a pass over the slots, rather than a binary search per row
        run(_offsets, n + 1, block_rows, index, n, nrow, offsets)
    else:
        run(_offsets_search, nrow + 1, block_rows, index, n, offsets)
    return Plan(order, starts, n), offsets, columns
