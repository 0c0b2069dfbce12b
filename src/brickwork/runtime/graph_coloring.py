"""Graph coloring as Warp's (``wp.utils.graph_coloring_assign``, ``graph_coloring_balance``): compiled one-thread
CPU kernels that take the steps of Warp's native algorithms in the same order, so that a coloring equals Warp's.

- The graph is a list of adjacency per node, each in the order of the edges (an edge ``(a, b)`` adds ``b`` to
  ``a``'s list and ``a`` to ``b``'s). A self-loop counts twice in its node's degree but fills one place of its
  list, as Warp's construction does; the place left over (at the list's end) is skipped (Warp reads outside its
  arrays there).
- MCS (maximum cardinality search): nodes are visited in order of the most visited neighbours, from buckets of
  nodes by that count kept as Warp keeps them (a node taken from the front of its bucket is replaced by the
  bucket's last; a node that moves up a bucket is replaced by the last and appended to the next); a new
  connected component starts at its lowest node. Then the greedy coloring in that order.
- GREEDY: the nodes by decreasing degree, ties in the order of libstdc++'s ``std::sort``
  (``graph_coloring_sort``), then the greedy coloring: each node takes the smallest color none of its colored
  neighbours has.
- Balancing moves one node at a time into the smallest color group (the first of the smallest): the first node,
  in its group's order, of the largest group (or else of the other groups in color order) with no neighbour
  of that color. Groups keep Warp's order (nodes ascending at first; a node leaving is replaced by its group's
  last, a node arriving is appended). It stops at the target ratio of the largest to the smallest group's size
  (float32), when the sizes differ by at most 2, when no node can move, or at the iteration limit; a move that
  raised the ratio is undone. Where Warp scans a group from its start for each move, the scans here resume
  after the nodes an earlier scan for the same color found unable to move and that nothing has freed since
  (the same node is found; a 1M-edge mesh balances 20 times faster).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty, full, zeros
from ..types.arrays import array, array2d, type_name
from ..types.scalars import float32, int32
from .graph_coloring_algorithm import GraphColoringAlgorithm
from .graph_coloring_sort import degree_order
from .launch import launch_on_cpu

_INF = math.inf
_NAN = math.nan
#: Targets per group whose scans balancing remembers (all of them up to this many colors)
SCAN_TARGETS = 64


# -- the graph ----------------------------------------------------------------------------------------------


@kernel(enable_backward=False)
def _adjacency(edges: array2d(dtype=int32), offsets: array(dtype=int32), fill: array(dtype=int32),
               adjacency: array(dtype=int32)):
    # one thread; offsets and fill zero, adjacency -1 on entry. Indices are checked before the launch
    n = fill.shape[0]
    for e in range(edges.shape[0]):
        a = edges[e, 0]
        b = edges[e, 1]
        offsets[a + 1] = offsets[a + 1] + 1
        offsets[b + 1] = offsets[b + 1] + 1
    for v in range(n):
        offsets[v + 1] = offsets[v + 1] + offsets[v]
    for e in range(edges.shape[0]):
        a = edges[e, 0]
        b = edges[e, 1]
        # both counts read before either is written: a self-loop fills one place (as Warp's construction)
        fa = fill[a]
        fb = fill[b]
        adjacency[offsets[a] + fa] = b
        adjacency[offsets[b] + fb] = a
        fill[a] = fa + 1
        fill[b] = fb + 1


class Graph:
    """The adjacency lists of ``n`` nodes (int32 CPU arrays): node ``v``'s neighbours are
    ``adjacency[offsets[v]:offsets[v + 1]]``, -1 for a place a self-loop left empty."""

    def __init__(self, edges, n: int):
        self.n = n
        self.offsets = zeros(n + 1, dtype=int32, device="cpu")
        self.adjacency = full(2 * int(edges.shape[0]), -1, dtype=int32, device="cpu")
        launch_on_cpu(_adjacency, 1, edges, self.offsets, zeros(n, dtype=int32, device="cpu"), self.adjacency)

    def degrees(self) -> np.ndarray:
        return np.diff(self.offsets.numpy()).astype(np.int32)


# -- maximum cardinality search -----------------------------------------------------------------------------


@func
def _bucket_add(weight: array(dtype=int32), slot: array(dtype=int32), start: array(dtype=int32),
                size: array(dtype=int32), pool: array(dtype=int32), w: int32, v: int32):
    at = size[w]
    slot[v] = at
    weight[v] = w
    pool[start[w] + at] = v
    size[w] = at + 1


@func
def _bucket_remove(slot: array(dtype=int32), start: array(dtype=int32), size: array(dtype=int32),
                   pool: array(dtype=int32), w: int32, at: int32):
    # the bucket's last node takes place at (Warp's O(1) erase)
    last = pool[start[w] + size[w] - 1]
    slot[last] = at
    pool[start[w] + at] = last
    size[w] = size[w] - 1


@kernel(enable_backward=False)
def _mcs(offsets: array(dtype=int32), adjacency: array(dtype=int32), weight: array(dtype=int32),
         slot: array(dtype=int32), start: array(dtype=int32), size: array(dtype=int32), pool: array(dtype=int32),
         order: array(dtype=int32)):
    # one thread. weight[v]: visited neighbours of an unvisited node (in bucket weight[v] when above 0), -1 once
    # visited; bucket w holds its nodes at pool[start[w]:start[w] + size[w]]; weight, size zero on entry
    n = weight.shape[0]
    top = int32(0)  # the highest non-empty bucket (0 when all are empty)
    cursor = int32(0)  # nodes below it are visited: where the search for a new component's first node resumes
    _bucket_add(weight, slot, start, size, pool, 0, 0)
    for k in range(n):
        if top == 0 and size[0] == 0:
            # a new connected component, from its lowest node (every unvisited node has weight 0 here)
            while weight[cursor] < 0:
                cursor = cursor + 1
            _bucket_add(weight, slot, start, size, pool, 0, cursor)
        first = start[top]
        v = pool[first]
        # the front node leaves; the bucket's last takes its place
        remaining = size[top] - 1
        if remaining > 0:
            last = pool[first + remaining]
            slot[last] = 0
            pool[first] = last
        size[top] = remaining
        weight[v] = -1
        if remaining == 0:
            w = top - 1
            top = 0
            while w >= 0:
                if size[w] > 0:
                    top = w
                    break
                w = w - 1
        order[k] = v
        for j in range(offsets[v], offsets[v + 1]):
            u = adjacency[j]
            if u >= 0:
                w = weight[u]
                if w >= 0:
                    if w > 0:
                        _bucket_remove(slot, start, size, pool, w, slot[u])
                    _bucket_add(weight, slot, start, size, pool, w + 1, u)
                    if top < w + 1:
                        top = w + 1


def mcs_order(graph: Graph):
    """The nodes in the order of Warp's maximum cardinality search (an int32 CPU array)."""
    n = graph.n
    degrees = graph.degrees()
    # a node's weight never exceeds its degree, so bucket w >= 1 holds at most the nodes of degree >= w, and
    # bucket 0 only a component's first node
    top = int(degrees.max(initial=0))
    capacity = np.zeros(top + 1, np.int64)
    capacity[1:] = np.cumsum(np.bincount(degrees, minlength=top + 1)[::-1])[::-1][1:]
    capacity[0] = 1
    start = np.concatenate(([0], np.cumsum(capacity)[:-1])).astype(np.int32)
    order = empty(n, dtype=int32, device="cpu")
    launch_on_cpu(_mcs, 1, graph.offsets, graph.adjacency, zeros(n, dtype=int32, device="cpu"),
                  empty(n, dtype=int32, device="cpu"), start, zeros(top + 1, dtype=int32, device="cpu"),
                  empty(int(capacity.sum()), dtype=int32, device="cpu"), order)
    return order


