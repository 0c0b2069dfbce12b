"""Tiles: small arrays a kernel instance works on as whole values (Warp's ``wp.tile_*`` API).

A tile has an element dtype and a shape known when the kernel compiles (1 to 4 dimensions). It lives in
the frame of the thread running one point of a ``launch_tiled`` grid, like a fixed-size local array
(``types/fixed_arrays.py``), whose storage and element access it shares: ``TileType`` is a
``FixedArrayType`` with value semantics and its own operations (``frontend/tiles.py`` turns each
``wp.tile_*`` call into loops over the elements). ``wp.tile[float, 4, 8]`` names the type, for the
annotations of ``@func`` parameters.
"""

from __future__ import annotations

from .arrays import type_name
from .fixed_arrays import FixedArrayType


class TileType(FixedArrayType):
    """The type of a tile: element dtype and a constant shape (1 to 4 positive extents)."""

    __slots__ = ()
    _cache: dict = {}  # its own: a tile is never the fixed-size array of the same dtype and shape
    _kind = "tile"

    def __repr__(self):
        return f"tile(dtype={type_name(self.dtype)}, shape={self.shape})"

    def __reduce__(self):
        return (TileType, (self.dtype, self.shape))


def is_tile_type(t) -> bool:
    return isinstance(t, TileType)
