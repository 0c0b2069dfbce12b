"""Constant negative array indices count from the end of their dimension, as in Python and Warp."""

import numpy as np

import brickwork as wp


@wp.kernel
def _ends(a: wp.array(dtype=wp.float32), m: wp.array2d(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    out[0] = a[-1]
    out[1] = a[-3]
    out[2] = m[-1, -2]
    row = m[-2]
    out[3] = row[-1]
    out[-1] = m[0, -1]  # a store counts from the end too


def test_constant_negative_indices_read_and_write_from_the_end():
    a = np.arange(5, dtype=np.float32)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = wp.zeros(6, dtype=wp.float32)
    wp.launch(_ends, 1, inputs=[wp.array(a), wp.array(m), out])
    np.testing.assert_array_equal(out.numpy(), [a[-1], a[-3], m[-1, -2], m[-2][-1], 0, m[0, -1]])
