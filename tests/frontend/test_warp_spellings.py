"""Warp's spellings: in kernels ``wp.float(x)`` and ``wp.int(x)`` are ``float(x)`` and ``int(x)`` (Python scope has
neither); ``Struct.cls`` is the class of a struct's instances."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def casts(out: wp.array(dtype=float), x: float):
    out[0] = wp.float(3) + float(wp.int(x))
    out[1] = wp.float(wp.int(-x))


def test_wp_float_and_int_in_kernels():
    out = wp.zeros(2, dtype=float)
    wp.launch(casts, dim=1, inputs=[out, 2.7])
    np.testing.assert_array_equal(out.numpy(), [5.0, -2.0])


def test_only_in_kernels():
    with pytest.raises(AttributeError):
        wp.float  # noqa: B018 - Python scope has no wp.float, as in Warp


@wp.struct
class Holder:
    x: float


def test_struct_cls_is_the_class_of_its_instances():
    h = Holder()
    assert Holder.cls is Holder and isinstance(h, Holder.cls)
    h.x = 2.0
    assert h.x == 2.0
