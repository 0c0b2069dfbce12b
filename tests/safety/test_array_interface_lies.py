"""A CPU __array_interface__ that cannot be right is refused naming the object (attacker round 17, lead 2): numpy
trusts the description, so data=None for an object without a buffer was 'a bytes-like object is required, not
'AI'', a null pointer with elements numpy's 'data is NULL but array contains data...', strides of the wrong length
'mismatch in length of strides and shape', and a shape of 2**40 float32 given to wp.array(obj) (a copy) asked
numpy for 4 TiB before brickwork's shape check. Its read-only flag is honoured (a kernel may not write it), and a
consistent description with a negative stride is viewed (kernels write through it)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def bump(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


class Described:
    def __init__(self, **fields):
        self.__array_interface__ = dict(version=3, **fields)


@pytest.fixture
def memory():
    return np.zeros(8, np.float32)


def _lies(address):
    return [
        (dict(data=None, shape=(4,), typestr="<f4"), ValueError,
         r"has data None \(the object's own buffer\) but Described has no buffer"),
        (dict(data=(0, False), shape=(4,), typestr="<f4"), ValueError, r"has a null data pointer for shape \(4,\)"),
        (dict(data=(address, False), shape=(4,), typestr="<f4", strides=(4, 4)), ValueError,
         r"has strides \(4, 4\) for shape \(4,\); strides are a tuple of ints, one per dimension"),
        (dict(data=(address, False), shape=(-4,), typestr="<f4"), ValueError,
         r"has shape \(-4,\): no extent may be negative"),
        (dict(data=(address, False), shape=(4.0,), typestr="<f4"), TypeError,
         r"has shape \(4.0,\); a shape is a tuple of ints"),
        (dict(data=(address, False), shape=(4,), typestr="<q9"), TypeError,
         "has typestr '<q9', which names no element type"),
        (dict(data=("x", False), shape=(4,), typestr="<f4"), TypeError,
         r"has data \('x', False\); data is \(address, read-only flag\)"),
    ]


@pytest.mark.parametrize("case", range(7))
@pytest.mark.parametrize("how", ["view", "copy", "from_numpy"])
def test_a_description_that_cannot_be_right_is_refused(memory, case, how):
    fields, kind, message = _lies(memory.ctypes.data)[case]
    obj = Described(**fields)
    with pytest.raises(kind, match=r"^Described.__array_interface__ " + message):
        if how == "from_numpy":
            wp.from_numpy(obj, dtype=wp.float32)
        else:
            wp.array(obj, dtype=wp.float32, copy=how == "copy")
    assert memory.tolist() == [0.0] * 8


@pytest.mark.parametrize("copy", [False, True])
def test_a_huge_shape_is_refused_before_numpy_reads_it(memory, copy):
    obj = Described(data=(memory.ctypes.data, False), shape=(2**40,), typestr="<f4")
    with pytest.raises(ValueError, match="Array shapes must not exceed the maximum representable value of a signed "
                                         "32-bit integer, got 1099511627776 in dimension 0"):
        wp.array(obj, dtype=wp.float32, copy=copy)


def test_the_read_only_flag_is_honoured(memory):
    a = wp.array(Described(data=(memory.ctypes.data, True), shape=(4,), typestr="<f4"), dtype=wp.float32,
                 copy=False)
    with pytest.raises(wp.LaunchError, match="read-only array"):
        wp.launch(bump, dim=4, inputs=[a])
    assert memory.tolist() == [0.0] * 8


def test_a_consistent_negative_stride_is_viewed(memory):
    last = memory.ctypes.data + 3 * 4  # the first element is the highest address, as numpy's a[::-1] describes it
    a = wp.array(Described(data=(last, False), shape=(4,), typestr="<f4", strides=(-4,)), dtype=wp.float32,
                 copy=False)
    memory[:4] = [1.0, 2.0, 3.0, 4.0]
    assert a.numpy().tolist() == [4.0, 3.0, 2.0, 1.0]
    wp.launch(bump, dim=4, inputs=[a])
    assert memory.tolist() == [2.0, 3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 0.0]



class BufferAndInterface(bytearray):
    """A buffer whose __array_interface__ says data=None ('my own buffer') but another shape and typestr."""

    @property
    def __array_interface__(self):
        return dict(version=3, data=None, shape=(2,), typestr="<f4")


def test_data_none_on_an_object_with_a_buffer_reads_the_buffer_as_numpy_and_warp_do():
    # attacker round 18, lead 1, kept: numpy (and Warp 1.19's wp.array) take the buffer's own format and length
    # over the interface's shape and typestr; wp.array(obj) does the same, so both see the same memory as uint8
    obj = BufferAndInterface(np.array([1.0, 2.0], np.float32).tobytes())
    a = wp.array(obj)
    assert a.dtype == wp.uint8 and a.shape == (8,)
    assert a.numpy().tobytes() == bytes(obj)
    assert np.array_equal(a.numpy(), np.asarray(obj))
