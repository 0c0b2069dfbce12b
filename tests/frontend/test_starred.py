"""Starred arguments in kernels (``wp.vec4(*v3, 1.0)``, ``wp.max(*v)``, ``wp.vec3i(*arr[:3])``): the components of
vectors, quaternions, transforms and tuples, the rows of matrices and the elements of constant slices of 1-D
arrays, with Warp's errors for what cannot be spread."""

import numpy as np
import pytest

import brickwork as wp


@wp.func
def add3(a: float, b: float, c: float):
    return a + b + c


@wp.kernel
def spread(arr: wp.array(dtype=int), out: wp.array(dtype=float)):
    v3 = wp.vec3(1.0, 2.0, 3.0)
    v4 = wp.vec4(*v3, 4.0)
    out[0] = v4[3] + v4[0]  # 5
    out[1] = wp.max(*wp.vec2(5.0, 10.0))  # 10
    q = wp.quat(1.0, 2.0, 3.0, 4.0)
    out[2] = wp.vec4(*q)[2]  # 3
    out[3] = wp.vec2(*q[2:])[0]  # 3
    out[4] = wp.vec2(*wp.vec4(1.0, 2.0, 3.0, 4.0)[3:1:-1])[1]  # 3: a negative step of a vector slice
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    rows = wp.matrix_from_rows(*m[1:])
    out[5] = rows[1, 2]  # 9
    t = (1.5, 2.5, 3.0)
    out[6] = add3(*t)  # 7: tuples spread too
    out[7] = float(wp.vec3i(*arr[1:7:2])[2])  # arr[5] = 50
    out[8] = float(wp.max(*arr[:2]))  # 10
    tf = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    out[9] = wp.vector(*tf, length=7)[6]  # 1: the rotation's w


def test_spread_values():
    arr = wp.array(np.arange(10, dtype=np.int32) * 10, dtype=int)
    out = wp.zeros(10, dtype=float)
    wp.launch(spread, dim=1, inputs=[arr, out])
    np.testing.assert_allclose(out.numpy(), [5, 10, 3, 3, 3, 9, 7, 50, 10, 1])


def _error(body, *inputs):
    with pytest.raises(wp.KernelError) as info:
        wp.launch(wp.kernel(body), dim=1, inputs=list(inputs))
    return info.value


def test_errors_for_array_slices():
    a = wp.zeros(10, dtype=int)

    def non_constant(arr: wp.array(dtype=int), n: int):
        wp.vec3i(*arr[:n])

    def open_end(arr: wp.array(dtype=int)):
        wp.vec3i(*arr[0:])

    def negative(arr: wp.array(dtype=int)):
        wp.vec3i(*arr[:-3])

    def backwards(arr: wp.array(dtype=int)):
        wp.vec3i(*arr[5:2:-1])

    def empty(arr: wp.array(dtype=int)):
        wp.vec2i(*arr[3:3], 1, 2)

    e = _error(non_constant, a, 3)
    assert isinstance(e, ValueError) and "Slice component must be a compile-time constant" in str(e)
    e = _error(open_end, a)
    assert isinstance(e, ValueError) and "requires explicit upper bound" in str(e)
    e = _error(negative, a)
    assert isinstance(e, ValueError) and "cannot be negative for arrays" in str(e)
    e = _error(backwards, a)
    assert isinstance(e, ValueError) and "step cannot be negative" in str(e)
    assert "results in empty sequence" in str(_error(empty, a))

    def two_dims(arr: wp.array2d(dtype=int)):
        wp.vec2i(*arr[0:2])

    e = _error(two_dims, wp.zeros((2, 2), dtype=int))
    assert "only supported for 1D arrays, got 2D array" in str(e)


def test_errors_for_values():
    def scalar():
        x = 42
        wp.vec3i(*x)

    def writes(a: wp.array(dtype=float)):
        wp.vec2(*wp.vec2(wp.atomic_add(a, 0, 1.0), 0.0))

    e = _error(scalar)
    assert isinstance(e, TypeError) and "Starred expressions are only supported for" in str(e) and "int32" in str(e)
    assert "has an effect" in str(_error(writes, wp.zeros(1, dtype=float)))


def test_component_count_must_fit():
    def too_many():
        wp.vec2(*wp.vec4(1.0, 2.0, 3.0, 4.0))

    assert "incompatible number of values given (4)" in str(_error(too_many))