# -- greedy coloring ----------------------------------------------------------------------------------------


@kernel(enable_backward=False)
def _greedy(order: array(dtype=int32), offsets: array(dtype=int32), adjacency: array(dtype=int32),
            mark: array(dtype=int32), colors: array(dtype=int32), count: array(dtype=int32)):
    # one thread; mark (n + 1 zeros) records, per color, the last step whose node has a neighbour of it
    n = order.shape[0]
    for v in range(n):
        colors[v] = -1
    used = int32(0)
    for k in range(n):
        v = order[k]
        for j in range(offsets[v], offsets[v + 1]):
            u = adjacency[j]
            if u >= 0:
                c = colors[u]
                if c >= 0:
                    mark[c] = k + 1
        c = int32(0)
        while c < used and mark[c] == k + 1:
            c = c + 1
        if c == used:
            used = used + 1
        colors[v] = c
    count[0] = used


def color(graph: Graph, algorithm: int, colors) -> int:
    """Color the graph into ``colors`` (an int32 CPU array of the graph's nodes) in the node order of
    ``algorithm`` (0 MCS, 1 GREEDY); returns the number of colors."""
    order = mcs_order(graph) if algorithm == GraphColoringAlgorithm.MCS else degree_order(graph.degrees())
    count = zeros(1, dtype=int32, device="cpu")
    launch_on_cpu(_greedy, 1, order, graph.offsets, graph.adjacency, zeros(graph.n + 1, dtype=int32, device="cpu"),
                  colors, count)
    return int(count.numpy()[0])


