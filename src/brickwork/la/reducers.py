"""Reducers of the loop abstraction: ``Sum, Prod, Min, Max, MinLoc, MaxLoc`` for every scalar type.

A reduction runs in deterministic steps: every slice folds its cells into a partial result in a
fixed order (simd-vectorised where the join allows), each block folds its slices' partials in slice
order, and then the block partials are folded in block order (on a mesh spread over ranks: every
rank's block partials, gathered, in global block order). The result therefore depends neither on
the number of threads nor on the number of ranks. On the CPU a fold of partials is one thread per
row (``combine_kernel``: one compiled fold per value type serves every join); on a GPU a fixed tree per
row (``device_fold``).
"""

from __future__ import annotations

import typing

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array
from ..types.scalars import int32, is_scalar_type, python_annotation_type, scalar_from_numpy
from ..types.structs import struct

_LOC_TYPES: dict = {}
wp_tid = _FUNCTIONS["tid"]  # the kernel builtin, by the name kernels call it


def value_loc(dtype):
    """The struct ``(value, b, k, j, i)`` that MinLoc/MaxLoc reduce (one type per dtype)."""
    found = _LOC_TYPES.get(dtype)
    if found is None:
        name = f"ValueLoc_{dtype.__name__}"
        cls = type(name, (), {"__annotations__": {"value": dtype, "b": int32, "k": int32, "j": int32, "i": int32},
                              "__module__": __name__, "__qualname__": name})
        found = _LOC_TYPES[dtype] = struct(cls)
    return found


class Reducer:
    """A reduction of values of ``dtype``; subclasses name the join."""

    join = ""
    with_location = False
    #: what a cell contributes: its value, or (the statistics a la.Prod's gradient needs) "nonzero": the
    #: value with a zero counted as 1, "is_zero": 1 for a zero, else 0; or "located": the body returns
    #: partials of ``value_type`` that keep their own location (a GPU's fold of partials, la/device_fold.py)
    fold = "value"

    def __init__(self, dtype):
        dtype = python_annotation_type(dtype)  # float is float32 and int int32, as in wp.zeros(n, dtype=float)
        if not is_scalar_type(dtype):
            name = getattr(dtype, "__name__", dtype)
            numpy_type = isinstance(dtype, np.dtype) or isinstance(dtype, type) and issubclass(dtype, np.generic)
            found = scalar_from_numpy(dtype) if numpy_type else None
            hint = f": write {type(self).__name__}(wp.{found.__name__})" if found is not None else ""
            raise TypeError(f"{type(self).__name__} needs a scalar dtype, got {name!r}{hint}")
        if not (dtype.is_float or dtype.is_int):  # bool: a Sum or Max failed to compile, a MinLoc returned its identity
            raise TypeError(f"{type(self).__name__} folds numbers, got bool: fold wp.where(c, 1, 0) as wp.int32 "
                            f"(la.Sum for a count, la.Max for 'any')")
        self.dtype = dtype

    @property
    def value_type(self):
        return value_loc(self.dtype) if self.with_location else self.dtype

    def identity(self):
        info = np.finfo(self.dtype._np) if self.dtype.is_float else (
            np.iinfo(self.dtype._np) if self.dtype.is_int else None)
        if self.join == "sum":
            return 0
        if self.join == "prod":
            return 1
        if self.join == "min":
            return float("inf") if self.dtype.is_float else (info.max if info else True)
        return float("-inf") if self.dtype.is_float else (info.min if info else False)

    @property
    def key(self) -> str:
        return f"{type(self).__name__}[{self.dtype.__name__}]"

    def __repr__(self):
        return f"la.{type(self).__name__}({self.dtype.__name__})"

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype is self.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))


class Sum(Reducer):
    """Sum of the values."""

    join = "sum"


class Prod(Reducer):
    """Product of the values."""

    join = "prod"


class Min(Reducer):
    """Reduce to the smallest value."""

    join = "min"


class Max(Reducer):
    """Reduce to the largest value."""

    join = "max"


class MinLoc(Reducer):
    """Smallest value and its (b, k, j, i); the first in slice order among equals."""

    join = "min"
    with_location = True


class MaxLoc(Reducer):
    """Largest value and its (b, k, j, i); the first in slice order among equals."""

    join = "max"
    with_location = True


class NonzeroProd(Prod):
    """Product of the nonzero values (the tape's statistic for the gradient of a ``la.Prod``)."""

    fold = "nonzero"


class ZeroCount(Sum):
    """Number of zero values, in the values' type (the tape's statistic for the gradient of a ``la.Prod``)."""

    fold = "is_zero"


class FirstZero(MaxLoc):
    """The first zero value's (b, k, j, i), as a MaxLoc of 1 at zeros and 0 elsewhere (the tape's statistic
    for the gradient of a ``la.Prod``)."""

    fold = "is_zero"


# -- combining partials in slice order (one thread per row: the CPU's fold) -------------------------
@func
def _join_sum(a: typing.Any, b: typing.Any):
    return a + b


@func
def _join_prod(a: typing.Any, b: typing.Any):
    return a * b


@func
def _join_min(a: typing.Any, b: typing.Any):
    return b if b < a else a


@func
def _join_max(a: typing.Any, b: typing.Any):
    return b if b > a else a


@func
def _join_minloc(a: typing.Any, b: typing.Any):
    return b if b.value < a.value else a  # ties keep the earlier slice


@func
def _join_maxloc(a: typing.Any, b: typing.Any):
    return b if b.value > a.value else a


# The joins by number: one compiled fold per value type serves every join (a Sum and a Max of float64 share it).
_JOIN_CODES = {"sum": 0, "prod": 1, "min": 2, "max": 3}


@kernel
def combine_rows(partials: array(dtype=typing.Any), out: array(dtype=typing.Any), per: int, join: int):
    """``out[r]`` = the fold of ``partials[r * per:(r + 1) * per]`` in order by ``join`` (0 sum, 1 prod, 2 min,
    3 max), one thread per row ``r``."""
    r = wp_tid()
    acc = partials[r * per]
    for s in range(r * per + 1, (r + 1) * per):
        if join == 0:
            acc = _join_sum(acc, partials[s])
        elif join == 1:
            acc = _join_prod(acc, partials[s])
        elif join == 2:
            acc = _join_min(acc, partials[s])
        else:
            acc = _join_max(acc, partials[s])
    out[r] = acc


@kernel
def combine_located_rows(partials: array(dtype=typing.Any), out: array(dtype=typing.Any), per: int, join: int):
    """``combine_rows`` for MinLoc and MaxLoc partials (``value_loc``): ``join`` 2 min, 3 max."""
    r = wp_tid()
    acc = partials[r * per]
    for s in range(r * per + 1, (r + 1) * per):
        if join == 2:
            acc = _join_minloc(acc, partials[s])
        else:
            acc = _join_maxloc(acc, partials[s])
    out[r] = acc


def combine_kernel(reducer: Reducer) -> tuple:
    """``(kernel, join)``: ``launch(kernel, dim=nrows, inputs=[partials, out, per, join])`` folds each row of
    ``per`` partials in order into ``out[row]`` (one thread per row): a block's slice partials in slice order,
    then, as one row, the block partials in block order, so that a mesh spread over ranks folds the same values
    in the same order. The CPU's folds; a GPU folds each row by a tree (``device_fold.fold_rows``). Every
    reducer of one value type launches the same instance, so it is compiled once per program (and kept in
    the kernel cache) for all of them."""
    return (combine_located_rows if reducer.with_location else combine_rows), _JOIN_CODES[reducer.join]
