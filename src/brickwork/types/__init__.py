"""Kernel-language types; ``brickwork.types`` is also the Python namespace Warp code reaches as
``wp.types`` (``wp.types.vector(3, wp.float32)``, ``wp.types.matrix((3, 3), dtype)``, ``wp.types.Float``)."""

from .arrays import ArrayType, array, array1d, array2d, array3d, array4d, type_name
from .composite import matrix, quaternion, transformation, vector
from .indexed_arrays import indexedarray, indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d
from .introspection import (
    is_array,
    is_composite,
    is_float,
    is_int,
    is_matrix,
    is_quaternion,
    is_scalar,
    is_struct,
    is_tile,
    is_transformation,
    is_value,
    is_vector,
    type_is_array,
    type_is_composite,
    type_is_float,
    type_is_int,
    type_is_matrix,
    type_is_quaternion,
    type_is_scalar,
    type_is_struct,
    type_is_tile,
    type_is_transformation,
    type_is_value,
    type_is_vector,
    types_equal,
)
from .scalars import (
    Float,
    Int,
    Scalar,
    bfloat16,
    bool_,
    dtype_from_numpy,
    dtype_to_numpy,
    float16,
    float32,
    float64,
    handle,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .structs import struct


def type_size(t) -> int:
    """Number of scalar components of a type: 1 for a scalar, 3 for vec3, 9 for mat33 (Warp's type_size)."""
    shape = getattr(t, "_shape", None)
    if shape is None:
        return 1
    size = 1
    for n in shape:
        size *= n
    return size


def type_size_in_bytes(t) -> int:
    """Bytes one value of type ``t`` takes in arrays and kernel arguments, as Warp's (type_sizes.py)."""
    from .type_sizes import type_size_in_bytes

    return type_size_in_bytes(t)


def type_ctype(t) -> type:
    """The ctypes type of a scalar, vector or matrix type, as Warp's (type_sizes.py)."""
    from .type_sizes import type_ctype

    return type_ctype(t)


def type_repr(t) -> str:
    """The name of a type as messages spell it: ``int8``, ``vec3b``, ``array(dtype=float32, ndim=2)``."""
    return type_name(t)


__all__ = ["type_repr", "type_size", "type_size_in_bytes", "type_ctype",
           "ArrayType", "array", "array1d", "array2d", "array3d", "array4d", "indexedarray", "indexedarray1d",
           "indexedarray2d", "indexedarray3d", "indexedarray4d", "matrix", "quaternion", "transformation",
           "vector",
           "Float", "Int", "Scalar", "bool_", "bfloat16", "dtype_from_numpy", "dtype_to_numpy", "float16", "float32",
           "float64", "handle",
           "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "struct",
           "types_equal", "is_array", "is_composite", "is_float", "is_int", "is_matrix", "is_quaternion", "is_scalar",
           "is_struct", "is_tile", "is_transformation", "is_value", "is_vector", "type_is_array", "type_is_composite",
           "type_is_float", "type_is_int", "type_is_matrix", "type_is_quaternion", "type_is_scalar", "type_is_struct",
           "type_is_tile", "type_is_transformation", "type_is_value", "type_is_vector"]
