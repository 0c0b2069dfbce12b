"""bsr_mm's result holds the product's structure only (docs/sparse.md): on a ring-plus-chord Laplacian assembled
from triplets, where Warp 1.19's A @ A has three explicit zero blocks more (35 blocks), brickwork's has the 32
blocks some product of A's blocks reaches, with A @ A's values (newuser round 10)."""

import numpy as np

import brickwork as wp
from brickwork import sparse


def test_the_product_of_an_assembled_laplacian_has_no_zero_blocks():
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 3]])
    k = np.linspace(1.0, 2.0, len(edges)).astype(np.float32)
    rows, cols, vals = [], [], []
    for (i, j), s in zip(edges, k):
        for r, c, sign in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
            rows.append(r), cols.append(c), vals.append(sign * s * np.eye(2, dtype=np.float32))
    a = sparse.bsr_from_triplets(6, 6, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                 wp.array(np.array(vals), dtype=wp.mat22))
    c = sparse.bsr_mm(a, a)
    offsets, columns, values = c.offsets.numpy(), c.columns.numpy(), c.values.numpy()
    assert offsets[-1] == c.nnz == 32 and all(values[q].any() for q in range(32))
    dense_a = np.zeros((12, 12), np.float32)
    for r, col, v in zip(rows, cols, vals):
        dense_a[2 * r:2 * r + 2, 2 * col:2 * col + 2] += v
    dense_c = np.zeros((12, 12), np.float32)
    for r in range(6):
        for q in range(offsets[r], offsets[r + 1]):
            dense_c[2 * r:2 * r + 2, 2 * columns[q]:2 * columns[q] + 2] = values[q]
    np.testing.assert_allclose(dense_c, dense_a @ dense_a, rtol=1e-6)
    structure = (np.abs(dense_a).reshape(6, 2, 6, 2).sum((1, 3)) > 0).astype(int)
    assert ((structure @ structure) > 0).sum() == 32
