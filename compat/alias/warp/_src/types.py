"""The names of ``warp._src.types`` that Warp's tests use and that are public API in Warp too.

The data lists Warp's tests iterate over are built from brickwork's types; the type constructors
(``matrix``, ``vector``, ``quaternion``, ``transformation``) and the ``Float`` type variable are the
ones Warp publishes as ``wp.types.*`` and ``wp.Float``, so they are brickwork's public equivalents.
Other names of this module are placeholders (see ``_internal``).
"""

import numpy as _np

import brickwork as _bw

from .._internal import Placeholder as _Placeholder

int_types = (_bw.int8, _bw.uint8, _bw.int16, _bw.uint16, _bw.int32, _bw.uint32, _bw.int64, _bw.uint64)
float_types = (_bw.float16, _bw.bfloat16, _bw.float32, _bw.float64)
scalar_types = int_types + float_types
scalar_and_bool_types = (*scalar_types, _bw.bool)
non_atomic_types = (_bw.int8, _bw.uint8, _bw.int16, _bw.uint16)
scalar_base = _bw.types.scalars.ScalarBase
float_base = _bw.Float
int_base = _bw.Int

# Warp's public constructors (wp.types.*) and type variables (wp.Float, wp.Int, wp.Scalar) at their internal path.
matrix = _bw.types.matrix
vector = _bw.types.vector
quaternion = _bw.types.quaternion
transformation = _bw.types.transformation
Float = _bw.Float
# The class of Warp's public wp.ref[T] annotations (brickwork's RefType: one object per T, its .dtype is T).
Reference = _bw.types.references.RefType
Int = _bw.Int
Scalar = _bw.Scalar

np_dtype_to_warp_type = {
    _np.dtype(t): s
    for t, s in (
        (_np.bool_, _bw.bool), (_np.int8, _bw.int8), (_np.uint8, _bw.uint8), (_np.int16, _bw.int16),
        (_np.uint16, _bw.uint16), (_np.int32, _bw.int32), (_np.uint32, _bw.uint32), (_np.int64, _bw.int64),
        (_np.uint64, _bw.uint64), (_np.float16, _bw.float16), (_np.float32, _bw.float32),
        (_np.float64, _bw.float64),
    )
}
warp_type_to_np_dtype = {s: t for t, s in np_dtype_to_warp_type.items()}

_SUFFIX = {_bw.int8: "b", _bw.uint8: "ub", _bw.int16: "s", _bw.uint16: "us", _bw.int32: "i", _bw.uint32: "ui",
           _bw.int64: "l", _bw.uint64: "ul", _bw.float16: "h", _bw.float32: "f", _bw.float64: "d"}
vector_types = tuple(
    getattr(_bw, f"vec{n}{s}") for n in (2, 3, 4) for s in _SUFFIX.values() if hasattr(_bw, f"vec{n}{s}")
)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(f"{__name__}.{name}")
