"""The dtype an array takes from data given without one (``wp.array(data)``, ``wp.full(shape, value)``)."""

from __future__ import annotations

import numpy as np

from .composite import CompositeBase, matrix, vector
from .scalars import ScalarBase, bool_, float32, int32, scalar_from_numpy


def infer_dtype(data) -> type:
    """The dtype of an array made from ``data`` without one: a numpy array's own (also of data that exports typed
    memory: a memoryview, an array.array, an object with numpy's interfaces), the type of typed values, and for
    Python numbers float32, int32 or bool (as in annotations)."""
    if isinstance(data, np.ndarray):
        t = scalar_from_numpy(data.dtype)
        if t is None and not data.dtype.isnative:
            raise TypeError(f"numpy dtype {data.dtype} has a non-native byte order: convert the data first "
                            f"(a.astype(a.dtype.newbyteorder('=')))")
        if t is None:
            raise TypeError(f"numpy dtype {data.dtype} has no brickwork scalar type")
        return t
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, (ScalarBase, CompositeBase)):  # [vec3(..), ..] is an array of vec3
        return type(first)
    if _exports_typed_memory(data):  # a memoryview, array.array, a numpy-like object: its own dtype, as a numpy array
        return infer_dtype(np.asarray(data))
    flat = np.asarray(data)
    if flat.dtype == np.float64:
        return float32  # Python floats become float32, as in annotations
    if flat.dtype == np.int64:
        return int32
    if flat.dtype == np.bool_:
        return bool_
    t = scalar_from_numpy(flat.dtype)
    if t is None:
        raise TypeError(f"cannot infer an array dtype from data of numpy dtype {flat.dtype}")
    return t


def _exports_typed_memory(data) -> bool:
    """Whether ``data`` (not a list or tuple) exports memory of a type: the buffer protocol (memoryview,
    array.array, bytes) or numpy's interfaces. Such data keeps its type; the float32/int32 rule is for
    Python numbers, whose type says nothing of a precision."""
    if isinstance(data, (list, tuple, str)):
        return False
    if any(hasattr(data, a) for a in ("__array_interface__", "__array_struct__", "__array__")):
        return True
    try:
        memoryview(data)
    except TypeError:
        return False
    return True


def fill_dtype(value):
    """The dtype ``full`` infers from an untyped fill value: a number's scalar type; a sequence (or 1-D
    numpy array) is one vector and a nested one (2-D) one matrix of the inferred scalar type, as Warp."""
    scalar = infer_dtype(value)
    shape = np.shape(value) if isinstance(value, (list, tuple, np.ndarray)) else ()
    if len(shape) == 1:
        return vector(shape[0], scalar)
    if len(shape) == 2:
        return matrix(shape, scalar)
    return scalar
