"""An operator's type error in a generic kernel says where the fix is: operands whose types both come from the
arguments of generic parameters name the argument to pass in the other type (the host's fix), and a conversion
in the body is spelled ``type(other)(x)``, right for every instance (``wp.float32(x)`` fits one)."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def scale_by(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def multiply(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    a[i] = a[i] * b[i]


@wp.kernel
def scale_by_count(a: wp.array(dtype=Any), n: int):
    i = wp.tid()
    a[i] = a[i] * n


@wp.kernel
def shift_by(a: wp.array(dtype=Any), x: wp.float64):
    i = wp.tid()
    a[i] = wp.float32(a[i] + x)


@wp.kernel
def scale_converted(a: wp.array(dtype=Any), s: Any, b: wp.array(dtype=Any), n: int):
    i = wp.tid()
    a[i] = a[i] * type(a[i])(s) * type(a[i])(b[i]) * type(a[i])(n)


@wp.func
def times(x: Any, y: Any):
    return x * y


@wp.kernel
def calls_times(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = wp.float32(times(a[i], b[i]))


@wp.kernel
def multiply_in_place(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] *= s


@wp.kernel
def add_in_place(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] += s


@wp.kernel
def store(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = s


@wp.kernel
def store_element(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = b[i]


@wp.kernel
def multiply_element_in_place(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] *= b[i]


@wp.kernel
def add_count_in_place(a: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    a[i] += n


@wp.kernel
def store_literal(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = 1.0


LEAD = "kernels convert no operand implicitly"
PASS_S = ("generic parameters 'a' and 's': pass 's' as float32 (a Python float, wp.float32(v) or "
          "numpy.float32(v)), or write type(a[i])(s)")
CASES = [
    # kernel, arguments after the float32 array, message fragments
    (scale_by, [np.float64(2.0)], [
        "got float32 and float64", f"{LEAD}, and both types come from the arguments of generic parameters 'a' "
        "and 's': pass 's' as float32 (a Python float, wp.float32(v) or numpy.float32(v)), or write "
        "type(a[i])(s)"]),
    (scale_by, [2], [
        "got float32 and int32", "pass 's' as float32", "or write type(a[i])(s)"]),
    (multiply, [wp.array(np.ones(4))], [
        "got float32 and float64", "generic parameters 'a' and 'b': pass arrays of one dtype (they are float32 "
        "and float64), or write type(a[i])(b[i])"]),
    # one operand from a generic parameter, the other of a concrete type: the fix is in the body
    (scale_by_count, [2], ["got float32 and int32", f"{LEAD}: write type(a[i])(n)"]),
    # ... where converting the generic one to the concrete type fits every instance
    (shift_by, [1.0], ["got float32 and float64", f"{LEAD}: write wp.float64(a[i])"]),
    # a generic function's parameters take the types of the call's arguments
    (calls_times, [wp.array(np.ones(4))], [
        "got float32 and float64", "generic parameters 'x' and 'y': pass 'x' as float64 (wp.float64(v) or "
        "numpy.float64(v)), or write type(y)(x)"]),
    # stores and in-place updates: the value takes the place's type (the place's cannot change)
    (multiply_in_place, [np.float64(2.0)], ["got float32 and float64", PASS_S]),
    (add_in_place, [np.float64(2.0)], ["atomic_add: cannot add a value of type float64 to an array of float32",
                                       PASS_S]),
    (store, [np.float64(2.0)], ["cannot store a value of type float64 in an array element of an array of float32",
                                PASS_S]),
    (store_element, [wp.array(np.ones(4))], ["cannot store a value of type float64", f"{LEAD}: write "
                                             "wp.float32(b[i])"]),
    (multiply_element_in_place, [wp.array(np.ones(4))], ["got float32 and float64", f"{LEAD}: write "
                                                         "wp.float32(b[i])"]),
    (add_count_in_place, [2], ["cannot add a value of type int32 to an array of float32", f"{LEAD}: write "
                                                                                           "wp.float32(n)"]),
]


@pytest.mark.parametrize(("kernel", "rest", "fragments"), CASES, ids=lambda c: getattr(c, "key", None))
def test_hint_names_where_the_fix_is(kernel, rest, fragments):
    a = wp.array(np.arange(4, dtype=np.float32))
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=4, inputs=[a, *rest])
    for fragment in fragments:
        assert fragment in str(e.value)
    np.testing.assert_array_equal(a.numpy(), np.arange(4, dtype=np.float32))  # nothing ran


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_the_hinted_spellings_work_for_every_instance(dtype):
    """The kernel written as the hints say runs for each element type and for arguments of other types."""
    values = np.arange(4, dtype=dtype)
    a = wp.array(values)
    b = wp.array(np.full(4, 3.0))
    wp.launch(scale_converted, dim=4, inputs=[a, np.float64(0.5), b, 2])
    np.testing.assert_array_equal(a.numpy(), values * dtype(3.0))
    # and the host's fix: the argument in the array's type
    c = wp.array(values)
    wp.launch(scale_by, dim=4, inputs=[c, dtype(2.0)])
    np.testing.assert_array_equal(c.numpy(), values * dtype(2.0))


def test_a_python_number_stored_keeps_its_own_hint():
    """A literal stored into an element of another float type says how to write the literal, generic or not."""
    a = wp.zeros(4, dtype=wp.float64)
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(store_literal, dim=4, inputs=[a, 0.0])
    assert ("cannot store a value of type float32 in an array element of an array of float64; 1.0 is a Python "
            "float, which kernels take as float32: write wp.float64(1.0)") in str(e.value)
    np.testing.assert_array_equal(a.numpy(), np.zeros(4))
