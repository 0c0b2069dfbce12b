"""Random BSR matrices and their dense numpy references, shared by the sparse tests."""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork.sparse import bsr_from_triplets

SCALARS = {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}
TOL = {wp.float16: 2e-2, wp.float32: 1e-5, wp.float64: 1e-12}
SHAPES = [(1, 1), (1, 3), (3, 3), (3, 2)]


def block_type(shape, scalar=wp.float32):
    return scalar if tuple(shape) == (1, 1) else wp.types.matrix(shape=shape, dtype=scalar)


def vec_type(n, scalar=wp.float32):
    return scalar if n == 1 else wp.types.vector(length=n, dtype=scalar)


def triplets(rng, nrow, ncol, n, shape, scalar=wp.float32, device="cpu", invalid=False):
    """Random triplets (duplicates likely), as brickwork arrays, and their dense sum."""
    rows = rng.integers(0, nrow, n).astype(np.int32)
    cols = rng.integers(0, ncol, n).astype(np.int32)
    vals = rng.uniform(-1, 1, (n, *shape)).astype(SCALARS[scalar])
    dense = np.zeros((nrow * shape[0], ncol * shape[1]))
    if invalid and n:
        rows[:: 5] = -1
        cols[1:: 7] = ncol
    for r, c, v in zip(rows, cols, vals, strict=True):
        if 0 <= r < nrow and 0 <= c < ncol:
            dense[r * shape[0]:(r + 1) * shape[0], c * shape[1]:(c + 1) * shape[1]] += v
    values = wp.array(vals if shape != (1, 1) else vals.reshape(n), dtype=block_type(shape, scalar), device=device)
    return (wp.array(rows, dtype=int, device=device), wp.array(cols, dtype=int, device=device), values, dense)


def random_bsr(rng, nrow, ncol, shape, scalar=wp.float32, density=0.4, device="cpu"):
    n = max(1, int(density * nrow * ncol))
    rows, cols, values, dense = triplets(rng, nrow, ncol, n, shape, scalar, device)
    return bsr_from_triplets(nrow, ncol, rows, cols, values, prune_numerical_zeros=False), dense


def dense(bsr) -> np.ndarray:
    """The matrix as a dense float64 array (active blocks only), checking the layout: offsets ascending,
    columns ascending and in range within each row."""
    out = np.zeros(bsr.shape)
    offsets = bsr.offsets.numpy()
    counts = None if bsr.row_counts is None else bsr.row_counts.numpy()
    columns = bsr.columns.numpy()
    values = bsr.values.numpy().reshape(-1, *bsr.block_shape).astype(np.float64)
    br, bc = bsr.block_shape
    assert offsets[0] == 0 and np.all(np.diff(offsets[: bsr.nrow + 1]) >= 0)
    for r in range(bsr.nrow):
        end = offsets[r + 1] if counts is None else offsets[r] + counts[r]
        row_cols = columns[offsets[r]:end]
        assert np.all(np.diff(row_cols) > 0), f"row {r}: columns {row_cols} not ascending"
        assert np.all((row_cols >= 0) & (row_cols < bsr.ncol))
        for b in range(offsets[r], end):
            c = columns[b]
            out[r * br:(r + 1) * br, c * bc:(c + 1) * bc] += values[b]
    return out
