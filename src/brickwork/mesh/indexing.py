"""Index shapes, ranges, domains and topological elements of one mesh block.

This is the index vocabulary of Parthenon (see ``docs/reference/loop_abstraction_semantics.md`` §2), in Python:

* ``IndexRange(s, e)`` is an inclusive range of indices.
* ``IndexDomain`` names a region of a block: ``entire`` (ghosts included), ``interior``, and the
  ghost slabs ``inner_x1`` .. ``outer_x3``.
* ``TopologicalElement`` names where a value lives: cell centres (``CC``), faces (``F1..F3``,
  normal to x1..x3), edges (``E1..E3``, along x1..x3) and nodes (``NN``). An element that sits on
  the lower face of a cell in direction d has one more index in that direction: its offset is 1.
* ``IndexShape(nx3, nx2, nx1, ng)`` holds the cell counts of a block and answers bounds queries
  ``get_bounds_i(domain, te)`` with exactly Parthenon's rules.

A direction with ``nx > 0`` is *active*: it has ``ng`` ghost cells on each side. A direction with
``nx == 0`` is *inactive*: one index, no ghosts, and no element offset.
"""

from __future__ import annotations

import enum
import operator
from dataclasses import dataclass

from .parthenon_names import AnswersParthenonNames, EnumAnsweringParthenonNames

X1DIR = 1
X2DIR = 2
X3DIR = 3
DIRECTIONS = (X1DIR, X2DIR, X3DIR)


class TopologicalType(enum.IntEnum):
    """The kind of mesh entity a field lives on."""

    Cell = 0
    Face = 1
    Edge = 2
    Node = 3


class TopologicalElement(enum.IntEnum):
    """Where a value sits in a cell; the numbering follows Parthenon (``int(te) % 3`` is the
    component in direction order: F1/E1 -> 0, F2/E2 -> 1, F3/E3 -> 2)."""

    CC = 0
    F1 = 3
    F2 = 4
    F3 = 5
    E1 = 6
    E2 = 7
    E3 = 8
    NN = 9

    @property
    def topological_type(self) -> TopologicalType:
        """Cell, Face, Edge or Node."""
        return _TYPE_OF[self]

    @property
    def component(self) -> int:
        """Index of this element among the elements of its type (0, 1 or 2)."""
        return int(self) % 3

    def offset(self, direction: int) -> int:
        """1 if the element lies on the lower face of its cell in ``direction`` (1, 2 or 3), else 0.

        The offset applies only in active directions; ``IndexShape`` takes care of that.
        """
        return 1 if direction in _OFFSET_DIRS[self] else 0


TE = TopologicalElement

_TYPE_OF = {
    TE.CC: TopologicalType.Cell,
    TE.F1: TopologicalType.Face,
    TE.F2: TopologicalType.Face,
    TE.F3: TopologicalType.Face,
    TE.E1: TopologicalType.Edge,
    TE.E2: TopologicalType.Edge,
    TE.E3: TopologicalType.Edge,
    TE.NN: TopologicalType.Node,
}

# Face Fd is normal to d, so it is node-like along d; edge Ed runs along d, so it is node-like in
# the other two directions; a node is node-like everywhere.
_OFFSET_DIRS = {
    TE.CC: (),
    TE.F1: (X1DIR,),
    TE.F2: (X2DIR,),
    TE.F3: (X3DIR,),
    TE.E1: (X2DIR, X3DIR),
    TE.E2: (X1DIR, X3DIR),
    TE.E3: (X1DIR, X2DIR),
    TE.NN: (X1DIR, X2DIR, X3DIR),
}

ELEMENTS_OF_TYPE = {
    TopologicalType.Cell: (TE.CC,),
    TopologicalType.Face: (TE.F1, TE.F2, TE.F3),
    TopologicalType.Edge: (TE.E1, TE.E2, TE.E3),
    TopologicalType.Node: (TE.NN,),
}


class IndexDomain(enum.IntEnum, metaclass=EnumAnsweringParthenonNames):
    """A region of a block: everything, the interior, or one ghost slab."""

    entire = 0
    interior = 1
    inner_x1 = 2
    outer_x1 = 3
    inner_x2 = 4
    outer_x2 = 5
    inner_x3 = 6
    outer_x3 = 7

    @classmethod
    def inner(cls, direction: int) -> IndexDomain:
        """The lower ghost slab of ``direction`` (1, 2 or 3)."""
        return cls(2 * _check_direction(direction))

    @classmethod
    def outer(cls, direction: int) -> IndexDomain:
        """The upper ghost slab of ``direction`` (1, 2 or 3)."""
        return cls(2 * _check_direction(direction) + 1)

    @property
    def direction(self) -> int | None:
        """1, 2 or 3 for a ghost slab; None for ``entire`` and ``interior``."""
        return None if self < 2 else int(self) // 2

    @property
    def is_inner(self) -> bool:
        """True for ``inner_x1``, ``inner_x2``, ``inner_x3``."""
        return self >= 2 and self % 2 == 0

    @property
    def is_outer(self) -> bool:
        """True for ``outer_x1``, ``outer_x2``, ``outer_x3``."""
        return self >= 2 and self % 2 == 1


BOUNDARY_SIDES = tuple(IndexDomain(v) for v in range(2, 8))


def _check_direction(direction: int) -> int:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 1, 2 or 3 (X1DIR..X3DIR), got {direction!r}")
    return int(direction)


