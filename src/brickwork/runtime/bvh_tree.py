"""The shape of a tree (``Tree``): its item order, each node's children (or item range) and parent, its levels,
and the tables the refit kernels take; the bounds of its nodes on the host. ``bvh.py`` writes a tree to the
tables its descriptor points to (``TreeStorage``) and builds ``wp.Bvh`` on it; ``bvh_binned``, ``bvh_whole``,
``bvh_build``/``bvh_sah`` and ``bvh_lbvh`` shape its nodes."""

from __future__ import annotations

import functools

import numpy as np

from ..types.array_constructors import wrap_numpy
from ..types.arrays import array
from ..types.scalars import int32
from . import bvh_build, bvh_sah


class Tree:
    """A tree over ``n`` items with centres ``centers``: the item order, each node's children (or item range) and
    parent, and the nodes of each level (for the bottom-up bounds). Each node of more than ``leaf_size`` items
    splits them in two: at the median along the longest axis of their centres' extent, or, given the items'
    ``bounds`` (lowers and uppers, float32 (n, 3)), where the surface-area heuristic puts it (``bvh_sah``),
    within ``bvh_sah.MAX_DEPTH`` levels below the root. With ``groups`` (an int32 per item), the items of each
    group form a subtree: the nodes above them split the groups in halves (by group id), and
    ``group_ids``/``group_roots`` (sorted ids, int32; empty without groups) give each group's subtree root.
    Nodes are numbered level by level, root 0, the two children of a node next to each other."""

    def __init__(self, centers: np.ndarray, leaf_size: int, groups: np.ndarray | None = None,
                 bounds: tuple | None = None):
        n = len(centers)
        if groups is None:  # one group, with no tables (bvh_get_group_root then gives -1)
            group_ids, rank = np.zeros(1, np.int32), None
        else:
            group_ids, rank = np.unique(np.asarray(groups, np.int32), return_inverse=True)
        sah = bounds is not None
        lists = bvh_build.ItemLists(centers, rank)
        scratch = None
        # each group's range of the items sorted by group (a node of several groups splits at a boundary)
        ends = np.cumsum(np.bincount(rank, minlength=len(group_ids))) if rank is not None else np.array([n])
        group_start = np.concatenate(([0], ends[:-1])).astype(np.int64)
        roots = np.zeros(len(group_ids), np.int32)
        lo_i, hi_i, parents, levels = [], [], [], []
        seg_start, seg_end = np.array([0], np.int64), np.array([n], np.int64)
        seg_parent = np.array([-1], np.int64)
        seg_depth = np.zeros(1, np.int64)  # levels below the root of the node's group (of the tree)
        # the groups [ga, gb) of each node, while some node holds several (below, each holds one)
        grouping = len(group_ids) > 1
        seg_ga, seg_gb = np.array([0], np.int64), np.array([len(group_ids)], np.int64)
        fresh = np.array([True])  # the top of a group's subtree
        next_id = max_depth = 0
        while len(seg_start):
            ids = np.arange(next_id, next_id + len(seg_start))
            next_id += len(seg_start)
            parents.append(seg_parent)
            split = seg_end - seg_start > leaf_size
            # Warp's max_depth: a group's nodes count from the group's root, the nodes above from the root
            depth = seg_depth
            if grouping:
                by_group = seg_gb - seg_ga > 1
                top = fresh & ~by_group
                roots[seg_ga[top]] = ids[top]
                split |= by_group
                depth = np.where(by_group | top, len(levels), seg_depth)
            max_depth = max(max_depth, int(depth.max()))
            a = np.where(split, 0, -(seg_start + 1))  # a leaf: its item range; a split node: its children
            b = np.where(split, 0, seg_end)
            levels.append((ids, split))
            s, e, d = seg_start[split], seg_end[split], seg_depth[split]
            if len(s):
                mid = s + (e - s) // 2
                axes = np.full(len(s), -1, np.int32)
                g = np.zeros(len(s), bool)
                if grouping:
                    ga, gb, g = seg_ga[split], seg_gb[split], by_group[split]
                    gm = ga + (gb - ga) // 2
                    mid = np.where(g, group_start[gm], mid)
                inner = ~g & (e - s > 2)  # the nodes within a group; two items split one way only
                if sah and inner.any():  # the SAH's split
                    keys, src = lists.kernel_lists()
                    scratch = scratch or bvh_sah.Scratch(*bounds)
                    # a child may hold what median splits finish within the levels left to the subtree
                    budgets = leaf_size * 2 ** np.maximum(bvh_sah.MAX_DEPTH - 1 - d[inner], 0)
                    mid[inner], axes[inner] = bvh_sah.choose(scratch, keys, src, s[inner], e[inner], budgets)
                first_child = next_id + 2 * np.arange(len(s))
                a[split] = first_child
                b[split] = first_child + 1
                seg_start = np.stack([s, mid], 1).reshape(-1)
                seg_end = np.stack([mid, e], 1).reshape(-1)
                seg_parent = np.repeat(ids[split], 2)
                seg_depth = np.where(np.repeat(g, 2), 0, np.repeat(d, 2) + 1)
                leaf = seg_end - seg_start <= leaf_size
                if grouping:
                    seg_ga = np.stack([ga, np.where(g, gm, ga)], 1).reshape(-1)
                    seg_gb = np.stack([np.where(g, gm, gb), gb], 1).reshape(-1)
                    fresh = np.repeat(g, 2)
                    leaf &= seg_gb - seg_ga <= 1
                    if not fresh.any():  # no group split at this level: each node below holds one group
                        grouping = False
                lists.split(s, mid, e, g, leaf[0::2] + 2 * leaf[1::2], axes)
            else:
                seg_start = seg_end = seg_parent = np.zeros(0, np.int64)
            lo_i.append(a)
            hi_i.append(b)
        self.group_ids, self.group_roots = (group_ids, roots) if groups is not None else (group_ids[:0], roots[:0])
        self.order = lists.order
        self.num_nodes = next_id
        self.lo_i = np.concatenate(lo_i).astype(np.int32)
        self.hi_i = np.concatenate(hi_i).astype(np.int32)
        self.parents = np.concatenate(parents).astype(np.int32)
        self.levels = levels
        self.max_depth = max_depth

    @classmethod
    def from_levels(cls, first: np.ndarray, last: np.ndarray, parents: np.ndarray, order: np.ndarray,
                    max_depth: int, ranges: list) -> Tree:
        """A tree without groups whose nodes are numbered level by level, each level the ids ``ranges[d]``
        (``(first, end)``, root first): an lbvh tree (``bvh_lbvh``)."""
        tree = cls.__new__(cls)
        tree.group_ids = tree.group_roots = np.zeros(0, np.int32)
        tree.order = np.asarray(order, np.int32)
        tree.num_nodes = len(first)
        tree.lo_i, tree.hi_i = np.asarray(first, np.int32), np.asarray(last, np.int32)
        tree.parents = np.asarray(parents, np.int32)
        tree._ranges = ranges  # its levels when asked (a host refit does not ask)
        tree.max_depth = max_depth
        return tree

    @functools.cached_property
    def leaves(self) -> np.ndarray:
        """The ids of the leaves (int64, ascending; a tree of ``from_levels``: when asked)."""
        return np.flatnonzero(self.lo_i < 0)

    @functools.cached_property
    def leaf_starts(self) -> np.ndarray:
        """The first item position of each leaf of ``leaves`` (int64)."""
        return -(self.lo_i[self.leaves].astype(np.int64) + 1)

    @functools.cached_property
    def levels(self) -> list:
        """Each level's ids and which of them are split, root first (a tree of ``from_levels``: from its ranges;
        ``__init__`` sets them)."""
        return [(np.arange(a, b), self.lo_i[a:b] >= 0) for a, b in self._ranges]

    @functools.cached_property
    def kernel_tables(self) -> dict:
        """The tree as int32 arrays for the refit kernels (``bvh_refit.py``): ``leaves`` in the order of their
        items' positions (``leaves_by_position``), ``inner`` the inner nodes in descending id order."""
        return {name: wrap_numpy(np.ascontiguousarray(values, np.int32), int32)
                for name, values in (("first", self.lo_i), ("last", self.hi_i), ("order", self.order),
                                     ("leaves", self.leaves_by_position()),
                                     ("inner", np.flatnonzero(self.lo_i >= 0)[::-1]))}

    @functools.cached_property
    def single_tables(self) -> dict:
        """For the refit that reads the boxes in item order (``bvh_refit.refit`` with boxes), int32 arrays:
        ``item_leaf``, for each item the leaf that holds it alone (-1 if its leaf holds others), and ``multi`` the
        other leaves, in the order of their items' positions."""
        leaves = self.kernel_tables["leaves"].numpy()
        starts = -(self.lo_i[leaves].astype(np.int64) + 1)
        alone = self.hi_i[leaves] - starts == 1
        item_leaf = np.full(len(self.order), -1, np.int32)
        item_leaf[self.order[starts[alone]]] = leaves[alone]
        return {"item_leaf": wrap_numpy(item_leaf, int32),
                "multi": wrap_numpy(np.ascontiguousarray(leaves[~alone], np.int32), int32)}

    def leaves_by_position(self) -> np.ndarray:
        """The leaves' ids in the order of their item ranges: a refit that takes them so reads the item order and
        (items being near their neighbours in it) the item boxes in memory order, where id order jumps between
        levels (a 1M-triangle mesh's leaves' bounds 1.5 times as fast). In O(items), without a sort."""
        leaves, starts = self.leaves, self.leaf_starts
        at_start = np.full(len(self.order) + 1, -1, np.int32)
        at_start[starts] = leaves
        found = at_start[at_start >= 0]
        if len(found) != len(leaves):  # empty leaves share a start (a tree of no items: its root)
            return leaves[np.argsort(starts, kind="stable")]
        return found

    def tables_on(self, device) -> dict:
        """The tree as int32 arrays on ``device`` for ``bvh_refit.refit_by_levels`` (uploaded once per tree):
        ``first``, ``last``, ``order`` and ``leaves`` as in ``kernel_tables``, and ``levels``, each level's inner
        nodes, deepest level first."""
        cache = self.__dict__.setdefault("_tables_on", {})
        found = cache.get(device.alias)
        if found is None:
            def put(values):
                return array(np.ascontiguousarray(values, np.int32), dtype=int32, device=device)

            found = {name: put(values) for name, values in (("first", self.lo_i), ("last", self.hi_i),
                                                            ("order", self.order), ("leaves", self.leaves))}
            inner = [ids[split] for ids, split in reversed(self.levels)]
            found["levels"] = [put(nodes) for nodes in inner if len(nodes)]
            cache[device.alias] = found
        return found

    def bounds(self, lowers: np.ndarray, uppers: np.ndarray) -> tuple:
        """Node lowers and uppers (float32, (num_nodes, 3)) of items with these bounds."""
        node_lo = np.zeros((self.num_nodes, 3), np.float32)
        node_hi = np.zeros((self.num_nodes, 3), np.float32)
        if len(lowers) == 0:  # a tree of no boxes: its root is an empty leaf
            return node_lo, node_hi
        # reduceat reduces a[start_i:start_{i+1}]: only over starts in ascending order (the leaves partition the
        # items; in node order their starts are not ascending, and a start above the next reduced one item)
        by_start = np.argsort(self.leaf_starts, kind="stable")
        leaves, starts = self.leaves[by_start], self.leaf_starts[by_start]
        node_lo[leaves] = np.minimum.reduceat(lowers[self.order], starts, axis=0)
        node_hi[leaves] = np.maximum.reduceat(uppers[self.order], starts, axis=0)
        for ids, split in reversed(self.levels):  # children before their parents
            inner = ids[split]
            if len(inner):
                left, right = self.lo_i[inner], self.hi_i[inner]
                node_lo[inner] = np.minimum(node_lo[left], node_lo[right])
                node_hi[inner] = np.maximum(node_hi[left], node_hi[right])
        return node_lo, node_hi
