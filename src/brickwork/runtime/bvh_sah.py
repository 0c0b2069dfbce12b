"""The splits of a SAH tree (``wp.Bvh(constructor="sah")``), chosen by a compiled CPU kernel per level.

A node's items are sorted along each axis (``bvh_build.ItemLists``). Along each axis whose centres have a
finite, nonzero extent, the centres fall into ``BINS`` equal bins of that extent; as the list is sorted, each
bin is a run of it, found by bisection, and one pass over the list gives the runs' bounds (no table of bins
per node). Each boundary between runs is a candidate split: the lower runs to the first child. In a node of at
most ``BINS`` items, each boundary between two items of the list is one. Its cost is the
surface-area heuristic, area(first) * items(first) + area(second) * items(second); the node splits at the
cheapest candidate of the three axes (ties: the first axis, then the first boundary) whose larger side fits
the node's depth budget (``budget``: at most that many items, so that median splits below can still finish
the subtree within ``MAX_DEPTH`` levels). A node with no such candidate (centres all equal or NaN, infinite
extents or areas, or every candidate over budget) gets the median split of the median build (axis -1).

One thread per node, each over its own ranges of the lists and of the scratch tables (written at run
starts only), so the tree is the same for any number of threads.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import wrap_numpy
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float32, float64, int32, int64, uint32
from . import bvh_build
from .launch import launch_on_cpu

_tid, _min, _max, _isfinite = (_FUNCTIONS[name] for name in ("tid", "min", "max", "isfinite"))
_vec3 = vector(3, float32)

#: Bins per axis of a node's centres
BINS = 32
#: The levels below a group's (or the tree's) root that a SAH subtree may use: as Warp's, whose queries keep
#: a stack of 32 nodes; brickwork's (BVH_STACK in brickwork_bvh.h) holds this and up to 31 levels of groups
MAX_DEPTH = 31
_NAN_KEY = 0xFFFFFFFF  # sort_keys of a NaN centre
_NO_COST = 1.0e300  # above any finite cost (areas below 1e78, counts below 2^31)


@func
def _center(boxes: array2d(dtype=float32), item: int32, axis: int32):
    # the float32 centre the lists are sorted by (bvh.build_tree: in float64, rounded once)
    return float32((float64(boxes[item, axis]) + float64(boxes[item, axis + 3])) * float64(0.5))


@func
def _lower(boxes: array2d(dtype=float32), item: int32):
    return _vec3(boxes[item, 0], boxes[item, 1], boxes[item, 2])


@func
def _upper(boxes: array2d(dtype=float32), item: int32):
    return _vec3(boxes[item, 3], boxes[item, 4], boxes[item, 5])


@func
def _area(lo: _vec3, hi: _vec3):
    # half the surface area, in float64: the product of sides near float32's range overflows float32
    dx = float64(hi[0]) - float64(lo[0])
    dy = float64(hi[1]) - float64(lo[1])
    dz = float64(hi[2]) - float64(lo[2])
    return dx * dy + dy * dz + dz * dx


@func
def child_budget(leaf_size: int32, level: int32):
    # the most items a child of a node at ``level`` may hold: what halving splits finish within the levels left
    # (bvh_tree.Tree's budgets), at most int32's greatest
    wide = int64(leaf_size)
    for _ in range(MAX_DEPTH - 1 - level):
        wide = min(wide * int64(2), int64(2147483647))
    return int32(min(wide, int64(2147483647)))


@func
def _bin(boxes: array2d(dtype=float32), src: array2d(dtype=int32), axis: int32, p: int32, low: float32,
         scale: float32):
    # the bin of the centre at position p of the list; monotonic in the centre: a sorted list's bins are runs
    b = int32((_center(boxes, src[axis, p], axis) - low) * scale)
    if b > BINS - 1:
        b = BINS - 1
    return b


@func
def _run_end(boxes: array2d(dtype=float32), src: array2d(dtype=int32), axis: int32, p: int32, e: int32,
             current: int32, low: float32, scale: float32):
    # the first position after p (or e) whose bin is above current, the bin at p, and that position's bin: a
    # doubling step, then a bisection, so a run costs the log of its length (not a bin per item)
    below = p  # bin <= current here
    above = p + 1
    step = int32(1)
    b = int32(BINS)  # the bin at above (none at e)
    if above < e:
        b = _bin(boxes, src, axis, above, low, scale)
    while b <= current:
        below = above
        step = step + _min(step, e - above)  # twice the step, up to e (without overflowing int32)
        above = p + step
        b = int32(BINS)
        if above < e:
            b = _bin(boxes, src, axis, above, low, scale)
    while above - below > 1:
        m = below + (above - below) // 2
        bm = _bin(boxes, src, axis, m, low, scale)
        if bm <= current:
            below = m
        else:
            above = m
            b = bm
    return above, b


@func
def _takes(cost: float64, left: int32, right: int32, budget: int32, a: int32, best: float64, best_axis: int32):
    # whether the candidate (sides of left and right items) replaces the best so far: both sides within the
    # depth budget, and cheaper, or as cheap on the best's own axis (the sweeps run from the last boundary to
    # the first, so a tie keeps the first axis and, on it, the first boundary)
    return cost <= best and left <= budget and right <= budget and (cost < best or a == best_axis)


@func
def _sweep(boxes: array2d(dtype=float32), src: array2d(dtype=int32), a: int32, s: int32, e: int32, budget: int32,
           prefix: array(dtype=float64), best: float64, best_axis: int32, best_mid: int32):
    # a node of at most BINS items: every boundary between two items of the sorted list is a candidate (no
    # bins); the area before each position, then the candidates from the last back, as for runs
    lo = _lower(boxes, src[a, s])
    hi = _upper(boxes, src[a, s])
    for p in range(s + 1, e):
        prefix[p] = _area(lo, hi)
        lo = _min(lo, _lower(boxes, src[a, p]))
        hi = _max(hi, _upper(boxes, src[a, p]))
    lo = _lower(boxes, src[a, e - 1])
    hi = _upper(boxes, src[a, e - 1])
    for p in range(e - 1, s, -1):
        cost = prefix[p] * float64(p - s) + _area(lo, hi) * float64(e - p)
        if _takes(cost, p - s, e - p, budget, a, best, best_axis):
            best = cost
            best_axis = a
            best_mid = p
        lo = _min(lo, _lower(boxes, src[a, p - 1]))
        hi = _max(hi, _upper(boxes, src[a, p - 1]))
    return best, best_axis, best_mid


@func
def choose_node(s: int32, e: int32, budget: int32, boxes: array2d(dtype=float32), keys: array2d(dtype=int32),
                src: array2d(dtype=int32), run_lo: array(dtype=_vec3), run_hi: array(dtype=_vec3),
                run_prev: array(dtype=int32), prefix: array(dtype=float64)):
    # the split of the node of list positions [s, e): its boundary and the axis it was chosen on (-1: none)
    best = float64(_NO_COST)
    best_axis = int32(-1)
    best_mid = s + (e - s) // 2
    nan = int32(0)
    for a in range(3):  # NaN centres sort last
        if uint32(keys[a, src[a, e - 1]]) == uint32(_NAN_KEY):
            nan = 1
    for a in range(3):
        low = _center(boxes, src[a, s], a)
        extent = _center(boxes, src[a, e - 1], a) - low
        scale = float32(BINS) / extent
        if nan == 0 and extent > float32(0.0) and _isfinite(extent) and _isfinite(scale) and e - s <= BINS:
            best, best_axis, best_mid = _sweep(boxes, src, a, s, e, budget, prefix, best, best_axis, best_mid)
        elif nan == 0 and extent > float32(0.0) and _isfinite(extent) and _isfinite(scale):
            # runs of one bin: each one's bounds (lo, hi) and, at its start, the area of all runs before it
            run = s
            current = int32(0)
            before_lo = _lower(boxes, src[a, s])
            before_hi = _upper(boxes, src[a, s])
            lo = before_lo
            hi = before_hi
            while run < e:
                end, next_bin = _run_end(boxes, src, a, run, e, current, low, scale)
                item = src[a, run]
                lo = _lower(boxes, item)
                hi = _upper(boxes, item)
                for p in range(run + 1, end):
                    item = src[a, p]
                    lo = _min(lo, _lower(boxes, item))
                    hi = _max(hi, _upper(boxes, item))
                run_lo[run] = lo
                run_hi[run] = hi
                if run == s:
                    before_lo = lo
                    before_hi = hi
                else:
                    before_lo = _min(before_lo, lo)
                    before_hi = _max(before_hi, hi)
                if end < e:
                    prefix[end] = _area(before_lo, before_hi)
                    run_prev[end] = run
                    current = next_bin
                    run = end
                else:
                    break
            # from the last run back: the bounds from each boundary on, and the candidate's cost there
            after_lo = lo
            after_hi = hi
            while run > s:
                cost = prefix[run] * float64(run - s) + _area(after_lo, after_hi) * float64(e - run)
                if _takes(cost, run - s, e - run, budget, a, best, best_axis):
                    best = cost
                    best_axis = a
                    best_mid = run
                run = run_prev[run]
                after_lo = _min(after_lo, run_lo[run])
                after_hi = _max(after_hi, run_hi[run])
    return best_mid, best_axis


@kernel(enable_backward=False)
def _choose(starts: array(dtype=int32), ends: array(dtype=int32), budgets: array(dtype=int32),
            boxes: array2d(dtype=float32), keys: array2d(dtype=int32), src: array2d(dtype=int32),
            run_lo: array(dtype=_vec3), run_hi: array(dtype=_vec3), run_prev: array(dtype=int32),
            prefix: array(dtype=float64), mids: array(dtype=int32), axes: array(dtype=int32)):
    g = _tid()
    mid, axis = choose_node(starts[g], ends[g], budgets[g], boxes, keys, src, run_lo, run_hi, run_prev, prefix)
    mids[g] = mid
    axes[g] = axis


class Scratch:
    """The kernel's tables over a tree's n items (each node writes its own positions): the bounds of the run
    that starts at a position, the start of the run before it, and the area of all runs before it."""

    def __init__(self, lowers: np.ndarray, uppers: np.ndarray):
        n = len(lowers)
        self.boxes = np.zeros((n, 8), np.float32)  # a box in 32 bytes: one cache line
        self.boxes[:, :3] = lowers
        self.boxes[:, 3:6] = uppers
        self.run_lo = wrap_numpy(np.empty((n, 3), np.float32), _vec3)
        self.run_hi = wrap_numpy(np.empty((n, 3), np.float32), _vec3)
        self.run_prev = np.empty(n, np.int32)
        self.prefix = np.empty(n, np.float64)
        # as arrays once for every level's launch (a numpy argument is wrapped anew at each launch)
        self.tables = (wrap_numpy(self.boxes, float32), self.run_lo, self.run_hi, wrap_numpy(self.run_prev, int32),
                       wrap_numpy(self.prefix, float64))
        self.level = None  # choose's tables, made at its first call


def _level_tables(scratch: Scratch) -> np.ndarray:
    """A level's nodes (at most n / 2): starts, ends and budgets, then the mids and axes chosen."""
    if scratch.level is None:
        scratch.level = np.empty((5, max(len(scratch.boxes) // 2, 1)), np.int32)
        scratch.wrapped_level = [wrap_numpy(row, int32) for row in scratch.level]
    return scratch.level


def choose(scratch: Scratch, keys: array, src: array, starts: np.ndarray, ends: np.ndarray,
           budgets: np.ndarray) -> tuple:
    """Each node's split (``starts``/``ends``: its range of the lists ``src``; ``budgets``: the most items a
    child may hold): the boundary (int64) and the axis it was chosen on (int32; -1: the median split)."""
    count = len(starts)
    if count == 0:
        return np.empty(0, np.int64), np.empty(0, np.int32)
    level = _level_tables(scratch)
    level[0, :count], level[1, :count] = starts, ends
    level[2, :count] = np.minimum(budgets, 2**31 - 1)
    n = keys.shape[1]
    _choose.work_per_item = 3 * n / count if n > bvh_build.PARALLEL_MIN else 0  # three passes over a level's items
    boxes, run_lo, run_hi, run_prev, prefix = scratch.tables
    launch_on_cpu(_choose, count, *scratch.wrapped_level[:3], boxes, keys, src, run_lo, run_hi, run_prev, prefix,
                  *scratch.wrapped_level[3:])
    return level[3, :count].astype(np.int64), level[4, :count].copy()
