"""Warp 1.19's names of its code generator's errors catch brickwork's kernel errors of that kind (newuser round 11):
a Warp program's ``except wp.WarpCodegenKeyError`` (an undefined name) or ``except wp.WarpCodegenIndexError`` met an
AttributeError, as the names were missing. Each kernel fails before any code is compiled; nothing is written."""

import pytest

import brickwork as wp


@wp.kernel
def reads_an_undefined_name(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = undefined_speed  # noqa: F821 - the error under test


@wp.kernel
def reads_past_a_vector(a: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vec3(1.0, 2.0, 3.0)
    a[i] = v[5]


@wp.kernel
def sums_floats_into_an_int(a: wp.array(dtype=float)):
    i = wp.tid()
    s = 0
    s += a[i]
    a[i] = float(s)


def _launch_error(kernel):
    a = wp.array([1.0, 2.0], dtype=float)
    with pytest.raises(wp.KernelError) as caught:
        wp.launch(kernel, dim=2, inputs=[a])
    assert a.numpy().tolist() == [1.0, 2.0]
    return caught.value


def test_an_undefined_name_is_warps_key_error():
    e = _launch_error(reads_an_undefined_name)
    assert isinstance(e, wp.WarpCodegenKeyError) and isinstance(e, KeyError) and isinstance(e, wp.WarpCodegenError)
    assert "test_warp_codegen_error_names.py" in str(e) and "undefined_speed" in str(e)
    assert str(e).startswith('File "')  # KeyError's quoting is not applied


def test_a_constant_index_past_a_vector_is_warps_index_error():
    e = _launch_error(reads_past_a_vector)
    assert isinstance(e, wp.WarpCodegenIndexError) and isinstance(e, IndexError)
    assert isinstance(e, wp.WarpCodegenTypeError)  # brickwork's class before, still caught by it
    assert str(e).endswith("index 5 is out of range for vec3f") and ", line 20, in reads_past_a_vector" in str(e)


def test_warps_general_error_catches_as_warp_and_python_do():
    e = _launch_error(sums_floats_into_an_int)
    assert isinstance(e, wp.WarpCodegenError) and isinstance(e, RuntimeError)  # Warp 1.19: a RuntimeError
    assert issubclass(wp.WarpCodegenKeyError, LookupError) and issubclass(wp.WarpCodegenIndexError, LookupError)
