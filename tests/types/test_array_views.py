"""Zero-copy array views: ``a.view(dtype)``, ``a.transpose(axes)``, ``a.contiguous()``, ``a.capacity``."""

import numpy as np
import pytest

import brickwork as wp


def test_view_reinterprets_the_same_bytes():
    a = wp.array(np.arange(1, 10, dtype=np.uint32), dtype=wp.uint32)
    np.testing.assert_array_equal(a.view(wp.float32).numpy(), np.arange(1, 10, dtype=np.uint32).view(np.float32))
    v = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4), dtype=wp.vec4)
    q = v.view(wp.quat)
    assert q.dtype is wp.quat and q.shape == (4,)
    q.numpy()[1, 2] = -1.0  # the same memory
    assert v.numpy()[1, 2] == -1.0
    rgba = wp.array(np.array([[1, 2, 3, 4]], dtype=np.uint8), dtype=wp.vec4ub)
    assert rgba.view(wp.uint32).numpy().tolist() == [0x04030201]


def test_view_splits_and_gathers_components():
    m = wp.array(np.arange(16, dtype=np.float32).reshape(4, 2, 2), dtype=wp.mat22)
    s = m.view(float)
    assert s.shape == (4, 2, 2) and s.dtype is wp.float32
    back = s.view(wp.mat22)
    assert back.shape == (4,)
    np.testing.assert_array_equal(back.numpy(), m.numpy())
    one = wp.zeros(4, dtype=float).view(wp.vec4)
    assert one.shape == (1,)  # a single vector: a 1-D array of one, as Warp


def test_view_shares_the_gradient():
    a = wp.zeros(3, dtype=wp.vec2, requires_grad=True)
    s = a.view(float)
    s.grad.numpy()[2, 1] = 5.0
    assert a.grad.numpy()[2, 1] == 5.0


def test_view_errors():
    b = wp.zeros(4, dtype=wp.float32)
    with pytest.raises(TypeError, match="cannot create an array view with dtype uint16 from source dtype float32: "
                                        "source dtype has size 4 bytes, but target dtype has size 2 bytes"):
        b.view(wp.uint16)
    with pytest.raises(TypeError, match="source scalar dtype float32 has size 4 bytes, but target dtype has size 8"):
        wp.zeros(2, dtype=wp.vec4).view(wp.float64)
    with pytest.raises(TypeError, match="target scalar dtype float64 has size 8 bytes"):
        wp.zeros((2, 4), dtype=float).view(wp.vec4d)
    with pytest.raises(RuntimeError, match=r"The shape of the source array \(2, 3\) is not compatible"):
        wp.zeros((2, 3), dtype=float).view(wp.vec4)
    assert b.numpy().tolist() == [0.0] * 4


