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
from ..types.scalars import float32, float64, int32, int64
from .bvh_refit import _fold_lower, _fold_upper, points_nan
from .bvh_sah import _area, child_budget
from .launch import launch_on_cpu

_isfinite = _FUNCTIONS["isfinite"]
_vec3 = vector(3, float32)
#: Bins along the split axis (Warp's CPU build: 16)
BINS = 32
_costs = vector(BINS, float64)
#: At most this many levels (a SAH tree has at most ``bvh_sah.MAX_DEPTH`` + 1)
MAX_LEVELS = 64
_MAX_COUNT = 2**31 - 1
_NO_COST = 1.0e300  # above any finite cost (areas below 1e78, counts below 2^31)
# the rows of the kernel's int table: the item and the bin at each position, each node's first and last (children,
# or a leaf's item range) and parent; the bins' counts, then the levels' ends (at BINS + level)
ORDER, BIN_OF, FIRST, LAST, PARENTS, COUNTS = range(6)
LEVEL_ENDS = COUNTS
# The kernel's float table, one array (a wrapped launch argument costs microseconds): the boxes by position, 8
# floats each (lower, upper, 2 unused: a box in 32 bytes), then the bins' boxes (rows n to n + BINS), then the item
# lowers and uppers ((n, 3) each: the tree's item tables), then the node lowers and uppers (4 floats a node, at most
# 2n - 1 nodes: the tree's node tables, their fourth float left to the caller), then the boxes' centres by position
# (3 floats each: computed once, moved with their boxes by the partition; each level's passes computed them from the
# bounds, in float64, a fifth of a 1k-triangle build. In rows of 12 floats with the boxes, not a table of their own,
# a 1M-box build took 1.3 times as long: the partition moves 48 bytes per item)
_ROW = 8


@func
def _at(f: array(dtype=float32), row: int32, c: int32):
    # index of float c of box row ``row`` (64-bit: 8 floats a row pass int32 at 2^28 rows)
    return int64(row) * int64(_ROW) + int64(c)


# Bounds grow by selects, not branches (which of two bounds is lower is a coin toss: a mispredicted branch costs
# more than the rest of an item's work); a NaN compares false and leaves a bound as it was
@func
def _low(a: float32, b: float32):
    return a if a < b else b


@func
def _high(a: float32, b: float32):
    return a if a > b else b


@func
def _center(f: array(dtype=float32), p: int32, axis: int32, centres: int64):
    # the float32 centre of the box at position p, from the centres at f[centres:] (_build's)
    return f[centres + int64(3) * int64(p) + int64(axis)]


@func
def _centres_at(n: int32):
    # where the centres are in the float table of a build over n items
    return int64(n + BINS) * int64(_ROW) + int64(22) * int64(n)


@func
def _grow(f: array(dtype=float32), b: int32, p: int32):
    # box row b (a bin's) grown by the box at position p
    to = _at(f, b, 0)
    at = _at(f, p, 0)
    for c in range(3):
        f[to + int64(c)] = _low(f[at + int64(c)], f[to + int64(c)])
        f[to + int64(3 + c)] = _high(f[at + int64(3 + c)], f[to + int64(3 + c)])


@func
def _low3(a: _vec3, b: _vec3):
    # a bin's lower bound grown by another's: bins' boxes hold no NaN (a NaN bound is never taken), so the select
    # gives what min gives, without its NaN test (the cost sweeps over the bins: 20% of a 1k-triangle build)
    return _vec3(_low(a[0], b[0]), _low(a[1], b[1]), _low(a[2], b[2]))


@func
def _high3(a: _vec3, b: _vec3):
    return _vec3(_high(a[0], b[0]), _high(a[1], b[1]), _high(a[2], b[2]))


@func
def _box_lower(f: array(dtype=float32), b: int32):
    at = _at(f, b, 0)
    return _vec3(f[at], f[at + int64(1)], f[at + int64(2)])


@func
def _box_upper(f: array(dtype=float32), b: int32):
    at = _at(f, b, 3)
    return _vec3(f[at], f[at + int64(1)], f[at + int64(2)])


