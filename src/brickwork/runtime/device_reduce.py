"""Sums and inner products of arrays on their device, in a fixed order of summation (the same bits on every
run, on every device): ``brickwork.utils.array_sum`` and ``array_inner``.

The data are contiguous 1-D arrays of scalars seen as ``(outer, length, inner, k)``: the sum runs over the
first ``count`` of ``length`` and, for an inner product, over the ``k`` components of an element (a sum has
``k == 1``). Each thread sums one chunk of ``CHUNK`` positions of one ``(outer, inner)`` row in float64, then
one thread per row adds its chunks' partial sums in order and rounds the total once to the output's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..types.array_constructors import empty
from ..types.arrays import array
from ..types.scalars import float64, int32

_tid = _FUNCTIONS["tid"]
_min = _FUNCTIONS["min"]

#: Positions summed by one thread: the chunks of a row depend on its length only (deterministic).
CHUNK = 1024


@kernel(enable_backward=False)
def _partials(a: array(dtype=Any), b: array(dtype=Any), length: int32, count: int32, inner: int32, k: int32,
              chunks: int32, partials: array(dtype=float64)):
    t = _tid()
    c = t % chunks
    row = t // chunks
    o = row // inner
    j = row % inner
    total = float64(0.0)
    for p in range(c * CHUNK, _min(c * CHUNK + CHUNK, count)):
        at = ((o * length + p) * inner + j) * k
        for q in range(k):
            term = float64(a[at + q])
            if b.shape[0] > 0:
                term = term * float64(b[at + q])
            total = total + term
    partials[t] = total


_partials.work_per_item = CHUNK  # a thread sums a chunk: the CPU runs a launch in parallel as CHUNK items would


@kernel(enable_backward=False)
def _totals(partials: array(dtype=float64), chunks: int32, out: array(dtype=Any)):
    row = _tid()
    total = float64(0.0)
    for c in range(chunks):
        total = total + partials[row * chunks + c]
    out[row] = out.dtype(total)


@kernel(enable_backward=False)
def _spread(g: array(dtype=Any), b: array(dtype=Any), length: int32, count: int32, inner: int32, k: int32,
            grad: array(dtype=Any)):
    # one thread per summed scalar of a, (o, p, j, q) of (outer, count, inner, k): grad[at] += g[row] (times b[at]
    # for an inner product), in float64 and rounded once, as the host's numpy did; each element written by one
    # thread (no atomics, the same bits)
    o, p, j, q = _tid()
    at = ((o * length + p) * inner + j) * k + q
    term = float64(g[o * inner + j])
    if b.shape[0] > 0:
        term = term * float64(b[at])
    grad[at] = grad.dtype(float64(grad[at]) + term)


def layout(shape: tuple, per: int, axis: int | None, count: int | None, inner_product: bool) -> tuple:
    """``(outer, length, count, inner, k)`` of a reduction of an array of ``shape`` whose elements have ``per``
    components, along ``axis`` (None: all elements in row-major order), of the first ``count`` (None: all)."""
    if axis is None:
        outer, length, inner = 1, int(np.prod(shape, dtype=np.int64)), 1
    else:
        outer, length = int(np.prod(shape[:axis], dtype=np.int64)), shape[axis]
        inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    n = length if count is None else min(count, length)
    k = per if inner_product else 1  # an inner product sums over an element's components
    if k == 1:
        inner *= per
    return outer, length, n, inner, k


# The CPU's forms of _spread where k == 1: _spread's vector loop runs along k under a collapsed loop that finds each
# thread's four indices (2-3x numpy's time); these run along the arrays' contiguous scalars, with _spread's
# arithmetic (the same bits). With k > 1 (an inner product of vectors) _spread itself beat them.
@kernel(enable_backward=False)
def _spread_rows(g: array(dtype=Any), b: array(dtype=Any), stride: int32, grad: array(dtype=Any)):
    # inner == 1: (o, m), m along the count summed scalars of row o, all taking g[o]
    o, m = _tid()
    at = o * stride + m
    term = float64(g[o])
    if b.shape[0] > 0:
        term = term * float64(b[at])
    grad[at] = grad.dtype(float64(grad[at]) + term)


@kernel(enable_backward=False)
def _spread_runs(g: array(dtype=Any), b: array(dtype=Any), stride: int32, inner: int32, grad: array(dtype=Any)):
    # k == 1: (o, p, j), j along the inner scalars of position p of row o, taking g[o * inner + j]
    o, p, j = _tid()
    at = o * stride + p * inner + j
    term = float64(g[o * inner + j])
    if b.shape[0] > 0:
        term = term * float64(b[at])
    grad[at] = grad.dtype(float64(grad[at]) + term)


def spread(g, b, grad, outer: int, length: int, count: int, inner: int, k: int, launch, runs: bool = False) -> None:
    """The backward of ``reduce``: ``grad`` (1-D scalars like ``a``) += the output's gradient ``g`` (1-D,
    ``outer * inner`` scalars) at every summed position, times ``b`` (an array like ``a``, or empty). ``runs``:
    in the CPU's form where the layout allows (``k == 1``: a sum, or an inner product of scalars)."""
    if not outer * count * inner * k:
        return
    if runs and k == 1 and inner == 1:
        launch(_spread_rows, (outer, count), g, b, length, grad)
    elif runs and k == 1:
        launch(_spread_runs, (outer, count, inner), g, b, length * inner, inner, grad)
    else:
        launch(_spread, (outer, count, inner, k), g, b, length, count, inner, k, grad)


def reduce(a, b, out, outer: int, length: int, count: int, inner: int, k: int, launch) -> None:
    """Write into ``out`` (1-D, ``outer * inner`` scalars) the sums over the first ``count`` positions of
    ``length`` of ``a`` (times ``b``, an array like ``a`` or empty, summed over ``k`` components too)."""
    rows = outer * inner
    if rows == 0:
        return
    chunks = max(1, -(-count // CHUNK))
    partials = empty((rows * chunks,), dtype=float64, device=out.device)
    launch(_partials, rows * chunks, a, b, length, count, inner, k, chunks, partials)
    launch(_totals, rows, partials, chunks, out)
