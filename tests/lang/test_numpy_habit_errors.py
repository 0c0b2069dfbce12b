"""The first hour of a numpy user writing kernels (newuser round 13): the habits that numpy allows and kernels do
not, each refused before any code is compiled, naming the problem, the kernel's file and line, and the fix; the
arrays passed are left unchanged. The fixes the messages suggest compute numpy's values."""

import numpy as np
import pytest

import brickwork as wp

TABLE = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
SETTINGS = {"offset": 10}


@wp.kernel
def calls_numpy_sin(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x[i] = np.sin(x[i])


@wp.kernel
def builds_a_list(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    w = [1.0, 2.0, 3.0, 4.0]
    x[i] = w[i]


@wp.kernel
def builds_a_dict(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    d = {"scale": 2.0}
    x[i] = d["scale"] * x[i]


@wp.kernel
def reads_a_global_numpy_array(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x[i] = TABLE[i] * x[i]


@wp.kernel
def forgets_tid(x: wp.array(dtype=wp.float32), n: int):
    x[i] = 1.0  # noqa: F821 - the error under test


@wp.kernel
def stores_an_integer_quotient(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x[i] = i / n


@wp.kernel
def scales_by_an_integer_quotient(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x[i] = x[i] * (i / 2)


@wp.kernel
def loops_over_a_float_range(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    s = 0.0
    for _j in range(n, x[i] * 2.0):
        s += 1.0
    x[i] = s


@wp.func
def factorial(n: int) -> int:
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@wp.kernel
def recurses(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x[i] = float(factorial(n))


@wp.kernel
def returns_a_value(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    if i > n:
        return x[i]
    x[i] = 0.0


@wp.kernel
def doubles_a_whole_array(x: wp.array(dtype=wp.float32), n: int):
    x = x * 2.0


@wp.kernel
def stores_a_whole_array(x: wp.array(dtype=wp.float32), n: int):
    y = x
    x[:] = y


@wp.kernel
def sums_with_numpy(x: wp.array(dtype=wp.float32), n: int):
    x[0] = np.sum(x)


@wp.kernel
def calls_an_array_method(x: wp.array(dtype=wp.float32), n: int):
    x[0] = x.max()


@wp.kernel
def loops_over_an_array(x: wp.array(dtype=wp.float32), n: int):
    s = 0.0
    for v in x:
        s += v
    x[0] = s


@wp.kernel
def stores_a_row(x: wp.array(dtype=wp.float32), rows: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    x[i] = rows[i]


@wp.kernel
def shadows_a_builtin(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    min = x[i]  # noqa: A001 - the habit under test
    x[i] = min(min, 1.0)


@wp.kernel
def rebinds_a_parameter(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    x = wp.zeros(4, dtype=wp.float32)
    x[i] = 1.0


def _line(text: str) -> int:
    """The line of this file holding ``text`` (the statement an error names)."""
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


CASES = [
    (calls_numpy_sin, wp.KernelTypeError, "x[i] = np.sin(x[i])", ["'numpy.sin' is a numpy function", "use wp.sin"]),
    (builds_a_list, wp.KernelError, "w = [1.0, 2.0, 3.0, 4.0]", ["List constructs are not supported", "wp.vec3()"]),
    (builds_a_dict, wp.KernelError, 'd = {"scale": 2.0}',
     ["Construct `ast.Dict` not supported in kernels.: {'scale': 2.0}; named values are the fields of a @wp.struct "
      "(passed as an argument), and a dict made outside the kernel may be read with constant keys (CONFIG['dt'] is "
      "a constant of the compiled code)"]),
    (reads_a_global_numpy_array, wp.KernelTypeError, "x[i] = TABLE[i] * x[i]",
     ["'TABLE' is a numpy array defined outside the kernel", "pass arrays to kernels as arguments"]),
    (forgets_tid, wp.KernelError, "x[i] = 1.0", ["undefined symbol: i"]),
    (stores_an_integer_quotient, wp.KernelTypeError, "x[i] = i / n",
     ["cannot store a value of type int32 in an array element of an array of float32",
      "write wp.float32(i) / wp.float32(n) ('/' of two int32 values divides as integers in kernels, as in C and "
      "Warp: 7 / 2 is 3, where Python and numpy give 3.5)"]),
    (scales_by_an_integer_quotient, wp.KernelError, "x[i] = x[i] * (i / 2)",
     ["got float32 and int32", "write wp.float32(i) / wp.float32(2) ('/' of two int32 values divides as integers"]),
    (loops_over_a_float_range, wp.KernelTypeError, "for _j in range(n, x[i] * 2.0):",
     ["range() arguments must be integers of one type, got int32, float32 (a loop counts in integers, as Python's "
      "range does: write range(n, int(x[i] * 2.0)))"]),
    (doubles_a_whole_array, wp.KernelTypeError, "x = x * 2.0",
     ["got array(dtype=float32, ndim=1) and float32; a kernel thread works on elements, not whole arrays: index it, "
      "x[i] with i = wp.tid() (arithmetic on whole arrays, x * 2.0, is written outside kernels)"]),
    (stores_a_whole_array, wp.KernelSyntaxError, "x[:] = y",
     ["cannot assign to 'x[:]': a kernel thread writes elements, x[i] = ... with i = wp.tid() (a whole array is "
      "copied on the host: x.assign(y) or wp.copy(x, y))"]),
    (sums_with_numpy, wp.KernelTypeError, "x[0] = np.sum(x)",
     ["'numpy.sum' is a numpy function, which kernels cannot call: a kernel thread reads elements, not whole arrays; "
      "reduce an array on the host (wp.utils.array_sum(a), or numpy.sum(a.numpy())), or add each thread's element "
      "into one with wp.atomic_add(total, 0, a[i])"]),
    (calls_an_array_method, wp.KernelAttributeError, "x[0] = x.max()",
     ["has no attribute 'max'", "(array(dtype=float32, ndim=1)); a kernel thread reads elements, not whole arrays: "
      "reduce on the host (numpy.max(x.numpy()), or wp.utils.array_sum(x) for a sum), or combine each thread's x[i] "
      "into one element with wp.atomic_max"]),
    (loops_over_an_array, wp.KernelSyntaxError, "for v in x:",
     ["for loops must iterate over range(...) or reversed(range(...)) (over the elements of array 'x': "
      "for j in range(x.shape[0]): ... x[j])"]),
    (recurses, wp.KernelTypeError, "return n * factorial(n - 1)",
     ["factorial() calls itself; recursion is not supported in kernels"]),
    (shadows_a_builtin, wp.KernelTypeError, "x[i] = min(min, 1.0)",
     ["'min' is a variable of type float32 here, which hides the builtin min(): rename the variable (Warp 1.19 calls "
      "the builtin; Python would fail as here)"]),
    (rebinds_a_parameter, wp.KernelTypeError, "x = wp.zeros(4, dtype=wp.float32)",
     ["'x' is a parameter of type array(dtype=float32, ndim=1) (its annotation) and cannot be assigned a value of "
      "type fixedarray(dtype=float32, shape=(4,)): give the new value a name of its own (x_new = ...)"]),
    (returns_a_value, wp.KernelTypeError, "return x[i]",
     ["kernels cannot return a value", "Write results to output arguments"]),
]


@pytest.mark.parametrize("kernel, error, statement, words", CASES, ids=[c[0].key for c in CASES])
def test_a_numpy_habit_is_refused_with_the_fix(kernel, error, statement, words):
    x = wp.array([0.5, 1.5, 2.5, 3.5], dtype=wp.float32)
    with pytest.raises(error) as caught:
        wp.launch(kernel, dim=4, inputs=[x, 3])
    text = str(caught.value)
    assert f'test_numpy_habit_errors.py", line {_line(statement)}' in text and statement in text
    for w in words:
        assert w in text
    assert x.numpy().tolist() == [0.5, 1.5, 2.5, 3.5]


def test_a_float64_numpy_array_for_a_float32_parameter_says_how_to_convert():
    data = np.linspace(0.0, 1.0, 4)
    with pytest.raises(wp.LaunchError) as caught:
        wp.launch(calls_numpy_sin, dim=4, inputs=[data, 3])
    assert str(caught.value) == (
        "launch of 'calls_numpy_sin': argument 'x' must be array(dtype=float32, ndim=1), got array(dtype=float64, "
        "ndim=1) (its elements are float64, the kernel's float32: convert the data, e.g. "
        "numpy_array.astype(numpy.float32) or wp.array(numpy_array, dtype=wp.float32))")
    assert data.tolist() == np.linspace(0.0, 1.0, 4).tolist()


@wp.kernel
def divides(n: int, ints: wp.array(dtype=int), floats: wp.array(dtype=wp.float32)):
    i = wp.tid() - 4
    ints[i + 4] = i / n + SETTINGS["offset"]  # a global dict read with a constant key: a constant
    floats[i + 4] = wp.float32(i) / wp.float32(n)


def test_integer_division_truncates_as_c_and_the_suggested_fix_is_numpys_division():
    ints = wp.zeros(9, dtype=int)
    floats = wp.zeros(9, dtype=wp.float32)
    wp.launch(divides, dim=9, inputs=[2, ints, floats])
    i = np.arange(-4, 5)
    quotients = (ints.numpy() - 10).tolist()
    assert quotients == [-2, -1, -1, 0, 0, 0, 1, 1, 2]  # C's: toward zero, where Python's // floors
    assert quotients == np.trunc(i / 2).astype(int).tolist()
    assert np.array_equal(floats.numpy(), i.astype(np.float32) / np.float32(2))


def test_a_row_of_a_2d_array_stored_as_an_element_says_how_many_indices():
    x = wp.zeros(2, dtype=wp.float32)
    rows = wp.array(np.ones((2, 3), dtype=np.float32))
    with pytest.raises(wp.KernelTypeError) as caught:
        wp.launch(stores_a_row, dim=2, inputs=[x, rows])
    assert f'line {_line("x[i] = rows[i]")}, in stores_a_row' in str(caught.value)
    assert str(caught.value).endswith(
        "cannot store a value of type array(dtype=float32, ndim=1) in an array element of an array of float32; "
        "'rows[i]' indexes 1 of the 2 dimensions of its array, which gives a view: an element takes 2 indices, such "
        "as rows[i, j]")
    assert x.numpy().tolist() == [0.0, 0.0]