@func
def _choose(s: int32, e: int32, budget: int32, base: int32, f: array(dtype=float32), ints: array2d(dtype=int32),
            centres: int64):
    # the first bin of the second child (ints[BIN_OF, p] holds each position's bin), or -1: no candidate.
    # Box row p: the box of the item at position p; row base + b: bin b's box
    lx = float32(np.inf)
    ly = float32(np.inf)
    lz = float32(np.inf)
    hx = float32(-np.inf)
    hy = float32(-np.inf)
    hz = float32(-np.inf)
    for p in range(s, e):  # the centres' bounds; a NaN centre compares false and is left out
        x = _center(f, p, 0, centres)
        y = _center(f, p, 1, centres)
        z = _center(f, p, 2, centres)
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
    scale = float32(nb) / best_extent
    if not _isfinite(scale):
        return int32(-1)
    for b in range(nb):
        at = _at(f, base + b, 0)
        for c in range(3):
            f[at + int64(c)] = float32(np.inf)
            f[at + int64(3 + c)] = float32(-np.inf)
        ints[COUNTS, b] = int32(0)
    top = nb - 1
    for p in range(s, e):
        x = (_center(f, p, axis, centres) - low) * scale
        b = top
        if x < float32(top):  # NaN compares false: the last bin
            b = max(int32(x), int32(0))
        ints[BIN_OF, p] = b
        ints[COUNTS, b] = ints[COUNTS, b] + 1
        _grow(f, base + b, p)
    # from the first bin on: the cost of the items before each boundary
    cost_left = _costs()
    lo = _box_lower(f, base)
    hi = _box_upper(f, base)
    below = ints[COUNTS, 0]
    for b in range(1, nb):
        cost_left[b] = _area(lo, hi) * float64(below)
        lo = _low3(lo, _box_lower(f, base + b))
        hi = _high3(hi, _box_upper(f, base + b))
        below = below + ints[COUNTS, b]
    # from the last bin back: the whole cost at each boundary with items on both sides, within the budget
    lo = _box_lower(f, base + top)
    hi = _box_upper(f, base + top)
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
        lo = _low3(lo, _box_lower(f, base + b - 1))
        hi = _high3(hi, _box_upper(f, base + b - 1))
    return split


@func
def _partition(s: int32, e: int32, split: int32, f: array(dtype=float32), ints: array2d(dtype=int32),
               centres: int64):
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
            at_i = _at(f, i, 0)
            at_j = _at(f, j, 0)
            for c in range(6):
                x = f[at_i + int64(c)]
                f[at_i + int64(c)] = f[at_j + int64(c)]
                f[at_j + int64(c)] = x
            at_i = centres + int64(3) * int64(i)
            at_j = centres + int64(3) * int64(j)
            for c in range(3):
                x = f[at_i + int64(c)]
                f[at_i + int64(c)] = f[at_j + int64(c)]
                f[at_j + int64(c)] = x
            j = j - 1
    return i


@func
def link_children(node: int32, count: int32, s: int32, mid: int32, e: int32, ints: array2d(dtype=int32),
                  first: int32):
    # node's children are count and count + 1, over positions [s, mid) and [mid, e); rows first, first + 1 and
    # first + 2 of ints hold each node's first, last and parent. Returns the nodes made so far
    ints[first, node] = count
    ints[first + 1, node] = count + 1
    ints[first, count] = s
    ints[first + 1, count] = mid
    ints[first, count + 1] = mid
    ints[first + 1, count + 1] = e
    ints[first + 2, count] = node
    ints[first + 2, count + 1] = node
    return count + 2


@func
def join_nodes(node: int32, a: int32, b: int32, f: array(dtype=float32), lowers: int64, uppers: int64, exact: int32):
    # node's bounds from its children a and b's, in the node tables of f (4 floats a node) at lowers and uppers
    # (``exact``: as bvh_refit's folds)
    out = int64(4) * int64(node)
    at_a = int64(4) * int64(a)
    at_b = int64(4) * int64(b)
    for c in range(3):
        f[lowers + out + int64(c)] = _fold_lower(f[lowers + at_a + int64(c)], f[lowers + at_b + int64(c)], exact)
        f[uppers + out + int64(c)] = _fold_upper(f[uppers + at_a + int64(c)], f[uppers + at_b + int64(c)], exact)


