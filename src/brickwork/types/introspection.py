"""Warp's type predicates on the host (``wp.types.type_is_int(t)``, ``wp.types.is_vector(x)``, ...) and
``types_equal``. ``type_is_*`` ask about a type, ``is_*`` about a value; Python's ``int``/``float``/``bool``
count as int32/float32/bool, as in Warp."""

from __future__ import annotations

import builtins

from .arrays import ArrayType
from .composite import is_composite_type, is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from .generic import is_generic, matches
from .scalars import bool_, is_scalar_type, python_annotation_type
from .structs import is_struct_type


def _scalar(t):
    t = python_annotation_type(t)
    return t if is_scalar_type(t) else None


def type_is_int(t) -> bool:
    """An integer scalar type (``int``, ``wp.int32``, ``wp.uint8`` ...; not ``bool``)."""
    s = _scalar(t)
    return s is not None and bool(s.is_int) and s is not bool_


def type_is_float(t) -> bool:
    """A floating-point scalar type (``float``, ``wp.float16`` ...)."""
    s = _scalar(t)
    return s is not None and bool(s.is_float)


def type_is_scalar(t) -> bool:
    """An integer or floating-point scalar type."""
    return type_is_int(t) or type_is_float(t)


def type_is_vector(t) -> bool:
    return is_vector_type(t)


def type_is_matrix(t) -> bool:
    return is_matrix_type(t)


def type_is_quaternion(t) -> bool:
    return is_quat_type(t)


def type_is_transformation(t) -> bool:
    return is_transform_type(t)


def type_is_composite(t) -> bool:
    """A vector, matrix, quaternion or transform type."""
    return is_composite_type(t)


def type_is_value(t) -> bool:
    """A scalar (bool included) or composite type: what a kernel passes by value."""
    return t in (builtins.int, builtins.float, builtins.bool) or is_scalar_type(t) or is_composite_type(t)


def type_is_struct(t) -> bool:
    return is_struct_type(t)


def type_is_array(t) -> bool:
    """One of the array classes: ``wp.array``, ``wp.indexedarray``, ``wp.fabricarray``, ``wp.fixedarray`` ...
    An annotation such as ``wp.array(dtype=float)`` is not (in Warp it is an empty array): ``is_array``
    answers for it."""
    from .fixed_arrays import fixedarray
    from .indexed_arrays import ARRAY_KINDS

    return t in ARRAY_KINDS or t is fixedarray


def type_is_tile(t) -> bool:
    """Whether ``t`` is ``wp.tile`` itself (as in Warp, where a tile annotation such as ``wp.tile[float, 4]`` is
    an instance of it, for which ``is_tile`` answers)."""
    return getattr(t, "names_tile_types", False) is True  # wp.tile (builtins/tiles.py, a layer above)


def _value_check(type_check):
    def check(x) -> bool:
        return not isinstance(x, type) and not isinstance(x, ArrayType) and type_check(type(x))

    check.__doc__ = f"Whether a value's type satisfies ``{type_check.__name__}``."
    return check


is_int = _value_check(type_is_int)
is_float = _value_check(type_is_float)
is_scalar = _value_check(type_is_scalar)
is_vector = _value_check(type_is_vector)
is_matrix = _value_check(type_is_matrix)
is_quaternion = _value_check(type_is_quaternion)
is_transformation = _value_check(type_is_transformation)
is_composite = _value_check(type_is_composite)
is_value = _value_check(type_is_value)
is_struct = _value_check(type_is_struct)


def is_tile(x) -> bool:
    """Whether ``x`` is a tile annotation (``wp.tile[float, 4]``, ``wp.tile(dtype=float, shape=(4,))``): what
    Warp's tile instances are on the host."""
    from .tiles import TileType

    return isinstance(x, TileType)


def is_array(x) -> bool:
    """Whether ``x`` is an array, an indexed array or a (indexed) fabric array, or an array annotation
    (``wp.array(dtype=float)``, ``wp.array[float]``, ``wp.fixedarray(dtype=int)``): Warp's annotations are
    empty arrays. A tile annotation is not one (``is_tile``)."""
    from .indexed_arrays import ARRAY_KINDS
    from .tiles import TileType

    return isinstance(x, ARRAY_KINDS) or (isinstance(x, ArrayType) and not isinstance(x, TileType))


def types_equal(a, b, match_generic: bool = False) -> bool:
    """Whether ``a`` and ``b`` are the same kernel type (``float`` is float32, ``int`` int32, ``bool`` bool);
    with ``match_generic``, a generic type (``wp.Float``, ``vector(3, wp.Float)``, ``Any``) equals each type
    it accepts."""
    if a is None or b is None:
        return False
    a, b = python_annotation_type(a), python_annotation_type(b)
    if a is b or a == b:
        return True
    if is_composite_type(a) and is_composite_type(b):  # one family, one shape, one dtype
        return (a._kind, tuple(a._shape)) == (b._kind, tuple(b._shape)) and types_equal(a._dtype, b._dtype,
                                                                                       match_generic)
    if match_generic:
        return (is_generic(a) and matches(a, b)) or (is_generic(b) and matches(b, a))
    return False