@dataclass(frozen=True, slots=True)
class IndexRange:
    """An inclusive index range ``[s, e]``; empty when ``e < s``."""

    s: int
    e: int

    @property
    def size(self) -> int:
        """Number of indices, ``e - s + 1`` (0 for an empty range)."""
        return max(0, self.e - self.s + 1)

    def as_slice(self) -> slice:
        """The Python slice ``s:e+1``."""
        return slice(self.s, self.e + 1)

    def __iter__(self):
        return iter(range(self.s, self.e + 1))

    def __len__(self) -> int:
        return self.size

    def __contains__(self, index: object) -> bool:
        try:
            value = operator.index(index)
        except TypeError:
            return False
        return self.s <= value <= self.e


class IndexShape(AnswersParthenonNames):
    """Cell counts of a block plus ghost width, answering Parthenon's bounds queries.

    ``IndexShape(nx3, nx2, nx1, ng)`` (Parthenon's argument order: slowest direction first).
    Per direction: active (``nx > 0``) -> interior ``[ng, ng+nx-1]`` and ``nx + 2*ng`` indices in
    ``entire``; inactive (``nx == 0``) -> ``[0, 0]`` and a single index.
    """

    def __init__(self, nx3: int, nx2: int, nx1: int, ng: int):
        for name, value in (("nx3", nx3), ("nx2", nx2), ("nx1", nx1), ("ng", ng)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"IndexShape: {name} must be a non-negative integer, got {value!r}")
        self._nx = (int(nx1), int(nx2), int(nx3))
        self.ng = int(ng)

    def __repr__(self) -> str:
        nx1, nx2, nx3 = self._nx
        return f"IndexShape(nx3={nx3}, nx2={nx2}, nx1={nx1}, ng={self.ng})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexShape) and (self._nx, self.ng) == (other._nx, other.ng)

    def __hash__(self) -> int:
        return hash((self._nx, self.ng))

    def nx(self, direction: int) -> int:
        """Interior cell count in ``direction`` (0 if inactive)."""
        return self._nx[_check_direction(direction) - 1]

    def is_active(self, direction: int) -> bool:
        """True when ``direction`` has cells (and therefore ghosts)."""
        return self.nx(direction) > 0

    @property
    def ndim(self) -> int:
        """Number of active directions."""
        return sum(1 for n in self._nx if n > 0)

    def _interior(self, direction: int) -> IndexRange:
        n = self.nx(direction)
        return IndexRange(self.ng, self.ng + n - 1) if n > 0 else IndexRange(0, 0)

    def entire_count(self, direction: int) -> int:
        """Number of cell indices in ``entire`` along ``direction``: ``nx + 2*ng``, or 1."""
        n = self.nx(direction)
        return n + 2 * self.ng if n > 0 else 1

    def offset(self, direction: int, te: TopologicalElement = TE.CC) -> int:
        """Element offset of ``te`` in ``direction``; zero in inactive directions."""
        return TopologicalElement(te).offset(direction) if self.is_active(direction) else 0

    def get_bounds(
        self, direction: int, domain: IndexDomain = IndexDomain.entire, te: TopologicalElement = TE.CC
    ) -> IndexRange:
        """Bounds of ``domain`` for element ``te`` along ``direction`` (Parthenon's rules)."""
        domain = IndexDomain(domain)
        x = self._interior(direction)
        active = self.is_active(direction)
        off = self.offset(direction, te)
        own_inner = domain == IndexDomain.inner(direction)
        own_outer = domain == IndexDomain.outer(direction)
        if domain == IndexDomain.interior:
            start = x.s
        elif own_outer:
            start = x.e + 1 + off if active else 0
        else:
            start = 0
        if domain == IndexDomain.interior:
            end = x.e + off if active else 0
        elif own_inner:
            end = x.s - 1 if x.s != 0 else 0
        else:
            end = self.entire_count(direction) - 1 + off if active else 0
        return IndexRange(start, end)

    def get_bounds_i(self, domain=IndexDomain.entire, te=TE.CC) -> IndexRange:
        """``get_bounds(X1DIR, domain, te)``."""
        return self.get_bounds(X1DIR, domain, te)

    def get_bounds_j(self, domain=IndexDomain.entire, te=TE.CC) -> IndexRange:
        """``get_bounds(X2DIR, domain, te)``."""
        return self.get_bounds(X2DIR, domain, te)

    def get_bounds_k(self, domain=IndexDomain.entire, te=TE.CC) -> IndexRange:
        """``get_bounds(X3DIR, domain, te)``."""
        return self.get_bounds(X3DIR, domain, te)

    def ncells(self, direction: int, domain=IndexDomain.entire, te=TE.CC) -> int:
        """Number of indices of ``domain`` along ``direction``."""
        return self.get_bounds(direction, domain, te).size

    def size(self, domain=IndexDomain.entire, te=TE.CC) -> int:
        """Number of (k, j, i) points of ``domain`` for element ``te``."""
        return self.ncells(1, domain, te) * self.ncells(2, domain, te) * self.ncells(3, domain, te)

    def memory_extents(self, te: TopologicalElement = TE.CC) -> tuple[int, int, int]:
        """``(nk, nj, ni)`` array extents holding ``entire`` for element ``te``."""
        return tuple(self.get_bounds(d, IndexDomain.entire, te).e + 1 for d in (X3DIR, X2DIR, X1DIR))
