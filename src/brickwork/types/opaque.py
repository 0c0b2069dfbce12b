"""Opaque kernel types: values that exist only inside kernels (a team member of nested loops)."""

from __future__ import annotations


class OpaqueType:
    """A type with no host value and a fixed C++ spelling."""

    def __init__(self, name: str, c_name: str):
        self.__name__ = name
        self.c_name = c_name

    def __repr__(self):
        return self.__name__


#: The team of a ``par_for_outer`` iteration: its scratch arena, barriers, inner loops.
TEAM_MEMBER = OpaqueType("team_member", "bw::team")
