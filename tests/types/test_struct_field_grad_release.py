"""A struct field that held an array with a gradient lets go of both when the field is replaced (by None or by an
array without a gradient): what Warp 1.19's test_struct_array_gc_replacement_clears_grad_keepalive checks, which
reads Warp's private keep-alive attribute as well (docs/compat.md)."""

import gc
import weakref

import pytest

import brickwork as wp


@wp.struct
class Holder:
    data: wp.array(dtype=float)


@pytest.mark.parametrize("replacement", [None, "plain"])
def test_replacing_the_field_releases_the_old_array_and_its_gradient(replacement):
    h = Holder()
    old = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    old_array, old_grad = weakref.ref(old), weakref.ref(old.grad)
    h.data = old
    del old
    gc.collect()
    assert old_array() is not None and old_grad() is not None  # the field keeps them alive
    assert h.data.numpy().tolist() == [1.0, 2.0, 3.0]
    h.data = None if replacement is None else wp.array([4.0, 5.0, 6.0], dtype=float)
    gc.collect()
    assert old_array() is None and old_grad() is None
    assert (h.data is None) if replacement is None else h.data.numpy().tolist() == [4.0, 5.0, 6.0]
