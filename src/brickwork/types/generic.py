"""Generic annotations: what is generic, what a concrete type must be to match, inference of
argument types from Python values at launch."""

from __future__ import annotations

import typing

import numpy as np

from .arrays import ArrayType, array, type_name
from .composite import CompositeBase, is_composite_type, is_matrix_type, is_quat_type, is_vector_type
from .fabric_arrays import FABRIC_ARRAYS, FabricArrayType, IndexedFabricArrayType
from .function_values import FunctionValueType, StringValueType, accepts_function_values
from .indexed_arrays import IndexedArrayType, indexedarray
from .opaque import TupleType
from .references import RefType
from .scalars import (
    GenericPlaceholder,
    ScalarBase,
    bool_,
    float32,
    int32,
    is_scalar_type,
    python_annotation_type,
    scalar_from_numpy,
)
from .structs import StructBase, is_struct_type


def is_generic(annotation) -> bool:
    """True when ``annotation`` leaves some type to be decided at instantiation."""
    annotation = python_annotation_type(annotation)
    if annotation is typing.Any or isinstance(annotation, GenericPlaceholder) or accepts_function_values(annotation):
        return True  # a Function parameter: one instance per function passed
    if isinstance(annotation, ArrayType):
        return is_generic(annotation.dtype)
    if isinstance(annotation, RefType):
        return is_generic(annotation.type)
    items = _tuple_items(annotation)
    if items is not None:  # bare ``tuple`` and ``tuple[T, ...]`` take any length
        return items is ... or items[-1:] == (...,) or any(is_generic(t) for t in items)
    if is_composite_type(annotation):
        return annotation._dtype is typing.Any or isinstance(annotation._dtype, GenericPlaceholder) or (
            annotation._shape is typing.Any) or any(
            d is typing.Any for d in annotation._shape)
    return False


def array_family(t) -> type:
    """The kind of array type ``t`` is (plain, indexed, fabric, indexed fabric; a fixed-size array is seen
    as the plain array it is passed as): a parameter takes arrays of its own kind only."""
    for family in (IndexedArrayType, FabricArrayType, IndexedFabricArrayType):
        if isinstance(t, family):
            return family
    return ArrayType


def matches(annotation, concrete) -> bool:
    """True when a value of type ``concrete`` may be bound to a parameter annotated ``annotation``."""
    annotation = python_annotation_type(annotation)
    if annotation is concrete or annotation is typing.Any:
        return True
    if isinstance(concrete, StringValueType) or annotation is str:  # a string literal, for a str parameter
        return isinstance(concrete, StringValueType) and annotation is str
    if isinstance(concrete, FunctionValueType) or accepts_function_values(annotation):
        return isinstance(concrete, FunctionValueType) and accepts_function_values(annotation)
    if isinstance(annotation, RefType):  # wp.ref[T] takes a place holding a T
        return matches(annotation.type, concrete)
    if isinstance(annotation, GenericPlaceholder):
        return annotation.accepts(concrete)
    if isinstance(annotation, ArrayType):
        return isinstance(concrete, ArrayType) and concrete.ndim == annotation.ndim and array_family(
            concrete) is array_family(annotation) and matches(annotation.dtype, concrete.dtype)
    items = _tuple_items(annotation)
    if items is not None:
        if not isinstance(concrete, TupleType):
            return False
        if items is ...:
            return True
        if len(items) == 2 and items[1] is ...:  # tuple[T, ...]: any number of T
            return all(matches(items[0], c) for c in concrete.types)
        return len(items) == len(concrete.types) and all(matches(a, c) for a, c in zip(items, concrete.types))
    if is_composite_type(annotation) and is_composite_type(concrete):
        if annotation._kind != concrete._kind:
            return False
        if isinstance(annotation._dtype, GenericPlaceholder):
            if not annotation._dtype.accepts(concrete._dtype):
                return False
        elif annotation._dtype is not typing.Any and annotation._dtype is not concrete._dtype:
            return False
        if annotation._shape is typing.Any:
            return True
        return len(annotation._shape) == len(concrete._shape) and all(
            a is typing.Any or a == c for a, c in zip(annotation._shape, concrete._shape))
    return False


def _tuple_items(annotation):
    """The item annotations of a tuple annotation (``...`` for bare ``tuple``), or None for other annotations."""
    if annotation is tuple:
        return ...
    if typing.get_origin(annotation) is tuple:  # tuple[...], typing.Tuple[...]; bare typing.Tuple has no items
        return typing.get_args(annotation) or ...
    return None


def is_kernel_type(t) -> bool:
    return (is_scalar_type(t) or is_composite_type(t) or isinstance(t, ArrayType) or is_struct_type(t))


def type_of_value(value):
    """The kernel-language type of a Python value passed to a generic parameter, or None."""
    if isinstance(value, (array, indexedarray, *FABRIC_ARRAYS)):
        return value._key
    if isinstance(value, (ScalarBase, CompositeBase, StructBase)):
        return type(value)
    if isinstance(value, np.generic):  # before float: np.float64 is a float subclass but keeps its precision
        return scalar_from_numpy(value.dtype)
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int32
    if isinstance(value, float):
        return float32
    return None


def describe_value(value) -> str:
    """A short description of a Python value's type for error messages."""
    t = type_of_value(value)
    if t is not None:
        return type_name(t)
    return type(value).__module__ + "." + type(value).__qualname__ if type(value).__module__ not in (
        "builtins",) else type(value).__name__


__all__ = ["is_generic", "matches", "type_of_value", "is_kernel_type", "describe_value",
           "is_vector_type", "is_matrix_type", "is_quat_type"]
