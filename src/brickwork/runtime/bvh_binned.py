"""The SAH tree of a tree without groups (``wp.Bvh(constructor="sah")``, a CPU mesh's default), shaped in one
launch on one thread by partitioning the items in place, as Warp's CPU build does.

Nodes are taken in id order (level by level, a node's children get the next two free ids), each over its range
of ``order`` (the item at each position). A node of more than ``leaf_size`` items finds the bounds of its items'
centres, then along the axis of their longest finite extent puts each centre into one of ``BINS`` equal bins of
that extent (``min(BINS, items)`` bins in a smaller node; a NaN centre in the last bin), with each bin's count
and box bounds. Each boundary between two bins with items on both sides is a candidate split, of the SAH cost
area(first) * items(first) + area(second) * items(second) (areas in float64); the node splits at the cheapest
(ties: the first boundary) whose sides fit the node's depth budget (as ``bvh_sah``'s: at most that many items,
so that halving splits below finish the tree within ``bvh_sah.MAX_DEPTH`` levels). The items of the lower bins
move to the front of the range by an in-place partition (not stable: the order within a side is the
partition's), their boxes with them (``boxes[p]``: the box of the item at position p), so that every pass reads
memory in order. A node with no such candidate (centres equal, all NaN, an infinite or too small extent, or every
candidate over budget) splits its range in the middle, as it lies. Per level, a pass over the boxes for the centres'
bounds, one that bins them and the partition: time proportional to the items at each level, with no sorting.

The same boxes give the same tree whatever the number of threads (one thread builds it). ``bvh_build`` and
``bvh_sah`` shape the grouped SAH tree (sorted lists, three axes) instead.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import wrap_numpy
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float32, float64, int32
from .bvh_sah import _area, _center, child_budget
from .launch import launch_on_cpu

_isfinite = _FUNCTIONS["isfinite"]
_vec3 = vector(3, float32)
#: Bins along the split axis (Warp's CPU build: 16)
BINS = 32
#: At most this many levels (a SAH tree has at most ``bvh_sah.MAX_DEPTH`` + 1)
MAX_LEVELS = 64
_MAX_COUNT = 2**31 - 1
_NO_COST = 1.0e300  # above any finite cost (areas below 1e78, counts below 2^31)
# the rows of the kernel's int table: the item and the bin at each position, each node's first and last (children,
# or a leaf's item range) and parent; the bins' counts, then the levels' ends (at BINS + level)
ORDER, BIN_OF, FIRST, LAST, PARENTS, COUNTS = range(6)
LEVEL_ENDS = COUNTS


# Bounds grow by selects, not branches (which of two bounds is lower is a coin toss: a mispredicted branch costs
# more than the rest of an item's work); a NaN compares false and leaves a bound as it was
@func
def _low(a: float32, b: float32):
    return a if a < b else b


@func
def _high(a: float32, b: float32):
    return a if a > b else b


@func
def _grow(bins: array2d(dtype=float32), b: int32, boxes: array2d(dtype=float32), p: int32):
    # bin b's box (lower x y z, upper x y z) grown by the box at position p
    for c in range(3):
        bins[b, c] = _low(boxes[p, c], bins[b, c])
        bins[b, 3 + c] = _high(boxes[p, 3 + c], bins[b, 3 + c])


@func
def _bin_lower(bins: array2d(dtype=float32), b: int32):
    return _vec3(bins[b, 0], bins[b, 1], bins[b, 2])


@func
def _bin_upper(bins: array2d(dtype=float32), b: int32):
    return _vec3(bins[b, 3], bins[b, 4], bins[b, 5])


@func
def _choose(s: int32, e: int32, budget: int32, boxes: array2d(dtype=float32), ints: array2d(dtype=int32),
            cost_left: array(dtype=float64)):
    # the first bin of the second child (ints[BIN_OF, p] holds each position's bin), or -1: no candidate.
    # boxes[p]: the box of the item at position p; boxes[base + b]: bin b's box
    lx = float32(np.inf)
    ly = float32(np.inf)
    lz = float32(np.inf)
    hx = float32(-np.inf)
    hy = float32(-np.inf)
    hz = float32(-np.inf)
    for p in range(s, e):  # the centres' bounds; a NaN centre compares false and is left out
        x = _center(boxes, p, 0)
        y = _center(boxes, p, 1)
        z = _center(boxes, p, 2)
        lx = _low(x, lx)
        hx = _high(x, hx)
        ly = _low(y, ly)
        hy = _high(y, hy)
        lz = _low(z, lz)
        hz = _high(z, hz)
    axis = int32(-1)
    best_extent = float32(0.0)
    low = float32(0.0)
    ex = hx - lx
    ey = hy - ly
    ez = hz - lz
    if _isfinite(ex) and ex > best_extent:
        axis = int32(0)
        best_extent = ex
        low = lx
    if _isfinite(ey) and ey > best_extent:
        axis = int32(1)
        best_extent = ey
        low = ly
    if _isfinite(ez) and ez > best_extent:
        axis = int32(2)
        best_extent = ez
        low = lz
    if axis < 0:
        return int32(-1)
    count = e - s
    nb = min(count, int32(BINS))
    base = boxes.shape[0] - BINS
    scale = float32(nb) / best_extent
    if not _isfinite(scale):
        return int32(-1)
    for b in range(nb):
        for c in range(3):
            boxes[base + b, c] = float32(np.inf)
            boxes[base + b, 3 + c] = float32(-np.inf)
        ints[COUNTS, b] = int32(0)
    top = nb - 1
    for p in range(s, e):
        x = (_center(boxes, p, axis) - low) * scale
        b = top
        if x < float32(top):  # NaN compares false: the last bin
            b = max(int32(x), int32(0))
        ints[BIN_OF, p] = b
        ints[COUNTS, b] = ints[COUNTS, b] + 1
        _grow(boxes, base + b, boxes, p)
    # from the first bin on: the cost of the items before each boundary
    lo = _bin_lower(boxes, base + 0)
    hi = _bin_upper(boxes, base + 0)
    below = ints[COUNTS, 0]
    for b in range(1, nb):
        cost_left[b] = _area(lo, hi) * float64(below)
        lo = min(lo, _bin_lower(boxes, base + b))
        hi = max(hi, _bin_upper(boxes, base + b))
        below = below + ints[COUNTS, b]
    # from the last bin back: the whole cost at each boundary with items on both sides, within the budget
    lo = _bin_lower(boxes, base + top)
    hi = _bin_upper(boxes, base + top)
    above = int32(0)
    best = float64(_NO_COST)
    split = int32(-1)
    for i in range(top):
        b = top - i  # the first bin of the second child
        above = above + ints[COUNTS, b]
        before = count - above
        if above > 0 and before > 0 and above <= budget and before <= budget:
            cost = cost_left[b] + _area(lo, hi) * float64(above)
            if cost <= best:
                best = cost
                split = b
        lo = min(lo, _bin_lower(boxes, base + b - 1))
        hi = max(hi, _bin_upper(boxes, base + b - 1))
    return split


@func
def _partition(s: int32, e: int32, split: int32, boxes: array2d(dtype=float32), ints: array2d(dtype=int32)):
    # the positions of bins below split to the front, their items and boxes with them, in place; returns the
    # first position of the rest
    i = s
    j = e - 1
    while i <= j:
        if ints[BIN_OF, i] < split:
            i = i + 1
        else:
            item = ints[ORDER, i]
            ints[ORDER, i] = ints[ORDER, j]
            ints[ORDER, j] = item
            b = ints[BIN_OF, i]
            ints[BIN_OF, i] = ints[BIN_OF, j]
            ints[BIN_OF, j] = b
            for c in range(6):
                x = boxes[i, c]
                boxes[i, c] = boxes[j, c]
                boxes[j, c] = x
            j = j - 1
    return i


@kernel(enable_backward=False)
def _shape(n: int32, leaf_size: int32, boxes: array2d(dtype=float32), ints: array2d(dtype=int32),
           cost_left: array(dtype=float64)):
    # one thread: the whole tree. ints[LEVEL_ENDS, BINS + d]: the end of level d's ids; at MAX_LEVELS - 1: the
    # levels
    for i in range(n):
        ints[ORDER, i] = i
    ints[FIRST, 0] = 0
    ints[LAST, 0] = n
    ints[PARENTS, 0] = -1
    begin = int32(0)
    end = int32(1)
    level = int32(0)
    while begin < end and level < MAX_LEVELS - 1:
        budget = child_budget(leaf_size, level)
        count = end
        for node in range(begin, end):
            s = ints[FIRST, node]
            e = ints[LAST, node]
            if e - s <= leaf_size:
                ints[FIRST, node] = -(s + 1)
            else:
                split = _choose(s, e, budget, boxes, ints, cost_left)
                mid = s + (e - s) // 2
                if split >= 0:
                    mid = _partition(s, e, split, boxes, ints)
                ints[FIRST, node] = count
                ints[LAST, node] = count + 1
                ints[FIRST, count] = s
                ints[LAST, count] = mid
                ints[FIRST, count + 1] = mid
                ints[LAST, count + 1] = e
                ints[PARENTS, count] = node
                ints[PARENTS, count + 1] = node
                count = count + 2
        ints[LEVEL_ENDS, BINS + level] = end
        level = level + 1
        begin = end
        end = count
    ints[LEVEL_ENDS, BINS + MAX_LEVELS - 1] = level


def shape(lowers: np.ndarray, uppers: np.ndarray, leaf_size: int) -> tuple:
    """The SAH tree over the items with boxes ``lowers``/``uppers`` ((n, 3) float32, more than ``leaf_size`` of
    them): its ``first``, ``last`` and ``parents`` (int32, by node id), its item order (int32) and the
    ``(first, end)`` ids of each level, root first, as ``bvh.Tree.from_levels`` takes them."""
    n = len(lowers)
    # the boxes by position (moved with their items), 32 bytes each, then the bins' boxes; the int tables in one
    # array (one launch argument each: a wrapped argument costs microseconds, much of a small tree's build)
    boxes = np.empty((n + BINS, 8), np.float32)
    boxes[:n, :3], boxes[:n, 3:6] = lowers, uppers
    ints = np.empty((6, max(2 * n, BINS + MAX_LEVELS)), np.int32)  # first, last, parents: at most 2n - 1 nodes
    launch_on_cpu(_shape, 1, n, min(leaf_size, _MAX_COUNT), wrap_numpy(boxes, float32), wrap_numpy(ints, int32),
                  wrap_numpy(np.empty(BINS + 1, np.float64), float64))
    level_ends = ints[LEVEL_ENDS, BINS:BINS + MAX_LEVELS]
    levels = int(level_ends[-1])
    ends = level_ends[:levels].tolist()
    num_nodes = ends[-1]
    ranges = list(zip([0] + ends[:-1], ends))
    # copies: the tree keeps them, not the whole table
    return (*(ints[row, :num_nodes].copy() for row in (FIRST, LAST, PARENTS)), ints[ORDER, :n].copy(), ranges)
