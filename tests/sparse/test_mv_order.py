"""bsr_mv's sums in a fixed order (bit for bit a Python loop's: block by block, then column by column, then
``alpha * sum + beta * y``) for scalar and block matrices, padded rows, gradients of block products, and the
host's cost of a call (no array made per call)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp

from .util import SCALARS, block_type, random_bsr, vec_type


def _ordered_mv(A, x, y, alpha, beta, scalar):
    """The product of ``A``'s compact or padded rows, each coefficient summed in bsr_mv's order, in ``scalar``."""
    t = SCALARS[scalar]
    offsets, columns = A.offsets.numpy(), A.columns.numpy()
    counts = None if A.row_counts is None else A.row_counts.numpy()
    values = A.scalar_values.numpy()
    br, bc = A.block_shape
    out = np.empty(A.nrow * br, dtype=t)
    for r in range(A.nrow):
        end = offsets[r + 1] if counts is None else offsets[r] + counts[r]
        for i in range(br):
            total = t(0)
            for b in range(offsets[r], end):
                for j in range(bc):
                    total = t(total + t(values[b, i, j] * x[columns[b] * bc + j]))
            total = t(t(alpha) * total)
            if beta != 0.0:
                total = t(total + t(t(beta) * y[r * br + i]))
            out[r * br + i] = total
    return out


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3), (3, 1), (1, 2)])
@pytest.mark.parametrize("scalar", [wp.float32, wp.float64])
def test_products_add_in_a_fixed_order(shape, scalar):
    rng = np.random.default_rng(7)
    A, _ = random_bsr(rng, 9, 7, shape, scalar, density=0.6)
    xd = rng.uniform(-1, 1, 7 * shape[1]).astype(SCALARS[scalar])
    yd = rng.uniform(-1, 1, 9 * shape[0]).astype(SCALARS[scalar])
    x = wp.array(xd.reshape(7, -1) if shape[1] > 1 else xd, dtype=vec_type(shape[1], scalar))
    for alpha, beta in ((1.0, 0.0), (0.7, 0.3), (-1.5, 1.0), (1.0, 1.0), (0.0, 0.5)):  # alpha 1: no multiply
        y = wp.array(yd.reshape(9, -1) if shape[0] > 1 else yd, dtype=vec_type(shape[0], scalar))
        sp.bsr_mv(A, x, y, alpha=alpha, beta=beta)
        np.testing.assert_array_equal(y.numpy().reshape(-1), _ordered_mv(A, xd, yd, alpha, beta, scalar))


def test_padded_rows_read_only_their_used_blocks():
    P = sp.bsr_zeros(3, 3, wp.mat22d, row_capacity=3)
    blocks = wp.array(np.arange(16.0).reshape(4, 2, 2), dtype=wp.mat22d)
    sp.bsr_set_from_triplets(P, wp.array([0, 2, 2, 0], dtype=int), wp.array([1, 0, 2, 1], dtype=int), blocks,
                             topology="padded")
    assert P.row_counts.numpy().tolist() == [1, 0, 2]
    xd = np.arange(1.0, 7.0)
    y = sp.bsr_mv(P, wp.array(xd.reshape(3, 2), dtype=wp.vec2d))
    np.testing.assert_array_equal(y.numpy().reshape(-1), _ordered_mv(P, xd, None, 1.0, 0.0, wp.float64))
    assert y.numpy().reshape(-1).tolist() == [92.0, 120.0, 0.0, 0.0, 108.0, 136.0]


def test_gradients_flow_through_block_products():
    vals = wp.array(np.arange(12.0).reshape(3, 2, 2), dtype=wp.mat22d, requires_grad=True)
    x = wp.array(np.arange(4.0).reshape(2, 2), dtype=wp.vec2d, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 2, wp.array([0, 0, 1], dtype=int), wp.array([0, 1, 1], dtype=int), vals)
        y = sp.bsr_mv(A, x, alpha=2.0)
    dense = np.array([[0, 1, 4, 5], [2, 3, 6, 7], [0, 0, 8, 9], [0, 0, 10, 11]], dtype=float)
    assert y.numpy().reshape(-1).tolist() == (2 * dense @ np.arange(4.0)).tolist()
    y.grad.assign(np.array([[1.0, 2.0], [3.0, 4.0]]))
    tape.backward()
    assert x.grad.numpy().reshape(-1).tolist() == (2 * dense.T @ np.arange(1.0, 5.0)).tolist()
    # d y_r / d block (r, c) = 2 * outer(ybar_r, x_c)
    ybar, xs = np.array([[1.0, 2.0], [3.0, 4.0]]), np.arange(4.0).reshape(2, 2)
    want = [2 * np.outer(ybar[0], xs[0]), 2 * np.outer(ybar[0], xs[1]), 2 * np.outer(ybar[1], xs[1])]
    np.testing.assert_array_equal(vals.grad.numpy(), np.array(want))


def test_a_call_makes_no_arrays(monkeypatch):
    A, _ = random_bsr(np.random.default_rng(1), 6, 6, (1, 1), wp.float64)
    x = wp.array(np.ones(6), dtype=wp.float64)
    y = wp.zeros(6, dtype=wp.float64)
    sp.bsr_mv(A, x, y)  # compile or load
    from brickwork.runtime import launch as launch_module

    made = []
    original = launch_module._host_arguments

    def counting(kernel, args):  # the launch's slow path: arrays made for None arguments
        made.append(kernel.key)
        return original(kernel, args)

    monkeypatch.setattr(launch_module, "_host_arguments", counting)
    sp.bsr_mv(A, x, y, alpha=2.0, beta=1.0)
    assert made == []


def test_block_types_of_one_shape_share_a_kernel():
    from brickwork.sparse.mv import block_kernel

    assert block_kernel(3, 2) is block_kernel(3, 2) and block_kernel(3, 2) is not block_kernel(2, 3)
    assert block_type((3, 3), wp.float64) is wp.mat33d
