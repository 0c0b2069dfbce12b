"""User errors in kernel code: the exception type, a message that names the operation and the types,
the user's file, line and source line, no C++ compiler output, and no array touched.

Each faulty line carries a ``# E:<name>`` marker; the test finds its line number in this file.
"""

import math

import numpy as np
import pytest

import brickwork as wp
from brickwork.la import halo


def plain_python(x):
    return x


@wp.func
def countdown(n: int) -> int:
    return countdown(n - 1)  # E:recursion


@wp.func
def ping(n: int) -> int:
    return pong(n)


@wp.func
def pong(n: int) -> int:
    return ping(n)  # E:mutual


@wp.func
def two_types(n: int):
    if n > 0:
        return 1
    return 1.0  # E:return_types


@wp.func
def only_float(x: float) -> float:
    return x


@wp.kernel
def mixed_arith(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + b[i]  # E:mixed_arith


@wp.kernel
def float_plus_index(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + i  # E:float_plus_index


@wp.kernel
def int_times_int64(n: wp.array(dtype=wp.int64)):
    i = wp.tid()
    n[i] = n[i] * (i * 2)  # E:int_times_int64


@wp.kernel
def signed_and_unsigned(u: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    u[0] = u[0] + i  # E:signed_and_unsigned


@wp.kernel
def mixed_literal(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * 2  # E:mixed_literal


COUNT = 3


@wp.kernel
def int64_literal(a: wp.array(dtype=wp.int64)):
    i = wp.tid()
    a[i] = a[i] * 2  # E:int64_literal


@wp.kernel
def augmented_literal(a: wp.array(dtype=wp.int64)):
    s = a[0]
    s += 1  # E:augmented_literal
    a[0] = s


@wp.kernel
def atomic_literal(a: wp.array(dtype=wp.int64)):
    i = wp.tid()
    a[i] += 1  # E:atomic_literal


@wp.kernel
def captured_int(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] * COUNT  # E:captured_int


@wp.kernel
def float64_int_literal(a: wp.array(dtype=wp.float64)):
    x = a[0]
    x *= 2  # E:float64_int_literal
    a[0] = x


@wp.kernel
def builtin_int_literal(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = wp.max(a[i], 0)  # E:builtin_int_literal


@wp.kernel
def builtin_float_literal(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    b[i] = wp.clamp(b[i], 0.0, wp.float64(1.0))  # E:builtin_float_literal


@wp.kernel
def builtin_argument_count(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = wp.sin(a[i], a[i])  # E:builtin_argument_count


@wp.kernel
def array_called(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a(i)  # E:array_called


@wp.kernel
def store_f64(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = b[i]  # E:store_f64


@wp.kernel
def var_type(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = a[i]
    x = b[i]  # E:var_type
    a[i] = x


@wp.kernel
def unknown_name(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = undefined_thing  # E:unknown_name  # noqa: F821


@wp.kernel
def unknown_attr(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = wp.vec3(1.0, 2.0, 3.0)
    a[i] = v.q  # E:unknown_attr


@wp.kernel
def unknown_module_attr(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = wp.no_such_builtin(1.0)  # E:unknown_module_attr


@wp.kernel
def index_count(a: wp.array(dtype=wp.float32), b: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    b[i] = wp.float64(1.0)  # E:index_count


@wp.kernel
def calls_python(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = plain_python(a[i])  # E:calls_python


HALF = 0.5


@wp.kernel
def captured_float(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    b[i] = b[i] + HALF  # E:captured_float


@wp.kernel
def literal_float_vector(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = wp.vec2d(b[i], b[i]) * 0.5  # E:literal_float_vector
    b[i] = v[0]


@wp.kernel
def calls_math_builtin(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = math.gamma(a[i])  # E:calls_math_builtin


@wp.kernel
def calls_numpy_ufunc(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = np.clip(a[i], 0.0, 1.0)  # E:calls_numpy_ufunc


@wp.kernel
def calls_numpy_function(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = np.sin(a[i])  # E:calls_numpy_function


@wp.kernel
def calls_numpy_type(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    b[i] = np.float64(a[i])  # E:calls_numpy_type


@wp.kernel
def calls_numpy_without_builtin(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = np.sinc(a[i])  # E:calls_numpy_without_builtin


@wp.kernel
def calls_library_host_function(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    h = halo.make([(-1, 0, 0), (0, 0, 0)])  # E:calls_library_host_function
    a[0] = float(len(h.offsets))


@wp.kernel
def returns_value(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = 1.0
    return a[i]  # E:returns_value


@wp.kernel
def recursive(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.int32)):
    i = wp.tid()
    b[i] = countdown(3)


@wp.kernel
def mutually_recursive(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.int32)):
    i = wp.tid()
    b[i] = ping(3)


@wp.kernel
def bad_return_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.int32)):
    i = wp.tid()
    b[i] = two_types(i)


@wp.kernel
def func_arg_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a[i] = only_float(b[i])  # E:func_arg_types


@wp.kernel
def atomic_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] += b[i]  # E:atomic_types


@wp.kernel
def builtin_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a[i] = wp.sin(b[i])  # E:builtin_types


@wp.kernel
def vector_types(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    a[i] = a[i] + b[i]  # E:vector_types


@wp.kernel
def compare_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float16)):
    i = wp.tid()
    # float32 < float64 compares as C++ (and Warp) does; float16 has no common type with float32
    if a[i] < b[i]:  # E:compare_types
        a[i] = 0.0


@wp.kernel
def branch_types(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] if i > 0 else b[i]  # E:branch_types


@wp.kernel
def component_types(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    v = a[i]
    v[0] = b[i][0]  # E:component_types
    a[i] = v


@wp.kernel
def vector_index_range(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    a[i][3] = 1.0  # E:vector_index_range


@wp.kernel
def vector_index_count(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    a[i][0] = a[i][0, 1]  # E:vector_index_count


@wp.kernel
def matrix_index_count(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    a[i][1] = m[0, 1, 0]  # E:matrix_index_count


@wp.kernel
def global_array(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = GLOBAL_DATA[i]  # E:global_array


@wp.kernel
def global_array_value(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
    a[0] = wp.lower_bound(GLOBAL_DATA, 2.0)  # E:global_array_value


GLOBAL_DATA = wp.zeros(4)

CASES = [
    # kernel, exception, marker, message fragments
    (mixed_arith, wp.KernelTypeError, "mixed_arith", [
        "'+' (add)", "float32 and float64", "; kernels convert no operand implicitly: write wp.float64(a[i])"]),
    (float_plus_index, wp.KernelTypeError, "float_plus_index", [
        "'+' (add)", "float32 and int32", "; kernels convert no operand implicitly: write wp.float32(i)"]),
    (int_times_int64, wp.KernelTypeError, "int_times_int64", [
        "int64 and int32", "; kernels convert no operand implicitly: write wp.int64(i * 2)"]),
    (signed_and_unsigned, wp.KernelTypeError, "signed_and_unsigned", [
        "uint32 and int32", "; kernels convert no operand implicitly: write wp.uint32(i) or wp.int32(u[0])"]),
    (mixed_literal, wp.KernelTypeError, "mixed_literal", [
        "'*' (mul)", "float32 and int32", "2 is a Python int, which kernels take as int32: write 2.0"]),
    (builtin_int_literal, wp.KernelTypeError, "builtin_int_literal", [
        "max(): operand types must match, got float32 and int32",
        "0 is a Python int, which kernels take as int32: write 0.0"]),
    (builtin_float_literal, wp.KernelTypeError, "builtin_float_literal", [
        "clamp(): ", "0.0 is a Python float, which kernels take as float32: write wp.float64(0.0)"]),
    (builtin_argument_count, wp.KernelTypeError, "builtin_argument_count", [
        "sin(): does not take 2 arguments (Couldn't find function overload for 'sin'"]),
    (array_called, wp.KernelTypeError, "array_called",
     ["'a' is an array, not a function: index it with square brackets, a[i]"]),
    (int64_literal, wp.KernelTypeError, "int64_literal", [
        "'*' (mul)", "int64 and int32", "2 is a Python int, which kernels take as int32: write wp.int64(2)"]),
    (augmented_literal, wp.KernelTypeError, "augmented_literal", [
        "'+' (add)", "int64 and int32", "1 is a Python int, which kernels take as int32: write wp.int64(1)"]),
    (atomic_literal, wp.KernelTypeError, "atomic_literal", [
        "atomic_add: cannot add a value of type int32 to an array of int64",
        "1 is a Python int, which kernels take as int32: write wp.int64(1)"]),
    (captured_int, wp.KernelTypeError, "captured_int", [
        "float32 and int32", "'COUNT' is a Python int captured by the kernel, which kernels take as int32: "
        "write wp.float32(COUNT)"]),
    (float64_int_literal, wp.KernelTypeError, "float64_int_literal", [
        "float64 and int32", "2 is a Python int, which kernels take as int32: write wp.float64(2)"]),
    (store_f64, wp.KernelTypeError, "store_f64", ["store", "float64", "array of float32"]),
    (var_type, wp.KernelTypeError, "var_type", ["variable 'x'", "float32", "float64", "keeps its first type"]),
    (unknown_name, wp.KernelNameError, "unknown_name", ["name 'undefined_thing' is not defined"]),
    (unknown_attr, wp.KernelAttributeError, "unknown_attr", ["vec3f has no attribute 'q'"]),
    (unknown_module_attr, wp.KernelAttributeError, "unknown_module_attr",
     ["module 'brickwork' has no attribute 'no_such_builtin'"]),
    (index_count, wp.KernelTypeError, "index_count", ["2 dimensions needs 2 indices, got 1"]),
    (calls_python, wp.KernelTypeError, "calls_python", ["'plain_python' is a Python function", "@func"]),
    (captured_float, wp.KernelTypeError, "captured_float", [
        "got float64 and float32", "'HALF' is a Python float captured by the kernel, which kernels take as float32: "
        "write wp.float64(HALF)"]),
    (literal_float_vector, wp.KernelTypeError, "literal_float_vector",
     ["vec2d and float32", "0.5 is a Python float, which kernels take as float32: write wp.float64(0.5)"]),
    (calls_math_builtin, wp.KernelTypeError, "calls_math_builtin",
     ["'math.gamma' is a host function with no kernel version", "call it outside the kernel"]),
    (calls_numpy_ufunc, wp.KernelTypeError, "calls_numpy_ufunc",
     ["'numpy.clip' is a numpy function, which kernels cannot call: use wp.clamp"]),
    (calls_numpy_function, wp.KernelTypeError, "calls_numpy_function",
     ["'numpy.sin' is a numpy function, which kernels cannot call: use wp.sin"]),
    (calls_numpy_type, wp.KernelTypeError, "calls_numpy_type",
     ["'numpy.float64' is a numpy type, which kernels cannot call: use wp.float64"]),
    (calls_numpy_without_builtin, wp.KernelTypeError, "calls_numpy_without_builtin",
     ["'numpy.sinc' is a numpy function, which kernels cannot call"]),
    (calls_library_host_function, wp.KernelTypeError, "calls_library_host_function",
     ["'brickwork.la.halo.make' is a host function with no kernel version", "use its result inside"]),
    (returns_value, wp.KernelTypeError, "returns_value", ["kernels cannot return a value"]),
    (recursive, wp.KernelTypeError, "recursion", ["countdown() calls itself", "recursion"]),
    (mutually_recursive, wp.KernelTypeError, "mutual", ["ping() calls itself", "recursion"]),
    (bad_return_types, wp.KernelTypeError, "return_types", ["return types differ: int32 and float32"]),
    (func_arg_types, wp.KernelTypeError, "func_arg_types", ["only_float()", "(int32)", "(float32)"]),
    (atomic_types, wp.KernelTypeError, "atomic_types", ["atomic_add", "float64", "array of float32"]),
    (builtin_types, wp.KernelTypeError, "builtin_types", ["sin()", "floating-point", "int32"]),
    (vector_types, wp.KernelTypeError, "vector_types", ["'+' (add)", "vec3f and vec3d"]),
    (compare_types, wp.KernelTypeError, "compare_types", ["'<' (lt)", "float32 and float16"]),
    (branch_types, wp.KernelTypeError, "branch_types", ["conditional expression", "float32 and float64"]),
    (component_types, wp.KernelTypeError, "component_types", ["float64", "float32"]),
    (vector_index_range, wp.KernelTypeError, "vector_index_range", ["index 3 is out of range for vec3f"]),
    (vector_index_count, wp.KernelTypeError, "vector_index_count", ["vec3f takes one index, got 2"]),
    (matrix_index_count, wp.KernelTypeError, "matrix_index_count", ["mat22f takes 1 or 2 indices, got 3"]),
    (global_array, wp.KernelTypeError, "global_array", [
        "Invalid external reference type: <class 'brickwork.types.arrays.array'>: 'GLOBAL_DATA' is an array "
        "defined outside the kernel", "as arguments"]),
    (global_array_value, wp.KernelTypeError, "global_array_value", [
        "Invalid external reference type: <class 'brickwork.types.arrays.array'>: array array(",
        "is not a value usable in a kernel"]),
]


def _marked_line(marker: str) -> tuple[int, str]:
    with open(__file__) as f:
        for number, text in enumerate(f, 1):
            if f"# E:{marker}" in text and "CASES" not in text:
                return number, text.strip()
    raise AssertionError(f"marker {marker} not found")


def check_located(error: Exception, marker: str):
    number, text = _marked_line(marker)
    message = str(error)
    assert f'File "{__file__}", line {number}' in message, message
    assert text in message, message


def check_not_a_compiler_message(error: Exception):
    assert not isinstance(error, wp.ToolchainError)
    assert "error:" not in str(error) and ".cpp" not in str(error)


def _arguments(kernel):
    rng = np.random.default_rng(0)
    args = []
    for _, t in kernel.params:
        shape = (4,) if t.ndim == 1 else (4, 4)
        data = rng.standard_normal(shape + (3,) * (t.dtype in (wp.vec3, wp.vec3d)))
        args.append(wp.array(data.astype(t.dtype._np if hasattr(t.dtype, "_np") else t.dtype._dtype._np),
                             dtype=t.dtype))
    return args


@pytest.mark.parametrize("kernel, error, marker, fragments", CASES, ids=[c[2] for c in CASES])
def test_kernel_error(kernel, error, marker, fragments):
    args = _arguments(kernel)
    before = [a.numpy().copy() for a in args]
    for _ in range(2):  # the second launch raises the same error again, without rebuilding
        with pytest.raises(error) as info:
            wp.launch(kernel, dim=4, inputs=args)
        for fragment in fragments:
            assert fragment in str(info.value), str(info.value)
        check_located(info.value, marker)
        check_not_a_compiler_message(info.value)
    for a, b in zip(args, before):
        assert a.numpy().tobytes() == b.tobytes()


def test_type_errors_are_python_type_errors():
    assert issubclass(wp.TypeError, TypeError) and wp.TypeError is wp.KernelTypeError
    assert issubclass(wp.KernelNameError, NameError)
    assert issubclass(wp.KernelSyntaxError, SyntaxError)
    assert issubclass(wp.KernelAttributeError, AttributeError)
    assert issubclass(wp.LaunchError, TypeError)
    for cls in (wp.KernelTypeError, wp.KernelNameError, wp.KernelSyntaxError, wp.LaunchError):
        assert issubclass(cls, wp.BrickworkError)


# -- unsupported statements and expressions ---------------------------------------------------------


@wp.kernel
def uses_try(a: wp.array(dtype=float)):
    i = wp.tid()
    try:  # E:try
        a[i] = 1.0
    except ValueError:
        pass


@wp.kernel
def uses_with(a: wp.array(dtype=float)):
    i = wp.tid()
    with wp.ScopedDevice("cpu"):  # E:with
        a[i] = 1.0


@wp.kernel
def uses_raise(a: wp.array(dtype=float)):
    i = wp.tid()
    if i > 100:
        raise ValueError("no")  # E:raise


@wp.kernel
def uses_del(a: wp.array(dtype=float)):
    i = wp.tid()
    x = 1.0
    del x  # E:del


@wp.kernel
def uses_import(a: wp.array(dtype=float)):
    i = wp.tid()
    import math  # E:import  # noqa: F401


@wp.kernel
def uses_nested_def(a: wp.array(dtype=float)):
    i = wp.tid()

    def inner():
        pass

    inner()  # E:nested_def


@wp.kernel
def uses_lambda(a: wp.array(dtype=float)):
    i = wp.tid()
    f = lambda x: x  # noqa: E731
    a[i] = f(1.0)  # E:lambda


@wp.kernel
def uses_list(a: wp.array(dtype=float)):
    i = wp.tid()
    values = [k for k in range(3)]  # E:list


@wp.kernel
def uses_while_else(a: wp.array(dtype=float)):
    i = wp.tid()
    while i > 10:  # E:while_else
        i -= 1
    else:
        a[i] = 1.0


@wp.kernel
def uses_for_array(a: wp.array(dtype=float)):
    i = wp.tid()
    for x in a:  # E:for_array
        pass


@wp.kernel
def uses_slice(a: wp.array(dtype=float)):
    i = wp.tid()
    a[1:3] = 0.0  # E:slice


@wp.kernel
def uses_string(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = "text"  # E:string


@wp.kernel
def uses_is(a: wp.array(dtype=float)):
    i = wp.tid()
    if a is None:  # E:is
        pass


@wp.kernel
def uses_break_outside(a: wp.array(dtype=float)):
    i = wp.tid()
    if i > 0:
        wp.expect_eq(1, 1)
    a[i] = wp.tid_not_here if i > 100 else 1.0  # E:attr_in_ifexp


UNSUPPORTED = [
    (uses_try, wp.KernelSyntaxError, "try", "'try' statements are not supported"),
    (uses_with, wp.KernelSyntaxError, "with", "'with' statements are not supported"),
    (uses_raise, wp.KernelSyntaxError, "raise", "'raise' statements are not supported"),
    (uses_del, wp.KernelSyntaxError, "del", "'del' statements are not supported"),
    (uses_import, wp.KernelSyntaxError, "import", "'import' statements are not supported"),
    (uses_nested_def, wp.KernelTypeError, "nested_def", "can only be used as loop bodies"),
    (uses_lambda, wp.KernelTypeError, "lambda", "can only be used as loop bodies"),
    (uses_list, wp.KernelSyntaxError, "list", "list comprehensions are not supported in kernels"),
    (uses_while_else, wp.KernelSyntaxError, "while_else", "'while ... else' is not supported"),
    (uses_for_array, wp.KernelSyntaxError, "for_array", "for loops must iterate over range(...)"),
    (uses_slice, wp.KernelSyntaxError, "slice", "cannot assign to 'a[1:3]'"),
    (uses_string, wp.KernelTypeError, "string", "is not a value usable in a kernel"),
    (uses_is, wp.KernelSyntaxError, "is", "comparison 'is' is not supported in kernels: a is None; compare values"),
    (uses_break_outside, wp.KernelAttributeError, "attr_in_ifexp", "no attribute 'tid_not_here'"),
]


@pytest.mark.parametrize("kernel, error, marker, fragment", UNSUPPORTED, ids=[c[2] for c in UNSUPPORTED])
def test_unsupported_construct(kernel, error, marker, fragment):
    a = wp.array(np.arange(4, dtype=np.float32))
    with pytest.raises(error) as info:
        wp.launch(kernel, dim=4, inputs=[a])
    assert fragment in str(info.value)
    check_located(info.value, marker)
    check_not_a_compiler_message(info.value)
    assert a.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


# -- errors at definition, and independence of instances ----------------------------------------------


def test_missing_annotation_is_reported_at_definition():
    with pytest.raises(wp.KernelSyntaxError, match="parameter 'b' of kernel 'no_annotation' needs a type"):

        @wp.kernel
        def no_annotation(a: wp.array(dtype=float), b):
            pass

    with pytest.raises(wp.KernelSyntaxError, match="parameter 'x' of function '.*no_annotation_func' needs a type"):

        @wp.func
        def no_annotation_func(x):
            return x


@wp.kernel
def fine(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_a_broken_kernel_does_not_break_a_valid_one():
    with pytest.raises(wp.KernelSyntaxError):
        wp.launch(uses_try, dim=1, inputs=[wp.zeros(1)])
    a = wp.zeros(3)
    wp.launch(fine, dim=3, inputs=[a])
    assert a.numpy().tolist() == [1.0, 1.0, 1.0]


def test_a_kernel_error_is_not_buried_under_the_compiler_s_frames():
    """The message names the kernel's file and line; the traceback stops at the pipeline, not at the frontend
    expression that found the problem (a dozen frames of typer.py and expressions.py before)."""
    import traceback

    @wp.kernel
    def undefined(out: wp.array(dtype=float)):
        out[0] = not_defined_anywhere + 1.0  # noqa: F821 - the error under test

    with pytest.raises(wp.KernelError) as info:
        wp.launch(undefined, 1, inputs=[wp.zeros(1)])
    files = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
    assert not [f for f in files if "brickwork/frontend/" in f], files
    assert "test_errors.py" in str(info.value) and "not_defined_anywhere + 1.0" in str(info.value)


@wp.kernel
def python_numbers_as_the_hints_write_them(a: wp.array(dtype=wp.int64), x: wp.array(dtype=wp.float32),
                                           y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = a[i] * wp.int64(2)
    s += wp.int64(1)
    a[i] = s
    a[i] += wp.int64(1)
    x[i] = x[i] * 2.0 * wp.float32(COUNT)
    z = y[i]
    z *= wp.float64(2)
    y[i] = z


def test_the_spellings_the_number_hints_suggest_compile_and_compute():
    a = wp.array(np.array([1, -4, 2**40], dtype=np.int64))
    x = wp.array(np.array([0.5, -1.0, 3.0], dtype=np.float32))
    y = wp.array(np.array([0.25, 1e300, -2.0]))
    wp.launch(python_numbers_as_the_hints_write_them, dim=3, inputs=[a, x, y])
    assert a.numpy().tolist() == [4, -6, 2**41 + 2]
    assert x.numpy().tolist() == [3.0, -6.0, 18.0]
    assert y.numpy().tolist() == [0.5, 2e300, -4.0]


def test_the_numpy_hint_for_a_function_without_a_builtin_names_none():
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(calls_numpy_without_builtin, dim=4, inputs=_arguments(calls_numpy_without_builtin))
    assert str(info.value).endswith("which kernels cannot call"), str(info.value)
