"""``wp.static`` in loops and of host-built values: a loop whose variable a static expression reads is unrolled
(each copy sees the variable's value), a struct built on the host enters a kernel as a constant, and a static
expression that fails or gives what a kernel cannot hold is reported in Warp's words."""

import enum

import numpy as np
import pytest

import brickwork as wp

_shadowed = 999  # a global with a loop variable's name: wp.static must read the loop variable


@wp.kernel
def unrolled_sum(out: wp.array(dtype=int)):
    s = 0
    for i in range(1, 9, 2):
        s += wp.static(i * i)
    out[0] = s


@wp.kernel
def nested_unrolled(out: wp.array(dtype=int)):
    for _shadowed in range(2):
        for j in range(3):
            out[_shadowed * 3 + j] = wp.static(_shadowed * 10 + j) + j


@wp.kernel
def after_inner_loop(out: wp.array(dtype=int)):
    idx = 0
    for _shadowed in range(2):
        for _shadowed in range(3):  # noqa: B007 - Python's value after the loop is the last one, 2
            pass
        out[idx] = wp.static(_shadowed)
        idx += 1


@wp.kernel
def bool_bound(out: wp.array(dtype=int)):
    count = 0
    for _ in range(wp.static(True)):
        count += 1
    out[0] = count


@pytest.mark.parametrize("kernel, expected", [
    (unrolled_sum, [1 + 9 + 25 + 49]),
    (nested_unrolled, [0, 2, 4, 10, 12, 14]),
    (after_inner_loop, [2, 2]),
    (bool_bound, [1]),
])
def test_static_reads_loop_variables(kernel, expected):
    out = wp.zeros(len(expected), dtype=int)
    wp.launch(kernel, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), expected)


def test_loop_variable_assigned_in_body_is_not_a_constant_afterwards():
    @wp.kernel
    def k(out: wp.array(dtype=int), n: int):
        for i in range(3):
            out[i] = wp.static(i)
            i = n  # noqa: PLW2901
            out[3 + i] = i

    out = wp.zeros(8, dtype=int)
    wp.launch(k, dim=1, inputs=[out, 4])
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 0, 0, 0, 0, 4])


@wp.struct
class Inner:
    m: wp.mat22
    i: int


@wp.struct
class Outer:
    inner: Inner
    v: wp.vec3
    h: wp.float16


@wp.func
def make_outer(i: int):
    o = Outer()
    o.inner.m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    o.inner.i = i
    o.v = wp.vec3(5.0, 6.0, 7.0)
    o.h = wp.float16(0.5)
    return o


def test_struct_built_by_static_is_a_constant():
    @wp.kernel
    def k(out: wp.array(dtype=Outer)):
        out[0] = wp.static(make_outer(7))

    out = wp.zeros(1, dtype=Outer)
    wp.launch(k, dim=1, inputs=[out])
    got = out.numpy()[0]
    np.testing.assert_array_equal(got[0][0], [[1.0, 2.0], [3.0, 4.0]])
    assert got[0][1] == 7
    np.testing.assert_array_equal(got[1], [5.0, 6.0, 7.0])
    assert got[2] == 0.5


@wp.struct
class WithArray:
    data: wp.array(dtype=int)


class Plain:
    pass


def _nothing():
    return None


@pytest.mark.parametrize("make, pattern", [
    (lambda: 1.0 / 0.0, r"Error evaluating static expression: float division by zero"),
    (lambda: wp.zeros(3), r"Static expression returns an unsupported value: a Warp array cannot be created inside "
                          r"Warp kernels"),
    (lambda: WithArray(), r"unsupported value: the returned Warp struct contains a data type that cannot be "
                          r"constructed inside Warp kernels: a Warp array cannot be created inside Warp kernels at "
                          r"WithArray\.data"),
    (_nothing, r"Static expression returns an unsupported value: None is returned"),
    (Plain, r"Static expression returns an unsupported value: value of type .*Plain"),
], ids=["raises", "array", "struct_with_array", "none", "object"])
def test_static_expression_errors(make, pattern):
    @wp.kernel
    def k(out: wp.array(dtype=float)):
        wp.static(make())
        out[0] = 1.0

    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelError, match=pattern):
        wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 0.0


def test_static_of_a_runtime_value_names_it():
    @wp.kernel
    def k(out: wp.array(dtype=float), i: int):
        out[0] = float(wp.static(i * 2))

    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError, match=r"Error evaluating static expression: name 'i' is not defined\. "
                                                 r"Make sure all variables used in the static expression are "
                                                 r"constant\."):
        wp.launch(k, dim=1, inputs=[out, 3])
    assert out.numpy()[0] == 0.0


def test_static_reads_constant_locals_until_they_change():
    @wp.kernel
    def k(out: wp.array(dtype=int), n: int):
        x = 3
        out[0] = wp.static(x + 1)
        for _i in range(n):
            out[1] = x
            x += 1
        z = 7
        if n > 2:
            z = 8
        out[2] = z

    out = wp.zeros(3, dtype=int)
    wp.launch(k, dim=1, inputs=[out, 3])
    np.testing.assert_array_equal(out.numpy(), [4, 5, 8])

    @wp.kernel
    def changed_in_loop(out: wp.array(dtype=int), n: int):
        x = 3
        for i in range(n):
            out[i] = wp.static(x)  # a later iteration sees another value
            x += 1

    with pytest.raises(wp.KernelTypeError, match=r"name 'x' is not defined\. Make sure all variables"):
        wp.launch(changed_in_loop, dim=1, inputs=[out, 3])
    np.testing.assert_array_equal(out.numpy(), [4, 5, 8])


class Kind(enum.IntEnum):  # enum members are ints: wp.static gives their number
    A = 1
    B = 2


class Bits(enum.IntFlag):
    X = 1
    Y = 2


@wp.kernel
def static_enum_members(out: wp.array(dtype=int)):
    out[0] = wp.static(Kind.B)
    out[1] = wp.static(Bits.X | Bits.Y)
    out[2] = wp.static(int(Kind.A))


def test_static_of_enum_members():
    out = wp.zeros(3, dtype=int)
    wp.launch(static_enum_members, dim=1, inputs=[out])
    assert out.numpy().tolist() == [2, 3, 1]
