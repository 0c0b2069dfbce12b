"""A kernel writing an array whose elements share memory (a writable np.lib.stride_tricks.as_strided view with a 0
stride or overlapping windows) is refused at launch: its threads raced on the shared elements, and x[0] of a
0-stride view over arange(4) became 1 where four additions were asked for (attacker probe; Warp 1.19 races too).
Read-only memory was refused already; views with negative strides or steps write through to the right elements."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError

as_strided = np.lib.stride_tricks.as_strided


@wp.kernel
def add_one(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def row_sums(a: wp.array2d(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i, j = wp.tid()
    wp.atomic_add(out, i, a[i, j])


@wp.kernel
def add_one_2d(a: wp.array2d(dtype=wp.float32)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1.0


def test_a_zero_stride_view_is_refused_to_a_writer():
    x = np.arange(4, dtype=np.float32)
    view = as_strided(x, shape=(4,), strides=(0,))
    for arg in (view, wp.array(view, dtype=wp.float32, copy=False)):
        with pytest.raises(LaunchError) as e:
            wp.launch(add_one, dim=4, inputs=[arg])
        assert str(e.value) == ("launch of 'add_one': argument 'a' has elements that share memory (shape (4,), strides "
                                "(0,) bytes) and the kernel writes it: its threads would race on the shared elements; "
                                "pass a copy (wp.clone(a))")
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    copy = wp.clone(wp.array(view, dtype=wp.float32, copy=False))  # the advice works
    wp.launch(add_one, dim=4, inputs=[copy])
    np.testing.assert_array_equal(copy.numpy(), [1, 1, 1, 1])


def test_sliding_windows_are_refused_to_a_writer_and_read_by_a_reader():
    x = np.arange(6, dtype=np.float32)
    windows = as_strided(x, shape=(3, 4), strides=(8, 4))  # rows start 2 apart, 4 long: they overlap
    with pytest.raises(LaunchError, match=r"argument 'a' has elements that share memory \(shape \(3, 4\), strides "
                                          r"\(8, 4\) bytes\)"):
        wp.launch(add_one_2d, dim=(3, 4), inputs=[windows])
    np.testing.assert_array_equal(x, np.arange(6))
    out = wp.zeros(3, dtype=wp.float32)
    wp.launch(row_sums, dim=(3, 4), inputs=[windows, out])  # reading shared elements is fine
    np.testing.assert_array_equal(out.numpy(), windows.sum(axis=1))


def test_views_whose_elements_are_apart_are_written_through():
    x = np.arange(8, dtype=np.float32)
    wp.launch(add_one, dim=4, inputs=[x[::-2]])  # negative step
    np.testing.assert_array_equal(x, [0, 2, 2, 4, 4, 6, 6, 8])
    y = np.zeros(12, dtype=np.float32)
    interleaved = as_strided(y, shape=(3, 2), strides=(8, 12))  # offsets 0, 3, 2, 5, 4, 7: all apart
    wp.launch(add_one_2d, dim=(3, 2), inputs=[interleaved])
    np.testing.assert_array_equal(np.flatnonzero(y), [0, 2, 3, 4, 5, 7])


def test_a_gradient_whose_elements_share_memory_is_refused():
    x = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    before = x.grad
    g = as_strided(np.zeros(4, dtype=np.float32), shape=(4,), strides=(0,))
    with pytest.raises(ValueError, match=r"grad must be a writable array: backward launches add into it, but this one "
                                         r"views read-only memory \(or its elements share memory\)"):
        x.grad = wp.array(g, dtype=wp.float32, copy=False)
    assert x.grad is before


@wp.kernel
def add_one_indexed(a: wp.indexedarray(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_indexed_arrays_over_refused_memory_are_refused_after_a_writable_one_ran():
    idx = wp.array([0, 2], dtype=wp.int32)
    ok = wp.zeros(4, dtype=wp.float32)
    wp.launch(add_one_indexed, dim=2, inputs=[wp.indexedarray(ok, [idx])])  # the signature's first launch
    np.testing.assert_array_equal(ok.numpy(), [1, 0, 1, 0])
    x = np.arange(4, dtype=np.float32)
    x.flags.writeable = False  # was written on this second launch (a read-only memmap died of SIGSEGV)
    with pytest.raises(LaunchError, match=r"argument 'a' is a read-only array \(it views read-only memory\)"):
        wp.launch(add_one_indexed, dim=2, inputs=[wp.indexedarray(wp.array(x, copy=False), [idx])])
    y = np.arange(4, dtype=np.float32)
    shared = wp.array(as_strided(y, shape=(4,), strides=(0,)), copy=False)
    with pytest.raises(LaunchError) as e:
        wp.launch(add_one_indexed, dim=2, inputs=[wp.indexedarray(shared, [idx])])
    assert str(e.value) == ("launch of 'add_one_indexed': argument 'a' indexes an array whose elements share memory "
                            "(shape (4,), strides (0,) bytes) and the kernel writes it: its threads would race on the "
                            "shared elements; pass a copy (wp.clone(a))")
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    np.testing.assert_array_equal(y, [0, 1, 2, 3])


@wp.struct
class Holder:
    a: wp.array(dtype=wp.float32)


@wp.kernel
def add_one_field(s: Holder):
    i = wp.tid()
    s.a[i] = s.a[i] + 1.0


def test_a_struct_field_whose_elements_share_memory_is_refused():
    y = np.arange(4, dtype=np.float32)
    s = Holder()
    s.a = wp.zeros(4, dtype=wp.float32)
    wp.launch(add_one_field, dim=4, inputs=[s])
    np.testing.assert_array_equal(s.a.numpy(), [1, 1, 1, 1])
    s.a = wp.array(as_strided(y, shape=(4,), strides=(0,)), copy=False)
    with pytest.raises(LaunchError) as e:
        wp.launch(add_one_field, dim=4, inputs=[s])
    assert str(e.value) == ("launch of 'add_one_field': 's.a' has elements that share memory (strides (0,) bytes) and "
                            "the kernel writes it: its threads would race on the shared elements; assign a copy "
                            "(wp.clone(...))")
    np.testing.assert_array_equal(y, [0, 1, 2, 3])
