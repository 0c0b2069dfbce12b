"""The one name resolver: what a free name or dotted name of kernel code stands for.

Typing and the cache fingerprint both resolve names here, so the key covers exactly the values
the typer will use: a free name is looked up in the function's closure, then its module's
globals, then Python's builtins (``FunctionSource.lookup``); an attribute of a compile-time value
is ``static_attribute``.
"""

from __future__ import annotations

import types as pytypes

import numpy as np

from ..types.arrays import ArrayType
from ..types.scalars import ScalarBase, bool_, float32, int32, is_scalar_type
from ..types.structs import is_struct_type
from .source import MISSING, FunctionSource


def static_attribute(obj, attr: str):
    """``obj.attr`` of a compile-time value as kernel code sees it (AttributeError if none); a field of
    a struct instance built on the host keeps its declared type."""
    if isinstance(obj, ArrayType) and attr in ("dtype", "ndim"):
        return getattr(obj, attr)
    if is_struct_type(type(obj)):
        t = type(obj)._field_types.get(attr)
        if t is None:
            raise AttributeError(f"struct {type(obj).__qualname__} has no field '{attr}'")
        return _typed_field(getattr(obj, attr), t)
    return getattr(obj, attr)


def _typed_field(value, t):
    """A scalar field's host value as a compile-time value of its declared type ``t``: the Python literal
    that types as ``t`` where there is one (so ``range(p.n)`` of an int32 field stays static), else a
    ``t`` instance (a float64 field is not a float32 literal, a uint64 one not an int32)."""
    if not is_scalar_type(t):
        return value
    raw = value.value if isinstance(value, ScalarBase) else value
    if t is bool_:
        return bool(raw)
    if t is int32:
        return int(raw)
    if t is float32:
        return float(np.float32(raw))
    return t(raw)


def resolve_chain(source: FunctionSource, chain: list[str]):
    """The value of dotted name ``chain`` (``["wp", "sin"]``) as typing resolves it; attributes are
    followed through modules and classes only (other objects are runtime values to typing)."""
    value = source.lookup(chain[0])
    for attr in chain[1:]:
        if value is MISSING or not isinstance(value, (pytypes.ModuleType, type)):
            break
        try:
            value = static_attribute(value, attr)
        except AttributeError:
            value = MISSING
    return value


__all__ = ["MISSING", "resolve_chain", "static_attribute"]
