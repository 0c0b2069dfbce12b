"""``@func`` parameters that take functions (``g: wp.Function``): a ``@func`` or a builtin passed by name, as
a default, through a local alias or ``wp.static``, by keyword, from Python; and ``@func(inline=...)``."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import pipeline


@wp.func
def double_it(x: float):
    return x * 2.0


@wp.func
def triple_it(x: float):
    return x * 3.0


@wp.func
def apply(g: wp.Function, x: float):
    return g(x)


@wp.func
def apply_any(g: wp.Function, x: Any):
    return g(x)


@wp.func
def apply_default(g: wp.Function = double_it, x: float = 3.0):
    return g(x)


@wp.func
def apply_binary(g: wp.Function, x: float, y: float):
    return g(x, y)


@wp.func
def apply_alias(g: wp.Function, x: float):
    f = g
    return f(x)


@wp.func
def apply_nested(x: float):
    return apply(triple_it, x)


TARGETS = {"double": double_it}


@wp.kernel
def function_arguments(out: wp.array(dtype=float)):
    out[0] = apply(double_it, 3.0)
    out[1] = apply(triple_it, 3.0)  # another instance of apply
    out[2] = apply_default()
    out[3] = apply(g=triple_it, x=5.0)
    out[4] = apply_any(double_it, 1.5)
    out[5] = apply(wp.sqrt, 16.0)
    out[6] = apply_binary(wp.min, 7.0, 4.0)
    out[7] = apply_alias(triple_it, 2.0)
    out[8] = apply_nested(4.0)
    local = double_it
    out[9] = apply(local, 10.0)
    out[10] = apply(wp.static(TARGETS["double"]), 0.25)


def test_function_arguments():
    out = wp.zeros(11, dtype=float)
    wp.launch(function_arguments, dim=1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [6, 9, 6, 15, 3, 4, 4, 6, 12, 20, 0.5])


def test_python_scope_calls():
    assert apply(double_it, 4.0) == 8.0
    assert apply(g=triple_it, x=2.0) == 6.0
    assert apply_default() == 6.0
    with pytest.raises(RuntimeError, match="Error calling function 'apply', no overload found"):
        apply(lambda x: x, 3.0)


def _error(body):
    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelError) as info:
        wp.launch(wp.kernel(body), dim=1, inputs=[out])
    return str(info.value)


def test_builtins_with_rules_of_their_own_are_refused():
    def k(out: wp.array(dtype=float)):
        out[0] = apply(wp.printf, 0.5)

    assert "unsupported built-in function 'printf'" in _error(k)


def test_a_value_is_not_a_function():
    def k(out: wp.array(dtype=float)):
        out[0] = apply(1.0, 0.5)

    assert "no overload accepts arguments (float32, float32)" in _error(k)


@wp.func
def with_custom_grad(g: wp.Function, x: float):
    return g(x)


@wp.func_grad(with_custom_grad)
def adj_with_custom_grad(g: wp.Function, x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret


def test_custom_gradients_refuse_function_parameters():
    def k(out: wp.array(dtype=float)):
        out[0] = with_custom_grad(double_it, 2.0)

    assert "Function parameters are not supported by functions with custom gradients or replay functions" in _error(k)


def test_inline_hint_must_be_a_bool():
    for value in (1, 1.5, "yes"):
        with pytest.raises(TypeError, match="inline must be a bool or None"):
            wp.func(inline=value)


@wp.func(inline=False)
def kept_out_of_line(x: float) -> float:
    return x * 2.0 + 1.0


@wp.func(inline=True)
def forced_inline(x: float) -> float:
    return x - 1.0


@wp.kernel
def uses_hints(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = kept_out_of_line(float(i)) + forced_inline(float(i))


def test_inline_hints_run_and_reach_the_generated_code():
    out = wp.zeros(4, dtype=float)
    wp.launch(uses_hints, dim=4, inputs=[out])
    np.testing.assert_allclose(out.numpy(), 3.0 * np.arange(4))
    assert kept_out_of_line.inline_hint == "noinline" and forced_inline.inline_hint == "forceinline"
    assert apply.inline_hint is None
    source, _ = pipeline.generate(uses_hints, [wp.array(dtype=float)], "hints")
    out_of_line = [line for line in source.splitlines() if "kept_out_of_line" in line and "noinline" in line]
    assert out_of_line, "the inline=False function is declared noinline"
    assert not [line for line in source.splitlines() if "forced_inline" in line and "noinline" in line]


PROVIDER = wp.Module("function_parameter_provider")


@wp.func(module=PROVIDER)
def plus_one(x: float):
    return x + 1.0


@wp.kernel(module=PROVIDER)
def across_modules(out: wp.array(dtype=float)):
    out[0] = apply(plus_one, 2.0)


def test_functions_of_explicit_modules():
    assert PROVIDER.name == "function_parameter_provider"
    out = wp.zeros(1, dtype=float)
    wp.launch(across_modules, dim=1, inputs=[out])
    assert out.numpy()[0] == 3.0
