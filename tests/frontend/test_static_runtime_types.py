"""Inside ``wp.static``, a runtime value of the kernel tells only what its type tells: ``type(v)``,
``isinstance(v, T)``, ``len(v)`` and an array's ``dtype``/``ndim`` answer from the instance's types (so a
generic kernel can branch on them at compile time); anything that needs the value is an error."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def classify(out: wp.array(dtype=wp.float64), s: Any, b: wp.array(dtype=Any, ndim=2)):
    if wp.static(type(s) == wp.float32):  # noqa: E721  (the kernel-language spelling under test)
        out[0] = wp.float64(32)
    elif wp.static(isinstance(s, wp.int64)):
        out[0] = wp.float64(64)
    elif wp.static(isinstance(s, (int, wp.uint8))):  # Python's int means int32, as in annotations
        out[0] = wp.float64(-32)
    else:
        out[0] = wp.float64(-1)
    out[1] = wp.float64(wp.static(b.ndim))
    out[2] = wp.float64(wp.static(1 if b.dtype == wp.float16 else 2))
    out[3] = wp.float64(wp.static(type(s))(2.5))  # the type is a constructor, as type(s) in the body is


@pytest.mark.parametrize("value, want", [(1.0, [32, 2, 1, 2.5]), (wp.int64(3), [64, 2, 2, 2]),
                                         (7, [-32, 2, 2, 2]), (wp.uint8(1), [-32, 2, 2, 2]),
                                         (np.float64(2), [-1, 2, 2, 2.5])])
def test_type_and_isinstance_of_runtime_values(value, want):
    out = wp.zeros(4, dtype=wp.float64)
    b = wp.zeros((2, 2), dtype=wp.float16 if want[2] == 1 else wp.float32)
    wp.launch(classify, dim=1, inputs=[out, value, b])
    assert out.numpy().tolist() == want


def test_placeholder_text_is_refused():
    """Before, ``str(v)`` gave the placeholder's repr silently; the value's text is not known at compile time."""
    @wp.kernel
    def text(out: wp.array(dtype=int), s: Any):
        out[0] = wp.static(len(str(s)))

    out = wp.zeros(1, dtype=int)
    with pytest.raises(wp.KernelTypeError, match="'s' is a runtime value of the kernel") as e:
        wp.launch(text, dim=1, inputs=[out, 1.0])
    assert "test_static_runtime_types.py" in str(e.value)
    assert out.numpy()[0] == 0


def test_shadowed_type_is_the_users():
    """A module or closure name ``type`` is the user's own function, not the runtime-type answer."""
    def type(v):  # noqa: A001
        return 5

    @wp.kernel
    def shadow(out: wp.array(dtype=int), s: Any):
        out[0] = wp.static(type(3))

    out = wp.zeros(1, dtype=int)
    wp.launch(shadow, dim=1, inputs=[out, 1.0])
    assert out.numpy()[0] == 5
