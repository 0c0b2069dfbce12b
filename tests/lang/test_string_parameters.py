"""``@func`` parameters annotated ``str``: a string literal passed to one is a compile-time value of the
function's body (one instance per string), as Warp takes a format for ``wp.printf`` through a function.
Outputs and refusals checked against Warp 1.19."""

import pytest

import brickwork as wp
from brickwork import config


@wp.func
def show(fmt: str, x: float):
    wp.printf(fmt, x)


@wp.func
def outer(label: str, x: float, suffix: str = "<%f>\n"):
    show(label, x)  # a str parameter passed on is still the literal
    show(suffix, x + 1.0)
    wp.printf("%s|\n", label)
    return x * 2.0


@wp.kernel
def two_labels(out: wp.array(dtype=float)):
    out[0] = outer("a=%f\n", 1.5)
    out[1] = outer("b=%f\n", 2.5, "[%f]\n")


EXPECTED = "a=1.500000\n<2.500000>\na=%f\n|\nb=2.500000\n[3.500000]\nb=%f\n|\n"


def test_each_string_is_its_own_instance_and_reads_as_a_literal(capfd):
    out = wp.zeros(2, dtype=float)
    wp.launch(two_labels, dim=1, inputs=[out])
    wp.synchronize()
    assert out.numpy().tolist() == [3.0, 5.0]
    assert capfd.readouterr().out == EXPECTED


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_prints_the_same(capfd):
    out = wp.zeros(2, dtype=float)
    with config.override(target="cuda-emulation"):
        wp.launch(two_labels, dim=1, inputs=[out])
    wp.synchronize()
    assert out.numpy().tolist() == [3.0, 5.0]
    assert capfd.readouterr().out == EXPECTED


@wp.func
def twice(x: float):
    return x * 2.0


@wp.func
def apply(g: wp.Function, x: float):
    return g(x)


def _error(kernel) -> str:
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=float)])
    return str(e.value)


def test_a_runtime_value_for_a_str_parameter_is_refused():
    @wp.kernel(module="unique")
    def runtime_format(out: wp.array(dtype=float)):
        show(out[0], 1.0)

    assert "show(): no overload accepts arguments (float32, float32); overloads: (str, float32)" in _error(
        runtime_format)


def test_a_string_for_another_parameter_is_refused():
    @wp.kernel(module="unique")
    def string_for_float(out: wp.array(dtype=float)):
        out[0] = twice("abc")

    assert "twice(): no overload accepts arguments (str['abc'])" in _error(string_for_float)

    @wp.kernel(module="unique")
    def string_for_function(out: wp.array(dtype=float)):
        out[0] = apply("twice", 1.0)

    assert "apply(): no overload accepts arguments" in _error(string_for_function)
    out = wp.zeros(1, dtype=float)
    assert out.numpy().tolist() == [0.0]
