"""Programs a careless user (or an attacker) writes: each compiles to what Python means, or is refused with an
error that names the problem, the kernel's file and line, never a Python RecursionError, a C++ compiler
message or garbage printed by C's printf."""

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork.frontend.fingerprint import function_fingerprint
from kernel_files import kernel_module


def _module(tmp_path, text: str):
    return kernel_module(tmp_path, text, "attack_kernels")


def _line(marker: str) -> int:
    """The line of this file that ends with ``# marker``."""
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if text.rstrip().endswith(f"# E:{marker}"))


def _located(error, marker: str):
    assert f'File "{__file__}", line {_line(marker)}' in str(error)


def _chain_of_functions(n: int) -> str:
    text = "@wp.func\ndef f0(x: float):\n    return x + 1.0\n\n"
    for i in range(1, n):
        text += f"@wp.func\ndef f{i}(x: float):\n    return f{i - 1}(x) + 1.0\n\n"
    return text + f"@wp.kernel\ndef deep(a: wp.array(dtype=float)):\n    a[0] = f{n - 1}(0.0)\n"


# -- recursion and deep chains of calls ---------------------------------------------------------------


@wp.func
def even(n: int):
    if n == 0:
        return True
    return odd(n - 1)


@wp.func
def odd(n: int):
    if n == 0:
        return False
    return even(n - 1)  # E:mutual


@wp.kernel
def mutual(a: wp.array(dtype=int)):
    a[0] = int(even(4))


def test_mutual_recursion_names_the_cycle():
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(mutual, dim=1, inputs=[wp.zeros(1, dtype=int)])
    assert "even() calls itself through odd(); recursion is not supported in kernels" in str(info.value)
    _located(info.value, "mutual")


def test_a_chain_of_calls_too_deep_to_type_is_named_not_called_recursion(tmp_path):
    """A hundred functions each calling the next: no recursion, and no RecursionError either."""
    m, path = _module(tmp_path, _chain_of_functions(100))
    a = wp.zeros(1)
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(m.deep, dim=1, inputs=[a])
    text = str(info.value)
    assert "calls itself" not in text
    assert re.search(r"calls of functions are nested \d+ deep here \(f99 -> f98 -> f97 -> \.\.\.", text)
    assert "too deep to compile" in text
    assert f'File "{path}", line {path.read_text().count(chr(10))}, in deep' in text  # the kernel's call


def test_a_chain_of_thirty_calls_compiles(tmp_path):
    m, _ = _module(tmp_path, _chain_of_functions(30))
    a = wp.zeros(1)
    wp.launch(m.deep, dim=1, inputs=[a])
    assert a.numpy()[0] == 30.0


def test_the_cache_key_of_a_very_deep_chain_needs_no_deep_python_stack(tmp_path):
    """The fingerprint walks reached functions one after another: 1500 of them are fine, and the innermost
    one's source still counts."""
    m1, _ = _module(tmp_path, _chain_of_functions(1500))
    m2, _ = _module(tmp_path, _chain_of_functions(1500).replace("return x + 1.0", "return x + 2.0", 1))
    f1, f2 = function_fingerprint(m1.deep.source), function_fingerprint(m2.deep.source)
    assert f1 != f2 and f1 == function_fingerprint(m1.deep.source)


# -- signatures ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("header, fragment", [
    ("async def k(a: wp.array(dtype=float)):", "'async def' cannot define a kernel or function"),
    ("def k(a: wp.array(dtype=float), *rest):", "parameter '*rest': a variable number of arguments"),
    ("def k(a: wp.array(dtype=float), *rest: float):", "parameter '*rest': a variable number of arguments"),
    ("def k(a: wp.array(dtype=float), **extra):", "parameter '**extra': keyword arguments collected in a dict"),
])
@pytest.mark.parametrize("decorator", ["wp.kernel", "wp.func"])
def test_signatures_python_binds_but_kernels_cannot_are_refused_at_declaration(tmp_path, header, fragment,
                                                                                decorator):
    with pytest.raises(wp.KernelSyntaxError) as info:
        _module(tmp_path, f"@{decorator}\n{header}\n    a[0] = 1.0\n")
    text = str(info.value)
    assert fragment in text and "k: " in text
    assert re.search(r'File ".*attack_kernels_\d+\.py", line 4, in k', text)


@wp.func
def scaled(x: float, /, y: float, *, s: float = 3.0, t: float):
    return (x + y) * s + t