@func
def _shape_tree(n: int32, leaf_size: int32, f: array(dtype=float32), ints: array2d(dtype=int32), centres: int64):
    # the whole tree over the boxes in rows 0..n of f (their centres at f[centres:], if stored); returns the number
    # of nodes.
    # ints[LEVEL_ENDS, BINS + d]: the end of level d's ids; at MAX_LEVELS - 1: the levels
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
                split = _choose(s, e, budget, n, f, ints, centres)
                mid = s + (e - s) // 2
                if split >= 0:
                    mid = _partition(s, e, split, f, ints, centres)
                count = link_children(node, count, s, mid, e, ints, FIRST)
        ints[LEVEL_ENDS, BINS + level] = end
        level = level + 1
        begin = end
        end = count
    ints[LEVEL_ENDS, BINS + MAX_LEVELS - 1] = level
    return end


@func
def _node_bounds(n: int32, nodes: int32, f: array(dtype=float32), ints: array2d(dtype=int32), exact: int32):
    # each node's bounds into the node tables, children before parents (descending ids): a leaf's over its boxes
    # in position order, an inner node's from its children's, combined as bvh_refit's (numpy's minimum/maximum;
    # ``exact`` 0 where no box holds a NaN)
    lowers = int64(n + BINS) * int64(_ROW) + int64(6) * int64(n)
    uppers = lowers + int64(4) * int64(2 * n)
    for k in range(nodes):
        node = nodes - 1 - k
        out = int64(4) * int64(node)
        first = ints[FIRST, node]
        last = ints[LAST, node]
        if first < 0:
            start = -(first + 1)
            for c in range(3):
                at = _at(f, start, c)
                lo = f[at]
                hi = f[at + int64(3)]
                for p in range(start + 1, last):
                    at = _at(f, p, c)
                    lo = _fold_lower(lo, f[at], exact)
                    hi = _fold_upper(hi, f[at + int64(3)], exact)
                f[lowers + out + int64(c)] = lo
                f[uppers + out + int64(c)] = hi
        else:
            join_nodes(node, first, last, f, lowers, uppers, exact)


@func
def triangle_boxes(n: int32, points: array(dtype=_vec3), indices: array(dtype=int32), f: array(dtype=float32),
                   lowers: int64, uppers: int64, exact: int32):
    # the boxes of a mesh's n triangles into the (n, 3) tables of f at lowers and uppers: each one's corners folded
    # in order, as bvh_refit's (numpy's min and max over them; ``exact``: as its folds)
    for t in range(n):
        at = int64(3) * int64(t)
        p = points[indices[at]]
        q = points[indices[at + int64(1)]]
        r = points[indices[at + int64(2)]]
        for c in range(3):
            f[lowers + at + int64(c)] = _fold_lower(_fold_lower(p[c], q[c], exact), r[c], exact)
            f[uppers + at + int64(c)] = _fold_upper(_fold_upper(p[c], q[c], exact), r[c], exact)


@func
def mesh_boxes(n: int32, points: array(dtype=_vec3), indices: array(dtype=int32), f: array(dtype=float32),
               lowers: int64, uppers: int64):
    # triangle_boxes, by numpy's rule if a point is NaN
    if points_nan(points) == 0:
        triangle_boxes(n, points, indices, f, lowers, uppers, 0)
    else:
        triangle_boxes(n, points, indices, f, lowers, uppers, 1)


