"""``wp.utils.create_warp_function``: kernel functions made from Python lambdas and functions."""

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork.utils import create_warp_function

OFFSET = 1.0


def _two_line_lambda():
    return lambda q, qd: (
        q[0] == 0.0
        and q[1] == 0.0
    )


def _python_def(x, y: float):
    z = x + y
    return z * 2.0


def test_a_lambda_becomes_a_function_named_by_its_source():
    made, module = create_warp_function(_two_line_lambda())
    assert re.fullmatch(r"func_[0-9a-f]{16}", made.key)
    assert module.name == __name__
    assert made((0.0, 0.0), (0.0, 0.0)) is True and made((1.0, 0.0), None) is False  # callable from Python
    assert create_warp_function(_two_line_lambda())[0] is made  # same code: same function
    assert create_warp_function(lambda q, qd: q)[0] is not made


def test_made_functions_run_in_kernels_with_the_originals_free_names():
    scale = 3.0
    scaled, _ = create_warp_function(lambda x: x * scale + OFFSET)  # a closure variable and a global
    doubled, _ = create_warp_function(_python_def)

    @wp.kernel
    def apply(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = scaled(a[i]) + doubled(a[i], 1.0)

    a, out = wp.array(np.arange(4, dtype=np.float32)), wp.zeros(4)
    wp.launch(apply, dim=4, inputs=[a, out])
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(out.numpy(), x * 3.0 + 1.0 + (x + 1.0) * 2.0)


def test_kernel_functions_pass_through_and_other_values_are_refused():
    @wp.func
    def already(x: float):
        return x

    assert create_warp_function(already)[0] is already
    with pytest.raises(TypeError, match="takes a Python function or lambda, got int"):
        create_warp_function(3)
    with pytest.raises(TypeError, match="takes \\*args or \\*\\*kwargs"):
        create_warp_function(lambda *xs: xs)


def test_two_different_lambdas_on_one_line_are_refused_not_confused():
    # wp.map(lambda x, y: x == y, a, b) beside wp.map(lambda x, y: x + y, a, b) on one line gave the sum the
    # comparison's code (newuser round 13): the first lambda with those parameters was taken
    same, other = lambda x, y: x == y, lambda x, y: x + y  # noqa: E731
    line = other.__code__.co_firstlineno
    with pytest.raises(ValueError) as caught:
        create_warp_function(other)
    assert str(caught.value) == (f"cannot tell which of the 2 lambdas with parameters (x, y) on {__file__}:{line} is "
                                 f"{other!r}; put each on a line of its own, or use a def")
    twins = [lambda v: v * 2.0, lambda v: v * 2.0]  # the same code twice: either is the function
    assert create_warp_function(twins[1])[0] is create_warp_function(twins[0])[0]
    assert same is not other
