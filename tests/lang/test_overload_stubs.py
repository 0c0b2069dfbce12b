"""``@overload`` stubs: ``Kernel.overloads`` lists the declared instances, a stub may not annotate a return, and a
stub cannot choose between two kernels one function defines under different names."""

import types
from typing import Any

import numpy as np
import pytest

import brickwork as wp


def test_declared_instances_are_listed_once():
    @wp.kernel(name="custom_named_generic")
    def scale(x: Any, out: wp.array(dtype=float)):
        out[0] = float(x) * 2.0

    @wp.overload
    def scale(x: float, out: wp.array(dtype=float)): ...  # noqa: F811

    assert scale.key == "custom_named_generic"
    assert list(scale.overloads) == [(wp.float32, wp.array(dtype=float))]
    again = wp.overload(scale, [float, wp.array(dtype=float)])
    assert len(scale.overloads) == 1 and again is scale.overloads[(wp.float32, wp.array(dtype=float))]
    out = wp.zeros(1, dtype=float)
    wp.launch(again, dim=1, inputs=[1.5, out])
    np.testing.assert_array_equal(out.numpy(), [3.0])


def test_stub_return_annotation_is_refused():
    @wp.kernel
    def generic(x: Any):
        return

    k = generic

    def generic(x: float) -> float: ...  # noqa: F811 - the stub of the kernel above

    with pytest.raises(TypeError, match=r"Return annotations are not allowed on @wp\.overload stubs"):
        wp.overload(generic)
    assert k.overloads == {}

    def generic(x: float) -> types.NoneType: ...  # noqa: F811

    wp.overload(generic)
    assert list(k.overloads) == [(wp.float32,)]


def test_stub_of_a_function_with_two_kernel_names_is_ambiguous():
    def twice(x: Any):
        return

    a = wp.kernel(name="twice_a")(twice)
    b = wp.kernel(name="twice_b")(twice)
    with pytest.raises(RuntimeError, match=r"Ambiguous kernel lookup for @overload of '.*twice': kernels "
                                           r"'twice_a', 'twice_b'"):
        @wp.overload
        def twice(x: float): ...  # noqa: F811
    assert a.overloads == {} and b.overloads == {}
