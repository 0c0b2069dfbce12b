"""An integer out of range assigned to a struct's integer field, or to a component of its integer vector field, is
refused as fill_ and wp.launch refuse one: s.n = 2**40 for an int32 field stored 0 and s.v = (300, 0, 0) for a vec3ub
field (44, 0, 0), silently (Warp 1.19 wraps them when it packs the struct)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.array_values import ElementRangeError


@wp.struct
class Counts:
    n: wp.int32
    u: wp.uint8
    v: wp.vec3ub


WRAPS = "nothing was changed (Warp would wrap it silently)"


@pytest.mark.parametrize(("field", "value", "message"), [
    ("n", 2**40, f"struct field Counts.n: 1099511627776 does not fit in int32 (-2147483648 to 2147483647); {WRAPS}"),
    ("n", np.int64(-(2**31) - 1), f"struct field Counts.n: -2147483649 does not fit in int32 (-2147483648 to "
                                  f"2147483647); {WRAPS}"),
    ("u", -1, f"struct field Counts.u: -1 does not fit in uint8 (0 to 255); {WRAPS}"),
    ("u", wp.int32(256), f"struct field Counts.u: 256 does not fit in uint8 (0 to 255); {WRAPS}"),
    ("v", (300, 0, 0), f"struct field Counts.v: 300 does not fit in the uint8 components of vec3ub (0 to 255); {WRAPS}"),
    ("v", np.array([0, -1, 0]), f"struct field Counts.v: -1 does not fit in the uint8 components of vec3ub (0 to 255); "
                                f"{WRAPS}"),
])
def test_out_of_range_integers_are_refused(field, value, message):
    s = Counts()
    s.n, s.u, s.v = 7, 8, (1, 2, 3)
    with pytest.raises(ElementRangeError) as e:
        setattr(s, field, value)
    assert str(e.value) == message
    assert (s.n, s.u, list(s.v)) == (7, 8, [1, 2, 3])


def test_values_at_the_ends_of_the_ranges_are_stored():
    s = Counts()
    s.n, s.u, s.v = -(2**31), 255, (255, 0, 255)
    assert (s.n, s.u, list(s.v)) == (-(2**31), 255, [255, 0, 255])
    s.v = wp.vec3ub(300, 0, 0)  # a vector already made keeps what its constructor stored, as fill_ takes it
    assert list(s.v) == [44, 0, 0]
