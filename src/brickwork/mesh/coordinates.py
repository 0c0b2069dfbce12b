"""Uniform Cartesian coordinates of one block.

Index ``i`` of the block's ``entire`` range (ghosts included) has its cell centre at
``xmin1 + (i - ng + 1/2) * dx1`` and its lower face at ``xmin1 + (i - ng) * dx1``, where ``xmin1``
is the block's lower interior edge. An inactive direction has one cell spanning the whole domain
extent in that direction, so cell volumes in 1-D and 2-D still have a length/area times that extent
(Parthenon's convention).
"""

from __future__ import annotations

import numpy as np

from .indexing import X1DIR, X2DIR, X3DIR, IndexShape
from .parthenon_names import AnswersParthenonNames


class UniformCoordinates(AnswersParthenonNames):
    """Cell centres, face positions, widths and volumes of one block."""

    def __init__(self, shape: IndexShape, xmin: tuple[float, float, float], xmax: tuple[float, float, float],
                 dx: tuple[float, float, float] | None = None):
        """``dx``: the mesh's cell widths. Given, every block has the very same widths: a block's own
        ``(xmax - xmin) / nx`` can differ from the mesh's in the last bit, and a solver that takes dx
        from one block (the first this rank holds) would then differ with the number of ranks."""
        self.shape = shape
        self.xmin = tuple(float(x) for x in xmin)
        self.xmax = tuple(float(x) for x in xmax)
        self._dx = tuple(float(w) for w in dx) if dx is not None else tuple(
            (hi - lo) / (shape.nx(d) if shape.is_active(d) else 1)
            for d, lo, hi in zip((X1DIR, X2DIR, X3DIR), self.xmin, self.xmax)
        )

    def __repr__(self) -> str:
        return f"UniformCoordinates(xmin={self.xmin}, xmax={self.xmax})"

    def dx(self, direction: int) -> float:
        """Cell width in ``direction`` (the domain extent for an inactive direction)."""
        return self._dx[direction - 1]

    def x_center(self, direction: int) -> np.ndarray:
        """Cell-centre positions over the ``entire`` index range of ``direction``."""
        d = direction - 1
        if not self.shape.is_active(direction):
            return np.array([0.5 * (self.xmin[d] + self.xmax[d])])
        idx = np.arange(self.shape.entire_count(direction)) - self.shape.ng
        return self.xmin[d] + (idx + 0.5) * self._dx[d]

    def x_face(self, direction: int) -> np.ndarray:
        """Face positions over the ``entire`` face range of ``direction`` (one more than cells)."""
        d = direction - 1
        if not self.shape.is_active(direction):
            return np.array([self.xmin[d], self.xmax[d]])
        idx = np.arange(self.shape.entire_count(direction) + 1) - self.shape.ng
        return self.xmin[d] + idx * self._dx[d]

    @property
    def cell_volume(self) -> float:
        """Volume of one cell, ``dx1 * dx2 * dx3``."""
        return self._dx[0] * self._dx[1] * self._dx[2]

    def cell_volumes(self) -> np.ndarray:
        """Cell volumes over the ``entire`` range, shape ``(nk, nj, ni)``."""
        return np.full(self.shape.memory_extents(), self.cell_volume)

    def face_area(self, direction: int) -> float:
        """Area of a face normal to ``direction``: the product of the other two widths."""
        others = [self._dx[d] for d in range(3) if d != direction - 1]
        return others[0] * others[1]
