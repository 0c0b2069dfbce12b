"""Atomics work on Warp's set of scalar types; others are refused at compile time with Warp's message."""

import numpy as np
import pytest

import brickwork as wp


def _adder(dtype, op):
    @wp.kernel(module="unique")
    def k(arr: wp.array(dtype=dtype)):
        op(arr, 0, dtype(1))

    return k


@pytest.mark.parametrize("dtype", [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.vec3b, wp.vec3us])
@pytest.mark.parametrize("op", [wp.atomic_add, wp.atomic_sub, wp.atomic_min, wp.atomic_max])
def test_small_integers_are_refused(dtype, op):
    arr = wp.array(np.full((1,) + getattr(dtype, "_shape", ()), 5), dtype=dtype)
    scalar = getattr(dtype, "_dtype", dtype).__name__
    with pytest.raises(wp.KernelUnsupportedTypeError, match=(
            rf"{op.__name__}\(\) operations only work on arrays with \[u\]int32, \[u\]int64, .*float32, or float64 "
            rf"as the underlying scalar types, but got {dtype.__name__} \(with scalar type {scalar}\)$")) as info:
        wp.launch(_adder(dtype, op), dim=1, inputs=[arr])
    assert isinstance(info.value, TypeError) and isinstance(info.value, RuntimeError)
    assert (arr.numpy() == 5).all()  # nothing ran


@pytest.mark.parametrize("op", [wp.atomic_min, wp.atomic_max])
def test_float16_min_max_are_refused_add_works(op):
    arr = wp.array([2.0], dtype=wp.float16)
    with pytest.raises(wp.KernelUnsupportedTypeError, match=r"bfloat16, float32, or float64 .* float16\)$"):
        wp.launch(_adder(wp.float16, op), dim=1, inputs=[arr])
    assert arr.numpy()[0] == 2.0
    wp.launch(_adder(wp.float16, wp.atomic_add), dim=4, inputs=[arr])
    assert arr.numpy()[0] == 6.0


@pytest.mark.parametrize("dtype", [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float32, wp.float64, wp.vec3i])
def test_supported_types_add(dtype):
    arr = wp.zeros(1, dtype=dtype)
    wp.launch(_adder(dtype, wp.atomic_add), dim=100, inputs=[arr])
    np.testing.assert_array_equal(arr.numpy().ravel(), np.full(getattr(dtype, "_length", 1), 100))


def test_kernel_errors_end_with_the_message_after_the_location():
    text = str(wp.KernelTypeError("the message", None))
    assert text == "the message"
    from brickwork.errors import SourceLocation
    err = wp.KernelTypeError("the message", SourceLocation("f.py", 3, "  x = y  ", "k"))
    assert str(err) == 'File "f.py", line 3, in k\n    x = y\nthe message'


@wp.kernel(module="unique")
def _neq_lengths():
    wp.expect_neq(wp.vec3f(0.0, 0.0, 0.0), wp.vec2f(0.0, 0.0))


def test_expect_of_two_types_is_refused():
    with pytest.raises(wp.KernelUnsupportedTypeError,
                       match=r"expect_neq\(\) got vec3f and vec2f: Can't test equality for objects with different types$"):
        wp.launch(_neq_lengths, dim=1)


@wp.kernel(module="unique")
def _augassign_small(a: wp.array(dtype=wp.int8), v: wp.array(dtype=wp.vec3s)):
    i = wp.tid()
    a[i] += wp.int8(3)
    a[i] -= wp.int8(1)
    v[i] += wp.vec3s(wp.int16(1), wp.int16(2), wp.int16(3))


def test_augmented_assignment_on_small_integers_reads_adds_and_stores():
    a = wp.array(np.array([1, 127], dtype=np.int8), dtype=wp.int8)
    v = wp.zeros(2, dtype=wp.vec3s)
    wp.launch(_augassign_small, dim=2, inputs=[a, v])
    np.testing.assert_array_equal(a.numpy(), [3, -127])  # 127 + 3 wraps around to -126, then - 1
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [1, 2, 3]])
