"""A launch whose extents multiply past what the kernel counts in int64 (2**63 - 1 points) is refused: the
count wrapped around (65536**4 is 2**64, 0 in int64) and the launch ran nothing, without an error. Nothing is
written; launches of fewer points run as before."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def mark_origin(out: wp.array(dtype=float)):
    i, j, k, m = wp.tid()
    if i == 0 and j == 0 and k == 0 and m == 0:
        out[0] = 1.0
    if i == 1 and j == 1 and k == 1 and m == 1:
        out[1] = 2.0


@pytest.mark.parametrize("dim, points", [((65536,) * 4, 2**64), ((2**30,) * 4, 2**120),
                                         ((2**31 - 1, 2**31 - 1, 2**31 - 1, 2), 2 * (2**31 - 1)**3)])
def test_more_points_than_an_int64_counts_are_refused(dim, points):
    out = wp.full(2, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=rf"launch of 'mark_origin': dim \({dim[0]}, .* has {points} points, more "
                                             r"than a launch counts \(2\*\*63 - 1\)"):
        wp.launch(mark_origin, dim=dim, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_a_par_for_over_too_many_points_is_refused():
    out = wp.full(2, -1.0, dtype=float)

    def body(i, j, k, m):
        out[0] = 1.0

    with pytest.raises(wp.LaunchError, match=r"has 18446744073709551616 points"):
        wp.par_for(65536, 65536, 65536, 65536, body)
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_a_few_points_in_four_dimensions_run():
    out = wp.full(2, -1.0, dtype=float)
    wp.launch(mark_origin, dim=(2, 2, 2, 2), inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])
