"""User mistakes that used to surface as bare Python errors from brickwork's internals (no kernel, argument,
file or line named) and lossy launch conversions: each is now an error that says what is wrong and where."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError, LaunchArgumentError, LaunchError


class _Plain:
    pass


def _line_of(text: str) -> int:
    """The line of this file holding ``text``."""
    with open(__file__) as f:
        return next(number for number, line in enumerate(f, 1) if text in line)


@pytest.mark.parametrize(("annotation", "shown"), [(_Plain, "class '_Plain'"),
                                                   (lambda x: x, "function '<lambda>'"),
                                                   (tuple[float, int], "tuple[float, int]"),
                                                   (None, "None")])
def test_a_parameter_annotated_with_no_kernel_type_is_refused_at_definition(annotation, shown):
    def bad(a: wp.array(dtype=float), b: annotation):  # the parameter refused
        pass

    with pytest.raises(KernelTypeError) as info:
        wp.kernel(bad)
    e = info.value
    assert e.message == (f"parameter 'b' of kernel 'bad' is annotated {shown}, which is not a kernel type "
                         f"(wp.float32, wp.vec3, wp.array(dtype=...), a @wp.struct, typing.Any...)")
    assert (e.location.filename, e.location.lineno) == (__file__, _line_of("# the parameter refused"))


@pytest.mark.parametrize(("annotation", "message"), [
    (np.float32, "is annotated class 'numpy.float32', which is not a kernel type (wp.float32, wp.vec3, "
                 "wp.array(dtype=...), a @wp.struct, typing.Any...): write wp.float32"),
    (np.ndarray, "is annotated class 'numpy.ndarray', which is not a kernel type (wp.float32, wp.vec3, "
                 "wp.array(dtype=...), a @wp.struct, typing.Any...): write wp.array(dtype=...) (numpy arrays are "
                 "passed to such parameters in place)"),
    (wp.array(dtype=np.float32), "is an array of numpy's float32, which is not a brickwork dtype: write "
                                 "dtype=wp.float32"),
    (wp.array2d(dtype=np.dtype("float64")), "is an array of numpy's float64, which is not a brickwork dtype: "
                                            "write dtype=wp.float64"),
    (wp.array(dtype="int32"), "is an array of the string 'int32', which is not a brickwork dtype: write "
                              "dtype=wp.int32"),
    (wp.array(dtype=np.complex64), "is an array of numpy's complex64, which is not a brickwork dtype"),
])
def test_a_numpy_type_in_a_kernel_signature_is_refused_naming_brickworks(annotation, message):
    """``wp.array(dtype=np.float32)`` was accepted, and every launch then said "argument 'b' must be
    array(dtype=float32, ndim=1), got array(dtype=float32, ndim=1)"."""
    def bad(a: wp.array(dtype=float), b: annotation):  # the numpy parameter
        pass

    with pytest.raises(KernelTypeError) as info:
        wp.kernel(bad)
    assert info.value.message == f"parameter 'b' of kernel 'bad' {message}"
    assert info.value.location.lineno == _line_of("# the numpy parameter")


def test_a_float_constructor_of_an_integer_beyond_every_float_is_a_kernel_type_error():
    @wp.kernel
    def huge(a: wp.array(dtype=wp.float64)):
        a[0] = wp.float64(10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000)  # noqa: E501

    a = np.zeros(1)
    with pytest.raises(KernelTypeError) as info:
        wp.launch(huge, dim=1, inputs=[a])
    assert info.value.message == ("float64() of an integer of 1289 bits: it is too large for any float (float64 "
                                  "holds at most about 1.8e308)")
    assert info.value.location.lineno == _line_of("a[0] = wp.float64(1000")
    assert a[0] == 0.0


def test_an_integer_at_the_edge_of_float64_still_converts():
    @wp.kernel
    def edge(a: wp.array(dtype=wp.float64)):
        a[0] = wp.float64(179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368)  # noqa: E501

    a = np.zeros(1)
    wp.launch(edge, dim=1, inputs=[a])
    assert a[0] == np.finfo(np.float64).max


