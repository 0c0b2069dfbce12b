"""Every statement form of the kernel language, checked value by value against plain Python.

Each kernel writes many results into one output array so that a handful of compilations covers
the whole statement list of the kernel language (docs/kernel_language.md, Statements): assignment,
unpacking, augmented assignment, if/elif/else, for over range with 1-3 arguments, while, break,
continue, return, pass, conditional expressions, and/or/not, chained comparisons, functions with
several return values, functions calling functions.
"""

import numpy as np
import pytest

import brickwork as wp


@wp.func
def divmod_c(a: int, b: int):
    """Two results at once: Warp's floor division and C remainder."""
    return a // b, a % b


@wp.func
def square(x: int) -> int:
    return x * x


@wp.func
def sum_of_squares(x: int, y: int) -> int:
    return square(x) + square(y)  # a function calling a function


@wp.func
def classify(x: int) -> int:
    if x < 0:
        return -1  # early return from a function
    if x == 0:
        return 0
    return 1


@wp.func
def no_value(a: wp.array2d(dtype=int), i: int):
    a[i, 15] = 123
    return


@wp.kernel
def control_flow(n_in: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    n = n_in[i]
    # for with one argument
    s = 0
    for k in range(n):
        s += k
    out[i, 0] = s
    # for with three arguments and a negative constant step
    s = 0
    for k in range(n, -1, -2):
        s = s * 10 + k
    out[i, 1] = s
    # for with two arguments
    s = 0
    for k in range(1, n):
        s += k * k
    out[i, 2] = s
    # while with continue and break
    k = 0
    count = 0
    while k < 100:
        k += 1
        if k % 3 == 0:
            continue
        if k > n:
            break
        count += 1
    out[i, 3] = count
    # if / elif / else
    if n < 2:
        out[i, 4] = 10
    elif n < 5:
        out[i, 4] = 20
    elif n == 5:
        out[i, 4] = 30
    else:
        out[i, 4] = 40
    # conditional expression
    out[i, 5] = n * 2 if n % 2 == 0 else n * 3
    # and / or / not
    out[i, 6] = int(n > 1 and n < 6) + 2 * int(n == 0 or n == 7) + 4 * int(not n)
    # chained comparison
    out[i, 7] = int(1 <= n < 5) + 2 * int(0 < n <= n + 1 < 9)
    # tuple unpacking, swap
    a, b = n, n + 100
    a, b = b, a
    out[i, 8] = a * 1000 + b
    # multiple return values, unpacked
    q, r = divmod_c(n - 4, 3)
    out[i, 9] = q
    out[i, 10] = r
    # functions calling functions, early returns in functions
    out[i, 11] = sum_of_squares(n, 2) * 10 + classify(n - 3) + 1
    # augmented assignment on locals, every operator
    x = n + 7
    x *= 3
    x -= 1
    x //= 2
    x %= 7
    x += 1
    x <<= 2
    x |= 1
    x ^= 16
    x &= 31
    x >>= 1
    out[i, 12] = x
    # a variable step of unknown sign
    step = 1
    if n % 2 == 1:
        step = -1
    s = 0
    for k in range(3, 3 + 4 * step, step):
        s = s * 10 + k
    out[i, 13] = s
    # nested loops with break in the inner loop only
    m = 0
    for k in range(n):
        for j in range(n):
            if j > k:
                break
            m += 1
    out[i, 14] = m
    pass
    # a function with a bare return, called as a statement
    no_value(out, i)
    # return from the kernel: the last column is written by threads that do not return
    if n == 3:
        return
    out[i, 16] = 1


def reference(n: int) -> list:
    """The same computations in plain Python (C semantics where they differ)."""
    row = [0] * 17
    row[0] = sum(range(n))
    s = 0
    for k in range(n, -1, -2):
        s = s * 10 + k
    row[1] = s
    row[2] = sum(k * k for k in range(1, n))
    row[3] = sum(1 for k in range(1, n + 1) if k % 3 != 0)
    row[4] = 10 if n < 2 else 20 if n < 5 else 30 if n == 5 else 40
    row[5] = n * 2 if n % 2 == 0 else n * 3
    row[6] = int(1 < n < 6) + 2 * int(n in (0, 7)) + 4 * int(n == 0)
    row[7] = int(1 <= n < 5) + 2 * int(0 < n <= n + 1 < 9)
    row[8] = (n + 100) * 1000 + n
    row[9] = (n - 4) // 3
    row[10] = int(np.fmod(n - 4, 3))
    row[11] = (n * n + 4) * 10 + (-1 if n < 3 else 0 if n == 3 else 1) + 1
    x = n + 7
    x *= 3
    x -= 1
    x //= 2
    x %= 7
    x += 1
    x <<= 2
    x |= 1
    x ^= 16
    x &= 31
    x >>= 1
    row[12] = x
    step = -1 if n % 2 == 1 else 1
    s = 0
    for k in range(3, 3 + 4 * step, step):
        s = s * 10 + k
    row[13] = s
    row[14] = n * (n + 1) // 2
    row[15] = 123
    row[16] = 0 if n == 3 else 1
    return row


def test_control_flow_matches_python():
    ns = np.arange(0, 9, dtype=np.int32)
    out = wp.zeros((len(ns), 17), dtype=wp.int32)
    wp.launch(control_flow, dim=len(ns), inputs=[wp.array(ns, dtype=wp.int32), out])
    expected = np.array([reference(int(n)) for n in ns], dtype=np.int32)
    np.testing.assert_array_equal(out.numpy(), expected)


# -- tid() for 1 to 4 dimensions -------------------------------------------------------------------


@wp.kernel
def tid_1d(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 7


@wp.kernel
def tid_2d(out: wp.array2d(dtype=wp.vec2i)):
    i, j = wp.tid()
    out[i, j] = wp.vec2i(i, j)


@wp.kernel
def tid_3d(out: wp.array3d(dtype=wp.vec3i)):
    i, j, k = wp.tid()
    out[i, j, k] = wp.vec3i(i, j, k)


@wp.kernel
def tid_4d(out: wp.array4d(dtype=wp.vec4i)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = wp.vec4i(i, j, k, l)


def test_tid_one_dimension():
    out = wp.full(11, -1, dtype=wp.int32)
    wp.launch(tid_1d, dim=11, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), np.arange(11) * 7)


def test_tid_one_index_over_a_multidimensional_launch_is_the_first_index():
    out = wp.full(12, -1, dtype=wp.int32)
    wp.launch(tid_1d, dim=(3, 4), inputs=[out])  # Warp 1.19: i is 0, 0, 0, 0, 1, ... (each point 4 times)
    np.testing.assert_array_equal(out.numpy(), [0, 7, 14] + [-1] * 9)


@pytest.mark.parametrize("kernel, shape", [(tid_2d, (3, 5)), (tid_3d, (2, 3, 4)), (tid_4d, (2, 3, 1, 5))])
def test_tid_each_index(kernel, shape):
    dtype = {2: wp.vec2i, 3: wp.vec3i, 4: wp.vec4i}[len(shape)]
    out = wp.full(shape, dtype(-1), dtype=dtype)
    wp.launch(kernel, dim=shape, inputs=[out])
    expected = np.stack(np.meshgrid(*[np.arange(n) for n in shape], indexing="ij"), axis=-1)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_tid_dims_against_the_launch():
    """Fewer dim entries than tid() indices: the missing extents are 1; more repeat each point (as Warp)."""
    out = wp.zeros((2, 2, 2), dtype=wp.vec3i)
    wp.launch(tid_3d, dim=(2, 2, 2, 3), inputs=[out])
    expected = np.stack(np.meshgrid(*[np.arange(2)] * 3, indexing="ij"), axis=-1)
    np.testing.assert_array_equal(out.numpy(), expected)
    out = wp.full((2, 2, 2), wp.vec3i(-1, -1, -1), dtype=wp.vec3i)
    wp.launch(tid_3d, dim=(2, 2), inputs=[out])
    np.testing.assert_array_equal(out.numpy()[:, :, 0], [[[0, 0, 0], [0, 1, 0]], [[1, 0, 0], [1, 1, 0]]])
    np.testing.assert_array_equal(out.numpy()[:, :, 1], -1)


# -- print, printf, expect_eq / expect_neq ---------------------------------------------------------


@wp.kernel
def printing(a: wp.array(dtype=float), h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    print("value", i, a[i], wp.vec2(1.5, -2.0), i > 0)
    wp.printf("printf i=%d a=%.3f h=%g b=%d 100%%\n", i, a[i], h[i], i == 1)


@wp.kernel
def checks(a: wp.array(dtype=int), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.expect_eq(a[i], 2)
    wp.expect_neq(a[i], 7)
    wp.expect_eq(v[i], wp.vec3(1.0, 2.0, 3.0))


def test_print_and_printf_output(capfd):
    capfd.readouterr()
    wp.launch(printing, dim=2, inputs=[wp.array([0.25, 5.0]), wp.array([1.5, -3.0], dtype=wp.float16)])
    out = capfd.readouterr().out
    assert out.splitlines() == [
        "value 0 0.25 [1.5, -2] False",
        "printf i=0 a=0.250 h=1.5 b=0 100%",
        "value 1 5 [1.5, -2] True",
        "printf i=1 a=5.000 h=-3 b=1 100%",
    ]


def test_expect_prints_nothing_when_checks_pass(capfd):
    capfd.readouterr()
    wp.launch(checks, dim=3, inputs=[wp.full(3, 2, dtype=wp.int32), wp.full(3, wp.vec3(1.0, 2.0, 3.0))])
    assert capfd.readouterr().out == ""


def test_expect_prints_a_message_when_a_check_fails(capfd):
    capfd.readouterr()
    a = wp.array([2, 7], dtype=wp.int32)
    v = wp.array([[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]], dtype=wp.vec3)
    wp.launch(checks, dim=2, inputs=[a, v])
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("expect_eq(a[i], 2) failed at ") and lines[0].endswith(": 7 != 2")
    assert __file__ in lines[0]
    assert lines[1].startswith("expect_neq(a[i], 7) failed at ") and lines[1].endswith(": 7 == 7")
    assert lines[2].startswith("expect_eq(v[i], wp.vec3(1.0, 2.0, 3.0)) failed at ")
    assert lines[2].endswith(": [1, 2, 4] != [1, 2, 3]")


# -- parameters are values, casts by constructor, type operators ------------------------------------


@wp.kernel
def rebinds_parameter(n: int, scale: float, out: wp.array(dtype=float)):
    i = wp.tid()
    n = n + i  # a thread's own copy: other threads still see the launch value
    scale *= 2.0
    out[i] = float(n) * scale


def test_assigning_a_parameter_is_local_to_the_thread():
    out = wp.zeros(64)
    wp.launch(rebinds_parameter, dim=64, inputs=[10, 0.5, out])
    assert out.numpy().tolist() == [float(10 + i) for i in range(64)]


@wp.kernel
def casts_and_types(d: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=wp.float64),
                    vout: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    x = d[i]
    T = type(x)
    out[i, 0] = T(3) * x  # a type variable used as a constructor
    out[i, 1] = d.dtype(2) + x  # the array's dtype as a constructor
    out[i, 2] = type(d[i])(i)
    out[i, 3] = wp.float64(wp.float32(x))  # casts by constructor, with rounding
    out[i, 4] = wp.float64(int(x))
    out[i, 5] = wp.float64(bool(x))
    out[i, 6] = wp.float64(float(i) + 0.5)
    vout[i] = wp.vec3d(v[i]) + wp.vec3d(wp.vec3i(i, 1, -1))  # vector casts


def test_casts_and_type_operators():
    d = np.array([0.1, -2.7, 0.0, 3.5], dtype=np.float64)
    v = np.arange(12, dtype=np.float32).reshape(4, 3) / 3
    out = wp.zeros((4, 7), dtype=wp.float64)
    vout = wp.zeros(4, dtype=wp.vec3d)
    wp.launch(casts_and_types, dim=4, inputs=[wp.array(d), wp.array(v, dtype=wp.vec3), out, vout])
    i = np.arange(4)
    expected = np.stack([3 * d, 2 + d, i, d.astype(np.float32).astype(np.float64), np.trunc(d), d != 0,
                         i.astype(np.float32) + np.float32(0.5)], axis=1)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(vout.numpy(), v.astype(np.float64) + np.stack([i, i * 0 + 1, i * 0 - 1], axis=1))


@wp.kernel
def loop_variable_rebinding(out: wp.array(dtype=int)):
    s = 0
    for k in range(3):
        k += 10  # does not change the iteration, as in Python
        s += k
    out[0] = s
    n = -4
    for k in range(n):  # an empty range
        s += 1000
    out[1] = s
    out[2] = k  # the loop variable keeps its last value


def test_loop_variable_rebinding_and_empty_ranges():
    out = wp.zeros(3, dtype=wp.int32)
    wp.launch(loop_variable_rebinding, dim=1, inputs=[out])
    assert out.numpy().tolist() == [33, 33, 12]


@wp.kernel
def print_composites():
    print(wp.vec3(1.0, 2.5, -3.0))
    print(wp.mat22(1.0, 2.0, 3.0, 4.0))
    print(wp.quat(0.0, 0.0, 0.0, 1.0))
    print(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0)))


def test_one_vector_matrix_quaternion_or_transform_prints_as_warp_prints_it(capfd):
    """Warp 1.19's output, spaces included: a space after each vector or matrix component, none
    after a quaternion's last, a transform as ``(p) (q)``."""
    capfd.readouterr()
    wp.launch(print_composites, dim=1)
    assert capfd.readouterr().out.split("\n") == ["1 2.5 -3 ", "1 2 ", "3 4 ", "0 0 0 1", "(1 2 3) (0 0 0 1)", ""]


@wp.kernel
def _wide_steps(o: wp.array(dtype=int), a: int, b: int, s: int):
    n = 0
    for i in range(a, b, s):
        n += 1
        o[1] = i
    o[0] = n
    m = 0
    for i in range(b, a, -s):
        m += 1
        o[3] = i
    o[2] = m


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_range_whose_step_carries_past_the_int32_end_stops(target):
    """The counter of range(-2**31 + 1, 2**31 - 1, 2**30) wrapped around at 2**31 and the loop never ended."""
    from brickwork import config

    a, b, s = -2**31 + 1, 2**31 - 1, 2**30
    o = wp.zeros(4, dtype=int)
    with config.override(target=target):
        wp.launch(_wide_steps, dim=1, inputs=[o, a, b, s])
    up, down = range(a, b, s), range(b, a, -s)
    assert o.numpy().tolist() == [len(up), up[-1], len(down), down[-1]]
