"""Values captured from Python (globals, closures, ``wp.static(...)``) keep their types in kernels: a struct
instance's fields their declared types, a captured vector's components its element type (indexed by a
runtime index too); an unknown attribute of one is an error in Warp's words."""

import math

import numpy as np
import pytest

import brickwork as wp

UNIT = wp.vec3(0.5, 1.5, 2.5)
DOUBLES = wp.vec3d(0.1, 0.2, 0.3)


@wp.struct
class Inner:
    scale: wp.float64
    offset: wp.vec2


@wp.struct
class Outer:
    inner: Inner
    flag: wp.int32
    enabled: wp.bool
    handle: wp.uint64
    limit: wp.float64


PARAMS = Outer()
PARAMS.inner.scale = 0.1
PARAMS.inner.offset = wp.vec2(-1.0, 4.0)
PARAMS.flag = 7
PARAMS.enabled = 1
PARAMS.handle = 2**40 + 3
PARAMS.limit = wp.float64(math.inf)


@wp.kernel
def struct_fields(scale: wp.array(dtype=wp.float64), offset: wp.array(dtype=wp.vec2),
                  ints: wp.array(dtype=int), enabled: wp.array(dtype=wp.bool), handle: wp.array(dtype=wp.uint64)):
    scale[0] = wp.static(PARAMS).inner.scale
    scale[1] = wp.static(PARAMS).limit
    offset[0] = wp.static(PARAMS).inner.offset
    ints[0] = wp.static(PARAMS).flag
    total = 0
    for _ in range(wp.static(PARAMS).flag):  # an int32 field stays a compile-time number
        total += 1
    ints[1] = total
    enabled[0] = wp.static(PARAMS).enabled
    handle[0] = wp.static(PARAMS).handle


def test_struct_instance_fields_keep_their_declared_types():
    scale = wp.zeros(2, dtype=wp.float64)
    offset = wp.zeros(1, dtype=wp.vec2)
    ints = wp.zeros(2, dtype=int)
    enabled = wp.zeros(1, dtype=wp.bool)
    handle = wp.zeros(1, dtype=wp.uint64)
    wp.launch(struct_fields, 1, inputs=[scale, offset, ints, enabled, handle])
    assert scale.numpy().tolist() == [0.1, math.inf]  # 0.1 as a float64, not rounded through float32
    assert offset.numpy().tolist() == [[-1.0, 4.0]]
    assert ints.numpy().tolist() == [7, 7]
    assert enabled.numpy().tolist() == [True]
    assert handle.numpy().tolist() == [2**40 + 3]


@wp.kernel
def vector_components(out: wp.array(dtype=float), out_d: wp.array(dtype=wp.float64)):
    for i in range(3):
        out[i] = UNIT[i]  # a runtime index into a captured vector
        out_d[i] = DOUBLES[i]
    out[3] = UNIT.z
    out_d[3] = DOUBLES.y  # a vec3d's component is a float64


def test_captured_vector_components_keep_their_type():
    out = wp.zeros(4, dtype=float)
    out_d = wp.zeros(4, dtype=wp.float64)
    wp.launch(vector_components, 1, inputs=[out, out_d])
    np.testing.assert_array_equal(out.numpy(), np.array([0.5, 1.5, 2.5, 2.5], dtype=np.float32))
    assert out_d.numpy().tolist() == [0.1, 0.2, 0.3, 0.2]


def test_unknown_attribute_of_a_captured_vector_is_an_error():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        out[0] = UNIT.foo

    with pytest.raises(AttributeError, match=r"`foo` is not an attribute of 'UNIT' \(vec3f\)"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=float)])


def test_unknown_field_of_a_captured_struct_is_an_error():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        out[0] = wp.static(PARAMS).missing

    with pytest.raises(AttributeError, match=r"`missing` is not an attribute of 'wp.static\(PARAMS\)' \(.*Outer"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=float)])


SCHEME = "upwind"
WEIGHTS = (1.0, 2.0, 3.0)
ORDER = 3


@wp.kernel
def _constants(out: wp.array(dtype=float)):
    s = 0.0
    if SCHEME == "upwind":  # decided at compile time: the other branch is not compiled
        s += 10.0
    if SCHEME != "upwind" or ORDER in (1, 2):
        s += 100.0
    if "wind" in SCHEME and ORDER not in (2, 4):
        s += 1000.0
    for c in range(len(WEIGHTS)):  # a captured tuple's length, and its items by the (unrolled) loop's index
        s += WEIGHTS[c]
    for c in range(3):
        s += 2.0 * WEIGHTS[c]
    out[0] = s


def test_captured_strings_and_tuples_are_compile_time_constants():
    """As docs/loop_abstraction.md says of free variables: a captured string compares (==, !=, in) and a
    captured tuple has a length and items a loop's index reads. Before, both were 'not a value usable in a
    kernel', and W[c] with the loop variable c 'must be known at compile time'."""
    out = wp.zeros(1)
    wp.launch(_constants, 1, inputs=[out])
    assert out.numpy()[0] == 10.0 + 1000.0 + 6.0 + 12.0

    @wp.kernel
    def unordered(out: wp.array(dtype=float)):
        if SCHEME < 3:
            out[0] = 1.0

    with pytest.raises(wp.KernelTypeError, match="'SCHEME < 3' compares constants Python cannot compare"):
        wp.launch(unordered, 1, inputs=[out])
    assert out.numpy()[0] == 1028.0
