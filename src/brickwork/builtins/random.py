"""Random numbers as in Warp: a uint32 state from ``rand_init(seed[, offset])``, advanced in place by
``randi``/``randu``/``randf``/``randn`` and the ``sample_*`` samplers (Warp's PCG hash and formulas, so
a seed gives Warp's numbers)."""

from __future__ import annotations

from ..types.arrays import ArrayType
from ..types.composite import vector
from ..types.scalars import float32, int32, uint32
from .registry import builtin, is_numeric_scalar, names, need


def _state(state):
    need(state is uint32, f"needs a uint32 state from rand_init(), got {names(state)}")


@builtin("rand_init")
def _rand_init(seed, offset=None):
    need(seed is int32 and offset in (None, int32), f"needs int32 seed and offset, got "
         f"{names(seed) if offset is None else names(seed, offset)}")
    return uint32


@builtin("randi")
def _randi(state, lo=None, hi=None):
    _state(state)
    need((lo is None) == (hi is None) and lo in (None, int32) and hi in (None, int32),
         f"needs a state and optionally an int32 range, got {names(*(t for t in (state, lo, hi) if t is not None))}")
    return int32


@builtin("randu")
def _randu(state, lo=None, hi=None):
    _state(state)
    need((lo is None) == (hi is None) and lo in (None, uint32) and hi in (None, uint32),
         f"needs a state and optionally a uint32 range, got {names(*(t for t in (state, lo, hi) if t is not None))}")
    return uint32


@builtin("randf")
def _randf(state, lo=None, hi=None):
    _state(state)
    need((lo is None) == (hi is None) and lo in (None, float32) and hi in (None, float32),
         f"needs a state and optionally a float32 range, got "
         f"{names(*(t for t in (state, lo, hi) if t is not None))}")
    return float32


@builtin("randn")
def _randn(state):
    _state(state)
    return float32


def _sampler(result_length):
    def rule(state):
        _state(state)
        return vector(result_length, float32)

    return rule


for _name in ("sample_unit_square", "sample_unit_disk", "sample_unit_ring", "sample_triangle"):
    builtin(_name)(_sampler(2))
for _name in ("sample_unit_cube", "sample_unit_sphere", "sample_unit_sphere_surface", "sample_unit_hemisphere",
              "sample_unit_hemisphere_surface"):
    builtin(_name)(_sampler(3))


@builtin("poisson")
def _poisson(state, lam):
    _state(state)
    need(lam is float32, f"needs a state and a float32 rate, got {names(state, lam)}")
    return uint32


@builtin("sample_cdf")
def _sample_cdf(state, cdf):
    _state(state)
    need(cdf == ArrayType(float32, 1), f"needs a state and a 1-D float32 array (a cumulative distribution), got "
         f"{names(state, cdf)}")
    return int32


@builtin("lower_bound")
def _lower_bound(arr, *rest):
    need(isinstance(arr, ArrayType) and arr.ndim == 1 and is_numeric_scalar(arr.dtype),
         f"needs a 1-D array of numbers, got {names(arr, *rest)}")
    need(rest in ((arr.dtype,), (int32, int32, arr.dtype)), f"needs (arr, value) or (arr, begin, end, value) with "
         f"int32 bounds and a value of the array's dtype, got {names(arr, *rest)}")
    return int32
