"""A stable counting sort of int32 positions by keys, in compiled CPU kernels (a hash grid's build, a tree's
build).

The positions are split into one contiguous chunk per thread. Each chunk counts its keys in its own row of
``counts`` (no atomics), one thread turns the counts into where each chunk's positions of a key go (after the
earlier chunks' positions of that key), and each chunk scatters its positions in order. The result is the
order of a stable sort whatever the number of chunks, so a sort is deterministic. Wider keys sort as 16-bit
digits, least significant first. ``device_sort.py`` is the same sort shaped for a GPU (it reuses ``_key`` and
``_chunk``).
"""

from __future__ import annotations

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array, array2d
from ..types.scalars import int32, int64, uint32
from .launch import launch_on_cpu, split_threads

_tid = _FUNCTIONS["tid"]
#: Keys of a counting pass: 16-bit digits (of any 32 bits), or whole keys below 2^31
DIGIT, WHOLE = 0xFFFF, 0x7FFFFFFF


@func
def _key(keys: array(dtype=int32), order: array(dtype=int32), i: int32, shift: int32, mask: int32):
    item = i
    if order.shape[0] > 0:
        item = order[i]
    return item, int32(uint32(keys[item]) >> uint32(shift)) & mask


@func
def _chunk(n: int32, t: int32, chunks: int32):
    return int32(int64(n) * int64(t) // int64(chunks))


@kernel(enable_backward=False)
def _count(keys: array(dtype=int32), order: array(dtype=int32), n: int32, shift: int32, mask: int32,
           counts: array2d(dtype=int32)):
    t = _tid()
    chunks = counts.shape[0]
    for c in range(counts.shape[1]):
        counts[t, c] = int32(0)
    for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
        item, k = _key(keys, order, i, shift, mask)
        counts[t, k] = counts[t, k] + int32(1)


@kernel(enable_backward=False)
def _offsets(counts: array2d(dtype=int32), starts: array(dtype=int32), ends: array(dtype=int32)):
    # one thread: each key's range of positions, the chunks' places in it; empty keys' ranges are (0, 0)
    at = int32(0)
    for k in range(counts.shape[1]):
        first = at
        for u in range(counts.shape[0]):
            count = counts[u, k]
            counts[u, k] = at
            at = at + count
        if starts.shape[0] > 0:
            if at == first:
                starts[k] = int32(0)
                ends[k] = int32(0)
            else:
                starts[k] = first
                ends[k] = at


@kernel(enable_backward=False)
def _scatter(keys: array(dtype=int32), order: array(dtype=int32), n: int32, shift: int32, mask: int32,
             counts: array2d(dtype=int32), out: array(dtype=int32)):
    t = _tid()
    for i in range(_chunk(n, t, counts.shape[0]), _chunk(n, t + 1, counts.shape[0])):
        item, k = _key(keys, order, i, shift, mask)
        at = counts[t, k]
        counts[t, k] = at + int32(1)
        out[at] = item


def sort(passes, n: int, out, work, ranges=None) -> None:
    """Write into ``out`` (int32, ``n``) the positions ``0..n-1`` in the stable order of the ``passes``, least
    significant first: ``(keys, mask, shift)`` sorts by ``(keys[i] >> shift) & mask`` (``keys`` int32 arrays of
    ``n``; ``mask`` ``DIGIT``, or ``WHOLE`` for keys below a bound). ``work(name, shape)`` gives int32 CPU work
    arrays (``counts`` of ``(chunks, keys)``). ``ranges``: ``(starts, ends, bound)``: the last pass is a
    ``WHOLE`` one over keys below ``bound``, whose ranges of positions it writes ((0, 0) for a missing key)."""
    chunks = split_threads(n, n)  # as many as the launch runs threads: 1 when it runs serially
    # parallel (or not) as n items would be; one chunk runs on the calling thread
    _count.work_per_item = _scatter.work_per_item = n / chunks if chunks > 1 else 0
    none = order = work("identity", (0,))  # no order yet: position i holds point i
    for step, (keys, mask, shift) in enumerate(passes):
        last = step == len(passes) - 1
        counts = work(f"counts{mask}", (chunks, ranges[2] if mask == WHOLE else DIGIT + 1))
        target = out if last else work(f"order{step % 2}", (n,))
        launch_on_cpu(_count, chunks, keys, order, n, shift, mask, counts)
        launch_on_cpu(_offsets, 1, counts, *(ranges[:2] if last and ranges else (none, none)))
        launch_on_cpu(_scatter, chunks, keys, order, n, shift, mask, counts, target)
        order = target
