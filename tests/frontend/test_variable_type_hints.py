"""A local variable started as an integer (``s = 0``) and then given float values says where to give it the float
type: the augmented form (``s += a[j]``) and the assignment (``s = 2.5``), in plain and generic kernels, with the
kernel's file and line; nothing is written."""

import os
from typing import Any

import pytest

import brickwork as wp

HERE = os.path.basename(__file__)


@wp.kernel
def sum_from_int(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0
    for j in range(3):
        s += a[j]
    out[i] = float(s)


@wp.kernel
def sum_float64_into_float32(a: wp.array(dtype=wp.float64), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    s += a[i]
    out[i] = s


@wp.kernel
def sum_generic(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    s = 0
    s += a[i]
    out[i] = s


@wp.kernel
def rebind_float(out: wp.array(dtype=float)):
    i = wp.tid()
    x = 1
    x = 2.5
    out[i] = float(x)


@pytest.mark.parametrize("kernel, data, text", [
    (sum_from_int, wp.float32, "s += a[j]\n'+' (add): operand types must match, got int32 and float32 (Input types "
     "must be the same, got ['int32', 'float32']); 's' is int32, the type of its first value, and a variable keeps "
     "its type: start it as float32 (s = 0.0), or write wp.int32(a[j])"),
    (sum_float64_into_float32, wp.float64, "'s' is float32, the type of its first value, and a variable keeps its "
     "type: start it as float64 (s = wp.float64(0.0)), or write wp.float32(a[i])"),
    (sum_generic, wp.float64, "start it as float64 (s = type(a[i])(0)), or write wp.int32(a[i])"),
    (rebind_float, wp.float32, "variable 'x' has type int32 and cannot be assigned a value of type float32 (a "
     "variable keeps its first type: to hold float32 values, give it that type where it is first assigned "
     "(x = 0.0))"),
])
def test_the_message_says_where_the_variable_gets_its_type(kernel, data, text):
    a = wp.full(3, 1.5, dtype=data)
    out = wp.full(3, 7.0, dtype=data if kernel is sum_generic else wp.float32)
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=3, inputs=[out] if kernel is rebind_float else [a, out])
    message = str(e.value)
    assert text in message and HERE in message and f"in {kernel.key}" in message
    assert out.numpy().tolist() == [7.0] * 3 and a.numpy().tolist() == [1.5] * 3


def test_a_variable_started_as_a_float_sums_floats():
    """No hint where the types fit: the variable started as 0.0 sums float32 values."""
    a = wp.array([1.0, 2.0, 3.5], dtype=float)
    out = wp.zeros(1, dtype=float)

    wp.launch(sum_of_floats, dim=1, inputs=[a, out])
    assert out.numpy().tolist() == [6.5]


@wp.kernel
def sum_of_floats(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    for j in range(3):
        s += a[j]
    out[i] = s
