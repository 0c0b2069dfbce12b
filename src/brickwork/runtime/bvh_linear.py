"""The lbvh tree of ``bvh_lbvh`` over a CPU tree's items in one launch on one thread, node for node the same.

``bvh_lbvh`` builds the tree by some twenty launches (bounds, codes, a sort of the items and one of the nodes, the
radix tree, the numbering), each cheap on a GPU; on the CPU their fixed costs were most of a small tree's build.
Here one thread takes the same steps in one launch: the bounds of the finite centres, each item's 30-bit Morton
code, a stable radix sort of the items by code (three passes of 10-bit digits), then the tree top down, level by
level: a node over sorted positions [s, e) of more than ``leaf_size`` items splits where Karras's radix tree
splits it, after the last position whose key (code, then position) shares more leading bits with position s's
than position e - 1's does (a bisection, as in Karras's ``findSplit``); the children get the next two free ids, so
the nodes are numbered level by level and left to right, as ``bvh_lbvh`` numbers its kept nodes. Each node's
bounds follow, children before parents, as ``bvh_refit`` folds them (numpy's minimum and maximum).
"""

from __future__ import annotations

import numpy as np

from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float32, int32, int64
from .bvh_binned import Built, item_tables, join_nodes, keep, link_children, mesh_boxes
from .bvh_lbvh import DROPPED, _clz, _int32_leaf_size, _spread, scene_axis
from .bvh_refit import _fold_lower, _fold_upper
from .launch import launch_on_cpu

_vec3 = vector(3, float32)
# the rows of the kernel's int table: the items' codes and the items, the same sorted by code (after the sort's
# three passes between the two), each node's first, last and parent, the sort's counts then the levels' ends
CODES, ITEMS, SORTED_CODES, ORDER, FIRST, LAST, PARENTS, COUNTS = range(8)
_DIGIT = 1 << 10
#: The levels' ends in row COUNTS, from here (a kept node's depth is at most 62, ``bvh_lbvh``)
LEVEL_ENDS = _DIGIT
_LEVELS = DROPPED


@func
def _center(f: array(dtype=float32), lowers: int64, uppers: int64, i: int32, c: int32):
    at = int64(3) * int64(i) + int64(c)
    return (f[lowers + at] + f[uppers + at]) * float32(0.5)


@func
def _codes(n: int32, f: array(dtype=float32), lowers: int64, uppers: int64, ints: array2d(dtype=int32)):
    # each item's Morton code in the bounds of the finite centres (bvh_lbvh's _bounds_chunks, _bounds_final,
    # _morton), the items in order beside them. Returns 1 if a centre is not finite (a box may hold a NaN)
    nan = int32(0)
    for c in range(3):
        lo = float32(np.inf)
        hi = float32(-np.inf)
        for i in range(n):
            x = _center(f, lowers, uppers, i, c)
            finite = x - x == float32(0.0)
            nan = nan | int32(not finite)
            if finite:  # a NaN or an infinity is left out
                lo = min(lo, x)
                hi = max(hi, x)
        corner, scale = scene_axis(lo, hi)
        for i in range(n):
            x = (_center(f, lowers, uppers, i, c) - corner) * scale
            if not (x >= float32(0.0)):  # below the bounds, or NaN
                x = float32(0.0)
            x = min(x, float32(1023.0))
            code = _spread(int32(x)) << (2 - c)
            if c == 0:
                ints[CODES, i] = code
                ints[ITEMS, i] = i
            else:
                ints[CODES, i] = ints[CODES, i] | code
    return nan


@func
def _digit_pass(n: int32, shift: int32, src: int32, dst: int32, ints: array2d(dtype=int32)):
    # a stable counting pass by the 10-bit digit at shift: codes and items of rows src, src + 1 into dst, dst + 1
    for b in range(_DIGIT):
        ints[COUNTS, b] = int32(0)
    for i in range(n):
        k = (ints[src, i] >> shift) & (_DIGIT - 1)
        ints[COUNTS, k] = ints[COUNTS, k] + 1
    at = int32(0)
    for b in range(_DIGIT):
        count = ints[COUNTS, b]
        ints[COUNTS, b] = at
        at = at + count
    for i in range(n):
        code = ints[src, i]
        k = (code >> shift) & (_DIGIT - 1)
        to = ints[COUNTS, k]
        ints[dst, to] = code
        ints[dst + 1, to] = ints[src + 1, i]
        ints[COUNTS, k] = to + 1


@func
def _delta(ints: array2d(dtype=int32), i: int32, j: int32):
    # the common prefix of sorted positions i and j (equal codes: of their positions, after the code's 32 bits)
    a = ints[SORTED_CODES, i]
    b = ints[SORTED_CODES, j]
    if a == b:
        return int32(32) + _clz(i ^ j)
    return _clz(a ^ b)


