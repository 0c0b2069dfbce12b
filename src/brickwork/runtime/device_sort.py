"""A stable counting sort of int32 positions by keys, shaped for a GPU (a CUDA hash grid's build), in compiled
kernels launched on the device that holds the arrays: nothing goes through the host.

``counting_sort.py`` (the CPU's) gives each thread a chunk of the positions and a row of 65536 counters, and
one thread turns all the counts into offsets. A GPU needs thousands of chunks, so here each pass sorts by an
8-bit digit (256 counters per chunk) and the offsets are an exclusive scan run in parallel. The counts are
stored key-major (``counts[key * chunks + chunk]``): adjacent threads (chunks) clear adjacent counters, and
the scan of that flat table is, for each key and chunk, the number of positions of smaller keys plus those
of the key in earlier chunks: where the chunk's first position of the key goes. Each chunk then scatters its
positions in order, so the result is a stable sort whatever the number of chunks (deterministic).

The keys (one or two int32 words per position) move with the positions, as in a radix sort of key-value
pairs: a pass reads its digits and positions in its chunk's order, one contiguous run per thread, rather than
a position and then its key elsewhere (two dependent loads of scattered memory on a GPU), and the sort ends
with the sorted words too.

The scan is ``device_scan``'s, ``Plan.segment`` entries per thread (``exclusive_scan`` is re-exported here for
the callers that scan their own counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array
from ..types.scalars import int32, uint32
from .counting_sort import _chunk
from .device_scan import exclusive_scan

_tid = _FUNCTIONS["tid"]
__all__ = ["GPU", "Plan", "exclusive_scan", "sort"]


@dataclass(frozen=True)
class Plan:
    """A sort's shape: ``bits`` per digit (a pass), about ``items`` positions per chunk (at most
    ``max_chunks`` chunks: larger sorts give each chunk more), ``segment`` entries per scanning thread."""

    bits: int = 8
    items: int = 64
    max_chunks: int = 1 << 15
    segment: int = 64

    def __post_init__(self):
        assert 1 <= self.bits <= 16 and self.items >= 1 and self.max_chunks >= 1 and self.segment >= 2, self

    def chunks(self, n: int) -> int:
        return max(1, min(-(-n // self.items), self.max_chunks))

    def digits(self, bound: int) -> list:
        """The shifts of the digits of keys in ``[0, bound)`` (one at least), least significant first."""
        width = max(1, (max(bound, 1) - 1).bit_length())
        return list(range(0, width, self.bits))


#: The plan of a CUDA device's sorts (8-bit digits: a count table of 256 counters per chunk).
GPU = Plan()


@func
def _digit(word: int32, shift: int32, mask: int32):
    return int32(uint32(word) >> uint32(shift)) & mask


@kernel(enable_backward=False)
def _count(keys: array(dtype=int32), n: int32, shift: int32, mask: int32, chunks: int32,
           counts: array(dtype=int32)):
    t = _tid()
    for k in range(mask + int32(1)):
        counts[k * chunks + t] = int32(0)
    for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
        at = _digit(keys[i], shift, mask) * chunks + t
        counts[at] = counts[at] + int32(1)


@kernel(enable_backward=False)
def _scatter(keys: array(dtype=int32), other: array(dtype=int32), ids: array(dtype=int32), n: int32, shift: int32,
             mask: int32, chunks: int32, counts: array(dtype=int32), keys_out: array(dtype=int32),
             other_out: array(dtype=int32), ids_out: array(dtype=int32)):
    # the positions with their words: no ids yet is position i itself, no other word is none
    t = _tid()
    for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
        word = keys[i]
        at = _digit(word, shift, mask) * chunks + t
        place = counts[at]
        counts[at] = place + int32(1)
        keys_out[place] = word
        if other.shape[0] > 0:
            other_out[place] = other[i]
        if ids.shape[0] > 0:
            ids_out[place] = ids[i]
        else:
            ids_out[place] = i


def sort(words: list, passes: list, n: int, ids_out, words_out: list, work, launch, plan: Plan = GPU) -> None:
    """Write into ``ids_out`` (int32, ``n`` or more) the positions ``0..n-1`` in the stable order of the
    ``passes``, least significant first, and into ``words_out`` the ``words`` in that order: ``words`` are one or
    two int32 arrays of ``n``, ``(w, shift)`` sorts by the ``plan.bits``-bit digit ``words[w] >> shift`` (as
    uint32). ``work(name, shape)`` gives int32 work arrays on the arrays' device, ``launch(kernel, dim, *args)``
    launches there."""
    assert passes and 1 <= len(words) <= 2 and len(words_out) == len(words), "one pass and one or two words"
    if n == 0:
        return
    chunks = plan.chunks(n)
    mask = (1 << plan.bits) - 1
    size = (mask + 1) * chunks
    assert size < 2**31, "the count table's indices are int32"
    counts = work("counts", (size,))
    none = work("none", (0,))
    current, ids = list(words), none  # no ids yet: position i holds item i
    for step, (w, shift) in enumerate(passes):
        if step == len(passes) - 1:
            target, target_ids = list(words_out), ids_out
        else:
            target = [work(f"word{j}_{step % 2}", (n,)) for j in range(len(words))]
            target_ids = work(f"ids{step % 2}", (n,))
        other = 1 - w if len(words) == 2 else None
        launch(_count, chunks, current[w], n, shift, mask, chunks, counts)
        exclusive_scan(counts, size, work, launch, plan.segment)
        launch(_scatter, chunks, current[w], none if other is None else current[other], ids, n, shift, mask, chunks,
               counts, target[w], none if other is None else target[other], target_ids)
        current, ids = target, target_ids
