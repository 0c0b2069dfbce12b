"""``@func`` functions called from Python: the overload is chosen by the arguments' kernel types, defaults and
keywords bind as in Python, arguments no overload takes raise Warp's error; ``@func(...)`` with options;
signatures for ``inspect`` and static type checkers."""

import gc
import inspect
import typing
import weakref

import numpy as np
import pytest

import brickwork as wp


@wp.func
def bump(x: int):
    return x + 1


@wp.func
def bump(x: float):  # noqa: F811 - an overload
    return x + 0.5


@wp.func
def bump(x: wp.vec3):  # noqa: F811 - an overload
    return x + wp.vec3(1.0, 0.0, 0.0)


@wp.func
def with_defaults(a: int = 123, b: int = 234) -> int:
    return a + b


@wp.func
def same64(x: wp.float64):
    return x


@wp.func(module="unique")
def with_options(x: float, offsets: wp.array(dtype=int)) -> float:
    return x + float(offsets[0])


def test_overload_chosen_by_argument_types():
    assert bump(1) == 2 and isinstance(bump(1), int)
    assert bump(1.0) == 1.5
    np.testing.assert_array_equal(np.array(bump(wp.vec3(1.0, 2.0, 3.0))), [2.0, 2.0, 3.0])


def test_defaults_and_keywords():
    assert [with_defaults(), with_defaults(111), with_defaults(111, 222), with_defaults(a=111),
            with_defaults(b=111)] == [357, 345, 333, 345, 234]


@pytest.mark.parametrize("call, shown", [
    (lambda: same64(1.0), r"\(1\.0,\)"),
    (lambda: bump("x"), r"\('x',\)"),
    (lambda: with_defaults(1, 2, 3), r"\(1, 2, 3\)"),
])
def test_no_overload_takes_the_arguments(call, shown):
    with pytest.raises(RuntimeError, match=rf"^Error calling function '\w+', no overload found for arguments "
                                           rf"{shown}$") as e:
        call()
    assert isinstance(e.value, TypeError)
    assert same64(wp.float64(3.0)).value == 3.0 and with_defaults(1, 2) == 3  # the functions still work


def test_func_with_options_is_a_kernel_function():
    @wp.kernel
    def k(out: wp.array(dtype=float), offsets: wp.array(dtype=int)):
        out[0] = with_options(1.5, offsets)

    out, offsets = wp.zeros(1, dtype=float), wp.array([2], dtype=int)
    wp.launch(k, dim=1, inputs=[out, offsets])
    assert out.numpy()[0] == 3.5
    assert wp.func() is wp.func  # @wp.func() is @wp.func


def test_signatures():
    assert list(inspect.signature(with_options).parameters) == ["x", "offsets"]
    assert len(typing.get_overloads(wp.func)) == 2


@wp.func
def array_length(x: wp.array(dtype=typing.Any)):
    return x.shape[0]


def test_a_generic_function_called_from_python_keeps_no_argument_alive():
    """Warp's test_eager_generic_func_does_not_retain_array: the array a Python call passes is freed with its
    last reference, and calls with other arrays of the type give their own lengths."""
    arr = wp.empty(2, dtype=wp.int32)
    ref = weakref.ref(arr)
    assert array_length(arr) == 2
    del arr
    gc.collect()
    assert ref() is None
    assert array_length(wp.empty(3, dtype=wp.int32)) == 3 and array_length(wp.empty(4, dtype=wp.float32)) == 4
