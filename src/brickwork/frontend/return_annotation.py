"""A ``@func``'s return annotation checked against what its ``return`` statements give, with Warp's words.

Annotations that are not kernel types (strings of postponed annotations, ``typing.Any``, generic types that
accept the value) are not checked.
"""

from __future__ import annotations

import typing

from ..errors import KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.fixed_arrays import FixedArrayType
from ..types.generic import is_generic, matches
from ..types.opaque import TupleType
from ..types.scalars import python_annotation_type


def _label(t) -> str:
    if t in (int, float, bool):
        return t.__name__
    a = python_annotation_type(t)
    if isinstance(a, ArrayType) and not isinstance(a, FixedArrayType):  # Warp's spelling of array types
        return f"Array[{type_name(a.dtype)}]"
    if typing.get_origin(t) is tuple:
        return f"tuple[{', '.join(_label(a) for a in typing.get_args(t))}]"
    return type_name(t)


def _fits(annotation, t) -> bool:
    a = python_annotation_type(annotation)
    return a is t or (is_generic(a) and matches(a, t))


def check_return(typer, value_type, node) -> None:
    """Raise Warp's error when ``value_type`` (None: no value) contradicts the function's return annotation."""
    func = getattr(typer.source, "func", None)
    annotation = getattr(func, "__annotations__", {}).get("return", typing.Any)
    if annotation is typing.Any or annotation is None or isinstance(annotation, str) or value_type is None:
        return
    name = typer.source.name
    expected = typing.get_args(annotation) if typing.get_origin(annotation) is tuple else None
    got = value_type.types if isinstance(value_type, TupleType) else None
    head = f"The function `{name}` has its return type annotated as"
    if expected is None:
        if isinstance(value_type, FixedArrayType) and not isinstance(python_annotation_type(annotation),
                                                                      FixedArrayType):
            raise typer.error(KernelTypeError, f"The function `{name}` returns a fixed-size array whereas it has its "
                              f"return type annotated as `{_label(annotation)}`.", node)
        if got is not None:
            raise typer.error(KernelTypeError, f"{head} `{_label(annotation)}` but the code returns {len(got)} "
                              f"values.", node)
        if not _fits(annotation, value_type):
            raise typer.error(KernelTypeError, f"{head} `{_label(annotation)}` but the code returns a value of "
                              f"type `{type_name(value_type)}`.", node)
        return
    if Ellipsis in expected:
        return
    count = len(got) if got is not None else 1
    if count != len(expected):
        raise typer.error(KernelTypeError, f"{head} a tuple of {len(expected)} elements but the code returns "
                          f"{count} values.", node)
    if got is not None and not all(_fits(a, t) for a, t in zip(expected, got)):
        raise typer.error(KernelTypeError, f"{head} `{_label(annotation)}` but the code returns a tuple with types "
                          f"`({', '.join(type_name(t) for t in got)})`.", node)
