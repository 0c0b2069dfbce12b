"""Expressions kernels do not take are named as Python's documentation names them (an f-string, a list
comprehension, ``:=``), not by their ast class ('JoinedStr', 'ListComp'), with what to write instead; the launch
touches nothing."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def fstring(a: wp.array(dtype=float)):
    i = wp.tid()
    print(f"a = {a[i]}")
    a[i] = 9.0


@wp.kernel
def list_comprehension(a: wp.array(dtype=float)):
    i = wp.tid()
    squares = [float(n * n) for n in range(3)]  # noqa: F841
    a[i] = 9.0


@wp.kernel
def dict_comprehension(a: wp.array(dtype=float)):
    i = wp.tid()
    squares = {n: n * n for n in range(3)}  # noqa: F841
    a[i] = 9.0


@wp.kernel
def walrus(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = (b := 9.0)  # noqa: F841


CASES = [
    (fstring, 14, r"f-strings are not supported in kernels: f'a = \{a\[i\]\}'; print the values themselves, "
                  r"print\(\"x =\", x\), or format them with wp\.printf\(\"x = %f\\n\", x\)"),
    (list_comprehension, 21, r"list comprehensions are not supported in kernels: \[float\(n \* n\) for n in "
                             r"range\(3\)\]; write a for loop, into a vector or a local array"),
    (dict_comprehension, 28, r"dict comprehensions are not supported in kernels: .*; write a for loop"),
    (walrus, 35, r"assignment expressions \(:=\) are not supported in kernels: \(b := 9\.0\); assign the value on "
                 r"a line of its own"),
]


@pytest.mark.parametrize("kernel,line,pattern", CASES, ids=[c[0].key for c in CASES])
def test_message_names_the_construct_and_the_line(kernel, line, pattern):
    a = wp.array(np.arange(3, dtype=np.float32))
    with pytest.raises(wp.KernelSyntaxError, match=pattern) as e:
        wp.launch(kernel, dim=3, inputs=[a])
    assert f"{__file__}\", line {line}" in str(e.value)
    assert "JoinedStr" not in str(e.value) and "Comp'" not in str(e.value) and "NamedExpr" not in str(e.value)
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 2.0])


@wp.kernel
def membership(a: wp.array(dtype=float), v: wp.vec3):
    i = wp.tid()
    if a[i] in v:
        a[i] = 9.0


def test_comparison_is_named_as_written():
    a = wp.array(np.arange(3, dtype=np.float32))
    with pytest.raises(wp.KernelSyntaxError, match=r"comparison 'in' is not supported in kernels: a\[i\] in v; "
                                                   r"compare values with == or !=") as e:
        wp.launch(membership, dim=3, inputs=[a, wp.vec3(0.0, 1.0, 2.0)])
    assert f"{__file__}\", line 62" in str(e.value)
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 2.0])
