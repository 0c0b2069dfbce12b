"""wp.determinant and wp.inverse called from Python give the kernels' values: a float64 matrix's determinant
and inverse are the kernels' cofactor formulas (numpy's LU gave det [[1, 2], [3, 4]] = -2.0000000000000004,
Warp 1.19 gives -2.0), and the inverse of a singular matrix is the zero matrix, as in kernels and in Warp
(it raised numpy's LinAlgError)."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def det_and_inverse(m: wp.array(dtype=Any), d: wp.array(dtype=Any), inv: wp.array(dtype=Any)):
    i = wp.tid()
    d[i] = wp.determinant(m[i])
    inv[i] = wp.inverse(m[i])


@pytest.mark.parametrize("mat, scalar", [(wp.mat22d, wp.float64), (wp.mat33d, wp.float64), (wp.mat44d, wp.float64),
                                         (wp.mat33f, wp.float32)])
def test_host_values_are_the_kernels(mat, scalar):
    n = mat._shape[0]
    rng = np.random.default_rng(n)
    data = np.concatenate([rng.standard_normal((6, n, n)), rng.integers(-3, 4, (6, n, n))]).astype(scalar._np)
    m = wp.array(data, dtype=mat)
    d, inv = wp.zeros(len(data), dtype=scalar), wp.zeros(len(data), dtype=mat)
    wp.launch(det_and_inverse, dim=len(data), inputs=[m, d, inv])
    host = [mat(*row.ravel().tolist()) for row in data]
    np.testing.assert_array_equal(np.array([float(wp.determinant(h)) for h in host], dtype=scalar._np), d.numpy())
    np.testing.assert_array_equal(np.array([np.asarray(wp.inverse(h)) for h in host]), inv.numpy())


def test_exact_results_and_singular_matrices():
    assert wp.determinant(wp.mat22d(1.0, 2.0, 3.0, 4.0)) == -2.0
    assert np.asarray(wp.inverse(wp.mat22d(1.0, 2.0, 3.0, 4.0))).tolist() == [[-2.0, 1.0], [1.5, -0.5]]
    assert wp.determinant(wp.mat33d(2.0, 0.0, 1.0, 1.0, 3.0, 0.0, 0.0, 1.0, 4.0)) == 25.0
    singular = wp.mat33(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0)
    zero = wp.inverse(singular)
    assert type(zero) is wp.mat33f and np.asarray(zero).tolist() == [[0.0] * 3] * 3
    assert np.asarray(singular).tolist() == [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]  # unchanged
