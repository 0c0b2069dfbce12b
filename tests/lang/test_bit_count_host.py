"""``wp.bit_count`` on the host counts in the argument's kernel type, and a builtin called by name with
argument types it has no overload for is a RuntimeError too, in Warp's words."""

from __future__ import annotations

import pytest

import brickwork as wp


def test_host_bit_count_uses_the_width_of_the_type():
    assert wp.bit_count(wp.uint8(-1)) == 8 and wp.bit_count(wp.int16(-2)) == 15
    assert wp.bit_count(wp.int64(-1)) == 64 and wp.bit_count(wp.uint64(1 << 63)) == 1
    assert wp.bit_count(45) == 4 and wp.bit_count(-1) == 32  # a Python int is an int32
    assert wp.bit_count(2**40) == 0  # wrapped into int32, as Warp does


@pytest.mark.parametrize("value", [wp.float32(0), wp.bool(False), wp.vec2i(0), 1.5])
def test_host_bit_count_refuses_non_integers(value):
    name = "float" if value == 1.5 else type(value).__name__
    with pytest.raises(RuntimeError, match=f"Couldn't find a function 'bit_count' compatible with the arguments "
                                           f"'{name}'"):
        wp.bit_count(value)


def test_kernel_builtin_without_an_overload_is_a_runtime_error_naming_the_types():
    @wp.kernel
    def count_float(value: wp.float32, counts: wp.array(dtype=wp.int32)):
        counts[0] = wp.bit_count(value)

    counts = wp.zeros(1, dtype=wp.int32)
    with pytest.raises(RuntimeError, match=r"Couldn't find function overload for 'bit_count' that matched inputs "
                                           r"with types: \[float32\]") as e:
        wp.launch(count_float, dim=1, inputs=[wp.float32(45.0), counts])
    assert isinstance(e.value, wp.KernelTypeError) and "bit_count(): needs an integer" in str(e.value)
