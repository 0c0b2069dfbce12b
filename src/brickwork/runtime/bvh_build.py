"""The item order of a tree (``bvh_tree.Tree``), in compiled CPU kernels.

Each node of more than ``leaf_size`` items splits them in two. A median-split tree's shape depends only on its
number of items and ``leaf_size``; what the items' centres decide is which items each node holds: the lower
half of its items along the longest axis of their extent (in the order of (centre, item), so ties go by item
index and NaN centres sort last) goes to the first child. A SAH tree (``bvh_sah``) chooses each node's axis
and boundary from the same sorted lists. A node whose items are of several groups (a grouped tree) splits
them at a group boundary instead.

The items are sorted once along each axis by the centre's float32 bits mapped to an unsigned order: the three
axes in one launch by four 8-bit digits (``_sort_axes``), or with groups by ``counting_sort`` (two 16-bit
digits, then the group). A node's three sorted lists then give its extent in O(1) (the first and last item
of each) and its median on the chosen axis; the other two lists are split stably into the children's
(``split_node``). So each level of the tree costs O(items), one thread per node, and a node becoming a leaf
takes its items in the order of its parent's axis. A tree of one group may instead be shaped in one launch
(``bvh_whole``), with the same functions.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty, wrap_numpy
from ..types.arrays import array, array2d
from ..types.scalars import float32, int32, uint32
from . import counting_sort
from .counting_sort import DIGIT
from .launch import launch_on_cpu

_tid, _isnan = _FUNCTIONS["tid"], _FUNCTIONS["isnan"]
#: A tree of at most this many items is built (and refit) by launches on one thread whatever the number of
#: threads: below it a parallel launch saves less than it risks, a wait at its barrier for a thread the
#: operating system has descheduled (milliseconds on a busy machine, for a build of a millisecond or two)
PARALLEL_MIN = 1 << 17


@func
def _above(keys: array2d(dtype=int32), axis: int32, item: int32, last_key: uint32, last_item: int32):
    # 1 if item comes after (last_key, last_item) in the order of (key, item) along axis, else 0
    k = uint32(keys[axis, item])
    return int32(k > last_key or (k == last_key and item > last_item))


@func
def split_node(s: int32, mid: int32, e: int32, by_group: int32, leaves: int32, chosen: int32,
               centers: array2d(dtype=float32), keys: array2d(dtype=int32), src: array2d(dtype=int32),
               dst: array2d(dtype=int32), order: array(dtype=int32)):
    # one node: src[a, s:e] are its items sorted along axis a; dst receives its children's. A node of several
    # groups splits at a group boundary (mid), where every list already splits: the items sort by group first.
    # chosen >= 0: the axis the split was chosen on (SAH); else the longest one's median (mid)
    axis = chosen
    if axis < 0:
        axis = int32(0)
    if by_group == 0 and chosen < 0:  # numpy's argmax of the extents: the first NaN, else the first largest
        best = centers[src[0, e - 1], 0] - centers[src[0, s], 0]
        for a in range(1, 3):
            extent = centers[src[a, e - 1], a] - centers[src[a, s], a]
            if not _isnan(best) and (_isnan(extent) or extent > best):
                axis = a
                best = extent
    last_item = src[axis, mid - 1]  # the first child's last item
    last_key = uint32(keys[axis, last_item])
    for a in range(3):
        if a == axis or by_group != 0:
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
    if leaves & 1 != 0:  # a child that is a leaf takes its items in the order of the node's axis
        for p in range(s, mid):
            order[p] = src[axis, p]
    if leaves & 2 != 0:
        for p in range(mid, e):
            order[p] = src[axis, p]


@kernel(enable_backward=False)
def _split(starts: array(dtype=int32), mids: array(dtype=int32), ends: array(dtype=int32),
           by_group: array(dtype=int32), leaves: array(dtype=int32), axes: array(dtype=int32),
           centers: array2d(dtype=float32), keys: array2d(dtype=int32), src: array2d(dtype=int32),
           dst: array2d(dtype=int32), order: array(dtype=int32)):
    g = _tid()
    split_node(starts[g], mids[g], ends[g], by_group[g], leaves[g], axes[g], centers, keys, src, dst, order)


@func
def _digit_pass(keys: array2d(dtype=int32), a: int32, shift: uint32, src: array2d(dtype=int32), first: int32,
                dst: array2d(dtype=int32), counts: array2d(dtype=int32)):
    # a stable counting pass of list a by one 8-bit digit of the keys: src[a] (the items in order if first)
    # into dst[a]
    n = keys.shape[1]
    for b in range(256):
        counts[a, b] = int32(0)
    for i in range(n):
        item = i if first != 0 else src[a, i]
        k = int32(uint32(keys[a, item]) >> shift) & 255
        counts[a, k] = counts[a, k] + 1
    at = int32(0)
    for b in range(256):
        count = counts[a, b]
        counts[a, b] = at
        at = at + count
    for i in range(n):
        item = i if first != 0 else src[a, i]
        k = int32(uint32(keys[a, item]) >> shift) & 255
        dst[a, counts[a, k]] = item
        counts[a, k] = counts[a, k] + 1


@kernel(enable_backward=False)
def _sort_axes(keys: array2d(dtype=int32), lists: array2d(dtype=int32), spare: array2d(dtype=int32),
               counts: array2d(dtype=int32)):
    # one thread per axis: its items in the order of (key, item), four passes of 8-bit digits (256 counts, not
    # counting_sort's 65536: a small tree's sort is its items, not its counts)
    a = _tid()
    _digit_pass(keys, a, uint32(0), lists, 1, spare, counts)
    _digit_pass(keys, a, uint32(8), spare, 0, lists, counts)
    _digit_pass(keys, a, uint32(16), lists, 0, spare, counts)
    _digit_pass(keys, a, uint32(24), spare, 0, lists, counts)


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


def work_arrays():
    """``counting_sort.sort``'s ``work``: int32 CPU arrays by name, made once per shape."""
    made: dict = {}

    def get(name, shape):
        a = made.get(name)
        if a is None or a.shape != shape:
            a = made[name] = empty(shape, dtype=int32, device="cpu")
        return a

    return get


