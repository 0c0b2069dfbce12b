"""Values the host stores, converted as Warp converts them (but integers out of range are refused where Warp wraps
them: tests/safety/test_fill_ranges.py): floats out of range are
inf, a float for an integer type is refused (not truncated), a scalar is no array data, and arrays of different
dtypes are not copied into each other. Every refusal leaves the target unchanged."""

import numpy as np
import pytest

import brickwork as wp


def _filled(dtype, value, n=2):
    return wp.zeros(n, dtype=dtype).fill_(value).numpy().tolist()


@pytest.mark.parametrize("dtype, value, expected", [
    (wp.uint8, 255, 255), (wp.int8, -128, -128), (wp.int32, 2**31 - 1, 2**31 - 1), (wp.uint64, 2**64 - 1, 2**64 - 1),
    (wp.int64, -2**63, -2**63), (wp.int32, np.int64(-2**31), -2**31),
    (wp.uint8, wp.int32(200), 200), (wp.int32, True, 1), (wp.int32, wp.int64(5), 5),
    (wp.float32, 1e40, float("inf")), (wp.float16, 70000.0, float("inf")), (wp.float16, 10**6, float("inf")),
    (wp.float32, wp.float64(0.1), float(np.float32(0.1))), (wp.bool, 2.5, True),
])
def test_fill_converts_numbers_as_warp(dtype, value, expected):
    assert _filled(dtype, value) == [expected, expected]
    assert wp.full(2, value, dtype=dtype).numpy().tolist() == [expected, expected]


def test_fill_of_vectors_converts_their_components():
    assert _filled(wp.vec3ub, 255, 1) == [[255, 255, 255]]
    assert _filled(wp.vec3ub, (255, 2, 0), 1) == [[255, 2, 0]]
    assert _filled(wp.vec3ub, wp.vec3ub(300, 2, -1), 1) == [[44, 2, 255]]  # the vector as its constructor made it
    assert _filled(wp.vec3, wp.vec3i(1, 2, 3), 1) == [[1.0, 2.0, 3.0]]
    assert _filled(wp.mat22, (1, 2, 3, 4), 1) == [[[1.0, 2.0], [3.0, 4.0]]]  # a matrix's components, flat


def test_full_defaults_to_zero_as_warp():
    a = wp.full(3)
    assert a.dtype is wp.int32 and a.numpy().tolist() == [0, 0, 0]
    assert wp.full(2, dtype=wp.vec3).numpy().tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("value", [2.7, 3.0, -1.0, np.float64(2.5), np.float32(2.0), wp.float32(2.5), float("nan")])
def test_a_float_for_an_integer_array_is_refused(value):
    a = wp.full(2, 7, dtype=wp.int32)
    with pytest.raises(TypeError, match="fill_ of an array of int32 takes an integer, got float"):
        a.fill_(value)
    with pytest.raises(ValueError, match="takes an integer"):  # a ValueError too, as Warp's fill_ raises
        wp.full(2, value, dtype=wp.int32)
    with pytest.raises(TypeError, match=r"a\[0\] = ... of an array of int32 takes an integer"):
        a[0] = value
    assert a.numpy().tolist() == [7, 7]


def test_a_float_for_integer_components_is_refused():
    a = wp.zeros(1, dtype=wp.vec3i)
    with pytest.raises(TypeError, match=r"fill_: vec3i\(\) takes integers, got vec3f\(\[1.5, 2.0, 3.0\]\)"):
        a.fill_(wp.vec3(1.5, 2.0, 3.0))
    with pytest.raises(TypeError, match=r"fill_: vec3i\(\) takes an integer, got float 1.5"):
        a.fill_((1.5, 2, 3))
    with pytest.raises(TypeError, match=r"vec3i component takes an integer, got float 2.5"):
        wp.vec3i(1, 2, 3)[0] = 2.5
    assert a.numpy().tolist() == [[0, 0, 0]]


@pytest.mark.parametrize("dtype, value, got", [
    (wp.float32, "2.5", r"a str \('2.5'\)"), (wp.int32, None, r"a NoneType \(None\)"),
    (wp.float32, [1.0], r"a list \(\[1.0\]\)"), (wp.float32, wp.vec3(1, 2, 3), "a vec3f"),
])
def test_fill_of_a_scalar_array_takes_one_number(dtype, value, got):
    a = wp.full(2, 1, dtype=dtype)
    with pytest.raises(TypeError, match=rf"fill_: an array of {dtype.__name__} takes one number, got {got}"):
        a.fill_(value)
    with pytest.raises(ValueError, match="takes one number"):
        a.fill_(value)
    assert a.numpy().tolist() == [1, 1]


