"""Run-length encoding and element conversion on the arrays' device: ``brickwork.utils.runlength_encode`` and
``array_cast``.

Runs: each position is flagged where a run starts (the first, or a value unlike the previous one), the flags are
scanned (``device_scan``: the exclusive scan gives each run start its run's index, and the entry past the last
position the run count), and each run start writes its value and position; a run's length is the next run's
start minus its own.
"""

from __future__ import annotations

from typing import Any

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..types.array_constructors import empty
from ..types.arrays import array
from ..types.scalars import int32
from . import device_scan

_tid = _FUNCTIONS["tid"]


@kernel(enable_backward=False)
def _heads(values: array(dtype=int32), n: int32, index: array(dtype=int32)):
    i = _tid()
    head = int32(0)
    if i < n:
        head = int32(1)
        if i > 0:
            if values[i] == values[i - 1]:
                head = int32(0)
    index[i] = head


@kernel(enable_backward=False)
def _starts(values: array(dtype=int32), n: int32, index: array(dtype=int32), run_values: array(dtype=int32),
            starts: array(dtype=int32)):
    # index: the exclusive scan of the heads (n + 1 entries: index[n] is the run count)
    i = _tid()
    r = index[i]
    if index[i + 1] > r:
        run_values[r] = values[i]
        starts[r] = i
    if i == n - 1:
        starts[index[n]] = n


@kernel(enable_backward=False)
def _lengths(index: array(dtype=int32), n: int32, starts: array(dtype=int32), run_lengths: array(dtype=int32),
             run_count: array(dtype=int32)):
    r = _tid()
    if r < index[n]:
        run_lengths[r] = starts[r + 1] - starts[r]
    if r == 0:
        run_count[0] = index[n]


@kernel(enable_backward=False)
def _convert(source: array(dtype=Any), out: array(dtype=Any)):
    i = _tid()
    out[i] = out.dtype(source[i])


@kernel(enable_backward=False)
def _copy(source: array(dtype=Any), out: array(dtype=Any)):
    i = _tid()
    out[i] = source[i]


def encode(values, n: int, run_values, run_lengths, run_count, device, launch, segment: int) -> None:
    """Write the runs of the first ``n`` of ``values`` (1-D int32 arrays) and their count into ``run_count[0]``
    (``segment``: the scan's elements per thread)."""
    index = empty((n + 1,), dtype=int32, device=device)
    launch(_heads, n + 1, values, n, index)
    device_scan.scan(index, index, n + 1, int32(0), lambda name, shape: empty(shape, dtype=int32, device=device),
                     launch, segment)
    starts = empty((n + 1,), dtype=int32, device=device)
    if n:
        launch(_starts, n, values, n, index, run_values, starts)
    launch(_lengths, max(n, 1), index, n, starts, run_lengths, run_count)  # n == 0: only the count (0)


def convert(source, out, n: int, launch) -> None:
    """``out[i] = dtype(source[i])`` for the first ``n`` entries (1-D arrays; C conversions)."""
    if n:
        launch(_convert, n, source, out)


def copy(source, out, n: int, launch) -> None:
    """``out[i] = source[i]`` for the first ``n`` entries (1-D arrays of one dtype, structs too)."""
    if n:
        launch(_copy, n, source, out)
