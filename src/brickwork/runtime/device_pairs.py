"""Stable sorts of key-value pairs on the arrays' device: ``brickwork.utils.radix_sort_pairs`` and
``segmented_sort_pairs``.

A kernel maps each key (its raw bits: 4-byte keys as uint32, 8-byte as uint64) to an order-preserving unsigned
pattern (signed integers: the sign bit flipped; floats: all bits flipped when negative, the sign bit otherwise,
so ``-0.0 < 0.0`` and NaN after infinity), keeps bits ``[begin, end)`` of it and splits it into one or two int32
words. The positions are sorted by those words with ``device_sort`` (8-bit digits, parallel scans; a GPU's and
the cuda-emulation target's) or ``counting_sort`` (16-bit digits, a chunk per CPU thread; the CPU's), both
stable, and keys and values are then gathered in that order (through scratch arrays: keys and values may be
one array).

Segments sort as one sort by ``(label, key)``: each position in a segment is labelled with the segment's start,
each other position with itself. Disjoint segments are contiguous runs of one label ordered by their starts,
so the sort keeps each segment in its range and leaves the other positions in place.
"""

from __future__ import annotations

from typing import Any

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array
from ..types.scalars import int32, uint32, uint64
from . import counting_sort, device_sort
from .device_scratch import scratch

_tid = _FUNCTIONS["tid"]
_atomic_add = _FUNCTIONS["atomic_add"]
_atomic_min = _FUNCTIONS["atomic_min"]

#: How the raw bits of a key order: as unsigned integers, signed integers, IEEE floats.
UNSIGNED, SIGNED, FLOAT = 0, 1, 2


@kernel(enable_backward=False)
def _words32(keys: array(dtype=uint32), kind: int32, begin: int32, mask: uint32, low: array(dtype=int32)):
    i = _tid()
    u = keys[i]
    sign = uint32(0x80000000)
    if kind == SIGNED:
        u = u ^ sign
    elif kind == FLOAT:
        if (u & sign) != uint32(0):
            u = ~u
        else:
            u = u ^ sign
    low[i] = int32((u >> uint32(begin)) & mask)


@kernel(enable_backward=False)
def _words64(keys: array(dtype=uint64), kind: int32, begin: int32, mask: uint64, low: array(dtype=int32),
             high: array(dtype=int32)):
    i = _tid()
    u = keys[i]
    sign = uint64(0x8000000000000000)
    if kind == SIGNED:
        u = u ^ sign
    elif kind == FLOAT:
        if (u & sign) != uint64(0):
            u = ~u
        else:
            u = u ^ sign
    u = (u >> uint64(begin)) & mask
    low[i] = int32(uint32(u & uint64(0xFFFFFFFF)))
    high[i] = int32(uint32(u >> uint64(32)))


@kernel(enable_backward=False)
def _gather(keys: array(dtype=Any), values: array(dtype=Any), ids: array(dtype=int32), keys_out: array(dtype=Any),
            values_out: array(dtype=Any)):
    i = _tid()
    at = ids[i]
    keys_out[i] = keys[at]
    values_out[i] = values[at]


@kernel(enable_backward=False)
def _put(keys: array(dtype=Any), values: array(dtype=Any), keys_out: array(dtype=Any), values_out: array(dtype=Any)):
    i = _tid()
    keys_out[i] = keys[i]
    values_out[i] = values[i]


@func
def _segment_end(starts: array(dtype=int32), ends: array(dtype=int32), s: int32):
    # without ends, the next start ends a segment
    if ends.shape[0] > 0:
        return ends[s]
    return starts[s + 1]


@kernel(enable_backward=False)
def _check_segments(starts: array(dtype=int32), ends: array(dtype=int32), count: int32, bad: array(dtype=int32)):
    # the first range that is not 0 <= start <= end <= count
    s = _tid()
    first = starts[s]
    last = _segment_end(starts, ends, s)
    if first < 0 or first > last or last > count:
        _atomic_min(bad, 0, s)


@kernel(enable_backward=False)
def _describe(starts: array(dtype=int32), ends: array(dtype=int32), segments: int32, bad: array(dtype=int32)):
    # the first bad segment's range, next to its index (nothing when none is bad)
    s = bad[0]
    if s < segments:
        bad[1] = starts[s]
        bad[2] = _segment_end(starts, ends, s)


@kernel(enable_backward=False)
def _fill(a: array(dtype=int32), value: int32):
    a[_tid()] = value


@kernel(enable_backward=False)
def _cover(starts: array(dtype=int32), ends: array(dtype=int32), covers: array(dtype=int32),
           labels: array(dtype=int32)):
    s = _tid()
    first = starts[s]
    for p in range(first, _segment_end(starts, ends, s)):
        _atomic_add(covers, p, 1)
        labels[p] = first


