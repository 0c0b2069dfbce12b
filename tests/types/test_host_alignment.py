"""New host arrays start on a 64-byte boundary, as Warp's host allocations do (JAX's CPU views memory so
aligned without copying it: wp.to_jax)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.array_memory import ALIGNMENT


@pytest.mark.parametrize("make", [
    lambda: wp.zeros(1000), lambda: wp.empty(7, dtype=wp.int8), lambda: wp.ones(3, dtype=wp.float64),
    lambda: wp.full((2, 3), 5, dtype=wp.int16), lambda: wp.zeros(5, dtype=wp.vec3),
    lambda: wp.array(np.arange(4, dtype=np.float32)), lambda: wp.array([1.0, 2.0]),
    lambda: wp.array([[1, 2], [3, 4]], dtype=wp.vec2), lambda: wp.array(shape=(3, 3), dtype=wp.mat22),
    lambda: wp.clone(wp.array(np.arange(9, dtype=np.uint8)[1:])),
], ids=["zeros", "empty", "ones", "full", "vec3", "from_numpy", "from_list", "vec2_from_list", "shape", "clone"])
def test_new_host_arrays_are_aligned_and_hold_their_values(make):
    a = make()
    assert ALIGNMENT == 64 and a.ptr % 64 == 0
    assert a.is_contiguous and a.capacity == a.numpy().nbytes  # the alignment adds nothing to the array


def test_values_survive_the_aligned_copy():
    a = wp.array(np.arange(12, dtype=np.float64).reshape(3, 4)[:, 1:], dtype=wp.float32)  # a strided source
    np.testing.assert_array_equal(a.numpy(), np.arange(12).reshape(3, 4)[:, 1:])
    assert a.strides == (12, 4) and a.ptr % 64 == 0
    assert wp.zeros((2, 0)).shape == (2, 0) and wp.zeros((2, 0))[:, ::2].is_contiguous
