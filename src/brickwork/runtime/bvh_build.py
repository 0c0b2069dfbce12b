"""The item order of a median-split tree (``bvh.Tree``), in compiled CPU kernels.

A tree's shape depends only on its number of items and ``leaf_size`` (``bvh.Tree`` computes it); what the
items' centres decide is which items each node holds. Each node of more than ``leaf_size`` items splits its
items at the median of their centres along the longest axis of their extent: the lower half (in the order
of (centre, item), so ties go by item index and NaN centres sort last) goes to the first child. A node whose
items are of several groups (a grouped tree) splits them at a group boundary instead.

The items are sorted once along each axis (``counting_sort``, by two 16-bit digits of the centre's
float32 bits mapped to an unsigned order, then by group). A node's three sorted lists then give its extent in O(1) (the
first and last item of each) and its median on the chosen axis; the other two lists are split stably into
the children's. So each level of the tree costs O(items), one thread per node, and a node becoming a leaf
takes its items in the order of its parent's axis.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array, array2d, empty
from ..types.scalars import float32, int32, uint32
from . import counting_sort
from .counting_sort import DIGIT
from .launch import launch_on_cpu

_tid, _isnan = _FUNCTIONS["tid"], _FUNCTIONS["isnan"]


@func
def _above(keys: array2d(dtype=int32), axis: int32, item: int32, last_key: uint32, last_item: int32):
    # 1 if item comes after (last_key, last_item) in the order of (key, item) along axis, else 0
    k = uint32(keys[axis, item])
    return int32(k > last_key or (k == last_key and item > last_item))


@kernel(enable_backward=False)
def _split(starts: array(dtype=int32), mids: array(dtype=int32), ends: array(dtype=int32),
           by_group: array(dtype=int32), leaves: array(dtype=int32), centers: array2d(dtype=float32),
           keys: array2d(dtype=int32), src: array2d(dtype=int32), dst: array2d(dtype=int32),
           order: array(dtype=int32)):
    # one node: src[a, s:e] are its items sorted along axis a; dst receives its children's. A node of several
    # groups splits at a group boundary (mid), where every list already splits: the items sort by group first
    g = _tid()
    s = starts[g]
    mid = mids[g]
    e = ends[g]
    axis = int32(0)
    if by_group[g] == 0:  # numpy's argmax of the extents: the first NaN, else the first largest
        best = centers[src[0, e - 1], 0] - centers[src[0, s], 0]
        for a in range(1, 3):
            extent = centers[src[a, e - 1], a] - centers[src[a, s], a]
            if not _isnan(best) and (_isnan(extent) or extent > best):
                axis = a
                best = extent
    last_item = src[axis, mid - 1]  # the first child's last item
    last_key = uint32(keys[axis, last_item])
    for a in range(3):
        if a == axis or by_group[g] != 0:
            for p in range(s, e):
                dst[a, p] = src[a, p]
        else:  # a stable split; selects, not a branch taken at random. The children's items by key, not by
            # a table of sides, which threads writing at random would share cache lines of
            lower = s
            upper = mid
            for p in range(s, e):
                item = src[a, p]
                up = _above(keys, axis, item, last_key, last_item)
                dst[a, upper if up != 0 else lower] = item
                lower = lower + 1 - up
                upper = upper + up
    if leaves[g] & 1 != 0:  # a child that is a leaf takes its items in the order of the node's axis
        for p in range(s, mid):
            order[p] = src[axis, p]
    if leaves[g] & 2 != 0:
        for p in range(mid, e):
            order[p] = src[axis, p]


def sort_keys(centers: np.ndarray) -> np.ndarray:
    """(3, n) uint32 keys whose unsigned order is the order of ``centers`` ((n, 3) float32) along each axis:
    -0 as 0, NaN after everything."""
    bits = np.ascontiguousarray(centers.T).view(np.uint32)
    keys = np.where(bits >> 31 != 0, ~bits, bits | np.uint32(0x80000000))
    keys[np.isnan(centers.T)] = 0xFFFFFFFF
    return keys


def centers32(centers: np.ndarray) -> np.ndarray:
    """The float32 centres a tree splits by ((n, 3)), -0 as 0."""
    c = np.asarray(centers, np.float32).reshape(-1, 3)
    return c + np.float32(0)  # -0 + 0 is +0: equal centres, equal bits


def item_order(centers: np.ndarray, splits: list, rank: np.ndarray | None = None) -> np.ndarray:
    """The tree's item order (int64, item at each position). ``splits`` holds each level's nodes that split
    (in node order; a level's ranges are disjoint): their item ranges' starts, the children's boundary, the
    ends, whether the node splits its groups, and which children are leaves (bit 0 the first, bit 1 the
    second). ``rank``: each item's group (0, 1, ... in the order of the group ids), or None for one group."""
    n = len(centers)
    if not splits:  # the root is a leaf
        return np.arange(n, dtype=np.int64)
    c = centers32(centers)
    keys = sort_keys(c).view(np.int32)
    work: dict = {}

    def get(name, shape):
        a = work.get(name)
        if a is None or a.shape != shape:
            a = work[name] = empty(shape, dtype=int32, device="cpu")
        return a

    by_group = []
    if rank is not None and rank.max(initial=0) > 0:  # the group is the most significant key
        rank = np.ascontiguousarray(rank, np.int32)
        by_group = [(rank, DIGIT, 0)] + ([(rank, DIGIT, 16)] if rank.max() > DIGIT else [])
    src, dst = np.empty((3, n), np.int32), np.empty((3, n), np.int32)
    for a in range(3):
        counting_sort.sort([(keys[a], DIGIT, 0), (keys[a], DIGIT, 16)] + by_group, n, src[a], get)
    order = np.empty(n, np.int32)
    for level in splits:
        starts, mids, ends, groups, leaves = (np.ascontiguousarray(x, np.int32) for x in level)
        _split.work_per_item = n / len(starts)  # a level's nodes share its n items: parallel as n items are
        launch_on_cpu(_split, len(starts), starts, mids, ends, groups, leaves, c, keys, src, dst, order)
        src, dst = dst, src
    return order.astype(np.int64)