@wp.kernel
def copy2d(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    dst[i, j] = src[i, j]


def test_transpose_is_a_view_kernels_read():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    a = wp.array(x, dtype=float)
    t = a.transpose()
    assert t.shape == (2, 3) and not t.is_contiguous and t.strides == (4, 8)
    out = wp.zeros((2, 3), dtype=float)
    wp.launch(copy2d, (2, 3), inputs=[t, out])
    np.testing.assert_array_equal(out.numpy(), x.T)
    assert t.contiguous().is_contiguous and a.contiguous() is a
    v = wp.zeros((2, 3, 4), dtype=wp.vec2)
    assert v.transpose((0, 2, 1)).shape == (2, 4, 3) and v.transpose((0, 2, 1)).numpy().shape == (2, 4, 3, 2)
    one = wp.zeros(3)
    assert one.transpose() is one
    with pytest.raises(RuntimeError, match="Length of parameter axes must be equal"):
        a.transpose((0,))
    with pytest.raises(RuntimeError, match="axis index 2 must be smaller"):
        a.transpose((0, 2))


def test_capacity_is_the_byte_span():
    assert wp.zeros((3, 4), dtype=wp.vec3).capacity == 3 * 4 * 12
    assert wp.zeros((4, 6), dtype=float)[:, ::2].capacity == 4 + 3 * 24 + 2 * 8
    assert wp.zeros(0, dtype=float).capacity == 0


@wp.kernel
def _set_one(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def test_reshape_and_flatten_are_views_whenever_the_strides_allow_one():
    base = wp.array(np.arange(12, dtype=np.float32))
    every_other = base[::2].reshape((2, 3))  # not contiguous, but numpy has a view of this shape
    assert every_other.strides == (24, 8)
    every_other.fill_(-1.0)
    assert base.numpy().tolist()[:4] == [-1.0, 1.0, -1.0, 3.0]
    column = base.reshape((3, 4))[:, 1]
    flat = column.reshape((3, 1)).flatten()
    wp.launch(_set_one, dim=3, inputs=[flat])  # a kernel writes through the view
    assert base.numpy().reshape(3, 4)[:, 1].tolist() == [1.0, 1.0, 1.0]
    assert wp.zeros((0, 3)).flatten().shape == (0,)


@pytest.mark.parametrize("make, what", [
    (lambda m: m.transpose().flatten(), "Flattening"),
    (lambda m: m[:, :2].flatten(), "Flattening"),
    (lambda m: m[:, :2].reshape(-1), "Reshaping"),
    (lambda m: m.transpose().reshape((2, 6)), "Reshaping"),
])
def test_reshape_and_flatten_refuse_layouts_only_a_copy_has(make, what):
    m = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(RuntimeError, match=rf"{what} non-contiguous arrays is unsupported: this one \(shape "
                                           rf".*\) has no such view, and a copy would not write through to it; "
                                           rf"use a.contiguous\(\)"):
        make(m)  # was: a silent copy, which kernels then wrote in vain (Warp raises too)
    assert m.numpy().tolist() == np.arange(12, dtype=np.float32).reshape(3, 4).tolist()
    copied = m.transpose().contiguous().flatten()  # the way to a copy, as the message says
    assert copied.numpy().tolist() == np.arange(12, dtype=np.float32).reshape(3, 4).T.ravel().tolist()


def test_reshape_to_another_size_is_a_runtime_and_value_error():
    a = wp.zeros(6)
    with pytest.raises(RuntimeError, match=r"cannot reshape array of shape \(6,\) \(size 6\) into shape \(4, 2\)"):
        a.reshape((4, 2))
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape((-1, -1))
    assert a.reshape((2, -1)).shape == (2, 3)


@pytest.mark.parametrize("key", [[0, 2], np.array([0, 2]), np.array([True, False, True, False, False, False]), True,
                                 np.True_, (True, 1), ([0, 1], slice(None))])
def test_an_index_numpy_would_copy_is_refused_so_no_write_is_lost(key):
    # before: a[[0, 2]] was an array over numpy's copy, so a.fill_ or a kernel writing it changed nothing in a
    a = wp.array(np.arange(6.0).reshape(2, 3) if isinstance(key, tuple) else np.arange(6.0), dtype=float)
    before = a.numpy().copy()
    with pytest.raises(IndexError, match=r"selects a copy \(numpy's advanced indexing\), not a view: writes to it "
                                         r"would be lost\. Index a copy, a\.numpy\(\)\[\.\.\.\], or view the elements"):
        a[key]
    np.testing.assert_array_equal(a.numpy(), before)


def test_indices_numpy_views_still_give_views():
    a = wp.array(np.arange(12.0).reshape(3, 4), dtype=float)
    assert a[np.int64(1)].shape == (4,) and a[np.array(1)].shape == (4,)  # a 0-d integer array is an integer
    a[None][0, ..., 1].fill_(-1.0)  # a new axis, an ellipsis: views
    np.testing.assert_array_equal(a.numpy()[:, 1], -1.0)
    a[[0, 2], 0] = 9.0  # a store through numpy's indexing writes the array itself
    np.testing.assert_array_equal(a.numpy()[:, 0], [9.0, 4.0, 9.0])
    assert a[wp.array([0, 2], dtype=wp.int32)].shape == (2, 4)  # an index array: Warp's indexed array
