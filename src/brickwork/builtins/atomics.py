"""Atomic read-modify-write of array elements; each returns the element's old value."""

from __future__ import annotations

from ..types.scalars import bool_, is_scalar_type
from .registry import Mismatch, builtin, is_array, is_int_scalar, is_value_type, names, need


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
    need(is_int_scalar(arr.dtype), f"needs an array of integers, got {names(arr)}")
    return result


def _atomic_exch_rule(arr, *rest):
    result = _atomic_rule(arr, *rest)
    need(is_scalar_type(arr.dtype), f"needs an array of scalars, got {names(arr)}")
    return result


for _name in ("atomic_add", "atomic_sub", "atomic_min", "atomic_max"):
    builtin(_name)(_atomic_rule)
for _name in ("atomic_and", "atomic_or", "atomic_xor"):
    builtin(_name)(_atomic_bits_rule)
builtin("atomic_exch")(_atomic_exch_rule)