# -- balancing ----------------------------------------------------------------------------------------------


@kernel(enable_backward=False)
def _groups(colors: array(dtype=int32), least: int32, start: array(dtype=int32), size: array(dtype=int32),
            pool: array(dtype=int32)):
    # one thread: each color's nodes, ascending, at pool[start[c]:start[c] + size[c]] (size zero on entry);
    # a group holds its own nodes or least, whichever is more (least: the most a group receiving a node can
    # reach: it is a smallest group, at most the mean size, then one more)
    for v in range(colors.shape[0]):
        c = colors[v]
        size[c] = size[c] + 1
    at = int32(0)
    for c in range(size.shape[0]):
        start[c] = at
        if size[c] > least:
            at = at + size[c]
        else:
            at = at + least
        size[c] = 0
    for v in range(colors.shape[0]):
        c = colors[v]
        pool[start[c] + size[c]] = v
        size[c] = size[c] + 1


@func
def _free(offsets: array(dtype=int32), adjacency: array(dtype=int32), colors: array(dtype=int32), v: int32,
          target: int32):
    # whether node v has no neighbour of color target
    for j in range(offsets[v], offsets[v + 1]):
        u = adjacency[j]
        if u >= 0:
            if colors[u] == target:
                return False
    return True


@func
def _movable(offsets: array(dtype=int32), adjacency: array(dtype=int32), colors: array(dtype=int32),
             start: array(dtype=int32), size: array(dtype=int32), pool: array(dtype=int32),
             scanned: array2d(dtype=int32), scanned_for: array2d(dtype=int32), source: int32, target: int32):
    # the place in group source of its first node with no neighbour of color target, -1 if none. What earlier
    # scans found is kept per (group, target) (a direct-mapped table of scanned.shape[1] targets per group): the
    # first scanned[source, k] nodes of the group have a neighbour of color target when scanned_for[source, k]
    # is target, so the scan resumes there; the answer is the same as from the group's start
    k = target % scanned.shape[1]
    begin = int32(0)
    if scanned_for[source, k] == target:
        begin = scanned[source, k]
    scanned_for[source, k] = target
    for i in range(begin, size[source]):
        if _free(offsets, adjacency, colors, pool[start[source] + i], target):
            scanned[source, k] = i
            return i
    scanned[source, k] = size[source]
    return int32(-1)


