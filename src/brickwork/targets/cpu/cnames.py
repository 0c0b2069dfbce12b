"""C++ spellings of kernel-language types and constants (shared by every C++-like target)."""

from __future__ import annotations

import hashlib
import math

import numpy as np

from ...types.arrays import ArrayType
from ...types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from ...types.fabric_arrays import FabricArrayType, IndexedFabricArrayType
from ...types.fixed_arrays import FixedArrayType
from ...types.geometry_queries import is_geometry_query_type, is_tiled_query_type
from ...types.hash_grid_query import is_hash_grid_query_type
from ...types.indexed_arrays import IndexedArrayType
from ...types.keys import type_key
from ...types.opaque import TEAM_MEMBER, TupleType
from ...types.scalars import bfloat16_bits, is_scalar_type
from ...types.structs import is_struct_type
from ...types.tile_stacks import is_tile_stack_type

_SCALAR_C = {
    "bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
    "float16": "bw::half", "bfloat16": "bw::bhalf", "float32": "float", "float64": "double",
}


def c_name(prefix: str, name: str) -> str:
    """The C++ identifier of a kernel's local, parameter or struct field ``name``: ``<prefix>_<name>``.

    Python identifiers may hold any Unicode letter (``α``, ``pös``), which g++ accepts but NVRTC and older
    compilers do not: such a name becomes ``<prefix>u_`` and its characters, each other than an ASCII letter
    or digit spelled ``_<hex code>_`` (``_`` itself as ``__``). One to one: an ASCII name always has ``_``
    after the prefix, a non-ASCII one ``u``."""
    if name.isascii():
        return f"{prefix}_{name}"
    return f"{prefix}u_" + "".join(c if c.isascii() and c.isalnum() else "__" if c == "_" else f"_{ord(c):x}_"
                                   for c in name)


def ascii_label(name: str) -> str:
    """``name`` reduced to ASCII letters, digits and ``_`` (for C++ names made unique by a digest)."""
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in name)


def c_type(t) -> str:
    """The C++ type of a kernel-language type."""
    if is_scalar_type(t):
        return _SCALAR_C[t.__name__]
    if is_quat_type(t):
        return f"bw::quat<{c_type(t._dtype)}>"
    if is_transform_type(t):
        return f"bw::transform<{c_type(t._dtype)}>"
    if is_vector_type(t):
        return f"bw::vec<{t._length}, {c_type(t._dtype)}>"
    if is_matrix_type(t):
        return f"bw::mat<{t._shape[0]}, {t._shape[1]}, {c_type(t._dtype)}>"
    if isinstance(t, FixedArrayType):
        return f"bw::fixedarray_t<{c_type(t.dtype)}, {', '.join(str(n) for n in t.shape)}>"
    if isinstance(t, IndexedArrayType):
        return f"bw::indexedarray_t<{c_type(t.dtype)}, {t.ndim}>"
    if isinstance(t, FabricArrayType):
        return f"bw::fabricarray_t<{c_type(t.dtype)}, {t.ndim}>"
    if isinstance(t, IndexedFabricArrayType):
        return f"bw::indexedfabricarray_t<{c_type(t.dtype)}, {t.ndim}>"
    if isinstance(t, ArrayType):
        return f"bw::array_t<{c_type(t.dtype)}, {t.ndim}>"
    if is_struct_type(t) or isinstance(t, TupleType):
        return generated_name(t)
    if t is TEAM_MEMBER:
        return "bw::team"
    if is_hash_grid_query_type(t):
        return f"bw::hash_grid_query_t<{c_type(t._dtype)}>"
    if is_tile_stack_type(t):
        return f"bw::tile_stack_t<{c_type(t.dtype)}, {t.capacity}>"
    if is_geometry_query_type(t):
        return "bw::bvh_query_t"
    if is_tiled_query_type(t):
        return "bw::bvh_query_tiled_t"
    if t is None:
        return "void"
    raise TypeError(f"no C++ type for {t!r}")


def generated_name(t) -> str:
    """Name of the C++ struct generated for a struct or tuple type."""
    digest = hashlib.sha1(type_key(t).encode()).hexdigest()[:10]
    if isinstance(t, TupleType):
        return f"tuple_{digest}"
    return f"S_{ascii_label(t.__name__)}_{digest}"


def c_constant(value, t) -> str:
    """An exact C++ literal of ``value`` with type ``t``."""
    name = t.__name__
    if name == "bool":
        return "true" if value else "false"
    if t.is_float:
        v = float(value)
        if name == "float16":
            bits = int(np.array(v, dtype=np.float16).view(np.uint16))
            return f"bw::half::from_bits({bits})"
        if name == "bfloat16":
            return f"bw::bhalf::from_bits({int(bfloat16_bits(v))})"
        ctype = _SCALAR_C[name]
        if math.isnan(v):
            return f"bw::nan<{ctype}>()"
        if math.isinf(v):
            return f"{'-' if v < 0 else ''}bw::inf<{ctype}>()"
        return f"{v.hex()}{'f' if name == 'float32' else ''}"
    v = int(value)
    suffix = {"int64": "LL", "uint64": "ULL", "uint32": "U"}.get(name, "")
    if name == "int64" and v == -2**63:
        return "INT64_MIN"
    return f"{_SCALAR_C[name]}({v}{suffix})"
