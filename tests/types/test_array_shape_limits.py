"""Array shapes: every dimension in [0, 2**31 - 1] (kernels index with 32-bit ints), refused before any
allocation."""

import re

import numpy as np
import pytest

import brickwork as wp

TOO_LONG = "must not exceed the maximum representable value of a signed 32-bit integer, got 2147483648 in dimension"


@pytest.mark.parametrize("make", [wp.zeros, wp.empty, wp.ones])
@pytest.mark.parametrize("shape, dim", [(2**31, 0), ((1, 2**31), 1), ((2, 3, 2**31), 2)])
def test_allocations_refuse_a_dimension_over_int32(make, shape, dim):
    with pytest.raises(ValueError, match=f"{TOO_LONG} {dim}"):
        make(shape, dtype=wp.int8)


def test_numpy_data_is_checked_before_it_is_copied():
    huge = np.broadcast_to(np.zeros(1, dtype=np.int8), (2**31,))  # a zero-stride view: nothing allocated
    with pytest.raises(ValueError, match=f"{TOO_LONG} 0"):
        wp.array(huge, dtype=wp.int8, device="cpu")


def test_the_largest_dimension_is_accepted_and_negative_ones_are_refused():
    view = wp.array(np.broadcast_to(np.zeros(1, dtype=np.int8), (1, 2**31 - 1)), dtype=wp.int8, copy=False)
    assert view.shape == (1, 2**31 - 1)
    with pytest.raises(ValueError, match="Array shapes must be non-negative, got -1 in dimension 1"):
        wp.zeros((3, -1))
    with pytest.raises(ValueError, match="Array shapes must be non-negative, got -2 in dimension 0"):
        wp.array(dtype=float, shape=(-2,))


@pytest.mark.parametrize("make", [wp.zeros, wp.empty, lambda s: wp.full(s, 1)])
@pytest.mark.parametrize("shape", [3.5, 2.0, (2, None), (2, "x"), (2, 2.5), (np.float32(0.5),), "3", "34", ("3",),
                                   b"3"])
def test_a_shape_that_is_no_int_or_tuple_of_ints_is_named(make, shape):
    # Warp converts each entry with int(): (2, 2.5) would make 2 columns, "34" a (3, 4) array
    with pytest.raises(TypeError, match=r"an array shape is an int or a tuple of ints, got " + re.escape(repr(shape))):
        make(shape)
    assert make((2, 2.0)).shape == (2, 2) and make((np.int64(3), np.float64(1.0), True)).shape == (3, 1, 1)


def test_a_refused_shape_leaves_the_buffer_it_would_view_alone():
    data = np.arange(4, dtype=np.float32)
    with pytest.raises(TypeError, match="an array shape is an int or a tuple of ints"):
        wp.array(ptr=data.ctypes.data, shape=(1.5,), dtype=wp.float32, device="cpu")
    np.testing.assert_array_equal(data, np.arange(4))
