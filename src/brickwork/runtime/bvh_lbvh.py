"""The linear BVH (``constructor="lbvh"``): a Karras binary radix tree over the items' Morton codes, built by
compiled kernels launched on the tree's device (the CPU's tree comes from the same kernels).

The steps, each a launch over items or nodes: the bounds of the items' box centres (finite ones: chunks, then
one thread), each centre's 30-bit Morton code in those bounds (10 bits per axis), the items sorted stably by
code (``device_sort``: ties keep the item order), then Karras's radix tree over the sorted codes: inner node
``i`` of ``n - 1`` finds its range and split from the common prefixes of its neighbours' codes, equal codes
compared by their positions (``32 + clz(i ^ j)``). A node of at most ``leaf_size`` items whose parent holds
more becomes a leaf; the nodes below it are dropped. The kept nodes are then numbered level by level, root 0,
left to right within a level (a stable sort by the node's first item, then by depth), so the children of a
node are next to each other and come after it, as in the other trees, and each level is a range of ids.

Depth: a radix tree's prefix length grows strictly from a node to its children; codes differ within their 30
bits (prefix lengths 2..31 of a 32-bit word) and equal codes by positions below 2^31 (prefix 33..63), so a
path holds at most 62 inner nodes: a leaf's depth is at most 62, and the traversal's stack (66 entries, one
per level plus one) always suffices (``include/brickwork_bvh.h``).

The one copy to the host: after the node sort, the end of each level (65 int32: 260 bytes), which gives the
node count (the size of the node tables), ``max_depth`` and the refit's ranges of levels.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty
from ..types.arrays import array, array2d
from ..types.scalars import float32, int32
from . import device_sort
from .counting_sort import _chunk

_tid = _FUNCTIONS["tid"]

#: A kept node's depth is at most 62 (see above); dropped nodes sort after every level with this depth key.
DROPPED = 64
#: Items (at least) per thread of the bounds' first pass, and the most threads (the second pass is one thread).
BOUNDS_ITEMS, BOUNDS_CHUNKS = 64, 4096
#: Fewer items than this (the radix search's int32 positions reach twice the count).
MAX_ITEMS = 2**30
#: The sorts' plan on the CPU: few chunks of many positions and 11-bit digits (a GPU's plan, ``device_sort.GPU``,
#: clears and scans 256 counters per 64 positions at each pass: most of a CPU build's time)
CPU_SORT = device_sort.Plan(bits=11, items=1 << 15, max_chunks=64)


@func
def _center(lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), i: int32, c: int32):
    return (lowers[i, c] + uppers[i, c]) * float32(0.5)


@kernel(enable_backward=False)
def _bounds_chunks(lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), n: int32, chunks: int32,
                   part: array2d(dtype=float32)):
    # each chunk's bounds of the finite centres (a NaN or an infinity is left out: it fails `x - x == 0`)
    t = _tid()
    for c in range(3):
        lo = float32(np.inf)
        hi = float32(-np.inf)
        for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
            x = _center(lowers, uppers, i, c)
            if x - x == float32(0.0):
                lo = min(lo, x)
                hi = max(hi, x)
        part[t, c] = lo
        part[t, 3 + c] = hi


@func
def scene_axis(lo: float32, hi: float32):
    # an axis of the Morton grid from the finite centres' bounds: its lower corner (0 when there are none) and
    # 1024 / extent (0 for a flat, empty or overflowing axis)
    scale = float32(0.0)
    extent = hi - lo
    if extent > float32(0.0) and extent - extent == float32(0.0):
        scale = float32(1024.0) / extent
    corner = lo
    if lo - lo != float32(0.0):
        corner = float32(0.0)
    return corner, scale


@kernel(enable_backward=False)
def _bounds_final(part: array2d(dtype=float32), chunks: int32, scene: array(dtype=float32)):
    # one thread: the scene's lower corner, and per axis 1024 / extent (0 for a flat, empty or overflowing one)
    for c in range(3):
        lo = float32(np.inf)
        hi = float32(-np.inf)
        for t in range(chunks):
            lo = min(lo, part[t, c])
            hi = max(hi, part[t, 3 + c])
        corner, scale = scene_axis(lo, hi)
        scene[c] = corner
        scene[3 + c] = scale


@func
def _spread(v: int32):
    # the 10 bits of v, two zero bits after each
    x = v & 1023
    x = (x | (x << 16)) & 0x030000FF
    x = (x | (x << 8)) & 0x0300F00F
    x = (x | (x << 4)) & 0x030C30C3
    return (x | (x << 2)) & 0x09249249


@kernel(enable_backward=False)
def _morton(lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), scene: array(dtype=float32),
            codes: array(dtype=int32)):
    i = _tid()
    code = int32(0)
    for c in range(3):
        x = (_center(lowers, uppers, i, c) - scene[c]) * scene[3 + c]
        if not (x >= float32(0.0)):  # below the bounds, or NaN
            x = float32(0.0)
        x = min(x, float32(1023.0))
        code = code | (_spread(int32(x)) << (2 - c))
    codes[i] = code


@func
def _clz(v: int32):
    # leading zero bits of v > 0 in 32
    h = int32(0)
    x = v
    if x >= 65536:
        h = h + 16
        x = x >> 16
    if x >= 256:
        h = h + 8
        x = x >> 8
    if x >= 16:
        h = h + 4
        x = x >> 4
    if x >= 4:
        h = h + 2
        x = x >> 2
    if x >= 2:
        h = h + 1
    return int32(31) - h


@func
def _delta(codes: array(dtype=int32), n: int32, i: int32, j: int32):
    # the common prefix of positions i and j (equal codes: of their positions, after the code's 32 bits); -1 out
    # of range
    if j < 0 or j >= n:
        return int32(-1)
    a = codes[i]
    b = codes[j]
    if a == b:
        return int32(32) + _clz(i ^ j)
    return _clz(a ^ b)


@kernel(enable_backward=False)
def _radix(codes: array(dtype=int32), n: int32, start: array(dtype=int32), end: array(dtype=int32),
           parent: array(dtype=int32), left: array(dtype=int32), right: array(dtype=int32)):
    # inner node i of Karras's tree: its range of sorted positions, its split, its children (inner node g, or the
    # leaf of position g: candidate n - 1 + g), and their parent
    i = _tid()
    d = int32(1)
    if _delta(codes, n, i, i + 1) < _delta(codes, n, i, i - 1):
        d = int32(-1)
    dmin = _delta(codes, n, i, i - d)
    lmax = int32(2)
    while lmax < n and _delta(codes, n, i, i + lmax * d) > dmin:
        lmax = lmax * 2
    length = int32(0)
    t = lmax // 2
    while t >= 1:
        if _delta(codes, n, i, i + (length + t) * d) > dmin:
            length = length + t
        t = t // 2
    j = i + length * d
    dnode = _delta(codes, n, i, j)
    s = int32(0)
    t = length
    going = True
    while going:  # t = ceil(length / 2), ceil(length / 4), ..., 1
        t = (t + 1) // 2
        if _delta(codes, n, i, i + (s + t) * d) > dnode:
            s = s + t
        going = t > 1
    g = i + s * d + min(d, 0)
    first = min(i, j)
    last = max(i, j)
    a = g
    if first == g:
        a = n - 1 + g
    b = g + 1
    if last == g + 1:
        b = n + g
    start[i] = first
    end[i] = last + 1
    left[i] = a
    right[i] = b
    parent[a] = i
    parent[b] = i
    if i == 0:
        parent[0] = -1


@kernel(enable_backward=False)
def _leaf_candidates(n: int32, start: array(dtype=int32), end: array(dtype=int32), parent: array(dtype=int32)):
    k = _tid()
    start[n - 1 + k] = k
    end[n - 1 + k] = k + 1
    if n == 1:
        parent[0] = -1


@kernel(enable_backward=False)
def _depths(start: array(dtype=int32), end: array(dtype=int32), parent: array(dtype=int32), leaf_size: int32,
            depth: array(dtype=int32)):
    # a node is kept if it is the root or its parent is split (holds more than leaf_size items)
    c = _tid()
    p = parent[c]
    key = int32(0)
    if p >= 0 and end[p] - start[p] <= leaf_size:
        key = int32(DROPPED)
    else:
        while p >= 0:
            key = key + 1
            p = parent[p]
    depth[c] = key


@kernel(enable_backward=False)
def _level_ends(depth: array(dtype=int32), m: int32, ends: array(dtype=int32)):
    s = _tid()
    if s == m - 1 or depth[s + 1] != depth[s]:
        ends[depth[s]] = s + 1


@kernel(enable_backward=False)
def _zero(values: array(dtype=int32)):
    values[_tid()] = int32(0)


@kernel(enable_backward=False)
def _number(ids: array(dtype=int32), node_of: array(dtype=int32)):
    s = _tid()
    node_of[ids[s]] = s


@kernel(enable_backward=False)
def _nodes(ids: array(dtype=int32), node_of: array(dtype=int32), start: array(dtype=int32), end: array(dtype=int32),
           parent: array(dtype=int32), left: array(dtype=int32), right: array(dtype=int32), leaf_size: int32,
           first: array(dtype=int32), last: array(dtype=int32), parents: array(dtype=int32),
           lower_words: array2d(dtype=int32), upper_words: array2d(dtype=int32)):
    # node s: its children, or as a leaf its item range (first = -(start + 1), last = end); its parent
    s = _tid()
    c = ids[s]
    a = -(start[c] + 1)
    b = end[c]
    if b - start[c] > leaf_size:
        a = node_of[left[c]]
        b = node_of[right[c]]
    first[s] = a
    last[s] = b
    p = parent[c]
    if p >= 0:
        p = node_of[p]
    parents[s] = p
    if lower_words.shape[0] > 0:  # the int of the node's bvh_node_half pair
        lower_words[s, 3] = a
        upper_words[s, 3] = b


def _int32_leaf_size(leaf_size: int) -> int:
    """``leaf_size`` as the kernels' int32: a leaf size of 2^31 or more holds every item, as 2^31 - 1 does."""
    return min(leaf_size, 2**31 - 1)


