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


@dataclass(frozen=True)
class TupleType:
    """The type of several values returned together (``tid()`` of 2+ dims, multiple returns)."""

    types: tuple

    @property
    def __name__(self):
        return "tuple[" + ", ".join(getattr(t, "__name__", repr(t)) for t in self.types) + "]"
