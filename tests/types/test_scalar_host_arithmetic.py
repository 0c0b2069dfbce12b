"""Host arithmetic of scalar values (``wp.float32(2) * wp.float32(3)``) and ``%`` of host vectors: the
kernel's results, with Warp's operand rules and result types."""

from __future__ import annotations

import math

import numpy as np
import pytest

import brickwork as wp


def test_float32_and_int32_results_are_python_numbers_others_keep_their_type():
    r = wp.float32(1) + wp.float32(5)
    assert type(r) is float and r == 6.0
    assert type(wp.int32(7) - 2) is int and wp.int32(7) - 2 == 5
    r = wp.float64(2) / wp.float64(3)
    assert type(r) is wp.float64 and r.value == 2.0 / 3.0
    r = wp.float16(2) * wp.float16(3)
    assert type(r) is wp.float16 and r.value == 6.0
    assert type(-wp.uint8(1)) is wp.uint8 and (-wp.uint8(1)).value == 255


def test_values_are_the_kernels():
    assert wp.float32(0.1) + wp.float32(0.2) == float(np.float32(0.1) + np.float32(0.2))
    assert (wp.float16(0.1) + wp.float16(0.2)).value == float(np.float16(0.1) + np.float16(0.2))  # nearest even
    assert (wp.int8(100) + wp.int8(100)).value == -56  # wraps
    assert (wp.uint32(1) - wp.uint32(2)).value == 2**32 - 1
    assert wp.int32(2147483647) + 1 == -2147483648
    assert wp.int32(-7) / wp.int32(2) == -3 and wp.int32(-7) % wp.int32(2) == -1  # toward zero, as C
    assert wp.int32(1) / wp.int32(0) == 0 and wp.int32(1) % wp.int32(0) == 0  # no trap, as kernels
    assert (wp.int8(-128) / wp.int8(-1)).value == -128
    assert wp.float32(-7.5) % wp.float32(2) == -1.5  # fmod
    assert wp.float32(1) / wp.float32(0) == math.inf and math.isnan(wp.float32(0) / wp.float32(0))
    assert wp.float32(1e38) * wp.float32(10) == math.inf
    assert wp.float32(2) ** wp.float32(3) == 8.0 and 3.0 ** wp.float32(2) == 9.0
    assert (wp.float64(2) ** wp.float64(0.5)).value == math.sqrt(2.0)
    assert +wp.float32(1) == 1.0 and -wp.float32(1) == -1.0
    assert abs(wp.int8(-128)).value == -128 and type(abs(wp.float32(-5))) is wp.float32
    assert round(wp.float64(2.5)).value == 2.0 and type(round(wp.float32(2.567), 1)) is wp.float32
    assert wp.float32(3) + np.float32(2) == 5.0  # a numpy scalar of the same type


@pytest.mark.parametrize("expr, names", [
    ("wp.float32(1) + 5", "float32, int"), ("5 + wp.float32(1)", "int, float32"),
    ("wp.int64(1) + 5", "int64, int"), ("wp.float64(1) * 1.5", "float64, float"),
    ("wp.float32(1) + wp.float64(1)", "float32, float64"), ("wp.int32(3) + True", "int32, bool"),
])
def test_operands_of_different_types_are_refused_as_warp_refuses_them(expr, names):
    with pytest.raises(RuntimeError, match=f"Couldn't find a function '(add|mul)' compatible with the arguments "
                                           f"'{names}'"):
        eval(expr)


@pytest.mark.parametrize("expr", ["wp.int32(2) ** wp.int32(3)", "wp.int32(7) // wp.int32(2)",
                                  "wp.int32(5) & wp.int32(3)", "~wp.int32(5)", "wp.bool(True) + wp.bool(True)",
                                  "-wp.bool(True)"])
def test_operators_the_scalars_lack_are_type_errors(expr):
    with pytest.raises(TypeError):
        eval(expr)


def test_scalars_combine_with_arrays_and_vectors_through_their_operators():
    assert (wp.float32(2) * wp.vec3(1.0, 2.0, 3.0)) == wp.vec3(2.0, 4.0, 6.0)
    assert type(wp.float32(3) + wp.vec3()) is wp.vec3f and wp.float32(3) + wp.vec3() == wp.vec3(3.0, 3.0, 3.0)
    np.testing.assert_array_equal((wp.float32(3) + wp.array([1.0, 2.0], dtype=wp.float32)).numpy(), [4.0, 5.0])


def test_host_vector_remainder_and_int_wrapping():
    assert wp.vec3(5.5, -5.5, 7.0) % wp.vec3(2.0, 2.0, -3.0) == wp.vec3(1.5, -1.5, 1.0)
    assert wp.vec3i(7, -7, 7) % wp.vec3i(3, 0, -3) == wp.vec3i(1, 0, 1)
    with pytest.raises(TypeError):
        wp.vec3(1.0, 2.0, 3.0) % wp.vec3d(1.0, 1.0, 1.0)
    with pytest.raises(TypeError):
        wp.mat22() % wp.mat22()
    assert wp.vec3ui(1, -2, 3).flat_values() == [1, 2**32 - 2, 3]
    assert wp.types.matrix((2, 2), wp.int8)([[1, 200], [3, -129]]).flat_values() == [1, -56, 3, 127]