@kernel(enable_backward=False)
def _balance(offsets: array(dtype=int32), adjacency: array(dtype=int32), colors: array(dtype=int32),
             start: array(dtype=int32), size: array(dtype=int32), pool: array(dtype=int32),
             scanned: array2d(dtype=int32), scanned_for: array2d(dtype=int32), target: float32, max_iterations: int32,
             result: array(dtype=float32), limited: array(dtype=int32)):
    # one thread over the groups of _groups; writes the ratio reached and whether the iteration limit stopped it.
    # scanned, scanned_for: _movable's table (scanned_for -1 on entry)
    ncolors = size.shape[0]
    ratio = float32(-1.0)
    moved = int32(-1)
    moved_from = int32(-1)
    iteration = int32(0)
    while True:
        largest = int32(0)
        smallest = int32(0)
        for c in range(1, ncolors):
            if size[c] > size[largest]:
                largest = c
            if size[c] < size[smallest]:
                smallest = c
        previous = ratio
        if size[smallest] > 0:
            ratio = float32(size[largest]) / float32(size[smallest])
        elif size[largest] > 0:
            ratio = float32(_INF)
        else:
            ratio = float32(_NAN)  # no nodes: Warp's 0 / 0
        if previous > float32(0.0) and previous < ratio:
            # the last move made it worse; before it the ratios never rose, so undoing it restores the best
            colors[moved] = moved_from
            ratio = previous
            break
        if size[largest] - size[smallest] <= 2 or ratio <= target:
            break
        source = largest
        at = _movable(offsets, adjacency, colors, start, size, pool, scanned, scanned_for, largest, smallest)
        if at < 0:
            for c in range(ncolors):
                if c != largest and c != smallest and at < 0:
                    at = _movable(offsets, adjacency, colors, start, size, pool, scanned, scanned_for, c,
                                  smallest)
                    if at >= 0:
                        source = c
        if at < 0:
            break
        if iteration == max_iterations:
            limited[0] = 1
            break
        # the node moves: its group's last takes its place; it is appended to the smallest group
        v = pool[start[source] + at]
        moved = v
        moved_from = source
        colors[v] = smallest
        pool[start[source] + at] = pool[start[source] + size[source] - 1]
        size[source] = size[source] - 1
        # what _movable knows that changes: the source group's node at `at` is now another, and a node without
        # color source may now move to it (v was the neighbour of that color it had)
        for k in range(scanned.shape[1]):
            if scanned[source, k] > at:
                # the node now at `at` (the group's last before) is one to check: the scans stay where they
                # were if it has a neighbour of their color
                if at == size[source] or _free(offsets, adjacency, colors, pool[start[source] + at],
                                               scanned_for[source, k]):
                    scanned[source, k] = at
        k = source % scanned.shape[1]
        for c in range(ncolors):
            if scanned_for[c, k] == source:
                scanned[c, k] = 0
        pool[start[smallest] + size[smallest]] = v
        size[smallest] = size[smallest] + 1
        iteration = iteration + 1
    result[0] = ratio


def balance(graph: Graph, colors, color_count: int, target: float, max_iterations: int) -> tuple[float, bool]:
    """Balance ``colors`` (an int32 CPU array of the graph's nodes, each in ``[0, color_count)``, with
    ``color_count`` > 1) in place; returns the ratio reached (a float32 value) and whether the iteration limit
    stopped it."""
    n = graph.n
    least = n // color_count + 1
    start = empty(color_count, dtype=int32, device="cpu")
    size = zeros(color_count, dtype=int32, device="cpu")
    pool = empty(n + color_count * least, dtype=int32, device="cpu")
    launch_on_cpu(_groups, 1, colors, int32(least), start, size, pool)
    result = empty(1, dtype=float32, device="cpu")
    limited = zeros(1, dtype=int32, device="cpu")
    table = (color_count, min(color_count, SCAN_TARGETS))
    launch_on_cpu(_balance, 1, graph.offsets, graph.adjacency, colors, start, size, pool,
                  zeros(table, dtype=int32, device="cpu"), full(table, -1, dtype=int32, device="cpu"),
                  float32(target), int32(max_iterations), result, limited)
    return float(result.numpy()[0]), bool(limited.numpy()[0])


