"""A tree without groups (``bvh.Tree``) shaped in one launch: one thread takes the nodes in id order.

The level-by-level build (``bvh.Tree``) launches two kernels per level (``bvh_sah.choose``, ``ItemLists.split``)
and does the level's bookkeeping in numpy: tens of microseconds a level, most of a small tree's build, and on
several threads each level's launch waits at a barrier for the slowest thread. Here a single thread walks
the nodes in id order (level by level, so a node's children get the next two free ids, as there) and does
per node what those launches do, with the same functions (``bvh_sah.choose_node``, ``bvh_build.split_node``),
so the tree is the same, node for node. The lists alternate between two tables by level, as the
level-by-level build swaps them.
"""

from __future__ import annotations

import numpy as np

from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty, wrap_numpy
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float32, float64, int32
from . import bvh_sah
from .bvh_build import ItemLists, split_node
from .bvh_sah import choose_node
from .launch import launch_on_cpu

_vec3 = vector(3, float32)
#: At most this many levels (a median tree of 2^31 items has 32, a SAH tree at most ``bvh_sah.MAX_DEPTH`` + 1)
MAX_LEVELS = 64


@func
def _node(node: int32, leaf_size: int32, sah: int32, budget: int32, count: int32,
          boxes: array2d(dtype=float32), keys: array2d(dtype=int32), centers: array2d(dtype=float32),
          src: array2d(dtype=int32), dst: array2d(dtype=int32), run_lo: array(dtype=_vec3),
          run_hi: array(dtype=_vec3), run_prev: array(dtype=int32), prefix: array(dtype=float64),
          first: array(dtype=int32), last: array(dtype=int32), parents: array(dtype=int32),
          order: array(dtype=int32)):
    # a node whose item range (s, e) is in (first, last): a leaf keeps it (as -(s + 1), e); a split node gets
    # its children, count and count + 1, which get their ranges. Returns the nodes made so far.
    s = first[node]
    e = last[node]
    if e - s <= leaf_size:
        first[node] = -(s + 1)
        return count
    mid = s + (e - s) // 2
    axis = int32(-1)
    if sah != 0 and e - s > 2:  # two items split one way only
        mid, axis = choose_node(s, e, budget, boxes, keys, src, run_lo, run_hi, run_prev, prefix)
    leaves = int32(mid - s <= leaf_size) + 2 * int32(e - mid <= leaf_size)
    split_node(s, mid, e, 0, leaves, axis, centers, keys, src, dst, order)
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
def _shape(n: int32, leaf_size: int32, sah: int32, boxes: array2d(dtype=float32), keys: array2d(dtype=int32),
           centers: array2d(dtype=float32), lists: array2d(dtype=int32), spare: array2d(dtype=int32),
           run_lo: array(dtype=_vec3), run_hi: array(dtype=_vec3), run_prev: array(dtype=int32),
           prefix: array(dtype=float64), first: array(dtype=int32), last: array(dtype=int32),
           parents: array(dtype=int32), order: array(dtype=int32), level_ends: array(dtype=int32)):
    # one thread: the whole tree. level_ends[d]: the end of level d's ids; level_ends[MAX_LEVELS - 1]: the levels
    first[0] = 0
    last[0] = n
    parents[0] = -1
    begin = int32(0)
    end = int32(1)
    level = int32(0)
    while begin < end and level < MAX_LEVELS - 1:
        budget = bvh_sah.child_budget(leaf_size, level)
        count = end
        for node in range(begin, end):
            if level % 2 == 0:
                count = _node(node, leaf_size, sah, budget, count, boxes, keys, centers, lists, spare,
                              run_lo, run_hi, run_prev, prefix, first, last, parents, order)
            else:
                count = _node(node, leaf_size, sah, budget, count, boxes, keys, centers, spare, lists,
                              run_lo, run_hi, run_prev, prefix, first, last, parents, order)
        level_ends[level] = end
        level = level + 1
        begin = end
        end = count
    level_ends[MAX_LEVELS - 1] = level


def shape(lists: ItemLists, leaf_size: int, bounds: tuple | None) -> tuple:
    """The tree over ``lists``' items (more than ``leaf_size`` of them, one group), SAH with the items' ``bounds``
    (lowers, uppers), else median: its ``first``, ``last`` and ``parents`` (int32, by node id), its item order
    (int64) and the ``(first, end)`` ids of each level, root first, as ``bvh.Tree.from_levels`` takes them."""
    n = lists.n
    c, keys, src = lists.lists()
    if bounds is not None:
        scratch = bvh_sah.Scratch(*(b if lists.perm is None else b[lists.perm] for b in bounds))
        boxes, run_lo, run_hi, run_prev, prefix = scratch.tables
    else:  # unused by a median tree
        boxes = wrap_numpy(np.zeros((1, 8), np.float32), float32)
        run_lo = run_hi = empty(1, dtype=_vec3, device="cpu")
        run_prev, prefix = wrap_numpy(np.zeros(1, np.int32), int32), wrap_numpy(np.zeros(1, np.float64), float64)
    links = np.empty((3, 2 * n), np.int32)  # first, last, parents: at most 2n - 1 nodes
    level_ends = np.zeros(MAX_LEVELS, np.int32)
    w = lists.wrapped
    launch_on_cpu(_shape, 1, n, leaf_size, int(bounds is not None), boxes, w["keys"], w["c"], lists.wrapped_src,
                  lists.wrapped_dst, run_lo, run_hi, run_prev, prefix, *(wrap_numpy(row, int32) for row in links),
                  w["order"], wrap_numpy(level_ends, int32))
    levels = int(level_ends[-1])
    ends = level_ends[:levels].tolist()
    num_nodes = ends[-1]
    ranges = list(zip([0] + ends[:-1], ends))
    return links[0, :num_nodes], links[1, :num_nodes], links[2, :num_nodes], lists.order, ranges