@kernel(enable_backward=False)
def _build(n: int32, leaf_size: int32, points: array(dtype=_vec3), indices: array(dtype=int32),
           f: array(dtype=float32), ints: array2d(dtype=int32)):
    # one thread: the item boxes (a mesh's triangles' into the item tables, by numpy's rule if a corner is NaN;
    # else already there), copied to the box rows; the tree; the nodes' bounds (by numpy's rule if a box is NaN)
    items = int64(n + BINS) * int64(_ROW)
    uppers = items + int64(3) * int64(n)
    if indices.shape[0] > 0:
        mesh_boxes(n, points, indices, f, items, uppers)
    nan = int32(0)
    centres = _centres_at(n)
    for t in range(n):
        at = int64(3) * int64(t)
        row = _at(f, t, 0)
        for c in range(3):
            lo = f[items + at + int64(c)]
            hi = f[uppers + at + int64(c)]
            nan = nan | int32(lo != lo) | int32(hi != hi)
            f[row + int64(c)] = lo
            f[row + int64(3 + c)] = hi
            # in float64, rounded once: as bvh.build_tree's centres
            f[centres + at + int64(c)] = float32((float64(lo) + float64(hi)) * float64(0.5))
    nodes = _shape_tree(n, min(leaf_size, int32(_MAX_COUNT)), f, ints, centres)
    if nan == 0:
        _node_bounds(n, nodes, f, ints, 0)
    else:
        _node_bounds(n, nodes, f, ints, 1)


class Built:
    """A tree built in one launch (``build``, ``bvh_linear.build``): its nodes' ``first``, ``last`` and ``parents``
    (int32, by node id), its item ``order`` (int32), the ``(first, end)`` ids of each level (``ranges``, root
    first), as ``bvh_tree.Tree.from_levels`` takes them; and the tree's tables: the item boxes
    ``item_lowers``/``item_uppers`` ((n, 3) float32) and the node bounds ``node_lowers``/``node_uppers`` ((nodes, 4)
    float32, as ``bw::bvh_node_half``: the fourth word is each node's first (last), int32). All are views of one
    allocation, ``words`` (``tables``: each descriptor table's view and byte offset there, so that its address is
    one read away, where each array's costs a microsecond)."""

    def __init__(self, f: np.ndarray, items: int, nodes: int, ints: np.ndarray, rows: tuple, ends: list):
        # f: the float table, its item tables at items, its node tables at nodes (2n rows of 4 each); ints: the int
        # table, rows (first, last, parents, order); ends: each level's end
        n = (nodes - items) // 6
        m = ends[-1]  # nodes
        self.ranges = list(zip([0] + ends[:-1], ends))
        # copies (the tree keeps them, not the whole tables): the node tables first (16-byte rows; their fourth
        # words are the firsts and lasts), then the item tables, the parents and the order
        self.words = words = np.empty(8 * m + 6 * n + m + n, np.float32)
        ints_at = 8 * m + 6 * n
        self.node_lowers, self.node_uppers = (words[a:a + 4 * m].reshape(m, 4) for a in (0, 4 * m))
        self.item_lowers, self.item_uppers = (words[a:a + 3 * n].reshape(n, 3) for a in (8 * m, 8 * m + 3 * n))
        as_int = words[ints_at:].view(np.int32)
        self.parents, self.order = as_int[:m], as_int[m:m + n]
        self.first, self.last = self.node_lowers.view(np.int32)[:, 3], self.node_uppers.view(np.int32)[:, 3]
        self.node_lowers[...] = f[nodes:nodes + 4 * m].reshape(m, 4)
        self.node_uppers[...] = f[nodes + 8 * n:nodes + 8 * n + 4 * m].reshape(m, 4)
        words[8 * m:ints_at] = f[items:items + 6 * n]
        self.parents[...], self.order[...] = ints[rows[2], :m], ints[rows[3], :n]
        self.first[...], self.last[...] = ints[rows[0], :m], ints[rows[1], :m]
        self.tables = {"node_lowers": (self.node_lowers, 0), "node_uppers": (self.node_uppers, 16 * m),
                       "item_lowers": (self.item_lowers, 32 * m),
                       "item_uppers": (self.item_uppers, 32 * m + 12 * n),
                       "node_parents": (self.parents, 4 * ints_at),
                       "primitive_indices": (self.order, 4 * ints_at + 4 * m)}


