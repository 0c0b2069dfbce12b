"""Atomic read-modify-write of array elements; each returns the element's old value.

``atomic_cas(a, *indices, compare, value)`` stores ``value`` only where the element equals ``compare``
as a value (``-0.0`` matches ``0.0``, a NaN matches nothing), as Warp's CPU atomic_cas, on every target."""

from __future__ import annotations

from ..types.arrays import type_name
from ..types.composite import is_quat_type, is_transform_type
from ..types.scalars import (
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int32,
    int64,
    is_scalar_type,
    uint32,
    uint64,
)
from .registry import Mismatch, Unsupported, builtin, is_array, is_int_scalar, is_value_type, names, need


def _atomic_rule(arr, *rest):
    need(is_array(arr), f"needs an array as first argument, got {names(arr)}")
    if len(rest) != arr.ndim + 1:
        raise Mismatch(f"needs {arr.ndim} indices and a value for {names(arr)}, got {len(rest)} arguments")
    *indices, value = rest
    for t in indices:
        need(getattr(t, "is_int", False), f"indices must be integers, got {names(*indices)}")
    need(value is arr.dtype, f"value must match the array dtype, got {names(value)} for {names(arr)}")
    # Composite elements update component by component; bools and structs have no arithmetic.
    need(is_value_type(arr.dtype) and arr.dtype is not bool_,
         f"needs an array of numbers, vectors, matrices or quaternions, got {names(arr)}")
    return arr.dtype


def _atomic_bits_rule(arr, *rest):
    result = _atomic_rule(arr, *rest)
    need(is_int_scalar(arr.dtype) or is_int_scalar(getattr(arr.dtype, "_dtype", None)) and not is_quat_type(arr.dtype)
         and not is_transform_type(arr.dtype),
         f"needs an array of integers or of integer vectors or matrices, got {names(arr)}")
    return result


def _atomic_exch_rule(arr, *rest):
    result = _atomic_rule(arr, *rest)
    need(is_scalar_type(arr.dtype), f"needs an array of scalars, got {names(arr)}")
    return result


def _atomic_cas_rule(arr, *rest):
    need(is_array(arr), f"needs an array as first argument, got {names(arr)}")
    if len(rest) != arr.ndim + 2:
        raise Mismatch(f"needs {arr.ndim} indices, a compare value and a value for {names(arr)}, "
                       f"got {len(rest)} arguments")
    *indices, compare, value = rest
    for t in indices:
        need(getattr(t, "is_int", False), f"indices must be integers, got {names(*indices)}")
    need(compare is arr.dtype and value is arr.dtype,
         f"compare and value must match the array dtype, got {names(compare, value)} for {names(arr)}")
    if arr.dtype not in _CAS_TYPES:
        raise Unsupported(f"atomic_cas() only works on arrays of {_CAS_TEXT}, got {type_name(arr.dtype)}")
    return arr.dtype


# The scalar types atomics work on, as in Warp (whose GPUs have no atomics for 8- and 16-bit integers,
# nor a float16 min/max); brickwork keeps Warp's set so that kernels run the same on both.
_ADD_TYPES = (int32, uint32, int64, uint64, float16, bfloat16, float32, float64)
_MINMAX_TYPES = (int32, uint32, int64, uint64, bfloat16, float32, float64)
_ADD_TEXT = "[u]int32, [u]int64, float16, bfloat16, float32, or float64"
ATOMIC_ADD_TEXT = _ADD_TEXT  # the types has_atomic_add accepts, in words (for messages elsewhere)
_CAS_TYPES = (int32, uint32, int64, uint64, float32, float64)  # one 32- or 64-bit word
_CAS_TEXT = "[u]int32, [u]int64, float32 or float64"
_MINMAX_TEXT = "[u]int32, [u]int64, bfloat16, float32, or float64"


def has_atomic_bits(dtype) -> bool:
    """Whether ``a[i] &= x`` (and ``|=``, ``^=``) is atomic on arrays of ``dtype``, as in Warp: 32- and 64-bit
    integers, and vectors and matrices of them (narrower integers: read, combine and store)."""
    scalar = dtype if is_scalar_type(dtype) else getattr(dtype, "_dtype", None)
    return scalar in (int32, uint32, int64, uint64) and not is_quat_type(dtype) and not is_transform_type(dtype)


def has_atomic_add(dtype) -> bool:
    """Whether atomic_add/atomic_sub work on arrays of ``dtype`` (else ``a[i] += x`` reads, adds and stores)."""
    scalar = dtype if is_scalar_type(dtype) else getattr(dtype, "_dtype", None)
    return scalar in _ADD_TYPES


def _arithmetic_atomic_rule(name, allowed, text):
    def rule(arr, *rest):
        result = _atomic_rule(arr, *rest)
        scalar = arr.dtype if is_scalar_type(arr.dtype) else arr.dtype._dtype
        if scalar not in allowed:
            raise Unsupported(f"{name}() operations only work on arrays with {text} as the underlying scalar "
                              f"types, but got {type_name(arr.dtype)} (with scalar type {type_name(scalar)})")
        return result

    return rule


for _name in ("atomic_add", "atomic_sub"):
    builtin(_name)(_arithmetic_atomic_rule(_name, _ADD_TYPES, _ADD_TEXT))
for _name in ("atomic_min", "atomic_max"):
    builtin(_name)(_arithmetic_atomic_rule(_name, _MINMAX_TYPES, _MINMAX_TEXT))
for _name in ("atomic_and", "atomic_or", "atomic_xor"):
    builtin(_name)(_atomic_bits_rule)
builtin("atomic_exch")(_atomic_exch_rule)
builtin("atomic_cas")(_atomic_cas_rule)
