"""A ``@func``'s return annotation is checked against its ``return`` values (Warp's errors); ``transformation(p=,
q=)`` takes runtime values."""

import numpy as np
import pytest

import brickwork as wp


@wp.func
def narrow(x: wp.int32) -> wp.int16:
    return wp.int8(x)


@wp.func
def two_for_one(x: int) -> int:
    return (x + x, x * x)


@wp.func
def wrong_item(x: int) -> tuple[int, int]:
    return (x, 1.23)


@wp.func
def too_few(x: int) -> tuple[int, int, int]:
    return (x + x, x * x)


@wp.func
def fine(x: float, v: wp.vec3) -> tuple[float, wp.vec3]:
    return (x * 2.0, v)


@wp.func
def generic(x: wp.Float) -> wp.Float:
    return x


@pytest.mark.parametrize("f, message", [
    (narrow, r"The function `narrow` has its return type annotated as `int16` but the code returns a value of type "
             r"`int8`\."),
    (two_for_one, r"annotated as `int` but the code returns 2 values\."),
    (wrong_item, r"annotated as `tuple\[int, int\]` but the code returns a tuple with types `\(int32, float32\)`\."),
    (too_few, r"annotated as a tuple of 3 elements but the code returns 2 values\."),
])
def test_return_annotation_mismatches_are_errors(f, message):
    @wp.kernel
    def k(out: wp.array(dtype=int)):
        f(123)

    out = wp.zeros(1, dtype=int)
    with pytest.raises(wp.KernelTypeError, match=message):
        wp.launch(k, 1, inputs=[out])


def test_matching_annotations_pass():
    @wp.kernel
    def k(out: wp.array(dtype=float), vs: wp.array(dtype=wp.vec3)):
        a, v = fine(1.5, wp.vec3(1.0, 2.0, 3.0))
        out[0] = a + generic(1.0)
        out[1] = float(generic(wp.float64(2.0)))
        vs[0] = v

    out, vs = wp.zeros(2), wp.zeros(1, dtype=wp.vec3)
    wp.launch(k, 1, inputs=[out, vs])
    assert out.numpy().tolist() == [4.0, 2.0] and vs.numpy().tolist() == [[1.0, 2.0, 3.0]]


def test_transformation_takes_runtime_parts():
    @wp.kernel
    def k(vs: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.transform)):
        i = wp.tid()
        out[i] = wp.transformation(p=vs[i], q=qs[i])

    out = wp.zeros(1, dtype=wp.transform)
    wp.launch(k, 1, inputs=[wp.array([[2.0, 3.0, 4.0]], dtype=wp.vec3),
                            wp.array([[5.0, 6.0, 7.0, 8.0]], dtype=wp.quat), out])
    np.testing.assert_array_equal(out.numpy(), [[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]])