def groups(colors, color_count: int):
    """The nodes of each color (int32 numpy arrays, ascending) of ``colors`` (an int32 CPU array, each in
    ``[0, color_count)``)."""
    from .bvh_build import work_arrays
    from .counting_sort import WHOLE, sort

    n = int(colors.shape[0])
    ordered = np.empty(n, np.int32)
    starts = np.empty(color_count, np.int32)
    ends = np.empty(color_count, np.int32)
    sort([(colors, WHOLE, 0)], n, ordered, work_arrays(), (starts, ends, color_count))
    return tuple(ordered[s:e] for s, e in zip(starts.tolist(), ends.tolist()))


# -- arguments ----------------------------------------------------------------------------------------------

_INT32_MAX = 2**31 - 1


def check_colors(func: str, node_colors, edges=None) -> None:
    """The checks of ``node_colors`` (and of ``edges`` when given), in Warp's order: both types, both dtypes,
    then the shapes."""
    named = [("edges", edges)] if edges is not None else []
    named.append(("node_colors", node_colors))
    for name, a in named:
        if not isinstance(a, array):
            raise TypeError(f"{func}(): {name} must be an array, got {type(a).__name__}")
    for name, a in named:
        if a.dtype != int32:
            raise RuntimeError(f"{name} array must have dtype int32, got {type_name(a.dtype)}")
    if edges is not None:
        if edges.ndim != 2:
            raise RuntimeError(f"edges array must be 2-dimensional, got {edges.ndim} dimensions")
        if edges.shape[1] != 2:
            raise RuntimeError(f"edges array must have shape (edge_count, 2), got shape {tuple(edges.shape)}")
        if 2 * edges.shape[0] > _INT32_MAX:
            raise ValueError(f"{func}(): edges array has {edges.shape[0]} edges; at most {_INT32_MAX // 2} are "
                             f"supported (int32 adjacency offsets)")
    if node_colors.ndim != 1:
        raise RuntimeError(f"node_colors array must be 1-dimensional, got {node_colors.ndim} dimensions")


def integer(func: str, name: str, value, what: str = "an integer") -> int:
    """``value`` as an int (an integer or ``__index__``, not a bool), else a TypeError naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}(): {name} must be {what}, got {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}(): {name} must be {what}, got {type(value).__name__}") from None


def host(a):
    """What the CPU kernels take for ``a``: the array itself on the CPU, else a copy of it in host memory."""
    return a if a.device.is_cpu else a.numpy()


def build_graph(failure: str, edges, n: int) -> Graph:
    """The graph of ``edges`` over ``n`` nodes; an endpoint out of range raises Warp's RuntimeError (prefixed
    with ``failure``) before anything is built."""
    data = host(edges)
    values = np.asarray(data).reshape(-1, 2)
    if values.size and (values.min() < 0 or values.max() >= n):  # (two fast reductions first)
        bad = np.flatnonzero(((values < 0) | (values >= n)).any(axis=1))
        a, b = (int(x) for x in values[bad[0]])
        raise RuntimeError(f"{failure}: Graph edge {bad[0]} has endpoints ({a}, {b}), but valid node indices are in "
                           f"the range [0, {n}).")
    return Graph(data, n)


def check_color_range(failure: str, colors, color_count: int) -> None:
    """A RuntimeError (Warp's message, prefixed with ``failure`` when given) for the first color outside
    ``[0, color_count)``."""
    values = np.asarray(colors)
    bad = np.flatnonzero((values < 0) | (values >= color_count))
    if bad.size:
        message = (f"Node {bad[0]} has color {int(values[bad[0]])}, but valid colors are in the range "
                   f"[0, {color_count}).")
        raise RuntimeError(f"{failure}: {message}" if failure else message)

