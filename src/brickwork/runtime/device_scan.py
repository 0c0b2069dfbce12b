"""Prefix sums of a 1-D array on its device, in compiled kernels: the scan of ``device_sort``'s count tables and
of ``brickwork.utils.array_scan``.

Elements are any type ``+`` adds (int32, int64, float32, float64 and their vectors) and accumulate in a
*wide* type ``W`` (the type of the ``zero`` given; ``W`` converts from and to the element type): the running
sum of a segment is a ``W``, and each output element is the running sum converted back once. Integers wrap
as the element type does whatever ``W``; floats round once per output element.

The GPU algorithm splits the ``n`` elements into segments of ``segment``: one thread sums each segment, the
sums are scanned the same way (recursively), and one thread per segment scans its elements from its segment's
base. Where the sums are a single segment, each of those threads adds the sums of the segments before its own
itself, in the order a one-thread scan of them would (the same bits, without a launch of one thread): ``2 k``
launches for up to ``segment**(k + 1)`` elements. The order of every addition depends only on ``n`` and
``segment``, so a scan gives the same bits on every run. A scan of at most ``segment`` elements is one thread's
sequential pass (the CPU's scan).
"""

from __future__ import annotations

from typing import Any

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..types.arrays import array
from ..types.scalars import int32

_tid = _FUNCTIONS["tid"]
_min = _FUNCTIONS["min"]


@kernel(enable_backward=False)
def _segment_sums(values: array(dtype=Any), n: int32, segment: int32, zero: Any, sums: array(dtype=Any)):
    s = _tid()
    total = zero
    for i in range(s * segment, _min(s * segment + segment, n)):
        total = total + sums.dtype(values[i])
    sums[s] = total


@kernel(enable_backward=False)
def _segment_scan(values: array(dtype=Any), n: int32, segment: int32, zero: Any, bases: array(dtype=Any),
                  summed: int32, inclusive: int32, out: array(dtype=Any)):
    # one segment's scan from its base (zero without bases: a single segment); out may be values itself. With
    # summed, bases holds the segments' sums, not scanned: the thread adds the earlier ones itself, in order (the
    # additions the one-thread scan of the sums made, so the same bits)
    s = _tid()
    at = zero
    if bases.shape[0] > 0:
        if summed != 0:
            for t in range(s):
                at = at + bases[t]
        else:
            at = bases[s]
    for i in range(s * segment, _min(s * segment + segment, n)):
        term = bases.dtype(values[i])
        if inclusive != 0:
            at = at + term
            out[i] = out.dtype(at)
        else:
            out[i] = out.dtype(at)
            at = at + term


def scan(values, out, n: int, zero, work, launch, segment: int, inclusive: bool = False, level: int = 0) -> None:
    """Write the prefix sums of the first ``n`` elements of ``values`` into ``out`` (1-D arrays of one dtype,
    possibly the same array): inclusive or exclusive, accumulated in ``type(zero)`` starting from ``zero``.
    ``work(name, shape)`` gives 1-D arrays of ``type(zero)`` on the arrays' device, ``launch(kernel, dim,
    *args)`` launches there; ``segment`` (>= 2) elements per thread."""
    if n <= 0:
        return
    if n <= segment:
        launch(_segment_scan, 1, values, n, segment, zero, work("none", (0,)), 0, int(inclusive), out)
        return
    m = -(-n // segment)
    sums = work(f"sums{level}", (m,))
    launch(_segment_sums, m, values, n, segment, zero, sums)
    if m <= segment:  # the sums are one segment: no launch of one thread to scan them, each thread adds its own
        launch(_segment_scan, m, values, n, segment, zero, sums, 1, int(inclusive), out)
        return
    scan(sums, sums, m, zero, work, launch, segment, False, level + 1)
    launch(_segment_scan, m, values, n, segment, zero, sums, 0, int(inclusive), out)


def exclusive_scan(values, n: int, work, launch, segment: int) -> None:
    """Replace the first ``n`` entries of ``values`` (int32, summing below 2^31) by their exclusive prefix sums
    (``work`` gives int32 arrays)."""
    scan(values, values, n, int32(0), work, launch, segment)