def test_item_assignment_of_one_number_converts_as_fill():
    u = wp.zeros(3, dtype=wp.uint8)
    u[0] = wp.int32(255)
    u[1:] = True
    assert u.numpy().tolist() == [255, 1, 1]
    m = wp.zeros((2, 2))
    m[0] = [1.0, 2.0]  # data (a list, an array) is numpy's to convert
    m[1] = np.array([3, 4])
    assert m.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("data", [5.0, 5, True, np.float32(5.0), wp.float32(5.0)])
def test_a_scalar_is_not_array_data(data):
    for kwargs in ({}, {"dtype": float}, {"shape": (3,)}):
        with pytest.raises(RuntimeError, match=r"Data must be a sequence or array, got scalar 5|True.*wp.full"):
            wp.array(data, **kwargs)
    assert wp.array([data], dtype=float).numpy().tolist() == [float(data)]
    assert wp.array(np.asarray(5.0)).shape == (1,)  # a 0-d numpy array is one element, as Warp


def test_assign_refuses_an_array_of_another_dtype():
    a = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    for src in (wp.array([4.0, 5.0, 6.0], dtype=wp.float64), wp.array([4, 5, 6], dtype=wp.int32),
                wp.zeros(1, dtype=wp.vec3)):
        with pytest.raises(TypeError, match=f"assign: Incompatible array data types: destination dtype=float32, "
                                            f"source dtype={src.dtype.__name__}"):
            a.assign(src)  # Warp raises too, or copies the bytes (an int32 1 would become 1.4e-45)
        with pytest.raises(RuntimeError, match="Incompatible array data types"):
            a.assign(src)
    picked = a[wp.array([0, 2], dtype=wp.int32)]  # an indexed array's assign likewise
    with pytest.raises(RuntimeError, match="assign: Incompatible array data types: destination dtype=float32, "
                                           "source dtype=int32"):
        picked.assign(wp.array([4, 5], dtype=wp.int32))
    assert a.numpy().tolist() == [1.0, 2.0, 3.0]
    a.assign(np.array([4.0, 5.0, 6.0]))  # numpy data and lists are converted, as in Warp
    a.assign([7, 8, 9])
    assert a.numpy().tolist() == [7.0, 8.0, 9.0]
    a.assign(wp.array(wp.array([1.5, 2.5, 3.5], dtype=wp.float64), dtype=wp.float32))  # converting explicitly
    assert a.numpy().tolist() == [1.5, 2.5, 3.5]


def test_host_operators_refuse_mixing_integer_values_with_floats_and_component_types():
    """``vec3i * 2.5`` gave ``vec3i([2, 5, 7])`` (numpy's product cast back); like Warp (and kernels), an integer
    value with a float, or two values of different component types, is refused; the operands are unchanged."""
    v, f = wp.vec3i(1, 2, 3), wp.vec3f(1.0, 2.0, 3.0)
    cases = [(lambda: v * 2.5, "mul", "vec3i, float"), (lambda: 2.5 * v, "mul", "float, vec3i"),
             (lambda: v + 1.5, "add", "vec3i, float"), (lambda: v - wp.float32(1), "sub", "vec3i, float32"),
             (lambda: v / 2.0, "div", "vec3i, float"), (lambda: v + f, "add", "vec3i, vec3f"),
             (lambda: f - wp.vec3d(1.0, 1.0, 1.0), "sub", "vec3f, vec3d"), (lambda: v + [1.5, 0, 0], "add", "vec3i, list")]
    for call, op, names in cases:
        with pytest.raises(RuntimeError, match=f"Couldn't find a function '{op}' compatible with the arguments '{names}'"):
            call()
        with pytest.raises(TypeError):
            call()
    assert list(v) == [1, 2, 3] and list(f) == [1.0, 2.0, 3.0]
    assert list(v * 2) == [2, 4, 6] and list(v / 2) == [0, 1, 1] and list(v + [1, 0, 0]) == [2, 2, 3]
    assert list(f * 2) == [2.0, 4.0, 6.0]  # a Python int with a float value is exact: kept
    assert list(wp.vec3f(v) * 2.5) == [2.5, 5.0, 7.5]
