"""The build of a hash grid in compiled kernels: the points' cells, then a stable counting sort of the
points by cell, so a build is deterministic whatever the number of threads. With groups, the sort is
least-significant key first: the group bits' digits, then the cell's. A CPU grid sorts with
``counting_sort.py`` (16-bit digits, or whole cells); a CUDA grid with ``device_sort.py`` (8-bit digits,
thousands of chunks, a parallel scan), every kernel launched on the grid's device. Both orders are the same.

The cells are computed as the queries compute them (``include/brickwork_hash_grid.h``): ``x * (1 /
width)`` in float for float16 and float32 points and in double for float64 ones, floored, NaN to 0,
clamped to the int32 range, wrapped into the grid.
"""

from __future__ import annotations

import typing

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty
from ..types.arrays import array
from ..types.composite import vector
from ..types.scalars import int32
from . import counting_sort, device_sort
from .counting_sort import DIGIT, WHOLE
from .launch import launch_on_cpu

_tid, _floor = _FUNCTIONS["tid"], _FUNCTIONS["floor"]
_vec3i = vector(3, int32)


@func
def _axis(x: typing.Any, inv: typing.Any, n: int32):
    # brickwork's float-to-int conversion saturates and takes NaN to 0: the header's clamp
    c = int32(_floor(type(inv)(x) * inv))
    if c >= int32(0) and c < n:  # points inside the grid's extent need no division
        return c
    r = c % n  # C's remainder: the sign of c
    if r < int32(0):
        r = r + n
    return r


@kernel(enable_backward=False)
def _cells(points: array(dtype=typing.Any), inv: typing.Any, dims: _vec3i, cells: array(dtype=int32)):
    i = _tid()
    p = points[i]
    x = _axis(p[0], inv, dims[0])
    y = _axis(p[1], inv, dims[1])
    z = _axis(p[2], inv, dims[2])
    cells[i] = (z * dims[1] + y) * dims[0] + x


@kernel(enable_backward=False)
def _gather(values: array(dtype=int32), order: array(dtype=int32), out: array(dtype=int32)):
    i = _tid()
    out[i] = values[order[i]]


@kernel(enable_backward=False)
def _zero(values: array(dtype=int32)):
    values[_tid()] = int32(0)


@kernel(enable_backward=False)
def _clear(cells: array(dtype=int32), starts: array(dtype=int32), ends: array(dtype=int32)):
    s = _tid()
    starts[cells[s]] = int32(0)
    ends[cells[s]] = int32(0)


@kernel(enable_backward=False)
def _ranges(cells: array(dtype=int32), ids: array(dtype=int32), n: int32, sorted_cells: array(dtype=int32),
            starts: array(dtype=int32), ends: array(dtype=int32)):
    # each cell's range from the sorted positions: its first and last position write it, no other
    s = _tid()
    c = cells[ids[s]]
    sorted_cells[s] = c
    if s == 0 or cells[ids[s - 1]] != c:
        starts[c] = s
    if s == n - 1 or cells[ids[s + 1]] != c:
        ends[c] = s + 1


@kernel(enable_backward=False)
def _sorted_ranges(sorted_cells: array(dtype=int32), n: int32, starts: array(dtype=int32), ends: array(dtype=int32)):
    s = _tid()
    c = sorted_cells[s]
    if s == 0 or sorted_cells[s - 1] != c:
        starts[c] = s
    if s == n - 1 or sorted_cells[s + 1] != c:
        ends[c] = s + 1


class Scratch:
    """The work arrays of a grid's builds (int32, on the grid's device), kept between builds of the same size,
    and what the last build left in the cell tables: every cell (a dense build) or the cells of
    ``sorted_cells``."""

    def __init__(self, device="cpu"):
        self.device = device
        self.arrays: dict = {}
        self.dense = False  # the tables hold a dense build's ranges (a fresh grid's tables are all 0)
        self.filled = 0  # else: the first ``filled`` entries of arrays["sorted_cells"] are the cells set

    def get(self, name: str, shape: tuple) -> array:
        a = self.arrays.get(name)
        if a is None or a.shape != shape:
            a = self.arrays[name] = empty(shape, dtype=int32, device=self.device)
        return a


