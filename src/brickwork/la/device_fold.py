"""Folding a reduction's partials on a GPU (and on the emulation target, which runs the GPU mapping on
the CPU): each row of ``per`` partials is one thread block of the loop abstraction's team mapping.

The CPU folds a row one value after another (``reducers.combine_kernel``); one GPU thread doing so
waits for a chain of ``per`` loads. Here a row is a slice of a ``bvoi`` team space of one row of
``per`` cells, reduced with ``la.inner_reduce``: thread ``t`` of the block's 128 folds values ``t, t +
128, ...`` in that order, starting from the join's identity, then a fixed tree joins the threads' values
(``t`` and ``t + 64``, then ``t + 32``, ..., ``t + 1``: docs/cuda.md). The order depends only on ``per``,
so a row gives the same bits on every run and on any number of ranks (each row holds the same values in
the same places). Min and Max give the sequential fold's value (the sign of a zero aside), integer sums
and products its bits (they wrap), MinLoc and MaxLoc its element: the threads and the tree fold the
partials themselves, each with its own location (``LocatedMinLoc``: one launch per level), a tie going
to the partial whose location comes first. That is the first in row order, as in the sequential fold,
because a row's partials are in order: slices in slice order and blocks in block order hold cells in
(b, k, j, i) order, and a partial that found no cell (location -1, the identity's value) wins no tie.
A float Sum or Prod can differ from the sequential fold in the last bits.
"""

from __future__ import annotations

import threading

from ..runtime.launch import launch
from ..types.arrays import array
from . import tags
from .reducers import Max, MaxLoc, Min, MinLoc, Prod, Reducer, Sum, combine_kernel
from .space import IndexSpace


class LocatedMinLoc(MinLoc):
    """MinLoc over partials that carry their own (b, k, j, i): the body returns the partial, which the fold
    keeps whole (``Reducer.fold == "located"``)."""

    fold = "located"


class LocatedMaxLoc(MaxLoc):
    """``LocatedMinLoc`` for MaxLoc."""

    fold = "located"


_JOINS = {("sum", False): Sum, ("prod", False): Prod, ("min", False): Min, ("max", False): Max,
          ("min", True): LocatedMinLoc, ("max", True): LocatedMaxLoc}


def _value_body():
    """A body folding row ``b`` of ``rows`` (its closure variable, set before each launch) and its setter."""
    from .outer import inner_reduce  # outer imports this module

    rows = None

    def fold_partials(rng, b):
        inner_reduce(rng, lambda k, j, i: rows[b, i])

    def set_rows(value):
        nonlocal rows
        rows = value

    return fold_partials, set_rows


def _location_body():
    """``_value_body`` for partials with a location: folds the partials themselves (``LocatedMinLoc``)."""
    from .outer import inner_reduce

    rows = None

    def fold_located_partials(rng, b):
        inner_reduce(rng, lambda k, j, i: rows[b, i])

    def set_rows(value):
        nonlocal rows
        rows = value

    return fold_located_partials, set_rows


_local = threading.local()  # per thread: a body's closure variable is set just before its launch


def _prepared_fold(reducer: Reducer, nrows: int, per: int):
    """The team space, body, row setter and ``outer._prepared`` folding ``nrows`` rows of ``per`` partials
    (cached per thread)."""
    cache = _local.__dict__.setdefault("folds", {})
    key = (reducer.join, reducer.with_location, reducer.dtype, nrows, per)
    found = cache.get(key)
    if found is None:
        if len(cache) >= 64:  # spaces of many shapes must not accumulate
            cache.clear()
        join = _JOINS[(reducer.join, reducer.with_location)](reducer.dtype)  # the plain join: no statistic
        space = IndexSpace.box(tags.bvoi, tags.logical_flat, nrows, per, 1, 1, 0, backend=tags.team).with_reducer(join)
        from .outer import _prepared

        found = cache[key] = (space, *(_location_body() if reducer.with_location else _value_body()), _prepared)
    return found


def fold_rows(reducer: Reducer, partials: array, nrows: int, per: int, out: array, gpu: bool) -> None:
    """``out[r]`` = the fold of ``partials[r * per:(r + 1) * per]`` for each row ``r < nrows``, on the
    launches' device: in row order by one thread per row on the CPU (``combine_kernel``), by the GPU
    mapping (``gpu``: on a GPU and on the emulation target; module docstring): one launch either way."""
    if per == 1 or not gpu:  # a row of one value has no chain of loads to cut
        combine, join = combine_kernel(reducer)
        launch(combine, dim=nrows, inputs=[partials, out, per, join], record_tape=False)
        return
    space, body, set_rows, prepared = _prepared_fold(reducer, nrows, per)
    rows = (partials if partials.shape[0] == nrows * per else partials[:nrows * per]).reshape((nrows, per))
    set_rows(rows)
    try:
        kernel, dims, geometry, _ = prepared(space, body, "outer_reduce", True)  # outer's checks and geometry
        launch(kernel, dim=dims, inputs=kernel.arguments(geometry, out), record_tape=False)
    finally:
        set_rows(None)  # the arrays are the reduction's, not this cache's