class Scratch:
    """The work arrays of a tree's builds on ``device``, kept between builds of the same sizes."""

    def __init__(self, device):
        self.device = device
        self.arrays: dict = {}

    def get(self, name: str, shape: tuple, dtype=int32) -> array:
        a = self.arrays.get(name)
        if a is None or a.shape != shape:
            a = self.arrays[name] = empty(shape, dtype=dtype, device=self.device)
        return a

    def work(self, prefix: str):
        return lambda name, shape: self.get(prefix + name, shape)


def structure(lowers: array, uppers: array, n: int, leaf_size: int, order: array, scratch: Scratch, launch_on,
              plan=None) -> np.ndarray:
    """The radix tree over the ``n`` item boxes ``lowers``/``uppers`` ((n, 3) float32, n >= 1) up to the
    numbering of its kept nodes: writes ``order`` (sorted position -> item, int32 (n,)) and returns the end of
    each level's ids (65 int32, the only copy to the host; 0 past the deepest level). ``nodes`` then writes
    the nodes' tables."""
    plan = plan or device_sort.GPU
    leaf_size = _int32_leaf_size(leaf_size)
    m = 2 * n - 1  # Karras's candidates: the inner nodes, then a leaf per sorted position
    get = scratch.get
    chunks = max(1, min(-(-n // BOUNDS_ITEMS), BOUNDS_CHUNKS))
    part, scene = get("part", (chunks, 6), float32), get("scene", (6,), float32)
    launch_on(_bounds_chunks, chunks, lowers, uppers, n, chunks, part)
    launch_on(_bounds_final, 1, part, chunks, scene)
    codes, sorted_codes = get("codes", (n,)), get("sorted_codes", (n,))
    launch_on(_morton, n, lowers, uppers, scene, codes)
    device_sort.sort([codes], [(0, shift) for shift in plan.digits(2**30)], n, order, [sorted_codes],
                     scratch.work("items_"), launch_on, plan)
    start, end, parent = get("start", (m,)), get("end", (m,)), get("parent", (m,))
    left, right = get("left", (max(n - 1, 1),)), get("right", (max(n - 1, 1),))
    launch_on(_leaf_candidates, n, n, start, end, parent)
    if n > 1:
        launch_on(_radix, n - 1, sorted_codes, n, start, end, parent, left, right)
    depth = get("depth", (m,))
    launch_on(_depths, m, start, end, parent, leaf_size, depth)
    # level by level (depth, then by first item): siblings next to each other, children after their parents
    passes = [(0, shift) for shift in plan.digits(n)] + [(1, shift) for shift in plan.digits(DROPPED + 1)]
    ids, sorted_depth = get("ids", (m,)), get("sorted_depth", (m,))
    device_sort.sort([start, depth], passes, m, ids, [get("sorted_start", (m,)), sorted_depth],
                     scratch.work("nodes_"), launch_on, plan)
    ends = get("ends", (DROPPED + 1,))
    launch_on(_zero, DROPPED + 1, ends)
    launch_on(_level_ends, m, sorted_depth, m, ends)
    launch_on(_number, m, ids, get("node_of", (m,)))
    return ends.numpy()


def levels(ends: np.ndarray) -> tuple:
    """``(num_nodes, max_depth, ranges)`` from ``structure``'s level ends: ``ranges`` the ``(first, end)`` ids of
    each level, root first."""
    ends = np.asarray(ends[:DROPPED], np.int64)
    present = np.flatnonzero(ends > 0)
    max_depth = int(present[-1]) if len(present) else 0
    bounds = np.maximum.accumulate(ends[:max_depth + 1])
    num_nodes = max(int(bounds[-1]), 1)
    starts = np.concatenate(([0], bounds[:-1]))
    return num_nodes, max_depth, [(int(a), int(b)) for a, b in zip(starts, bounds)]


def nodes(scratch: Scratch, num_nodes: int, leaf_size: int, first: array, last: array, parents: array,
          lower_words: array, upper_words: array, launch_on) -> None:
    """Write the kept nodes' ``first``/``last``/``parents`` (int32, ``num_nodes``) and the int of each node's
    ``bvh_node_half`` pair into ``lower_words``/``upper_words`` (int32 (num_nodes, 4) views of the node tables;
    (0, 4) for none)."""
    get = scratch.arrays.__getitem__
    leaf_size = _int32_leaf_size(leaf_size)
    launch_on(_nodes, num_nodes, get("ids"), get("node_of"), get("start"), get("end"), get("parent"), get("left"),
              get("right"), leaf_size, first, last, parents, lower_words, upper_words)