def dense(cells: int, n: int) -> bool:
    """Whether a build of ``n`` points sorts by whole cells (one pass that counts per cell and writes every
    cell's range), else by 16-bit digits of the cells (two passes of 65536 counters, then only the occupied
    cells' ranges: a large grid with few points costs the points, not the cells)."""
    return cells <= max(2 * (DIGIT + 1), 4 * n)


def build_tables(points: array, inv, dims: tuple, groups, tables: dict, scratch: Scratch) -> None:
    """Sort ``points`` (a 1-D array on the CPU) by the cell of width ``1 / inv`` (``inv`` of the points'
    calculation type: float32, or float64 for float64 points) and, within a cell, by ``groups`` (int32, one
    per point, or None) into ``tables``: ``point_ids`` (sorted position -> point), ``cell_starts`` and
    ``cell_ends`` (one per cell; (0, 0) for an empty one), with groups ``groups`` (sorted position -> group);
    int32 arrays."""
    n = points.shape[0]
    starts, ends, ids = tables["cell_starts"], tables["cell_ends"], tables["point_ids"]
    ncells = dims[0] * dims[1] * dims[2]
    by_cell = dense(ncells, n)
    if not by_cell:  # clear what the last build set, before its record is reused
        if scratch.dense:
            starts.zero_()
            ends.zero_()
        elif scratch.filled:
            launch_on_cpu(_clear, scratch.filled, scratch.arrays["sorted_cells"], starts, ends)
    cells = scratch.get("cells", (n,))
    launch_on_cpu(_cells, n, points, inv, _vec3i(*dims), cells)
    digits = [] if groups is None else [(groups, DIGIT, 0), (groups, DIGIT, 16)]  # least significant first
    digits += [(cells, WHOLE, 0)] if by_cell else [(cells, DIGIT, 0), (cells, DIGIT, 16)]
    counting_sort.sort(digits, n, ids, scratch.get, (starts, ends, ncells) if by_cell else None)
    if not by_cell:
        launch_on_cpu(_ranges, n, cells, ids, n, scratch.get("sorted_cells", (n,)), starts, ends)
        scratch.filled = n
    scratch.dense = by_cell
    if groups is not None:
        launch_on_cpu(_gather, n, groups, ids, tables["groups"])


def on_device(device) -> bool:
    """Whether a grid on ``device`` builds with the device's sort (``build_on_device``): a CUDA grid."""
    return not device.is_cpu


def zero_tables(launch_on, *tables) -> None:
    """Set int32 ``tables`` to 0 with a kernel (device memory: no zeros uploaded from the host)."""
    for table in tables:
        launch_on(_zero, table.shape[0], table)


def build_on_device(points, inv, dims: tuple, groups, tables: dict, scratch: Scratch, launch_on, plan=None) -> None:
    """``build_tables``'s sort with ``device_sort`` (``plan``: ``device_sort.GPU`` unless given), every kernel
    run by ``launch_on`` on the device of the arrays (the CPU too, to test it): the points' cells, the stable
    sort of the positions with their cells (and groups) by 8-bit digits of the group bits then of the cells,
    which leaves the sorted groups in their table, then the ranges of the occupied cells (the last build's
    cleared first). Same tables as ``build_tables``."""
    plan = plan or device_sort.GPU
    n = points.shape[0]
    starts, ends, ids = tables["cell_starts"], tables["cell_ends"], tables["point_ids"]
    ncells = dims[0] * dims[1] * dims[2]
    if scratch.dense:  # a CPU build's tables
        zero_tables(launch_on, starts, ends)
    elif scratch.filled:
        launch_on(_clear, scratch.filled, scratch.arrays["sorted_cells"], starts, ends)
    scratch.dense, scratch.filled = False, 0
    cells = scratch.get("cells", (n,))
    launch_on(_cells, n, points, inv, _vec3i(*dims), cells)
    sorted_cells = scratch.get("sorted_cells", (n,))
    words, words_out = [cells], [sorted_cells]
    passes = [(0, shift) for shift in plan.digits(ncells)]
    if groups is not None:  # sorted first: the less significant key
        words.append(groups)
        words_out.append(tables["groups"])
        passes = [(1, shift) for shift in plan.digits(2**32)] + passes
    device_sort.sort(words, passes, n, ids, words_out, scratch.get, launch_on, plan)
    launch_on(_sorted_ranges, n, sorted_cells, n, starts, ends)
    scratch.filled = n
