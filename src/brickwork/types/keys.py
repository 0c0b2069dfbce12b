"""Stable texts naming kernel-language types exactly (cache keys, generated names)."""

from __future__ import annotations

from .arrays import ArrayType
from .composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from .fabric_arrays import FabricArrayType, IndexedFabricArrayType
from .fixed_arrays import FixedArrayType
from .geometry_queries import is_geometry_query_type, is_tiled_query_type
from .hash_grid_query import is_hash_grid_query_type
from .indexed_arrays import IndexedArrayType
from .opaque import OpaqueType, TupleType
from .scalars import is_scalar_type
from .structs import is_struct_type
from .tile_stacks import is_tile_stack_type
from .tiles import TileType


def type_key(t) -> str:
    """A stable text naming a type exactly (used in cache keys and generated names)."""
    if is_scalar_type(t):
        return t.__name__
    if is_vector_type(t) or is_quat_type(t) or is_transform_type(t):
        return f"{t._kind}{t._length}:{t._dtype.__name__}"
    if is_matrix_type(t):
        return f"matrix{t._shape[0]}x{t._shape[1]}:{t._dtype.__name__}"
    if isinstance(t, FixedArrayType):  # the shape is part of the type (tiles are not fixed-size arrays)
        kind = "tile" if isinstance(t, TileType) else "fixedarray"
        return f"{kind}{'x'.join(map(str, t.shape))}:{type_key(t.dtype)}"
    if is_tile_stack_type(t):
        return f"tile_stack{t.capacity}:{type_key(t.dtype)}"
    if isinstance(t, IndexedArrayType):
        return f"indexedarray{t.ndim}:{type_key(t.dtype)}"
    if isinstance(t, FabricArrayType):
        return f"fabricarray{t.ndim}:{type_key(t.dtype)}"
    if isinstance(t, IndexedFabricArrayType):
        return f"indexedfabricarray{t.ndim}:{type_key(t.dtype)}"
    if isinstance(t, ArrayType):
        return f"array{t.ndim}:{type_key(t.dtype)}"
    if is_struct_type(t):
        fields = ",".join(f"{n}:{type_key(ft)}" for n, ft in t._fields)
        return f"struct {t.__module__}.{t.__qualname__}({fields})"
    if isinstance(t, TupleType):
        return "tuple(" + ",".join(type_key(x) for x in t.types) + ")"
    if is_hash_grid_query_type(t):
        return f"hash_grid_query:{t._dtype.__name__}"
    if is_geometry_query_type(t) or is_tiled_query_type(t):
        return f"geometry_query:{t.__name__}"
    if isinstance(t, OpaqueType):
        return f"opaque {t.__name__}"
    if t is None:
        return "void"
    raise TypeError(f"no type key for {t!r}")