@func
def _split(s: int32, last: int32, ints: array2d(dtype=int32)):
    # the last position of the first child of the node over sorted positions [s, last] (Karras's findSplit)
    common = _delta(ints, s, last)
    split = s
    step = last - s
    going = True
    while going:
        step = (step + 1) // 2
        candidate = split + step
        if candidate < last:
            if _delta(ints, s, candidate) > common:
                split = candidate
        going = step > 1
    return split


@func
def _shape_tree(n: int32, leaf_size: int32, ints: array2d(dtype=int32)):
    # the nodes top down, level by level; returns their number. ints[COUNTS, LEVEL_ENDS + d]: the end of level d's
    # ids; at LEVEL_ENDS + _LEVELS - 1: the number of levels
    ints[FIRST, 0] = 0
    ints[LAST, 0] = n
    ints[PARENTS, 0] = -1
    begin = int32(0)
    end = int32(1)
    level = int32(0)
    while begin < end and level < _LEVELS - 1:
        count = end
        for node in range(begin, end):
            s = ints[FIRST, node]
            e = ints[LAST, node]
            if e - s <= leaf_size:
                ints[FIRST, node] = -(s + 1)
            else:
                count = link_children(node, count, s, _split(s, e - 1, ints) + 1, e, ints, FIRST)
        ints[COUNTS, LEVEL_ENDS + level] = end
        level = level + 1
        begin = end
        end = count
    ints[COUNTS, LEVEL_ENDS + _LEVELS - 1] = level
    return end


@func
def _node_bounds(n: int32, nodes: int32, f: array(dtype=float32), ints: array2d(dtype=int32), exact: int32):
    # each node's bounds into the node tables, children before parents (descending ids), as bvh_refit's (``exact``
    # 0 where no box holds a NaN): a leaf's over its items' boxes in sorted order, an inner node's from its
    # children's
    uppers = int64(3) * int64(n)
    node_lowers = int64(2) * uppers
    node_uppers = node_lowers + int64(8) * int64(n)
    for k in range(nodes):
        node = nodes - 1 - k
        out = int64(4) * int64(node)
        first = ints[FIRST, node]
        last = ints[LAST, node]
        if first < 0:
            start = -(first + 1)
            for c in range(3):
                at = int64(3) * int64(ints[ORDER, start]) + int64(c)
                lo = f[at]
                hi = f[uppers + at]
                for p in range(start + 1, last):
                    at = int64(3) * int64(ints[ORDER, p]) + int64(c)
                    lo = _fold_lower(lo, f[at], exact)
                    hi = _fold_upper(hi, f[uppers + at], exact)
                f[node_lowers + out + int64(c)] = lo
                f[node_uppers + out + int64(c)] = hi
        else:
            join_nodes(node, first, last, f, node_lowers, node_uppers, exact)


@kernel(enable_backward=False)
def _build(n: int32, leaf_size: int32, points: array(dtype=_vec3), indices: array(dtype=int32),
           f: array(dtype=float32), ints: array2d(dtype=int32)):
    # one thread: the item boxes (a mesh's triangles', by numpy's rule if a corner is NaN; else already in f), the
    # codes, their sort (three passes: rows CODES -> SORTED_CODES -> CODES -> SORTED_CODES), the tree, its bounds
    # (by numpy's rule if a centre is not finite)
    uppers = int64(3) * int64(n)
    if indices.shape[0] > 0:
        mesh_boxes(n, points, indices, f, int64(0), uppers)
    nan = _codes(n, f, int64(0), uppers, ints)
    _digit_pass(n, 0, CODES, SORTED_CODES, ints)
    _digit_pass(n, 10, SORTED_CODES, CODES, ints)
    _digit_pass(n, 20, CODES, SORTED_CODES, ints)
    nodes = _shape_tree(n, leaf_size, ints)
    if nan == 0:
        _node_bounds(n, nodes, f, ints, 0)
    else:
        _node_bounds(n, nodes, f, ints, 1)


def build(n: int, leaf_size: int, lowers: np.ndarray | None = None, uppers: np.ndarray | None = None,
          points: array | None = None, indices: array | None = None) -> Built:
    """The lbvh tree over ``n`` >= 1 items (below ``bvh_lbvh.MAX_ITEMS``): the boxes ``lowers``/``uppers`` ((n, 3)
    float32), or the triangles of a mesh's ``points`` (vec3f) and ``indices`` (int32, in range), in one launch on
    one thread."""
    tables, points, indices = item_tables(n, 0, (8, max(2 * n, LEVEL_ENDS + _LEVELS)), lowers, uppers, points, indices)
    f, f_arg, ints, ints_arg = tables
    launch_on_cpu(_build, 1, n, _int32_leaf_size(leaf_size), points, indices, f_arg, ints_arg)
    level_ends = ints[COUNTS, LEVEL_ENDS:LEVEL_ENDS + _LEVELS]
    built = Built(f, 0, 6 * n, ints, (FIRST, LAST, PARENTS, ORDER), level_ends[:level_ends[-1]].tolist())
    keep(n, 0, tables)
    return built
