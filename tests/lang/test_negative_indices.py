"""Constant negative array indices count from the end of their dimension, as in Python and Warp; vector and
matrix component indices do too, constant or computed at run time."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


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


@wp.kernel
def _components(out: wp.array(dtype=wp.float32), i: int):
    v = wp.vec3(1.0, 2.0, 3.0)
    out[0] = v[i]
    v[i] = 9.0
    out[1] = v[2]
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    out[2] = m[i, i]
    row = m[i]
    out[3] = row[0]
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))
    out[4] = t.q[i]  # a part of a transform: the part's last component, not the transform's
    out[5] = t[i]


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_component_indices_computed_at_run_time_count_from_the_end(target):
    """As constant ones do (and as in Warp); they read outside the value, and wrote past it, before."""
    out = wp.zeros(6, dtype=wp.float32)
    with config.override(target=target):
        wp.launch(_components, 1, inputs=[out, -1])
    np.testing.assert_array_equal(out.numpy(), [3.0, 9.0, 4.0, 3.0, 7.0, 7.0])
    with config.override(target=target):
        wp.launch(_components, 1, inputs=[out, 1])
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0, 4.0, 3.0, 5.0, 2.0])


def test_a_component_index_past_the_end_is_a_bounds_error_in_debug_mode():
    out = wp.zeros(6, dtype=wp.float32)
    with config.override(mode="debug"):
        with pytest.raises(wp.BoundsError, match=r"index \(5\) is out of bounds for shape \(3\) at .*"
                                                 r"test_negative_indices.py:\d+"):
            wp.launch(_components, 1, inputs=[out, 5])
        with pytest.raises(wp.BoundsError, match=r"index \(-4\) is out of bounds for shape \(3\)"):
            wp.launch(_components, 1, inputs=[out, -4])
        wp.launch(_components, 1, inputs=[out, -2])  # in range for every value indexed
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0, 1.0, 1.0, 6.0, 6.0])
