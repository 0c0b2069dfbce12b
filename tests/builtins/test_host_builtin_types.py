"""Scalar and composite builtins called from Python compute in the arguments' kernel types and return
Warp's result types (values checked against Warp 1.19)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.scalars import ScalarBase

BIG = -1234567890


@pytest.mark.parametrize("call, expected, result_type", [
    (lambda: wp.mul(wp.int8(BIG), wp.int8(BIG)), 68, wp.int8),           # wraps in 8 bits
    (lambda: wp.mul(wp.int8(BIG), np.int8(-46)), -68, wp.int8),          # numpy scalars keep their type
    (lambda: wp.add(wp.int16(30000), wp.int16(30000)), -5536, wp.int16),
    (lambda: wp.mul(wp.uint32(BIG), np.uint32(3)), 591263626, wp.uint32),
    (lambda: wp.mul(BIG, BIG), 304084036, int),                           # Python ints are int32
    (lambda: wp.invert(-1234567890123456789), 2112454932, int),
    (lambda: wp.invert(wp.uint8(-1234567890123456789)), 20, wp.uint8),
    (lambda: wp.neg(wp.uint8(3)), 253, wp.uint8),
    (lambda: wp.lshift(wp.int8(64), wp.int8(1)), -128, wp.int8),
    (lambda: wp.div(wp.int8(-7), wp.int8(2)), -3, wp.int8),               # C: toward zero
    (lambda: wp.mod(wp.int8(-7), wp.int8(2)), -1, wp.int8),               # C: the dividend's sign
    (lambda: wp.floordiv(wp.int8(-7), wp.int8(2)), -4, wp.int8),
    (lambda: wp.clamp(wp.int8(100), wp.int8(0), wp.int8(10)), 10, wp.int8),
    (lambda: wp.sign(wp.int8(-100)), -1, wp.int8),
    (lambda: wp.sin(wp.float64(1.23)), 0.9424888019316975, wp.float64),
    (lambda: wp.sin(np.float64(1.23)), 0.9424888019316975, wp.float64),
    (lambda: wp.sin(wp.float16(1.23)), 0.94287109375, wp.float16),       # rounded to a half
    (lambda: wp.sin(1.23), float(np.float32(np.sin(np.float32(1.23)))), float),
    (lambda: wp.mod(wp.float64(-7.5), wp.float64(2.0)), -1.5, wp.float64),  # fmod
    (lambda: wp.length_sq(wp.vec2b(BIG, BIG)), -120, wp.int8),
    (lambda: wp.length_sq(wp.vec2i(BIG, BIG)), 608168072, int),
    (lambda: wp.length_sq(wp.vec2ul(BIG, BIG)), 3048315750038104200, wp.uint64),
    (lambda: wp.dot(wp.vec3i(BIG, BIG, BIG), wp.vec3i(BIG, 2, 3)), -1573788118, int),
    (lambda: wp.length(wp.vec3d(1.23, 2.34, 3.45)), 4.346377802262477, wp.float64),
    (lambda: wp.length(wp.vec3h(1.23, 2.34, 3.45)), 4.34765625, wp.float16),
    (lambda: wp.ddot(wp.mat22d(1.1, 2, 3, 4), wp.mat22d(1, 2, 3, 4.5)), 32.1, wp.float64),
    (lambda: wp.ddot(wp.mat33(*range(9)), wp.mat33(*range(9))), 204.0, float),
    (lambda: wp.determinant(wp.mat22h(1.1, 2, 3, 4)), -1.6015625, wp.float16),
])
def test_results_have_the_kernel_type_and_value(call, expected, result_type):
    result = call()
    assert type(result) is result_type
    assert (result.value if isinstance(result, ScalarBase) else result) == expected


@pytest.mark.parametrize("call, spelling", [
    (lambda: wp.mul(wp.int8(2), 3), "mul' compatible with the arguments 'int8, int'"),
    (lambda: wp.mul(np.int8(3), 3), "mul' compatible with the arguments 'int8, int'"),
    (lambda: wp.mul(wp.float16(1.5), 2.0), "mul' compatible with the arguments 'float16, float'"),
    (lambda: wp.mul(wp.int64(3), 3), "mul' compatible with the arguments 'int64, int'"),
    (lambda: wp.mul(2, 1.5), "mul' compatible with the arguments 'int, float'"),
    (lambda: wp.sin(1), "sin' compatible with the arguments 'int'"),
    (lambda: wp.invert(1.5), "invert' compatible with the arguments 'float'"),
    (lambda: wp.clamp(wp.int8(100), 0, 10), "clamp' compatible with the arguments 'int8, int, int'"),
])
def test_arguments_of_different_types_find_no_overload(call, spelling):
    with pytest.raises(RuntimeError, match=f"^Couldn't find a function '{spelling}$"):
        call()


def test_legacy_scalar_return_types_gives_python_numbers():
    assert wp.config.legacy_scalar_return_types is False
    with wp.config.override(legacy_scalar_return_types=True):
        assert type(wp.sin(wp.float16(1.23))) is float and type(wp.sin(wp.float64(1.23))) is float
        assert wp.invert(wp.int16(-123)) == 122 and type(wp.invert(wp.int16(-123))) is int
        assert type(wp.length(wp.vec3d(1.0, 2.0, 2.0))) is float


def test_min_max_of_vectors_and_keywords():
    v = wp.vec3f(3.0, 1.0, 2.0)
    assert wp.min(v) == 1.0 and type(wp.min(v)) is float
    assert wp.max(a=v) == 3.0
    assert wp.max(a=wp.vec3d(1.0, 5.0, 2.0)) == wp.float64(5.0)
    assert type(wp.max(a=wp.vec3d(1.0, 5.0, 2.0))) is wp.float64
    assert wp.max(a=1.0, b=2.0) == 2.0
    assert wp.min(v, wp.vec3f(0.0, 5.0, 1.0)) == wp.vec3f(0.0, 1.0, 1.0)
    assert wp.argmin(v) == 1 and type(wp.argmin(v)) is wp.uint32 and wp.argmax(v) == 0
    for call, spelling in ((lambda: wp.min(v, wp.vec3d(3.0, 1.0, 2.0)), "vec3f, vec3d"),
                           (lambda: wp.min(wp.mat22f(1, 2, 3, 4)), "mat22f"), (lambda: wp.min(), "")):
        with pytest.raises(RuntimeError, match=f"^Couldn't find a function 'min' compatible with the arguments "
                                               f"'{spelling}'$"):
            call()


def test_transform_point_and_vector_take_warps_parameter_names():
    m = wp.mat44f(np.eye(4))
    t = wp.transform(wp.vec3f(1.0, 0.0, 0.0), wp.quat_identity())
    p = wp.vec3f(1.0, 2.0, 3.0)
    assert wp.transform_point(xform=t, point=p) == wp.vec3f(2.0, 2.0, 3.0)
    assert wp.transform_point(point=p, mat=m) == p
    assert wp.transform_vector(xform=t, vec=p) == p and wp.transform_vector(mat=m, vec=p) == p
    with pytest.raises(TypeError, match="one transform"):
        wp.transform_point(t, p, mat=m)


@pytest.mark.parametrize("dtype", [wp.float16, wp.float32, wp.float64])
def test_bytes_of_composites_are_their_storage(dtype):
    q = wp.quat_identity(dtype=dtype)
    stored = wp.array([q], dtype=wp.types.quaternion(dtype=dtype))
    assert bytes(q) == stored.numpy()[0].tobytes()
    assert bytes(wp.transform_identity(dtype=dtype)) == np.array([0, 0, 0, 0, 0, 0, 1], dtype=dtype._np).tobytes()
