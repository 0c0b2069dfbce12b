"""Halos: ordered lists of (dk, dj, di) offsets naming the produced neighbours a consumer needs.

A halo has exactly one identity offset and strictly increasing lexicographic offsets. ``reduced``
keeps the offsets whose components are zero in inactive directions (``HaloReducedRange``;
docs/reference/loop_abstraction_semantics.md §4).
"""

from __future__ import annotations

import numbers


class Halo:
    """A compile-time halo; build user halos with ``make``."""

    def __init__(self, offsets, name: str | None = None):
        offsets = tuple(tuple(h) for h in offsets)
        for h in offsets:
            if len(h) != 3:
                raise ValueError(f"halo offsets are (dk, dj, di) triples, got {h!r}")
            if not all(isinstance(c, numbers.Integral) and not isinstance(c, bool) for c in h):
                raise TypeError(f"halo offsets are triples of ints, got {h!r}")  # int() would truncate 0.5 to 0
        offsets = tuple(tuple(int(c) for c in h) for h in offsets)
        if offsets.count((0, 0, 0)) != 1:
            raise ValueError(f"a halo needs exactly one identity offset (0, 0, 0), got {list(offsets)}")
        if any(a >= b for a, b in zip(offsets, offsets[1:])):
            raise ValueError(f"halo offsets must be strictly increasing in (dk, dj, di) order, got {list(offsets)}")
        self.offsets = offsets
        self.name = name or f"make({list(offsets)})"

    def __repr__(self):
        return f"la.halo.{self.name}"

    def __eq__(self, other):
        return isinstance(other, Halo) and other.offsets == self.offsets

    def __hash__(self):
        return hash(self.offsets)

    @property
    def is_none(self) -> bool:
        return self.offsets == ((0, 0, 0),)

    def reduced(self, ndim: int) -> tuple:
        """Offsets kept in ``ndim`` active directions (zero in the inactive ones), in order."""
        keep = []
        for dk, dj, di in self.offsets:
            if (ndim < 3 and dk != 0) or (ndim < 2 and dj != 0):
                continue
            keep.append((dk, dj, di))
        return tuple(keep)

    def check_projection_closed(self, ndim: int) -> None:
        """``add_halo`` needs every offset projected to 2-D and 1-D to be in the halo too."""
        present = set(self.offsets)
        for dk, dj, di in self.offsets:
            for proj in ((0, dj, di), (0, 0, di)):
                if proj not in present:
                    raise ValueError(f"halo {self.name} is not closed under projection: {(dk, dj, di)} projects "
                                     f"to {proj}, which is missing")

    def box(self, offsets=None) -> tuple:
        """Per-direction (min, max) of the offsets: ((kmin, kmax), (jmin, jmax), (imin, imax))."""
        offsets = offsets or self.offsets
        return tuple((min(h[d] for h in offsets), max(h[d] for h in offsets)) for d in range(3))


def make(offsets) -> Halo:
    """A user halo from (dk, dj, di) offsets (one identity, strictly increasing)."""
    return Halo(offsets)


none = Halo([(0, 0, 0)], "none")
minus_i = Halo([(0, 0, -1), (0, 0, 0)], "minus_i")
plus_i = Halo([(0, 0, 0), (0, 0, 1)], "plus_i")
minus_j = Halo([(0, -1, 0), (0, 0, 0)], "minus_j")
plus_j = Halo([(0, 0, 0), (0, 1, 0)], "plus_j")
minus_k = Halo([(-1, 0, 0), (0, 0, 0)], "minus_k")
plus_k = Halo([(0, 0, 0), (1, 0, 0)], "plus_k")
pm_i = Halo([(0, 0, -1), (0, 0, 0), (0, 0, 1)], "pm_i")
pm_j = Halo([(0, -1, 0), (0, 0, 0), (0, 1, 0)], "pm_j")
pm_k = Halo([(-1, 0, 0), (0, 0, 0), (1, 0, 0)], "pm_k")
