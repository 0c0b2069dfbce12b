"""Opaque and compound kernel types that have no host value of their own."""

from __future__ import annotations

from dataclasses import dataclass


class OpaqueType:
    """A type with no host value; each target decides how to spell and store it."""

    def __init__(self, name: str):
        self.__name__ = name

    def __repr__(self):
        return self.__name__


#: The team of a ``par_for_outer`` iteration or of a loop-abstraction slice: its scratch arena,
#: barriers and inner loops.
TEAM_MEMBER = OpaqueType("team_member")


_TUPLE_TYPES: dict = {}


@dataclass(frozen=True)
class TupleType:
    """The type of several values returned together (``tid()`` of 2+ dims, multiple returns). One
    object per sequence of item types, so that types compare by identity as the other kernel types do."""

    types: tuple

    def __new__(cls, types):
        types = tuple(types)
        found = _TUPLE_TYPES.get(types)
        if found is None:
            found = _TUPLE_TYPES[types] = super().__new__(cls)
        return found

    def __post_init__(self):
        object.__setattr__(self, "types", tuple(self.types))

    def __reduce__(self):  # copies and pickles are the one object
        return TupleType, (self.types,)

    @property
    def __name__(self):
        return "tuple[" + ", ".join(getattr(t, "__name__", repr(t)) for t in self.types) + "]"