@wp.kernel
def _as_float(x: float, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(x)


@wp.kernel
def _as_double(x: wp.float64, out: wp.array(dtype=wp.float64)):
    out[0] = x


@pytest.mark.parametrize("kernel", [_as_float, _as_double])
def test_a_float_argument_beyond_every_float_is_a_launch_error_naming_it(kernel):
    out = np.zeros(1)
    wp.launch(kernel, dim=1, inputs=[2.5, out])  # the packer of this signature exists: its failed pack is refused
    with pytest.raises(LaunchError, match=rf"^launch of '{kernel.key}': argument 'x' = an integer of 1329 bits does "
                                          r"not fit in float"):
        wp.launch(kernel, dim=1, inputs=[10**400, out])
    assert out[0] == 2.5


def test_a_float_struct_field_beyond_every_float_names_the_field():
    @wp.struct
    class P:
        x: float

    p = P()
    p.x = 1.5
    with pytest.raises(OverflowError, match=r"^struct field P\.x \(float32\): an integer of 1329 bits is too large "
                                            r"for any float$"):
        p.x = 10**400
    assert p.x == 1.5


@wp.kernel
def _scale(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = a[i] * s


@pytest.mark.parametrize(("types", "got"), [(None, "NoneType"), (3, "int"), ("float32", "str")])
def test_overload_says_what_it_takes(types, got):
    with pytest.raises(TypeError, match=rf"^overload\(_scale, types\) takes a list of the parameters' types or a "
                                        rf"dict naming the generic parameters' types, got {got}$"):
        wp.overload(_scale, types)


@wp.kernel
def _inc(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + wp.float64(1.0)


def test_a_field_view_of_a_structured_array_is_a_launch_error_naming_the_argument():
    """Still a ValueError (LaunchArgumentError is both), as before it named the argument."""
    st = np.zeros(4, dtype=[("a", "f8"), ("b", "i4")])
    with pytest.raises(LaunchArgumentError, match=r"^launch of '_inc': argument 'a': array strides must be multiples of the "
                                          r"element size"):
        wp.launch(_inc, dim=4, inputs=[st["a"]])
    assert (st["a"] == 0).all()


@wp.kernel
def _sum3(v: wp.vec3, out: wp.array(dtype=wp.float32)):
    out[0] = v[0] + v[1] + v[2]


@pytest.mark.parametrize(("value", "message"), [
    (np.array([1 + 5j, 2, 3]), "its numpy data is of dtype complex128, not real numbers"),
    (np.array(["1", "2", "3"]), "its numpy data is of dtype <U1, not real numbers"),
    (["1", "2", "3"], "component '1' is a str, not a real number"),
    ((1.0, 2.0, 3 + 1j), "component (3+1j) is a complex, not a real number"),
    ([1.0, None, 3.0], "component None is a NoneType, not a real number"),
])
def test_a_vector_argument_of_no_real_numbers_is_refused(value, message):
    out = np.zeros(1, np.float32)
    with pytest.raises(LaunchError) as info:
        wp.launch(_sum3, dim=1, inputs=[value, out])
    assert str(info.value).endswith(f"argument 'v' must be vec3f: {message}")
    assert out[0] == 0.0


def test_a_list_launched_before_with_numbers_is_still_checked():
    out = np.zeros(1, np.float32)
    wp.launch(_sum3, dim=1, inputs=[[1, 2.5, np.float32(3)], out])
    assert out[0] == 6.5
    with pytest.raises(LaunchError, match=r"^launch of '_sum3': argument 'v' must be vec3f: component '2' is a str, "
                                          r"not a real "
                                          r"number$"):
        wp.launch(_sum3, dim=1, inputs=[[1.0, "2", 3.0], out])
    with pytest.raises(LaunchError, match=r"^launch of '_sum3': argument 'v' must be vec3f: vec3f needs 3 "
                                          r"components"):
        wp.launch(_sum3, dim=1, inputs=[[1.0, 2.0], out])
    assert out[0] == 6.5
    wp.launch(_sum3, dim=1, inputs=[(np.int64(1), True, wp.float32(2.0)), out])
    assert out[0] == 4.0
