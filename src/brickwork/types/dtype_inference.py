"""The dtype an array takes from data given without one (``wp.array(data)``, ``wp.full(shape, value)``)."""

from __future__ import annotations

import numpy as np

from .composite import CompositeBase, matrix, vector
from .scalars import ScalarBase, bool_, float32, int32, scalar_from_numpy


def infer_dtype(data) -> type:
    """The dtype of an array made from ``data`` without one: a numpy array's own, the type of typed values, and
    for Python numbers float32, int32 or bool (as in annotations)."""
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
