"""Warp's host type predicates (``wp.types.type_is_*``, ``wp.types.is_*``) and ``wp.types.types_equal``."""

import re

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Foo:
    x: float


KINDS = {
    "int": [int, wp.int32, wp.int16, wp.uint64],
    "float": [float, wp.float32, wp.float16],
    "vector": [wp.vec3, wp.vec2i, wp.types.vector(8, wp.uint16)],
    "matrix": [wp.mat22, wp.mat33h, wp.types.matrix((5, 5), wp.float64)],
    "quaternion": [wp.quat, wp.quath],
    "transformation": [wp.transform, wp.transformd],
    "struct": [Foo],
    "array": [wp.array, wp.indexedarray],  # the classes: an annotation is an empty array in Warp (is_array)
}
PREDICATES = ("int", "float", "vector", "matrix", "quaternion", "transformation", "struct", "array")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_type_satisfies_its_own_predicate_only(kind):
    for t in KINDS[kind]:
        for p in PREDICATES:
            assert getattr(wp.types, f"type_is_{p}")(t) == (p == kind), (t, p)
        assert wp.types.type_is_scalar(t) == (kind in ("int", "float"))
        assert wp.types.type_is_composite(t) == (kind in ("vector", "matrix", "quaternion", "transformation"))
        assert wp.types.type_is_value(t) == (kind not in ("struct", "array"))


def test_value_predicates_ask_about_instances():
    values = {"int": [123, wp.int16(3)], "float": [1.5, wp.float16(1.5)], "vector": [wp.vec3(1, 2, 3)],
              "matrix": [wp.mat22()], "quaternion": [wp.quat()], "struct": [Foo()],
              "array": [wp.zeros(2), wp.array(dtype=float)]}
    for kind, xs in values.items():
        for x in xs:
            for p in ("int", "float", "vector", "matrix", "quaternion", "struct", "array"):
                assert getattr(wp.types, f"is_{p}")(x) == (p == kind), (x, p)
    assert not wp.types.is_int(wp.int32) and not wp.types.is_vector(wp.vec3)  # types are not values
    assert not wp.types.type_is_int(bool) and not wp.types.type_is_int(wp.bool)


def test_types_equal():
    assert wp.types.types_equal(float, wp.float32) and wp.types.types_equal(int, wp.int32)
    assert wp.types.types_equal(wp.types.transformation(dtype=wp.float32), wp.transformf)
    assert wp.types.types_equal(wp.types.vector(3, float), wp.vec3f)
    assert not wp.types.types_equal(wp.vec3f, wp.vec3d)
    assert not wp.types.types_equal(wp.vec3f, wp.quatf)  # not even vec4f: another family
    assert not wp.types.types_equal(wp.vec4f, wp.quatf)
    assert not wp.types.types_equal(wp.float32, None)
    assert not wp.types.types_equal(wp.types.Float, wp.float64)
    assert wp.types.types_equal(wp.types.Float, wp.float64, match_generic=True)
    assert wp.types.types_equal(wp.types.vector(3, wp.types.Float), wp.vec3d, match_generic=True)


def test_composite_types_name_their_template():
    assert (wp.vec3._wp_generic_type_str_, wp.mat22._wp_generic_type_str_, wp.quat._wp_generic_type_str_,
            wp.transform._wp_generic_type_str_) == ("vec_t", "mat_t", "quat_t", "transform_t")


def test_constant_takes_values_only():
    assert wp.constant(3) == 3 and wp.constant(wp.vec3(1.0, 2.0, 3.0)) == wp.vec3(1.0, 2.0, 3.0)
    assert wp.constant(Foo(x=2.0)).x == 2.0
    with pytest.raises(TypeError, match=r"^Invalid constant type: <class 'tuple'>$"):
        wp.constant((1, 2, 3))
    assert wp.constant(np.float64(1.5)) == 1.5  # a float (Warp takes it too)


@pytest.mark.parametrize("value", [np.float32(1.5), np.int32(3), np.int64(2**40), np.bool_(True), np.uint8(200)])
def test_constant_refuses_numpy_scalars_as_warp_does_naming_the_fix(value):
    # accepted before, then refused by every kernel using them ('Invalid external reference type')
    with pytest.raises(TypeError, match=re.escape(f"Invalid constant type: {type(value)} (kernels take Python "
                                                  f"numbers and brickwork scalars: wp.constant(x.item()), or "
                                                  f"wp.{value.dtype}(x))")):
        wp.constant(value)


def test_constant_refuses_numpy_arrays():
    with pytest.raises(TypeError, match=r"^Invalid constant type: <class 'numpy.ndarray'>$"):
        wp.constant(np.arange(3.0))
