"""A hash grid's tables computed with numpy: the reference the compiled builds (CPU and device sorts) are
tested against. The cells as the queries compute them (``include/brickwork_hash_grid.h``), the stable order
by cell, then by group bits, then by index."""

import numpy as np


def cell_coordinates(coords: np.ndarray, inv) -> np.ndarray:
    """The cell coordinates (int64) of points: ``floor(x * inv)`` in the points' calculation type, NaN to 0,
    clamped to the int32 range."""
    scaled = coords * inv
    cells = np.clip(np.floor(scaled).astype(np.float64), -2.0**31, 2.0**31 - 1)
    cells[np.isnan(scaled)] = 0
    return cells.astype(np.int64)


def cell_indices(coords: np.ndarray, dims: tuple) -> np.ndarray:
    """Physical cell indices (x fastest) of cell coordinates wrapped into the grid."""
    x, y, z = (np.mod(coords[:, a], dims[a]) for a in range(3))
    return (z * dims[1] + y) * dims[0] + x


def stable_order(cells: np.ndarray, group_bits) -> np.ndarray:
    """The order by cell, then by group bits (uint32), then by index: a lexicographic sort."""
    index = np.arange(len(cells))
    keys = (index, cells) if group_bits is None else (index, group_bits.astype(np.uint32), cells)
    return np.lexsort(keys)


def tables(xyz: np.ndarray, width: float, dims: tuple, double: bool, groups):
    """point_ids, cell_starts, cell_ends (empty cells 0, 0) and the sorted groups of points ``xyz`` (n x 3,
    float64 holding the grid's values) in cells of ``width``; ``double``: float64 points."""
    calc = np.float64 if double else np.float32
    inv = calc(1.0) / calc(width)
    cells = cell_indices(cell_coordinates(xyz.astype(calc), inv), dims)
    order = stable_order(cells, None if groups is None else groups.view(np.uint32))
    starts = np.zeros(dims[0] * dims[1] * dims[2], np.int32)
    ends = np.zeros_like(starts)
    for position, cell in enumerate(cells[order]):
        if ends[cell] == 0:
            starts[cell] = position
        ends[cell] = position + 1
    return order, starts, ends, None if groups is None else groups[order]
