"""Memory handed over by address or by another library's protocol: a pointer past 64 bits and a producer whose
``__dlpack_device__`` is not a pair of integers are TypeErrors naming the argument or the method (attacker probe:
ptr=2**64 raised ctypes' "Python int too large to convert to C unsigned long"; ("a", 0) and 7 raised int()'s and
tuple unpacking's own errors)."""

import numpy as np
import pytest

import brickwork as wp


@pytest.mark.parametrize("ptr", [2**64, 2**70, -1])
def test_a_pointer_outside_64_bits_is_refused(ptr):
    with pytest.raises(TypeError, match=rf"ptr must be a memory address \(an int from 0 to 2\*\*64 - 1\), got {ptr}"):
        wp.array(ptr=ptr, shape=(1,), dtype=wp.float32)


def test_the_highest_pointer_is_an_address():
    # nothing is read: an array of no elements at the last address
    assert wp.array(ptr=2**64 - 1, shape=(0,), dtype=wp.float32).shape == (0,)


class _Producer:
    def __init__(self, device):
        self.device = device
        self.asked = 0

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        self.asked += 1
        return np.zeros(3, np.float32).__dlpack__()


@pytest.mark.parametrize("device", [("a", 0), 7, (1,), (1, 0, 0), (1.0, 0), (True, 0), None, (1, "0")])
def test_a_device_that_is_not_a_pair_of_integers_is_refused(device):
    producer = _Producer(device)
    with pytest.raises(TypeError, match=r"wp.from_dlpack: _Producer.__dlpack_device__\(\) must return a pair of "
                                        r"integers \(device type, device id\), got "):
        wp.from_dlpack(producer)
    assert producer.asked == 0  # refused before the tensor was asked for


def test_a_device_pair_of_numpy_integers_imports():
    producer = _Producer((np.int32(1), np.int64(0)))
    assert wp.from_dlpack(producer).numpy().tolist() == [0.0, 0.0, 0.0]
