"""Typing rules of tile reductions, scans and sorting (``tile_sum``, ``tile_reduce``, ``tile_scan_*``,
``tile_sort``, ...): loops over a tile's elements in row-major order (``tile_build``)."""

from __future__ import annotations