@kernel(enable_backward=False)
def _uncovered(covers: array(dtype=int32), labels: array(dtype=int32), overlap: array(dtype=int32)):
    # a position no segment holds is a segment of its own; one that two hold means segments overlap
    p = _tid()
    if covers[p] == 0:
        labels[p] = p
    elif covers[p] > 1:
        overlap[0] = 1


def _int32_work(device):
    return lambda name, shape: scratch(device, name, shape, int32)


def _order(words: list, passes: list, n: int, device, launch, gpu: bool):
    """The positions ``0..n-1`` in the stable order of the ``passes`` (``(word, shift)``, least significant
    first) over int32 ``words``, as an int32 array on ``device``."""
    work = _int32_work(device)
    ids = work("order", (n,))
    if gpu:
        plan = device_sort.GPU
        sorted_words = [work(f"sorted{w}", (n,)) for w in range(len(words))]
        device_sort.sort(words, [(w, shift) for w, shift in passes], n, ids, sorted_words, work, launch, plan)
    else:
        counting_sort.sort([(words[w], counting_sort.DIGIT, shift) for w, shift in passes], n, ids, work)
    return ids


def _digits(width: int, step: int) -> list:
    return list(range(0, width, step))


def _apply(keys, values, ids, n: int, device, launch) -> None:
    """Gather the first ``n`` keys and values in the order ``ids`` and write them back in place (all gathered
    before any is written: keys and values may be one array)."""
    sorted_keys = scratch(device, "sorted_keys", (n,), keys.dtype)
    sorted_values = scratch(device, "sorted_values", (n,), values.dtype)
    launch(_gather, n, keys, values, ids, sorted_keys, sorted_values)
    launch(_put, n, sorted_keys, sorted_values, keys, values)


def sort_pairs(keys, values, n: int, kind: int, begin: int, end: int, device, launch, gpu: bool) -> None:
    """Sort the ``n`` raw keys (uint32 or uint64, 1-D, contiguous) stably by bits ``[begin, end)`` of their
    order-preserving pattern, moving ``values`` (1-D, int32 or int64 raw bits) along."""
    width = end - begin
    if n < 2 or width == 0:
        return  # every order is the sorted one
    step = device_sort.GPU.bits if gpu else 16
    low = scratch(device, "low", (n,), int32)
    if keys.dtype is uint32:
        launch(_words32, n, keys, kind, begin, uint32((1 << width) - 1), low)
        words, passes = [low], [(0, s) for s in _digits(width, step)]
    else:
        high = scratch(device, "high", (n,), int32)
        launch(_words64, n, keys, kind, begin, uint64((1 << width) - 1), low, high)
        words = [low, high]
        passes = [(0, s) for s in _digits(min(width, 32), step)] + [(1, s) for s in _digits(width - 32, step)]
    _apply(keys, values, _order(words, passes, n, device, launch, gpu), n, device, launch)


def first_bad_segment(starts, ends, count: int, device, launch) -> tuple:
    """``(index, start, end)`` of the first segment whose range is not ``0 <= start <= end <= count`` (``ends``
    empty: the next start ends each segment), or ``(-1, 0, 0)``; three int32 are read back."""
    segments = starts.shape[0] if ends.shape[0] else starts.shape[0] - 1
    if segments <= 0:
        return -1, 0, 0
    bad = scratch(device, "bad", (3,), int32)
    launch(_fill, 3, bad, segments)
    launch(_check_segments, segments, starts, ends, count, bad)
    launch(_describe, 1, starts, ends, segments, bad)
    index, first, last = (int(x) for x in bad.numpy())
    return (-1, 0, 0) if index == segments else (index, first, last)


def segmented_sort_pairs(keys, values, n: int, kind: int, starts, ends, device, launch, gpu: bool) -> bool:
    """Sort each segment of the first ``n`` int32-word keys (uint32 raw bits) with its values (valid ranges);
    False (nothing changed) when segments overlap, which one sort cannot do: one int32 is read back."""
    segments = starts.shape[0] if ends.shape[0] else starts.shape[0] - 1
    covers, labels, overlap = (scratch(device, name, (size,), int32)
                               for name, size in (("covers", n), ("labels", n), ("overlap", 1)))
    launch(_fill, n, covers, 0)
    launch(_fill, 1, overlap, 0)
    launch(_cover, segments, starts, ends, covers, labels)
    launch(_uncovered, n, covers, labels, overlap)
    if int(overlap.numpy()[0]):
        return False
    step = device_sort.GPU.bits if gpu else 16
    word = scratch(device, "word", (n,), int32)
    launch(_words32, n, keys, kind, 0, uint32(0xFFFFFFFF), word)
    passes = [(1, s) for s in _digits(32, step)] + [(0, s) for s in _digits(max(n - 1, 1).bit_length(), step)]
    _apply(keys, values, _order([labels, word], passes, n, device, launch, gpu), n, device, launch)
    return True
