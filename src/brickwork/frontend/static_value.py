"""``Static``: a compile-time value met while typing an expression (a type, a function, a module, a
Python number, a string), and ``TID``, the marker of ``wp.tid`` before it is called."""

from __future__ import annotations

from ..types.arrays import ArrayType, type_name
from ..types.composite import CompositeBase
from ..types.scalars import ScalarBase

TID = object()


class Static:
    """A compile-time value met while typing an expression."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def is_number(self) -> bool:
        v = self.value
        return isinstance(v, (bool, int, float, ScalarBase, CompositeBase)) or v is TID

    def describe(self) -> str:
        v = self.value
        if isinstance(v, type) or isinstance(v, ArrayType):
            return f"the type {type_name(v)}"
        return f"{type(v).__name__} {getattr(v, '__name__', v)!r}"
