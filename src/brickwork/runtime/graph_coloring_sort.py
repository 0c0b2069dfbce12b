"""The node order of the degree-ordered greedy coloring: the nodes by decreasing degree, in the order the GNU C++
library's ``std::sort`` leaves them (a compiled one-thread CPU kernel).

``std::sort`` is not stable, and Warp's native coloring sorts the nodes with it, so nodes of equal degree come
out in the order of libstdc++'s introsort: quicksort with the median of three (the second, middle and last
elements) moved to the front as the pivot, down to ranges of 16 elements; a range that recurses deeper than
twice the base-2 logarithm of the length is heap-sorted instead; one insertion sort finishes the whole array.
Each step below is that algorithm's, comparison for comparison, so equal degrees tie as in Warp's colorings
(built with GCC on Linux). The recursion is a stack of ranges: ranges are disjoint, so the order in which they
are finished does not change the result.
"""

from __future__ import annotations

from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import empty
from ..types.arrays import array
from ..types.scalars import int32
from .launch import launch_on_cpu

#: Ranges at most this long are left to the final insertion sort (libstdc++'s _S_threshold)
THRESHOLD = 16


@func
def _before(key: array(dtype=int32), a: int32, b: int32):
    # the comparison of Warp's sort: a goes before b when its degree is larger
    return key[a] > key[b]


@func
def _swap(v: array(dtype=int32), i: int32, j: int32):
    t = v[i]
    v[i] = v[j]
    v[j] = t


@func
def _median_to_first(v: array(dtype=int32), key: array(dtype=int32), first: int32, a: int32, b: int32, c: int32):
    # the median of the values at a, b and c swapped into first (with libstdc++'s choices on ties)
    pick = b
    if _before(key, v[a], v[b]):
        if _before(key, v[b], v[c]):
            pick = b
        elif _before(key, v[a], v[c]):
            pick = c
        else:
            pick = a
    elif _before(key, v[a], v[c]):
        pick = a
    elif _before(key, v[b], v[c]):
        pick = c
    _swap(v, first, pick)


@func
def _partition(v: array(dtype=int32), key: array(dtype=int32), first: int32, last: int32):
    # Hoare partition of [first + 1, last) around the pivot at first, which stays there; unguarded (the pivot is
    # a median of three, so both scans stop inside the range); returns the cut
    pivot = v[first]
    lo = first + 1
    hi = last
    while True:
        while _before(key, v[lo], pivot):
            lo = lo + 1
        hi = hi - 1
        while _before(key, pivot, v[hi]):
            hi = hi - 1
        if lo >= hi:
            return lo
        _swap(v, lo, hi)
        lo = lo + 1
    return lo


@func
def _sift(v: array(dtype=int32), key: array(dtype=int32), f: int32, hole: int32, length: int32, value: int32):
    # libstdc++'s __adjust_heap then __push_heap: the hole goes down to a leaf along the larger children, then
    # value rises from there (positions relative to f)
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(key, v[f + child], v[f + child - 1]):
            child = child - 1
        v[f + hole] = v[f + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[f + hole] = v[f + child - 1]
        hole = child - 1
    while hole > top:
        parent = (hole - 1) // 2
        if not _before(key, v[f + parent], value):
            break
        v[f + hole] = v[f + parent]
        hole = parent
    v[f + hole] = value


@func
def _heap_sort(v: array(dtype=int32), key: array(dtype=int32), f: int32, last: int32):
    # make_heap then sort_heap of [f, last), as std::partial_sort(f, last, last)
    length = last - f
    if length >= 2:
        parent = (length - 2) // 2
        while parent >= 0:
            _sift(v, key, f, parent, length, v[f + parent])
            parent = parent - 1
    end = last
    while end - f > 1:
        end = end - 1
        value = v[end]
        v[end] = v[f]
        _sift(v, key, f, 0, end - f, value)


@func
def _insert(v: array(dtype=int32), key: array(dtype=int32), i: int32, guarded_from: int32):
    # the value at i moved down past the values it goes before; guarded_from >= 0: the sorted run starts there
    # (a value before its first goes straight to it); -1: a smaller value is known to sit below i
    value = v[i]
    if guarded_from >= 0 and _before(key, value, v[guarded_from]):
        j = i
        while j > guarded_from:
            v[j] = v[j - 1]
            j = j - 1
        v[guarded_from] = value
    else:
        j = i - 1
        while _before(key, value, v[j]):
            v[j + 1] = v[j]
            j = j - 1
        v[j + 1] = value


@kernel(enable_backward=False)
def _introsort(key: array(dtype=int32), depth_limit: int32, v: array(dtype=int32), stack: array(dtype=int32)):
    # one thread: v holds the nodes 0..n-1 on entry, sorted by decreasing key on exit
    n = v.shape[0]
    for i in range(n):
        v[i] = i
    top = int32(0)
    if n > 1:
        stack[0] = 0
        stack[1] = n
        stack[2] = depth_limit
        top = 1
    while top > 0:
        top = top - 1
        first = stack[3 * top]
        last = stack[3 * top + 1]
        depth = stack[3 * top + 2]
        while last - first > THRESHOLD:
            if depth == 0:
                _heap_sort(v, key, first, last)
                last = first  # done with this range
            else:
                depth = depth - 1
                mid = first + (last - first) // 2
                _median_to_first(v, key, first, first + 1, mid, last - 1)
                cut = _partition(v, key, first, last)
                # the upper part is its own range (libstdc++ recurses into it), the lower one goes on here
                stack[3 * top] = cut
                stack[3 * top + 1] = last
                stack[3 * top + 2] = depth
                top = top + 1
                last = cut
    if n > THRESHOLD:
        for i in range(1, THRESHOLD):
            _insert(v, key, i, 0)
        for i in range(THRESHOLD, n):
            _insert(v, key, i, -1)
    else:
        for i in range(1, n):
            _insert(v, key, i, 0)


def depth_limit(n: int) -> int:
    """The introsort's recursion budget for ``n`` elements: twice the floor of log2(n) (0 for n < 2)."""
    return 2 * (n.bit_length() - 1) if n > 1 else 0


def degree_order(degrees, depth: int | None = None):
    """The nodes (an int32 CPU array) sorted by decreasing ``degrees`` (an int32 CPU array or numpy array) as
    libstdc++'s ``std::sort`` orders them. ``depth``: the recursion budget (default ``depth_limit(n)``; tests
    lower it to reach the heap sort)."""
    n = int(degrees.shape[0])
    order = empty(n, dtype=int32, device="cpu")
    limit = depth_limit(n) if depth is None else depth
    stack = empty(3 * (limit + 2), dtype=int32, device="cpu")  # one range per level of the budget, plus one
    launch_on_cpu(_introsort, 1, degrees, int32(limit), order, stack)
    return order
