"""The one name resolver: what a free name or dotted name of kernel code stands for.

Typing and the cache fingerprint both resolve names here, so the key covers exactly the values
the typer will use: a free name is looked up in the function's closure, then its module's
globals, then Python's builtins (``FunctionSource.lookup``); an attribute of a compile-time value
is ``static_attribute``.
"""

from __future__ import annotations

import types as pytypes

from ..types.arrays import ArrayType
from .source import MISSING, FunctionSource


def static_attribute(obj, attr: str):
    """``obj.attr`` of a compile-time value as kernel code sees it (AttributeError if none)."""
    if isinstance(obj, ArrayType) and attr in ("dtype", "ndim"):
        return getattr(obj, attr)
    return getattr(obj, attr)


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
