"""Comparisons of scalars of different types: converted as C++ (and so Warp) converts them."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.promotion import comparison_type


@wp.kernel
def compare_mixed(u: wp.uint32, f: wp.float32, d: wp.float64, i8: wp.int8, u8: wp.uint8, l: wp.int64,
                  ul: wp.uint64, out: wp.array(dtype=wp.int32)):
    out[0] = wp.where(u == -1, 1, 0)  # -1 converts to uint32: 4294967295
    out[1] = wp.where(u > 5, 1, 0)
    out[2] = wp.where(f == 16777217, 1, 0)  # the int converts to float32: 16777216
    out[3] = wp.where(d == 1.1, 1, 0)  # the literal is a float32, widened: not the double 1.1
    out[4] = wp.where(i8 < u8, 1, 0)  # both int32: -1 < 255
    out[5] = wp.where(l < u, 1, 0)  # both int64
    out[6] = wp.where(ul == l, 1, 0)  # both uint64: -1 is 2**64 - 1
    out[7] = wp.where(f != 2, 1, 0)
    out[8] = wp.where(d >= f, 1, 0)
    out[9] = wp.where(wp.uint32(0) < -1, 1, 0)
    out[10] = wp.where(1 == f, 0, 1)
    out[11] = wp.where(True == 1, 1, 0)  # noqa: E712 - bool against int


def test_mixed_scalar_comparisons_convert_as_cpp_does():
    out = wp.zeros(12, dtype=wp.int32)
    wp.launch(compare_mixed, dim=1, inputs=[wp.uint32(4294967295), wp.float32(16777216.0), wp.float64(1.1),
                                            wp.int8(-1), wp.uint8(255), wp.int64(-1), wp.uint64(2**64 - 1), out])
    np.testing.assert_array_equal(out.numpy(), [1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1])


def test_comparison_type_follows_the_usual_arithmetic_conversions():
    assert comparison_type(wp.float32, wp.int64) is wp.float32
    assert comparison_type(wp.float32, wp.float64) is wp.float64
    assert comparison_type(wp.uint32, wp.int32) is wp.uint32
    assert comparison_type(wp.int64, wp.uint32) is wp.int64
    assert comparison_type(wp.uint64, wp.int64) is wp.uint64
    assert comparison_type(wp.int8, wp.uint16) is wp.int32
    assert comparison_type(wp.bool, wp.uint8) is wp.int32
    assert comparison_type(wp.float16, wp.int32) is None
    assert comparison_type(wp.vec3, wp.float32) is None


@pytest.mark.parametrize("body, message", [
    ("b = wp.float16(1.0) == 1", r"operand types must match, got float16 and int32"),
    ("b = wp.vec3() == 1", r"Couldn't find function overload for 'eq' that matched inputs with types: "
                           r"\[vec3f, int32\]"),
    ("x = 1.5\n    b = 0 < x < 2", r"cannot chain comparisons of unequal types: int32 < float32"),
])
def test_comparisons_without_a_common_type_are_refused(tmp_path, body, message):
    import importlib.util

    path = tmp_path / "mixed_cmp_errors.py"
    path.write_text(f"import brickwork as wp\n\n\n@wp.kernel\ndef k():\n    {body}\n")
    spec = importlib.util.spec_from_file_location("mixed_cmp_errors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(wp.KernelTypeError, match=message) as e:
        wp.launch(module.k, dim=1, inputs=[])
    assert "mixed_cmp_errors.py" in str(e.value)
