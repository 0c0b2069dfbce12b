"""A median tree without groups (``bvh_tree.Tree``) shaped in one launch: one thread takes the nodes in id order.

The level-by-level build (``bvh_tree.Tree``) launches a kernel per level (``ItemLists.split``) and does the level's
bookkeeping in numpy: tens of microseconds a level, most of a small tree's build, and on several threads each
level's launch waits at a barrier for the slowest thread. Here a single thread walks the nodes in id order (level
by level, so a node's children get the next two free ids, as there) and splits each with the same function
(``bvh_build.split_node``), so the tree is the same, node for node. The lists alternate between two tables by
level, as the level-by-level build swaps them. (A SAH tree without groups is ``bvh_binned``'s.)
"""

from __future__ import annotations

import numpy as np

from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import wrap_numpy
from ..types.arrays import array, array2d
from ..types.scalars import float32, int32
from .bvh_build import ItemLists, split_node
from .launch import launch_on_cpu

#: At most this many levels (a median tree of 2^31 items has 32)
MAX_LEVELS = 64


@func
def _node(node: int32, leaf_size: int32, count: int32, keys: array2d(dtype=int32), centers: array2d(dtype=float32),
          src: array2d(dtype=int32), dst: array2d(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
          parents: array(dtype=int32), order: array(dtype=int32)):
    # a node whose item range (s, e) is in (first, last): a leaf keeps it (as -(s + 1), e); a split node gets
    # its children, count and count + 1, which get their ranges. Returns the nodes made so far.
    s = first[node]
    e = last[node]
    if e - s <= leaf_size:
        first[node] = -(s + 1)
        return count
    mid = s + (e - s) // 2
    leaves = int32(mid - s <= leaf_size) + 2 * int32(e - mid <= leaf_size)
    split_node(s, mid, e, 0, leaves, -1, centers, keys, src, dst, order)
    first[node] = count
    last[node] = count + 1
    first[count] = s
    last[count] = mid
    first[count + 1] = mid
    last[count + 1] = e
    parents[count] = node
    parents[count + 1] = node
    return count + 2


@kernel(enable_backward=False)
def _shape(n: int32, leaf_size: int32, keys: array2d(dtype=int32), centers: array2d(dtype=float32),
           lists: array2d(dtype=int32), spare: array2d(dtype=int32), first: array(dtype=int32),
           last: array(dtype=int32), parents: array(dtype=int32), order: array(dtype=int32),
           level_ends: array(dtype=int32)):
    # one thread: the whole tree. level_ends[d]: the end of level d's ids; level_ends[MAX_LEVELS - 1]: the levels
    first[0] = 0
    last[0] = n
    parents[0] = -1
    begin = int32(0)
    end = int32(1)
    level = int32(0)
    while begin < end and level < MAX_LEVELS - 1:
        count = end
        for node in range(begin, end):
            if level % 2 == 0:
                count = _node(node, leaf_size, count, keys, centers, lists, spare, first, last, parents, order)
            else:
                count = _node(node, leaf_size, count, keys, centers, spare, lists, first, last, parents, order)
        level_ends[level] = end
        level = level + 1
        begin = end
        end = count
    level_ends[MAX_LEVELS - 1] = level


def shape(lists: ItemLists, leaf_size: int) -> tuple:
    """The median tree over ``lists``' items (more than ``leaf_size`` of them, one group): its ``first``, ``last``
    and ``parents`` (int32, by node id), its item order (int64) and the ``(first, end)`` ids of each level, root
    first, as ``bvh_tree.Tree.from_levels`` takes them."""
    n = lists.n
    lists.lists()
    links = np.empty((3, 2 * n), np.int32)  # first, last, parents: at most 2n - 1 nodes
    level_ends = np.zeros(MAX_LEVELS, np.int32)
    w = lists.wrapped
    launch_on_cpu(_shape, 1, n, leaf_size, w["keys"], w["c"], lists.wrapped_src, lists.wrapped_dst,
                  *(wrap_numpy(row, int32) for row in links), w["order"], wrap_numpy(level_ends, int32))
    levels = int(level_ends[-1])
    ends = level_ends[:levels].tolist()
    num_nodes = ends[-1]
    ranges = list(zip([0] + ends[:-1], ends))
    return links[0, :num_nodes], links[1, :num_nodes], links[2, :num_nodes], lists.order, ranges
