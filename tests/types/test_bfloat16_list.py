"""``array.list()`` of bfloat16 elements gives ``wp.bfloat16`` values, as Warp 1.19's (Python has no bfloat16
float); float16 and float32 elements stay Python floats, as there."""

import sys
from pathlib import Path

import numpy as np

import brickwork as wp

sys.path.insert(0, str(Path(__file__).parents[1] / "runtime"))
from cuda_fake import FakeDriver, installed  # noqa: E402


def _values(items):
    return [(type(x), x.value) for x in items]


def test_bfloat16_elements_are_bfloat16_values_in_row_major_order():
    a = wp.array(np.array([[1.5, -2.25, 3.0], [0.5, 256.0, -0.0]], dtype=np.float32), dtype=wp.bfloat16)
    assert _values(a.list()) == [(wp.bfloat16, v) for v in (1.5, -2.25, 3.0, 0.5, 256.0, -0.0)]
    assert repr(a.list()[0]) == "bfloat16(1.5)" and a.list() == [1.5, -2.25, 3.0, 0.5, 256.0, 0.0]
    assert _values(a[1].list()) == [(wp.bfloat16, v) for v in (0.5, 256.0, -0.0)]
    assert _values(a[:, 1:].list()) == [(wp.bfloat16, v) for v in (-2.25, 3.0, 256.0, -0.0)]  # a strided view
    idx = wp.indexedarray(wp.array([7.0, 8.0, 9.0], dtype=wp.bfloat16), [wp.array([2, 0], dtype=wp.int32)])
    assert _values(idx.list()) == [(wp.bfloat16, 9.0), (wp.bfloat16, 7.0)]


def test_rounding_is_the_stored_values():
    a = wp.array([1.0 + 2.0 ** -9, 3.14159], dtype=wp.bfloat16)  # bfloat16 keeps 8 significant bits
    assert [x.value for x in a.list()] == [1.0, 3.140625]


def test_other_floats_stay_python_floats_as_in_warp():
    for dtype in (wp.float16, wp.float32, wp.float64):
        assert [type(x) for x in wp.array([1.5, 2.0], dtype=dtype).list()] == [float, float]


def test_a_cuda_array_lists_bfloat16_values():
    with installed(FakeDriver()):
        a = wp.array([1.5, -2.25], dtype=wp.bfloat16, device="cuda:0")
        assert _values(a.list()) == [(wp.bfloat16, 1.5), (wp.bfloat16, -2.25)]
