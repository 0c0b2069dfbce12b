"""A tuple, list or numpy array launched for an integer vector or matrix parameter is range-checked as a scalar
integer argument is: (2**40, 1) for a vec2i was packed as (0, 1) and (300, 0, 0) for a vec3ub as (44, 0, 0),
silently (Warp 1.19 does the same), while 2**40 for an int32 was refused. Now a LaunchError naming the kernel, the
argument and its value; nothing runs."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchArgumentError, LaunchError

mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)


@wp.kernel
def take_vec2i(v: wp.vec2i, out: wp.array(dtype=wp.int64)):
    out[0] = wp.int64(v[0])
    out[1] = wp.int64(v[1])


@wp.kernel
def take_vec3ub(v: wp.vec3ub, out: wp.array(dtype=wp.int64)):
    out[0] = wp.int64(v[0])
    out[1] = wp.int64(v[2])


@wp.kernel
def take_mat22i(m: mat22i, out: wp.array(dtype=wp.int64)):
    out[0] = wp.int64(m[0, 1])
    out[1] = wp.int64(m[1, 0])


@pytest.mark.parametrize(("kernel", "value", "shown"), [
    (take_vec2i, (2**40, 1), "(1099511627776, 1)"),
    (take_vec2i, [1, -(2**31) - 1], "[1, -2147483649]"),
    (take_vec3ub, (300, 0, 0), "(300, 0, 0)"),
    (take_vec3ub, (0, -1, 0), "(0, -1, 0)"),
    (take_mat22i, ((0, 2**31), (0, 0)), "((0, 2147483648), (0, 0))"),
    (take_mat22i, (0, 0, np.int64(2**40), 0), "(0, 0, np.int64(1099511627776), 0)"),
])
def test_sequences_out_of_range_are_refused(kernel, value, shown):
    out = wp.array([-5, -5], dtype=wp.int64)
    name = "m" if kernel is take_mat22i else "v"
    t = {take_vec2i: "vec2i", take_vec3ub: "vec3ub", take_mat22i: "mat22i"}[kernel]
    with pytest.raises(LaunchError) as e:
        wp.launch(kernel, dim=1, inputs=[value, out])
    assert str(e.value) == f"launch of '{kernel.key}': argument '{name}' = {shown} does not fit in {t}"
    np.testing.assert_array_equal(out.numpy(), [-5, -5])


def test_numpy_data_out_of_range_is_refused():
    out = wp.array([-5, -5], dtype=wp.int64)
    with pytest.raises(LaunchArgumentError) as e:
        wp.launch(take_vec2i, dim=1, inputs=[np.array([7, 2**40]), out])
    assert str(e.value) == ("launch of 'take_vec2i': argument 'v': numpy data for vec2i: the data hold 1099511627776 "
                            "at index (1,), which does not fit in the int32 components of vec2i (-2147483648 to "
                            "2147483647); nothing ran (Warp would wrap it silently)")
    np.testing.assert_array_equal(out.numpy(), [-5, -5])


def test_values_in_range_are_packed_as_given():
    out = wp.array([0, 0], dtype=wp.int64)
    for value in ((-(2**31), 2**31 - 1), [3, 4], np.array([5, 6], dtype=np.int64), wp.vec2i(7, 8)):
        wp.launch(take_vec2i, dim=1, inputs=[value, out])
        np.testing.assert_array_equal(out.numpy(), np.asarray(value, dtype=np.int64))
    wp.launch(take_vec3ub, dim=1, inputs=[(255, 9, 0), out])
    np.testing.assert_array_equal(out.numpy(), [255, 0])
    wp.launch(take_mat22i, dim=1, inputs=[((1, 2), (3, 4)), out])
    np.testing.assert_array_equal(out.numpy(), [2, 3])
    wp.launch(take_mat22i, dim=1, inputs=[(5, 6, 7, 8), out])  # flat components, row by row
    np.testing.assert_array_equal(out.numpy(), [6, 7])
    wp.launch(take_mat22i, dim=1, inputs=[(wp.vec2i(1, 2), np.array([3, 4])), out])  # rows as vectors and arrays
    np.testing.assert_array_equal(out.numpy(), [2, 3])
    with pytest.raises(LaunchError, match=r"argument 'm' = \(vec2l\(.*\) does not fit in mat22i"):
        wp.launch(take_mat22i, dim=1, inputs=[(wp.vec2l(0, 2**40), (0, 0)), out])
    np.testing.assert_array_equal(out.numpy(), [2, 3])
