"""Numbers written in a kernel keep their precision when they become float64 (constructors, conversions), as in
Warp; typed vector, matrix and quaternion constructors take variables of their own element type only; a local
bound to a Python number is a compile-time value; ``wp.static`` of an unrolled loop's variable with continue."""

import math

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def float64_literals(d: wp.float64, out: wp.array(dtype=wp.float64)):
    v = wp.vec3d(3.141592653589793, -2.718281828459045, d)
    out[0] = v[0]
    out[1] = v[1]
    out[2] = v[2]
    f = wp.vec3d(1.00000005)
    out[3] = f[2]
    p = wp.vec3d(wp.PI, wp.E, wp.TAU)
    out[4] = p[0]
    x = 0.1
    out[5] = wp.float64(x)
    m = wp.mat22d(1.111111111111111, 0.0, 0.0, 1.0)
    out[6] = m[0, 0]
    q = wp.quatd(0.0, 0.0, 0.7071067811865475, 0.7071067811865476)
    out[7] = q[3]
    h = wp.vec3h(1.0, wp.float16(2.0), 3.0)
    out[8] = wp.float64(h[2])


def test_float64_constants_keep_their_precision():
    out = wp.zeros(9, dtype=wp.float64)
    wp.launch(float64_literals, 1, inputs=[1.00000005, out])
    assert out.numpy().tolist() == [3.141592653589793, -2.718281828459045, 1.00000005, 1.00000005, math.pi, 0.1,
                                    1.111111111111111, 0.7071067811865476, 3.0]


@wp.kernel
def local_constant_bound(out: wp.array(dtype=wp.int32)):
    n = 2
    f = wp.vec3f(4.0, 5.0, 6.0)
    part = f[0:n]
    out[0] = wp.int32(part[1])
    out[1] = n


def test_local_bound_to_a_number_is_known_at_compile_time():
    out = wp.zeros(2, dtype=wp.int32)
    wp.launch(local_constant_bound, 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [5, 2])


@pytest.mark.parametrize("body, message", [
    ("v = wp.vec3f(x, x, x)", "all values used to initialize this vector are expected to be of the type `float32`"),
    ("v = wp.vec3f(x)", "the value used to fill this vector is expected to be of the type `float32`"),
    ("v = wp.mat22f(x, x, x, x)", "all values used to initialize this matrix are expected to be of the type"),
    ("v = wp.quatf(0.0, 0.0, 0.0, x)", "all values used to initialize this quaternion are expected"),
    ("v = wp.vec3h(1.0, wp.float32(x), 3.0)", "vec3h(float16, float32, float16): convert a variable with "
                                              "wp.float16(x): all values used to initialize this vector are expected "
                                              "to be of the type `float16`$"),
    ("v = wp.types.vector(1.0, 2)", "vector(float32, int32): convert them to one type, or pass dtype=: all values "
                                    "given when constructing a vector must have the same type$"),
    ("v = wp.types.vector(x, 2.0)", "all values given when constructing a vector must have the same type$"),
    ("v = wp.types.matrix(x, shape=(2, 2), dtype=wp.float16)", "matrix(float64, dtype=float16): convert with "
                                                               "wp.float16(x): the value used to fill this matrix is "
                                                               "expected to be of the type `float16`$"),
    ("v = wp.types.vector(x, 2.0, dtype=wp.float32)", "all values used to initialize this vector are expected to be "
                                                      "of the type `float32`$"),
])
def test_typed_constructors_refuse_variables_of_another_type(body, message, tmp_path):
    src = f"import brickwork as wp\n\n@wp.kernel(module='unique')\ndef k(x: wp.float64):\n    {body}\n"
    path = tmp_path / "mismatch_kernel.py"
    path.write_text(src)
    namespace = {}
    exec(compile(src, str(path), "exec"), namespace)
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")) as info:
        wp.launch(namespace["k"], 1, inputs=[1.0])
    assert isinstance(info.value, wp.WarpCodegenError) and "mismatch_kernel.py\", line 5" in str(info.value)


@wp.kernel
def static_continue(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    tid = wp.tid()
    value = wp.float32(0.0)
    for i in range(20):
        if wp.static(i % 2 == 0):
            continue
        if x[tid] > 2.5 and i > 15:  # a runtime continue in the same unrolled copy
            continue
        value += float(i) * x[tid]
    out[tid] = value


def test_static_condition_on_unrolled_variable_with_continue():
    x = wp.array([2.0, 3.0], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(static_continue, 2, inputs=[x, out])
    odd = sum(range(1, 20, 2))  # 100
    np.testing.assert_allclose(out.numpy(), [2.0 * odd, 3.0 * (odd - 17 - 19)])
    tape.backward(grads={out: wp.ones_like(out)})
    np.testing.assert_allclose(x.grad.numpy(), [odd, odd - 17 - 19])
