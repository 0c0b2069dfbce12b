"""Edge cases of ``brickwork.utils`` and of array arithmetic: signed zeros, NaN of either sign, the summation
order of float sums and scans, aliased arguments, and the errors of operators given what they cannot take."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.utils import array_scan, array_sum, radix_sort_pairs, segmented_sort_pairs

# -- float sums and scans: accumulated in float64, rounded once ------------------------------------------


@pytest.mark.parametrize("inclusive", [True, False])
def test_array_scan_of_negative_zeros_starts_from_positive_zero_as_warp(inclusive):
    a = wp.array([-0.0, -0.0, -0.0], dtype=wp.float32)
    out = wp.full(3, -1.0, dtype=wp.float32)
    array_scan(a, out, inclusive=inclusive)
    assert out.numpy().tolist() == [0.0, 0.0, 0.0]
    assert not np.signbit(out.numpy()).any()
    vectors = wp.array([[-0.0, 1.0], [-0.0, -1.0]], dtype=wp.vec2d)
    out = wp.zeros(2, dtype=wp.vec2d)
    array_scan(vectors, out, inclusive=inclusive)
    assert not np.signbit(out.numpy()).any()


def test_array_sum_of_negative_zeros_is_positive_zero_as_warp():
    total = array_sum(wp.array([-0.0, -0.0], dtype=wp.float32))
    assert total == 0.0 and not np.signbit(total)


def test_float_scans_and_sums_round_the_float64_running_sum_once():
    data = np.array([1e8, 1.0, 1.0, 1.0, -1e8, 1.0], dtype=np.float32)
    out = wp.zeros(6, dtype=wp.float32)
    array_scan(wp.array(data), out)
    # float32 running sums (numpy's cumsum, Warp's CPU scan) lose the ones: [1e8, 1e8, 1e8, 1e8, 0, 1]
    assert out.numpy().tolist() == [1e8, 1e8, 1e8, 1e8, 3.0, 4.0]
    many = np.array([1e8] + [1.0] * 1000, dtype=np.float32)
    assert array_sum(wp.array(many)) == np.float32(100001000.0)  # exact; a float32 running sum gives 1e8
    # each prefix is rounded on its own: a float32 overflow in the middle does not stay
    out = wp.zeros(3, dtype=wp.float32)
    array_scan(wp.array([3e38, 3e38, -3e38], dtype=wp.float32), out)
    assert out.numpy().tolist() == [np.float32(3e38), np.inf, np.float32(3e38)]


def test_integer_scans_wrap_as_the_dtype_does():
    out = wp.zeros(3, dtype=wp.int32)
    array_scan(wp.array([2**31 - 1, 1, 1], dtype=wp.int32), out)
    assert out.numpy().tolist() == [2**31 - 1, -(2**31), -(2**31) + 1]
    array_scan(wp.array([2**31 - 1, 1, 1], dtype=wp.int32), out, inclusive=False)
    assert out.numpy().tolist() == [0, 2**31 - 1, -(2**31)]


# -- sorts ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_type", [wp.float32, wp.float64])
def test_radix_sort_pairs_puts_negative_nan_first_and_nan_last_as_warp(key_type):
    nan = np.array(np.nan, dtype=key_type._np)
    keys = np.array([1.0, nan, -0.0, 0.0, -np.inf, np.inf, -nan, -1.0, 0.0, -0.0], dtype=key_type._np)
    k = wp.array(np.concatenate([keys, np.zeros_like(keys)]), dtype=key_type)
    v = wp.array(np.arange(20), dtype=wp.int32)
    radix_sort_pairs(k, v, 10)
    assert v.numpy()[:10].tolist() == [6, 4, 7, 2, 9, 3, 8, 0, 5, 1]  # Warp 1.19's order
    assert np.signbit(k.numpy()[:10]).tolist() == [True, True, True, True, True] + [False] * 5


def test_radix_sort_pairs_with_keys_as_their_own_values():
    keys = wp.array([3, 1, 2, 0, 0, 0], dtype=wp.int32)
    radix_sort_pairs(keys, keys, 3)
    assert keys.numpy().tolist() == [1, 2, 3, 0, 0, 0]
    keys = wp.array([3, 1, 2, 0, 0, 0], dtype=wp.int32)
    segmented_sort_pairs(keys, keys, 3, wp.array([0, 3], dtype=wp.int32))
    assert keys.numpy().tolist() == [1, 2, 3, 0, 0, 0]


@pytest.mark.parametrize("bits", [{"begin_bit": 1.0}, {"end_bit": 16.0}, {"begin_bit": True}])
def test_radix_sort_pairs_refuses_bit_bounds_that_are_not_integers(bits):
    keys = wp.array([3, 1, 0, 0], dtype=wp.int32)
    with pytest.raises(RuntimeError, match="begin_bit and end_bit must be integers"):
        radix_sort_pairs(keys, wp.zeros(4, dtype=wp.int32), 2, **bits)
    assert keys.numpy().tolist() == [3, 1, 0, 0]


# -- array operators: Python numbers and dtypes ------------------------------------------------------------


def test_a_float_next_to_an_integer_array_is_refused_not_truncated():
    a = wp.array([1, 2], dtype=wp.int32)
    with pytest.raises(TypeError, match=r"array\(int32\) \+ float: the Python float 1.5 is not an integer"):
        a + 1.5
    with pytest.raises(TypeError, match=r"float \* array\(int32\): the Python float 2.0 is not an integer"):
        2.0 * a
    with pytest.raises(TypeError, match="the Python float 1.5 is not an integer"):
        a += 1.5
    assert a.numpy().tolist() == [1, 2]
    assert (a + 1).numpy().tolist() == [2, 3]


@pytest.mark.parametrize(("dtype", "number"), [(wp.int32, 2**40), (wp.int8, 128), (wp.uint32, -1),
                                               (wp.uint64, 2**64)])
def test_an_integer_out_of_the_arrays_range_is_refused_not_wrapped(dtype, number):
    a = wp.array([1, 2], dtype=dtype)
    with pytest.raises(OverflowError, match=f"the Python integer {number} is out of bounds for "):
        a + number
    with pytest.raises(OverflowError, match="out of bounds"):
        a -= number
    assert a.numpy().tolist() == [1, 2]


def test_extreme_integers_that_fit_are_taken():
    assert (wp.array([0], dtype=wp.int8) + (-128)).numpy().tolist() == [-128]
    assert (wp.array([0], dtype=wp.uint64) + (2**64 - 1)).numpy().tolist() == [2**64 - 1]
    assert (wp.array([100, 100], dtype=wp.int8) + wp.array([100, 100], dtype=wp.int8)).numpy().tolist() == [-56, -56]


def test_arrays_of_different_dtypes_name_the_operator_and_both_dtypes():
    a, b = wp.array([1, 2], dtype=wp.int32), wp.array([1.0, 2.0], dtype=wp.float32)
    with pytest.raises(TypeError, match=r"unsupported operand types for \+: array\(int32\) and array\(float32\)"):
        a + b
    with pytest.raises(TypeError, match=r"for \*: array\(float32\) and array\(float64\) \(the kernel operator mul "
                                        r"does not take float32 and float64"):
        b * wp.array([1.0, 2.0], dtype=wp.float64)
    with pytest.raises(TypeError, match=r"for -: array\(int32\) and array\(float32\)"):
        a -= b
    assert a.numpy().tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are not broadcastable"):
        b + wp.zeros(3, dtype=wp.float32)
