"""A stable counting sort of int32 positions by keys, shaped for a GPU (a CUDA hash grid's build), in compiled
kernels launched on the device that holds the arrays: nothing goes through the host.

``counting_sort.py`` (the CPU's) gives each thread a chunk of the positions and a row of 65536 counters, and
one thread turns all the counts into offsets. A GPU needs thousands of chunks, so here each pass sorts by an
8-bit digit (256 counters per chunk) and the offsets are an exclusive scan run in parallel. The counts are
stored key-major (``counts[key * chunks + chunk]``): adjacent threads (chunks) clear adjacent counters, and
the scan of that flat table is, for each key and chunk, the number of positions of smaller keys plus those
of the key in earlier chunks: where the chunk's first position of the key goes. Each chunk then scatters its
positions in order, so the result is a stable sort whatever the number of chunks (deterministic).

The scan splits the table into segments of ``Plan.segment`` entries: one thread sums each segment, the sums
are scanned the same way (recursively, down to a single segment scanned by one thread), and one thread per
segment writes its exclusive scan from its segment's base.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..types.arrays import array
from ..types.scalars import int32
from .counting_sort import _chunk, _key

_tid = _FUNCTIONS["tid"]


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


@kernel(enable_backward=False)
def _count(keys: array(dtype=int32), order: array(dtype=int32), n: int32, shift: int32, mask: int32,
           chunks: int32, counts: array(dtype=int32)):
    t = _tid()
    for k in range(mask + int32(1)):
        counts[k * chunks + t] = int32(0)
    for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
        item, k = _key(keys, order, i, shift, mask)
        at = k * chunks + t
        counts[at] = counts[at] + int32(1)


@kernel(enable_backward=False)
def _scatter(keys: array(dtype=int32), order: array(dtype=int32), n: int32, shift: int32, mask: int32,
             chunks: int32, counts: array(dtype=int32), out: array(dtype=int32)):
    t = _tid()
    for i in range(_chunk(n, t, chunks), _chunk(n, t + 1, chunks)):
        item, k = _key(keys, order, i, shift, mask)
        at = k * chunks + t
        place = counts[at]
        counts[at] = place + int32(1)
        out[place] = item


@kernel(enable_backward=False)
def _segment_sums(values: array(dtype=int32), n: int32, segment: int32, sums: array(dtype=int32)):
    s = _tid()
    total = int32(0)
    for i in range(s * segment, min(s * segment + segment, n)):
        total = total + values[i]
    sums[s] = total


@kernel(enable_backward=False)
def _segment_scan(values: array(dtype=int32), n: int32, segment: int32, bases: array(dtype=int32)):
    # the exclusive scan of one segment, in place, from its base (0 without bases: a single segment)
    s = _tid()
    at = int32(0)
    if bases.shape[0] > 0:
        at = bases[s]
    for i in range(s * segment, min(s * segment + segment, n)):
        count = values[i]
        values[i] = at
        at = at + count


def exclusive_scan(values, n: int, work, launch, segment: int, level: int = 0) -> None:
    """Replace the first ``n`` entries of ``values`` (int32, summing below 2^31) by their exclusive prefix
    sums: segment sums, their scan (recursively), then each segment's scan from its base (``segment`` >= 2)."""
    if n <= segment:
        launch(_segment_scan, 1, values, n, segment, work("none", (0,)))
        return
    m = -(-n // segment)
    sums = work(f"sums{level}", (m,))
    launch(_segment_sums, m, values, n, segment, sums)
    exclusive_scan(sums, m, work, launch, segment, level + 1)
    launch(_segment_scan, m, values, n, segment, sums)


def sort(passes, n: int, out, work, launch, plan: Plan = GPU) -> None:
    """Write into ``out`` (int32, ``n``) the positions ``0..n-1`` in the stable order of the ``passes``, least
    significant first: ``(keys, shift)`` sorts by the ``plan.bits``-bit digit ``(keys[i] >> shift)`` of the int32
    ``keys`` (as uint32). ``work(name, shape)`` gives int32 work arrays on the arrays' device, ``launch(kernel,
    dim, *args)`` launches there."""
    assert passes, "a sort has one pass at least"
    if n == 0:
        return
    chunks = plan.chunks(n)
    mask = (1 << plan.bits) - 1
    size = (mask + 1) * chunks
    assert size < 2**31, "the count table's indices are int32"
    counts = work("counts", (size,))
    order = work("none", (0,))  # no order yet: position i holds item i
    for step, (keys, shift) in enumerate(passes):
        target = out if step == len(passes) - 1 else work(f"order{step % 2}", (n,))
        launch(_count, chunks, keys, order, n, shift, mask, chunks, counts)
        exclusive_scan(counts, size, work, launch, plan.segment)
        launch(_scatter, chunks, keys, order, n, shift, mask, chunks, counts, target)
        order = target
