"""An integer beyond an array's integer elements is refused by ``wp.full``, ``fill_`` and ``a[i] = v``, as
``wp.launch`` refuses such an argument (attacker probe, round 14): ``wp.full(3, 2**40, dtype=wp.int32)`` gave
zeros and ``fill_(2**31)`` stored -2**31 silently, as in Warp 1.19. An OverflowError and a ValueError naming
the value and the dtype; nothing is allocated or changed."""

import re

import numpy as np
import pytest

import brickwork as wp

REFUSED = [
    (wp.int32, 2**40, "1099511627776 does not fit in int32 (-2147483648 to 2147483647)"),
    (wp.int32, 2**31, "2147483648 does not fit in int32 (-2147483648 to 2147483647)"),
    (wp.int32, -2**31 - 1, "-2147483649 does not fit in int32"),
    (wp.uint8, -1, "-1 does not fit in uint8 (0 to 255)"),
    (wp.uint8, 256, "256 does not fit in uint8 (0 to 255)"),
    (wp.int8, 200, "200 does not fit in int8 (-128 to 127)"),
    (wp.uint64, -1, "-1 does not fit in uint64 (0 to 18446744073709551615)"),
    (wp.int64, 2**63, "9223372036854775808 does not fit in int64"),
    (wp.int32, np.int64(2**40), "1099511627776 does not fit in int32"),
    (wp.uint8, wp.int32(-1), "-1 does not fit in uint8"),
    (wp.vec3ub, (300, 2, 0), "300 does not fit in the uint8 components of vec3ub (0 to 255)"),
    (wp.vec3ub, -1, "-1 does not fit in the uint8 components of vec3ub"),
    (wp.vec2i, wp.vec2l(2**40, 0), "1099511627776 does not fit in the int32 components of vec2i"),
    (wp.types.matrix((2, 2), wp.int32), (1, 2, 3, 2**31),
     "2147483648 does not fit in the int32 components of"),
]


@pytest.mark.parametrize("dtype, value, message", REFUSED)
def test_fill_full_and_item_stores_refuse_integers_out_of_range(dtype, value, message):
    a = wp.full(3, 7, dtype=dtype)
    before = a.numpy().copy()
    with pytest.raises(OverflowError, match="^" + re.escape(f"fill_: {message}")) as info:
        a.fill_(value)
    assert isinstance(info.value, ValueError) and "nothing was changed" in str(info.value)
    with pytest.raises(ValueError, match="^" + re.escape(f"wp.full: {message}")):
        wp.full(3, value, dtype=dtype)
    # a[1] = v converts one value as fill_ does; a tuple is numpy's data to convert, and numpy refuses it too
    item = None if isinstance(value, tuple) else "^" + re.escape(f"a[1] = ...: {message}")
    with pytest.raises(OverflowError, match=item):
        a[1] = value
    np.testing.assert_array_equal(a.numpy(), before)


def test_full_refuses_before_allocating():
    # 2**45 int32 elements (128 TiB) cannot be allocated: the value is refused first
    with pytest.raises(OverflowError, match=r"wp.full: 4294967296 does not fit in int32"):
        wp.full((2**45,), 2**32, dtype=wp.int32)


@pytest.mark.parametrize("dtype, value, expected", [
    (wp.int32, -2**31, -2**31), (wp.int32, 2**31 - 1, 2**31 - 1), (wp.uint64, 2**64 - 1, 2**64 - 1),
    (wp.uint8, True, 1), (wp.int8, np.uint64(127), 127), (wp.float32, 2**40, 2.0**40),
    (wp.vec3ub, (255, 0, 1), [255, 0, 1]),
    (wp.vec3ub, wp.vec3ub(300, 2, -1), [44, 2, 255]),  # a vector keeps what its constructor stored, as in Warp
])
def test_values_in_range_are_stored(dtype, value, expected):
    a = wp.zeros(2, dtype=dtype)
    a.fill_(value)
    assert a.numpy().tolist() == [expected] * 2
    assert wp.full(2, value, dtype=dtype).numpy().tolist() == [expected] * 2