@wp.kernel
def keyword_only(a: wp.array(dtype=float), *, b: float):
    a[0] = scaled(1.0, 2.0, t=b) + scaled(1.0, y=1.0, s=1.0, t=0.0)


def test_positional_only_and_keyword_only_parameters_are_parameters_as_in_warp():
    a = wp.zeros(1)
    wp.launch(keyword_only, dim=1, inputs=[a, 0.5])  # Warp passes a kernel's keyword-only parameters by position
    assert a.numpy()[0] == (1.0 + 2.0) * 3.0 + 0.5 + 2.0
    assert scaled(1.0, 2.0, t=1.0) == 10.0  # from Python, Python's rules


# -- printf and print ---------------------------------------------------------------------------------


@wp.kernel
def printf_float_as_int(x: float):
    wp.printf("%d\n", x)  # E:printf_d


@wp.kernel
def printf_int_as_float(n: int):
    wp.printf("%f\n", n)  # E:printf_f


@wp.kernel
def printf_long_double(x: float):
    wp.printf("%Lf\n", x)  # E:printf_L


@wp.kernel
def printf_unknown(x: float):
    wp.printf("%q\n", x)  # E:printf_q


@wp.kernel
def printf_trailing(x: float):
    wp.printf("100%")  # E:printf_trailing


@wp.kernel
def printf_nul(x: float):
    wp.printf("a\x00%f\n", x)  # E:printf_nul


@wp.kernel
def printf_star_float(x: float):
    wp.printf("%*d\n", x, 3)  # E:printf_star


PRINTF_ERRORS = [
    (printf_float_as_int, "printf_d", "conversion '%d' prints an integer, got a value of type float32"),
    (printf_int_as_float, "printf_f", "conversion '%f' prints a float, got a value of type int32"),
    (printf_long_double, "printf_L", "conversion '%Lf' has a length modifier ('L')"),
    (printf_unknown, "printf_q", "'%q' in the format '%q\\n' is not a conversion C's printf knows"),
    (printf_trailing, "printf_trailing", "'%' in the format '100%' is not a conversion C's printf knows"),
    (printf_nul, "printf_nul", "holds a NUL character"),
    (printf_star_float, "printf_star", "the '*' of '%*d' prints an integer, got a value of type float32"),
]


@pytest.mark.parametrize("kernel, marker, fragment", PRINTF_ERRORS, ids=[c[1] for c in PRINTF_ERRORS])
def test_printf_values_that_c_would_misread_are_refused(kernel, marker, fragment, capfd):
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(kernel, dim=1, inputs=[1 if kernel is printf_int_as_float else 1.5])
    assert fragment in str(info.value)
    _located(info.value, marker)
    assert capfd.readouterr().out == ""


@wp.kernel
def printf_widths(n: wp.int64, m: int, u: wp.uint64, b: bool, h: wp.float16, w: int):
    wp.printf("%d|%lld|%u|%llx|%ld|%*d|%.*f|\n", n, m, u, m, b, w, m, w, h)


def test_printf_integers_are_converted_to_the_width_their_conversion_reads(capfd):
    wp.launch(printf_widths, dim=1, inputs=[wp.int64(2**40 + 5), -3, wp.uint64(2**63 + 1), True,
                                            wp.float16(1.5), 6])
    assert capfd.readouterr().out == "5|-3|1|fffffffffffffffd|1|    -3|1.500000|\n"


@wp.kernel
def print_specials(x: float):
    print("100% \"q\" \\ */ ??= a\x00b", x)
    wp.printf("%s|%d\n", "%d \x01 é", 7)


def test_print_strings_with_c_specials_print_as_python_prints_them(capfd):
    wp.launch(print_specials, dim=1, inputs=[1.5])
    out = capfd.readouterr().out
    assert out == "100% \"q\" \\ */ ??= a\x00b 1.5\n%d \x01 é|7\n"


@wp.kernel
def cpp_keywords(a: wp.array(dtype=float), new: float, delete: float, this: float):
    int_ = 1.0
    auto = 2.0
    register = 3.0
    NULL = 4.0
    main = 5.0
    _Up = 6.0
    __x = 7.0
    α = 8.0
    a[0] = new + delete + this + int_ + auto + register + NULL + main + _Up + __x + α


def test_cpp_keywords_reserved_and_unicode_names_are_ordinary_names():
    a = wp.zeros(1)
    wp.launch(cpp_keywords, dim=1, inputs=[a, 10.0, 20.0, 30.0])
    assert a.numpy()[0] == 60.0 + 36.0
    np.testing.assert_array_equal(a.numpy(), [96.0])
