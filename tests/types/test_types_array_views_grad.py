"""Host array views and Warp's host-side checks: views share their base's gradient, reshape and shape
errors say what is wrong and change nothing, empty arrays have no address."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def add_sum(a: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, a[wp.tid()] * float(wp.tid() + 1))


def test_views_share_the_gradient_of_their_base():
    base = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=float, requires_grad=True)
    flat, reshaped, row = base.flatten(), base.reshape((3, 2)).reshape(6), base[1]
    for view in (flat, reshaped, row):
        assert view.requires_grad and np.shares_memory(view.grad.numpy(), base.grad.numpy())
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(add_sum, 6, inputs=[flat, loss])
    tape.backward(loss)
    assert tape.gradients[flat].numpy().tolist() == [1, 2, 3, 4, 5, 6]
    assert base.grad.numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    assert row.grad.numpy().tolist() == [4, 5, 6]


def test_views_of_arrays_without_gradient_have_none():
    a = wp.array(np.arange(4, dtype=np.float32), dtype=float)
    assert a.reshape((2, 2)).grad is None and not a[1:].requires_grad


def test_reshape_to_another_size_is_refused_with_both_shapes():
    a = wp.array(np.arange(6, dtype=np.float32), dtype=float)
    with pytest.raises(RuntimeError, match=r"cannot reshape array of shape \(6,\) \(size 6\) into shape \(4, 2\)"):
        a.reshape((4, 2))
    assert a.shape == (6,) and a.numpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert a.reshape((-1, 3)).shape == (2, 3)


@pytest.mark.parametrize("shape", [-1, (10, -1)])
def test_negative_shapes_are_refused(shape):
    for make in (wp.zeros, wp.empty, wp.ones):
        with pytest.raises(ValueError, match="Array shapes must be non-negative"):
            make(shape, dtype=int)


def test_an_empty_array_has_no_address():
    a = wp.empty((0, 3), dtype=wp.vec2, requires_grad=True)
    assert a.ptr is None and a.grad.ptr is None and a.size == 0
    b = wp.zeros(2, dtype=float)
    assert b.ptr == b.numpy().ctypes.data


def test_full_infers_a_vector_or_matrix_dtype_from_a_sequence():
    a = wp.full(3, [17, 42])
    assert a.dtype is wp.vec2i and a.numpy().tolist() == [[17, 42]] * 3
    b = wp.full(2, np.array([1.5, 2.0, 3.0]))
    assert b.dtype is wp.vec3d and b.numpy().tolist() == [[1.5, 2.0, 3.0]] * 2
    m = wp.full(1, [[1.0, 2.0], [3.0, 4.0]])
    assert m.dtype is wp.mat22 and m.numpy().tolist() == [[[1.0, 2.0], [3.0, 4.0]]]
    assert wp.full(2, 3.0).dtype is wp.float32 and wp.full(2, 7).dtype is wp.int32
