"""``wp.types.vector(...)``/``wp.types.matrix(...)`` in kernels: copies that keep the source's size,
fills, keyword arguments of named types, and Warp's errors (RuntimeErrors) for wrong sizes."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import brickwork as wp

mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


@wp.kernel
def build(vh: wp.array(dtype=wp.vec2h), v3: wp.array(dtype=wp.vec3), m: wp.array(dtype=mat32d),
          m22: wp.array(dtype=wp.mat22)):
    a = wp.vec2(1.5, -2.0)
    vh[0] = wp.types.vector(a, dtype=wp.float16)  # a copy keeps the source's length
    v3[0] = wp.types.vector(2.0, length=3)
    v3[1] = wp.vec3(4.0, length=3, dtype=wp.float32)  # a named type's own keywords
    c = mat32d(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    m[0] = mat32d(c, shape=(3, 2))
    m[1] = wp.types.matrix(wp.float64(7.0), shape=(3, 2))
    m22[0] = wp.types.matrix(wp.mat22(1.0, 2.0, 3.0, 4.0))  # the shape comes from the source


def test_copies_fills_and_own_keywords():
    vh, v3 = wp.zeros(1, dtype=wp.vec2h), wp.zeros(2, dtype=wp.vec3)
    m, m22 = wp.zeros(2, dtype=mat32d), wp.zeros(1, dtype=wp.mat22)
    wp.launch(build, dim=1, inputs=[vh, v3, m, m22])
    np.testing.assert_array_equal(vh.numpy()[0], [1.5, -2.0])
    np.testing.assert_array_equal(v3.numpy(), [[2.0, 2.0, 2.0], [4.0, 4.0, 4.0]])
    np.testing.assert_array_equal(m.numpy()[0], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(m.numpy()[1], np.full((3, 2), 7.0))
    np.testing.assert_array_equal(m22.numpy()[0], [[1.0, 2.0], [3.0, 4.0]])


ERRORS = [
    ("wp.types.matrix(1.0, 2.0, 3.0)",
     r"the `shape` argument must be specified when initializing a matrix by value$"),
    ("wp.types.matrix(1.0)", r"the `shape` argument must be specified when filling a matrix with a value$"),
    ("wp.types.matrix()", r"the `shape` argument must be specified when zero-initializing a matrix$"),
    ("wp.types.vector(1.0)", r"the `length` argument must be specified when filling a vector with a value$"),
    ("wp.types.matrix(wp.types.matrix(shape=(1, 2), dtype=float), shape=(3, 4), dtype=float)",
     r"incompatible matrix of shape \(3, 4\) given when copy constructing a matrix of shape \(1, 2\)$"),
    ("wp.mat33(wp.mat22(1.0, 2.0, 3.0, 4.0))",
     r"incompatible matrix of shape \(3, 3\) given when copy constructing a matrix of shape \(2, 2\)$"),
    ("wp.types.vector(wp.vec2(), length=3)",
     r"incompatible vector of length 3 given when copy constructing a vector of length 2$"),
    ("wp.mat22(1.0, 2.0, 3.0)", r"incompatible number of values given \(3\) when constructing a matrix of shape "
                                r"\(2, 2\)$"),
    ("wp.vec3(1.0, 2.0)", r"incompatible number of values given \(2\) when constructing a vector of length 3$"),
    ("mat32d(1.0, shape=(2, 3))",
     r"Remove the extraneous `shape` parameter when calling the templated version of `wp.mat_t\(\)`$"),
    ("wp.quat(0.0, 0.0, 0.0, 1.0, dtype=wp.float64)",
     r"Remove the extraneous `dtype` parameter when calling the templated version of `wp.quat_t\(\)`$"),
]


@pytest.mark.parametrize("expr, message", ERRORS)
def test_wrong_sizes_are_runtime_errors_naming_the_problem(tmp_path, expr, message):
    path = tmp_path / "constructor_errors.py"
    path.write_text(f"import brickwork as wp\n\nmat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)\n\n\n"
                    f"@wp.kernel\ndef k():\n    x = {expr}\n")
    spec = importlib.util.spec_from_file_location("constructor_errors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(RuntimeError, match=message) as e:
        wp.launch(module.k, dim=1, inputs=[])
    assert isinstance(e.value, wp.KernelTypeError) and "constructor_errors.py" in str(e.value)


def test_unknown_keyword_of_a_named_type_is_a_type_error():
    @wp.kernel
    def k():
        x = wp.mat22(1.0, foo=3)  # noqa: F841

    with pytest.raises(wp.KernelTypeError, match=r"mat22f\(\) got an unexpected keyword argument 'foo'"):
        wp.launch(k, dim=1, inputs=[])
