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


@wp.func
def square_it(x: float):
    return x * x


@wp.func
def scaled(x: float, g: wp.Function, y: float):
    return g(x) * y


@wp.kernel
def gradients_through_functions(out: wp.array(dtype=float)):
    out[0] = wp.grad(apply)(square_it, 3.0)  # d/dx x*x at 3
    out[1] = wp.grad(apply)(wp.sin, 0.5)  # cos(0.5)
    dx, dy = wp.grad(scaled)(2.0, square_it, 5.0)  # one adjoint per value argument
    out[2] = dx
    out[3] = dy


def test_grad_of_a_function_taking_a_function():
    out = wp.zeros(4, dtype=float)
    wp.launch(gradients_through_functions, dim=1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [6.0, np.cos(0.5), 20.0, 4.0], rtol=1e-6)


def test_grad_refuses_a_builtin_with_rules_of_its_own():
    def k(out: wp.array(dtype=float)):
        out[0] = wp.grad(apply)(wp.printf, 0.5)

    assert "unsupported built-in function 'printf'" in _error(k)


@wp.func
def overloaded(x: int):
    return float(x)


@wp.func
def overloaded(x: float, g: wp.Function = double_it):  # noqa: F811 - a second overload
    return g(x)


@wp.func
def apply_changeable(g: wp.Function = double_it, x: float = 3.0):
    return g(x)


def test_defaults_and_get_overload():
    assert apply_default.defaults == {"g": double_it, "x": 3.0}
    assert overloaded.defaults == {}  # the first definition's, as Warp's
    second = overloaded.get_overload([float], {})
    assert second.defaults == {"g": double_it} and second.key == "overloaded"
    assert overloaded.get_overload([int], {}).defaults == {}
    assert overloaded.get_overload([wp.float32, triple_it], {}) is second
    assert overloaded.get_overload([], {"x": float, "g": wp.Function}) is second
    assert overloaded.get_overload([wp.vec3], {}) is None
    assert overloaded.get_overload([float], {"y": float}) is None
    assert second(2.0) == 4.0 and second(2.0, triple_it) == 6.0  # a definition is callable from Python
    with pytest.raises(TypeError, match="do not bind to its parameters"):
        second(1.0, 2.0, 3.0)
    assert wp.sin.key == "sin"


def test_changed_defaults_reach_python_calls_and_new_kernels():
    original = dict(apply_changeable.defaults)
    try:
        apply_changeable.defaults["g"] = triple_it
        assert apply_changeable() == 9.0

        @wp.kernel(module="unique")
        def uses_default(out: wp.array(dtype=float)):
            out[0] = apply_changeable()

        out = wp.zeros(1, dtype=float)
        wp.launch(uses_default, dim=1, inputs=[out])
        assert out.numpy()[0] == 9.0
        apply_changeable.defaults = {"g": wp.sqrt, "x": 16.0}  # a new dict replaces the defaults
        assert apply_changeable() == 4.0
        with pytest.raises(TypeError, match="defaults of function 'apply_changeable' must be a dict"):
            apply_changeable.defaults = [("x", 1.0)]
        assert apply_changeable() == 4.0  # unchanged
    finally:
        apply_changeable.defaults = original
    assert apply_changeable() == 6.0


def test_the_kernel_key_follows_a_function_default():
    from brickwork.lang.instance import Instance

    @wp.kernel(module="unique")
    def keyed(out: wp.array(dtype=float)):
        out[0] = apply_changeable()

    def key():
        return Instance(keyed, keyed.concrete_types(), None).key()

    original = dict(apply_changeable.defaults)
    try:
        first = key()
        apply_changeable.defaults["g"] = triple_it
        assert key() != first  # a kernel compiled now uses the new function
        apply_changeable.defaults["g"] = double_it
        assert key() == first
    finally:
        apply_changeable.defaults = original
