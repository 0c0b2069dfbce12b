"""``wp.address_of(place)``: the address of a local, an array element, a struct field or a component, as a
``uint64`` a ``wp.func_native`` snippet reads and writes through; what is not a place is refused."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Inner:
    value: wp.float32


@wp.struct
class Outer:
    inner: Inner
    xform: wp.transformf


@wp.func_native("*(int32_t*)ptr = 42;")
def set_int_via_ptr(ptr: wp.uint64): ...


@wp.func_native("*(float*)ptr = *(float*)ptr + 1.0f;")
def increment_via_ptr(ptr: wp.uint64): ...


@wp.func
def make_inner() -> Inner:
    return Inner(wp.float32(1.0))


@wp.kernel(enable_backward=False)
def through_addresses(ints: wp.array(dtype=wp.int32), floats: wp.array(dtype=wp.float32),
                      grid: wp.array2d(dtype=wp.float32), outers: wp.array(dtype=Outer)):
    val = wp.int32(0)
    set_int_via_ptr(wp.address_of(val))
    ints[0] = val
    increment_via_ptr(wp.address_of(floats[1]))
    increment_via_ptr(wp.address_of(grid[1, 2]))
    box = Inner()
    box.value = wp.float32(4.0)
    increment_via_ptr(wp.address_of(box.value))
    floats[2] = box.value
    v = wp.vec3(1.0, 2.0, 3.0)
    p = wp.address_of(v.y)  # an address is a uint64 value like any other
    increment_via_ptr(p)
    floats[3] = v.y
    increment_via_ptr(wp.address_of(outers[0].inner.value))
    increment_via_ptr(wp.address_of(outers[0].xform.q[3]))
    increment_via_ptr(wp.address_of(outers[0].xform.p.y))


def test_address_of_places_reaches_their_storage():
    ints = wp.zeros(1, dtype=wp.int32)
    floats = wp.array([0.0, 10.0, 0.0, 0.0], dtype=wp.float32)
    grid = wp.zeros((2, 3), dtype=wp.float32)
    outers = wp.zeros(1, dtype=Outer)
    wp.launch(through_addresses, dim=1, inputs=[ints, floats, grid, outers])
    assert ints.numpy()[0] == 42
    np.testing.assert_array_equal(floats.numpy(), [0.0, 11.0, 5.0, 3.0])
    np.testing.assert_array_equal(grid.numpy(), [[0, 0, 0], [0, 0, 1]])
    got = outers.numpy()[0]
    assert got["inner"]["value"] == 1.0
    np.testing.assert_array_equal(got["xform"], [0, 1, 0, 0, 0, 0, 1])  # p.y and q.w (component 6)


@wp.kernel
def addresses(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    out[i] = wp.address_of(a[i])


def test_address_of_array_elements_are_their_addresses():
    a = wp.zeros(3, dtype=wp.float32)
    out = wp.zeros(3, dtype=wp.uint64)
    wp.launch(addresses, dim=3, inputs=[a, out])  # a backward-enabled kernel takes addresses too
    np.testing.assert_array_equal(out.numpy() - np.uint64(a.ptr), [0, 4, 8])


def _refused(body, match):
    with pytest.raises(wp.KernelTypeError, match=match):
        wp.launch(wp.kernel(body, enable_backward=False), dim=1, inputs=[wp.zeros(1, dtype=wp.uint64)])


def test_address_of_refuses_values_without_storage():
    def expression(out: wp.array(dtype=wp.uint64)):
        x = wp.int32(1)
        out[0] = wp.address_of(x + x)

    def temporary_component(out: wp.array(dtype=wp.uint64)):
        out[0] = wp.address_of(wp.vec3f(1.0, 2.0, 3.0).x)

    def returned_field(out: wp.array(dtype=wp.uint64)):
        out[0] = wp.address_of(make_inner().value)

    def two_arguments(out: wp.array(dtype=wp.uint64)):
        x = wp.int32(1)
        out[0] = wp.address_of(x, x)

    for body, what in ((expression, "x \\+ x"), (temporary_component, "wp.vec3f"), (returned_field, "make_inner")):
        _refused(body, f"wp.address_of\\(\\) requires an addressable expression .*'{what}")
    _refused(two_arguments, "takes exactly one positional argument")


def test_address_of_refuses_constant_locals_with_the_declaration_to_write():
    def int_constant(out: wp.array(dtype=wp.uint64)):
        x = 0
        out[0] = wp.address_of(x)

    def float_constant(out: wp.array(dtype=wp.uint64)):
        x = 1.0
        out[0] = wp.address_of(x)

    _refused(int_constant, r"local bound to the constant 0; .*x = wp\.int32\(0\)")
    _refused(float_constant, r"local bound to the constant 1.0; .*x = wp\.float32\(1\.0\)")


def test_address_of_outside_kernels_is_an_error():
    with pytest.raises(RuntimeError, match="only be called inside"):
        wp.address_of(1)
