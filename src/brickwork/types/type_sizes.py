"""``wp.types.type_size_in_bytes(t)`` and ``wp.types.type_ctype(t)``: a type's size in bytes and its ctypes type,
with the results of Warp's functions of these names."""

from __future__ import annotations

import ctypes
import typing

from . import scalars
from .composite import is_composite_type
from .scalars import is_scalar_type, python_annotation_type

# float16 and bfloat16 values are passed as their bits, as in Warp
_CTYPES = {scalars.bool_: ctypes.c_bool, scalars.int8: ctypes.c_int8, scalars.int16: ctypes.c_int16,
           scalars.int32: ctypes.c_int32, scalars.int64: ctypes.c_int64, scalars.uint8: ctypes.c_uint8,
           scalars.uint16: ctypes.c_uint16, scalars.uint32: ctypes.c_uint32, scalars.uint64: ctypes.c_uint64,
           scalars.float16: ctypes.c_uint16, scalars.bfloat16: ctypes.c_uint16, scalars.float32: ctypes.c_float,
           scalars.float64: ctypes.c_double}


def _is_ctype(t) -> bool:
    return isinstance(t, type) and issubclass(t, (ctypes._SimpleCData, ctypes.Array, ctypes.Structure))


def type_ctype(t) -> type:
    """The ctypes type of a scalar type (Python ``int``/``float``/``bool`` as in annotations), or of a vector,
    matrix, quaternion or transform type: a ctypes array of its components, row-major (Warp's types are such
    arrays themselves, so ``_type_``, ``_length_`` and ``ctypes.sizeof`` agree); a ctypes type is itself."""
    if _is_ctype(t):
        return t
    t = python_annotation_type(t)
    if is_scalar_type(t):
        return _CTYPES[scalars.uint64 if issubclass(t, scalars.uint64) else t]
    if is_composite_type(t) and is_scalar_type(t._dtype) and t._shape is not typing.Any:
        size = 1
        for n in t._shape:
            size *= n
        return _CTYPES[t._dtype] * size
    raise TypeError(f"Invalid data type: {getattr(t, '__name__', t)} has no ctypes type (scalar, vector and matrix "
                    f"types have one; a struct value's C layout is value.__ctype__())")


def type_size_in_bytes(t) -> int:
    """Bytes one value of type ``t`` takes in arrays and kernel arguments: a scalar, vector, matrix, quaternion,
    transform or struct type, or a ctypes type."""
    if t is typing.Any:
        raise TypeError("A concrete type is required")
    if getattr(t, "_bw_struct", False):
        return t._size
    try:
        return ctypes.sizeof(type_ctype(t))
    except TypeError:
        raise TypeError(f"Invalid data type: {getattr(t, '__name__', t)} has no size (scalar, vector, matrix and "
                        f"struct types have one)") from None
