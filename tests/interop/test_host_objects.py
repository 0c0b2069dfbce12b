"""What PyTorch interop needs of brickwork itself, checked without torch: launches take another library's CPU
tensor (an object with ``__array__``) for an array parameter, as Warp does, vector slices take its numbers,
and ``array(ptr=..., capacity=...)`` reports the capacity it was given."""

import numpy as np
import pytest

import brickwork as wp


class Tensorish:
    """A CPU tensor of another library: its memory through ``__array__`` (no copy), as PyTorch's."""

    def __init__(self, data: np.ndarray):
        self.data = data

    def __array__(self, dtype=None, copy=None):
        return self.data

    def __iter__(self):  # iterating gives objects, not numbers, as a tensor's 0-d elements are
        return iter([Tensorish(np.array(x)) for x in self.data])


@wp.kernel
def _add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def _scale(a: wp.array(dtype=wp.vec2), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def _square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_launch_writes_through_an_object_with_array():
    data = np.arange(4, dtype=np.float32)
    wp.launch(_add_one, dim=4, inputs=[Tensorish(data)])
    np.testing.assert_array_equal(data, [1, 2, 3, 4])
    vecs = np.arange(6, dtype=np.float32).reshape(3, 2)
    wp.launch(_scale, dim=3, inputs=[Tensorish(vecs), 2.0])  # vec2 elements over the trailing dimension
    np.testing.assert_array_equal(vecs, 2 * np.arange(6).reshape(3, 2))


def test_backward_launch_reads_an_object_with_array():
    x = Tensorish(np.array([1.0, 3.0], np.float32))
    y = wp.zeros(2, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_square, dim=2, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.ones(2)})  # x has no gradient: the backward kernel still reads it
    np.testing.assert_array_equal(y.numpy(), [1.0, 9.0])


def test_an_object_for_a_value_parameter_is_still_refused():
    with pytest.raises(wp.errors.LaunchError, match="argument 's'"):
        wp.launch(_scale, dim=1, inputs=[wp.zeros(1, dtype=wp.vec2), Tensorish(np.zeros(2, np.float32))])


def test_vector_and_matrix_slices_take_its_numbers():
    v = wp.vec4()
    v[1:] = Tensorish(np.array([1.0, 2.0, 3.0]))
    assert list(v) == [0.0, 1.0, 2.0, 3.0]
    m = wp.mat22()
    m[0, 0:2] = Tensorish(np.array([5.0, 6.0]))
    assert m[0, 0] == 5.0 and m[0, 1] == 6.0
    with pytest.raises(ValueError, match="same size"):
        v[1:] = Tensorish(np.array([1.0, 2.0]))


def test_pointer_array_reports_the_capacity_it_was_given():
    memory = np.zeros(10, np.float32)
    a = wp.array(ptr=memory.ctypes.data, shape=(2, 2), dtype=float, capacity=40, device="cpu")
    assert a.capacity == 40
    assert a[1:].capacity == 8  # a view: the bytes it reaches (one row)
    assert wp.array(ptr=memory.ctypes.data, shape=(3,), dtype=float, device="cpu").capacity == 12
