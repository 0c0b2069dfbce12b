"""The lookups the JAX and PyTorch dtype conversions share: a brickwork scalar type's type in a library's table,
and the error for a library type that brickwork has no scalar for."""

from __future__ import annotations

from ..types.arrays import type_name
from ..types.scalars import python_annotation_type


def library_type(table: dict, warp_dtype, library: str, arrays: str):
    """``table``'s type for the brickwork scalar type ``warp_dtype`` (Python's ``float``, ``int`` and ``bool``
    stand for float32, int32 and bool), else a ``TypeError`` naming ``library`` ("Jax", "Torch") that says, for a
    vector or matrix type, that its arrays become ``arrays`` ("a tensor") of its scalar type with trailing
    dimensions."""
    try:
        found = table.get(python_annotation_type(warp_dtype))
    except TypeError:  # an unhashable value
        found = None
    if found is None:
        scalar = getattr(warp_dtype, "_dtype", None)
        hint = (f" (a {type_name(warp_dtype)} array becomes {arrays} of {type_name(scalar)} with trailing dimensions "
                f"{tuple(warp_dtype._shape)})") if scalar is not None and hasattr(warp_dtype, "_shape") else ""
        raise TypeError(f"Cannot convert {type_name(warp_dtype)} to a {library} type{hint}")
    return found


def no_scalar(library_dtype) -> TypeError:
    """The error for ``library_dtype``, a library's type that brickwork has no scalar type for."""
    return TypeError(f"Cannot convert {library_dtype} to a Warp type: brickwork's scalar types are bool, int8-64, "
                     f"uint8-64, float16, bfloat16, float32 and float64")
