"""Typing rules of tile shapes and linear algebra (``tile_transpose``, ``tile_broadcast``, ``tile_view``,
``tile_matmul``, ``tile_cholesky``, ...): loops over the tiles' elements (``tile_build``)."""

from __future__ import annotations
