"""A scalar on the left of a host vector or matrix operator, as Warp 1.19's host values take it (newuser round 11):
``2.0 + v``, ``1.0 - v`` and ``2.0 @ m`` / ``m @ 2.0`` were Python's 'unsupported operand' TypeErrors here while
``v + 2.0`` ran. Values checked against Warp 1.19 (its results are the same numbers, typed ``vec_t`` there)."""

import numpy as np
import pytest

import brickwork as wp


def test_scalar_plus_and_minus_a_vector():
    v = wp.vec3(1.0, 2.0, 3.0)
    s = 2.0 + v
    assert type(s) is wp.vec3f and list(s) == [3.0, 4.0, 5.0] and s == v + 2.0
    d = 1.0 - v
    assert type(d) is wp.vec3f and list(d) == [0.0, -1.0, -2.0]
    assert list(1.0 - wp.vec3d(1.0, 2.0, 3.0)) == [0.0, -1.0, -2.0] and type(1.0 - wp.vec3d()) is wp.vec3d
    assert type(2 + wp.vec3i(1, 2, 3)) is wp.vec3i and list(1 - wp.vec3i(1, 2, 3)) == [0, -1, -2]
    assert list(2.0 + wp.quat(0.0, 0.0, 0.0, 1.0)) == [2.0, 2.0, 2.0, 3.0]
    np.testing.assert_array_equal(np.array(1.0 - wp.mat22(1.0, 2.0, 3.0, 4.0)), [[0.0, -1.0], [-2.0, -3.0]])
    assert sum([wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0)]) == wp.vec2(4.0, 6.0)  # sum() adds 0 + v first (Warp refuses int + vec2f)


def test_matrix_at_scalar_scales():
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0)
    for scaled in (m @ 2.0, 2.0 @ m):
        assert type(scaled) is wp.mat33f
        np.testing.assert_array_equal(np.array(scaled), 2.0 * np.array(m))
    assert list(m @ wp.vec3(1.0, 1.0, 1.0)) == [6.0, 15.0, 25.0]  # products as before


def test_refusals_name_the_types_and_change_nothing():
    vi = wp.vec3i(1, 2, 3)
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'add' compatible with the arguments "
                                           r"'float, vec3i' \(nothing is converted"):
        2.5 + vi
    with pytest.raises(TypeError, match=r"^Couldn't find a function 'sub' compatible with the arguments "
                                        r"'float, vec3i'"):
        2.5 - vi
    assert list(vi) == [1, 2, 3]
    v = wp.vec3(1.0, 2.0, 3.0)
    for left in (None, "a", (1.0, 2.0, 3.0)):
        with pytest.raises(TypeError):
            left + v
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for @: 'vec3f' and 'float'"):
        v @ 2.0  # Warp's host refuses a vector @ a scalar too
    assert list(v) == [1.0, 2.0, 3.0]