#: A one-launch build of at most this many items leaves its two scratch tables, wrapped, to the next build of the
#: same size (``item_tables``; ``Built`` copies what the tree keeps): their allocation and wrapping (a wrapped
#: launch argument costs microseconds) were a tenth of a 1k-triangle mesh's build. At most 2 MB kept
KEEP_ITEMS = 2**14
_KEPT: dict = {}


def item_tables(n: int, at: int, int_shape: tuple, lowers: np.ndarray | None, uppers: np.ndarray | None,
                points: array | None, indices: array | None) -> tuple:
    """The tables of a one-launch build over n items (``build``'s, ``bvh_linear.build``'s): the float table,
    ``at`` floats of the build's own, then the (n, 3) item tables (the boxes ``lowers``/``uppers`` copied there,
    unless a mesh's ``points`` and ``indices`` give them in the launch), then the node tables (2n rows of 4 floats
    each), then room for ``build``'s centres (3n floats), and the int table of ``int_shape``; each with its
    wrapped form (``(f, f_arg, ints, ints_arg)``: the last build's of this size, ``keep`` them after the build);
    and the ``points`` and ``indices`` to launch with (empty for boxes)."""
    tables = _KEPT.pop((n, at, int_shape), None)  # taken: a build at the same time makes its own
    if tables is None:
        f, ints = np.empty(at + 6 * n + 16 * n + 3 * n, np.float32), np.empty(int_shape, np.int32)
        tables = f, wrap_numpy(f, float32), ints, wrap_numpy(ints, int32)
    if points is None:
        f = tables[0]
        f[at:at + 3 * n].reshape(n, 3)[...] = lowers
        f[at + 3 * n:at + 6 * n].reshape(n, 3)[...] = uppers
        points, indices = _no_triangles()
    return tables, points, indices


def keep(n: int, at: int, tables: tuple) -> None:
    """Leave a finished build's ``item_tables`` to the next build of its size (up to ``KEEP_ITEMS`` items: the
    last build's only)."""
    if n <= KEEP_ITEMS:
        _KEPT.clear()
        _KEPT[n, at, tables[2].shape] = tables


_NO_POINTS = None


def _no_triangles() -> tuple:
    global _NO_POINTS
    if _NO_POINTS is None:  # empty arrays for a tree over boxes, made once
        _NO_POINTS = (wrap_numpy(np.zeros((0, 3), np.float32), _vec3), wrap_numpy(np.zeros(0, np.int32), int32))
    return _NO_POINTS


def build(n: int, leaf_size: int, lowers: np.ndarray | None = None, uppers: np.ndarray | None = None,
          points: array | None = None, indices: array | None = None) -> Built:
    """The SAH tree over ``n`` > ``leaf_size`` items: the boxes ``lowers``/``uppers`` ((n, 3) float32), or the
    triangles of a mesh's ``points`` (vec3f) and ``indices`` (int32, in range), in one launch on one thread."""
    # one float table and one int table (one launch argument each: a wrapped argument costs microseconds, much of
    # a small tree's build); int rows: first, last, parents of at most 2n - 1 nodes
    items = (n + BINS) * _ROW
    tables, points, indices = item_tables(n, items, (6, max(2 * n, BINS + MAX_LEVELS)), lowers, uppers, points,
                                          indices)
    f, f_arg, ints, ints_arg = tables
    launch_on_cpu(_build, 1, n, min(leaf_size, _MAX_COUNT), points, indices, f_arg, ints_arg)
    level_ends = ints[LEVEL_ENDS, BINS:BINS + MAX_LEVELS]
    built = Built(f, items, items + 6 * n, ints, (FIRST, LAST, PARENTS, ORDER), level_ends[:level_ends[-1]].tolist())
    keep(n, items, tables)
    return built


def shape(lowers: np.ndarray, uppers: np.ndarray, leaf_size: int) -> tuple:
    """The SAH tree over the items with boxes ``lowers``/``uppers`` ((n, 3) float32, more than ``leaf_size`` of
    them): ``build``'s ``first``, ``last``, ``parents``, ``order`` and ``ranges``."""
    b = build(len(lowers), leaf_size, lowers, uppers)
    return b.first, b.last, b.parents, b.order, b.ranges