class ItemLists:
    """The items of a tree's nodes, sorted along each axis, split level by level (``split``) as the tree is
    shaped (``bvh_tree.Tree``); ``order`` is the tree's item order (int64, the item at each position) once every
    level has split. ``rank``: each item's group (0, 1, ... in the order of the group ids), or None for one
    group. The lists are sorted on the first split: a tree whose root is a leaf sorts nothing."""

    def __init__(self, centers: np.ndarray, rank: np.ndarray | None = None):
        self.n = len(centers)
        self.centers = centers
        self.rank = rank
        self.src = None  # (3, n) int32: the items of each node along each axis, at the node's positions
        self._order = None
        self.level = None  # split's tables, made at its first call

    def _sort(self) -> None:
        n = self.n
        self.c = centers32(self.centers)
        get = work_arrays()
        self.keys = sort_keys(self.c).view(np.int32)
        by_group = []
        rank = self.rank
        if rank is not None and rank.max(initial=0) > 0:  # the group is the most significant key
            rank = np.ascontiguousarray(rank, np.int32)
            by_group = [(rank, DIGIT, 0)] + ([(rank, DIGIT, 16)] if rank.max() > DIGIT else [])
        self.src, self.dst = np.empty((3, n), np.int32), np.empty((3, n), np.int32)
        # the tables every launch takes, as arrays once: a numpy argument is wrapped anew at each launch
        # (microseconds apiece, most of a small tree's build); src and dst swap with their numpy arrays
        self._order = np.empty(n, np.int32)
        self.wrapped = {"c": wrap_numpy(self.c, float32), "keys": wrap_numpy(self.keys, int32),
                        "order": wrap_numpy(self._order, int32)}
        self.wrapped_src, self.wrapped_dst = wrap_numpy(self.src, int32), wrap_numpy(self.dst, int32)
        if by_group:
            for a in range(3):
                counting_sort.sort([(self.keys[a], DIGIT, 0), (self.keys[a], DIGIT, 16)] + by_group, n,
                                   self.src[a], get)
        else:  # the three lists in one launch, dst as the spare
            _sort_axes.work_per_item = 8 * n if n > PARALLEL_MIN else 0  # four passes of reads and writes
            launch_on_cpu(_sort_axes, 3, self.wrapped["keys"], self.wrapped_src, self.wrapped_dst,
                          wrap_numpy(np.empty((3, 256), np.int32), int32))

    def lists(self) -> tuple:
        """The centres (float32, (n, 3)), their keys ((3, n), ``sort_keys`` as int32) and the sorted lists."""
        if self.src is None:
            self._sort()
        return self.c, self.keys, self.src

    def kernel_lists(self) -> tuple:
        """The keys and the sorted lists of ``lists``, as arrays (views of the same memory) for launches."""
        self.lists()
        return self.wrapped["keys"], self.wrapped_src

    def split(self, starts, mids, ends, groups, leaves, axes=None) -> None:
        """Split one level's nodes (in node order; a level's ranges are disjoint): their item ranges' starts, the
        children's boundary, the ends, whether the node splits its groups, which children are leaves (bit 0 the
        first, bit 1 the second) and the axis each split is on (-1: the median along the longest axis of the
        centres' extent, with ``mids`` that median)."""
        self.lists()
        if self.level is None:  # a level's split nodes (at most n / 2): starts, mids, ends, groups, leaves, axes
            self.level = np.empty((6, max(self.n // 2, 1)), np.int32)
            self.wrapped_level = [wrap_numpy(row, int32) for row in self.level]
        count = len(starts)
        for row, values in zip(self.level, (starts, mids, ends, groups, leaves, -1 if axes is None else axes)):
            row[:count] = values
        # a level's nodes share its n items: parallel as n items are, above PARALLEL_MIN
        _split.work_per_item = self.n / count if self.n > PARALLEL_MIN else 0
        w = self.wrapped
        launch_on_cpu(_split, count, *self.wrapped_level, w["c"], w["keys"], self.wrapped_src, self.wrapped_dst,
                      w["order"])
        self.src, self.dst = self.dst, self.src
        self.wrapped_src, self.wrapped_dst = self.wrapped_dst, self.wrapped_src

    @property
    def order(self) -> np.ndarray:
        if self._order is None:  # the root is a leaf
            return np.arange(self.n, dtype=np.int64)
        return self._order.astype(np.int64)
