"""Host constructors of vectors, matrices and quaternions refuse components that are no numbers, and build
from parts as kernels do (newuser round 9): wp.vec3(None, 1.0, 2.0) was [nan, 1.0, 2.0] and wp.vec3('1', 2.0,
3.0) [1.0, 2.0, 3.0] without a word (Warp 1.19: TypeError 'must be real number'); wp.quat(wp.vec3(...), w),
which kernels build, and wp.vec4(wp.vec3(...), 4.0) raised numpy's 'inhomogeneous shape' ValueError."""

import fractions

import numpy as np
import pytest

import brickwork as wp


@pytest.mark.parametrize("make, message", [
    (lambda: wp.vec3(None, 1.0, 2.0), "vec3f(): a component must be a real number, not NoneType"),
    (lambda: wp.vec3(None), "vec3f(): a component must be a real number, not NoneType"),
    (lambda: wp.vec3("1", 2.0, 3.0), "vec3f(): a component must be a real number, not str"),
    (lambda: wp.mat22d(1.0, None, 2.0, 3.0), "mat22d(): a component must be a real number, not NoneType"),
    (lambda: wp.quat(0.0, 0.0, 0.0, "w"), "quatf(): a component must be a real number, not str"),
])
def test_components_that_are_no_numbers_are_refused(make, message):
    with pytest.raises(TypeError) as e:
        make()
    assert str(e.value) == message


def test_numbers_of_every_kind_are_components():
    v = wp.vec3(np.array(1.0), fractions.Fraction(1, 2), True)
    assert np.asarray(v).tolist() == [1.0, 0.5, 1.0]
    assert np.asarray(wp.vec3d(np.float32(2.5))).tolist() == [2.5] * 3
    assert np.asarray(wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    sv = wp.spatial_vector(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0))
    assert np.asarray(sv).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_quaternion_from_its_vector_part_and_w():
    q = wp.quat(wp.vec3(0.0, 0.6, 0.0), 0.8)
    assert type(q) is wp.quatf and np.asarray(q, dtype=np.float64).tolist() == [0.0, np.float32(0.6), 0.0, np.float32(0.8)]
    qd = wp.quatd(wp.vec3d(0.0, 0.0, 0.6), wp.float64(0.8))
    assert np.asarray(qd).tolist() == [0.0, 0.0, 0.6, 0.8]


def test_parts_of_other_sizes_are_refused_as_in_kernels():
    with pytest.raises(ValueError) as e:
        wp.vec4(wp.vec3(1.0, 2.0, 3.0), 4.0)
    assert str(e.value) == "cannot build vec4f from (vec3f, float)"
    with pytest.raises(ValueError, match=r"cannot build spatial_vectorf|cannot build vec6f"):
        wp.spatial_vector(wp.vec2(1.0, 2.0), wp.vec4(3.0, 4.0, 5.0, 6.0))
