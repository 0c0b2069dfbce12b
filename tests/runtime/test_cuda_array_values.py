"""CUDA arrays (with the fake driver of cuda_fake.py) convert stored values, copy between dtypes, reshape and
keep the arrays an array of structs points to as CPU arrays do."""

import gc

import numpy as np
import pytest

import brickwork as wp

from .cuda_fake import FakeDriver, installed


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@wp.struct
class Chunk:
    data: wp.array(dtype=float)


def test_device_values_are_converted_and_refused_as_on_the_cpu(fake):
    u = wp.zeros(3, dtype=wp.uint8, device="cuda:0")
    u.fill_(255)
    u[0] = wp.int64(44)
    with pytest.raises(OverflowError, match=r"a\[1\] = ...: 300 does not fit in uint8 \(0 to 255\)"):
        u[1] = 300
    assert u.numpy().tolist() == [44, 255, 255]
    i = wp.full(2, 7, dtype=wp.int32, device="cuda:0")
    with pytest.raises(TypeError, match="fill_ of an array of int32 takes an integer, got float 2.5"):
        i.fill_(2.5)
    with pytest.raises(RuntimeError, match="assign: Incompatible array data types: destination dtype=int32, "
                                           "source dtype=float32"):
        i.assign(wp.zeros(2, dtype=wp.float32, device="cuda:0"))
    with pytest.raises(RuntimeError, match="Data must be a sequence or array, got scalar 5.0"):
        wp.array(5.0, device="cuda:0")
    assert i.numpy().tolist() == [7, 7] and wp.full(2, device="cuda:0").numpy().tolist() == [0, 0]


def test_assigning_host_data_uploads_without_reading_the_device_array_back(fake, monkeypatch):
    """An assignment writes every element: a download first would be a wasted copy and a wait for the GPU."""
    v = wp.zeros(4, dtype=wp.vec2, device="cuda:0")
    f = wp.zeros((2, 3), dtype=wp.float32, device="cuda:0")
    reads = []
    monkeypatch.setattr(fake, "copy_to_host", lambda *a: reads.append(a))
    v.assign(np.arange(8.0).reshape(4, 2))
    f.assign(np.arange(6, dtype=np.float64))  # converted, reshaped
    f.assign(wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.float32))  # a CPU array
    assert reads == []
    monkeypatch.undo()
    assert v.numpy().tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert f.numpy().tolist() == [[1, 2, 3], [4, 5, 6]]


def test_device_reshape_is_a_view_and_refuses_another_size_as_the_cpu(fake):
    a = wp.array(np.arange(6, dtype=np.float32), device="cuda:0")
    r = a.reshape((2, -1))
    assert r.shape == (2, 3) and r.ptr == a.ptr
    with pytest.raises(RuntimeError, match=r"cannot reshape array of shape \(6,\) \(size 6\) into shape \(4, 2\)"):
        a.reshape((4, 2))


def test_device_arrays_of_structs_keep_their_field_arrays(fake):
    def chunk(value):
        return Chunk(data=wp.full(4, value, dtype=float, device="cuda:0"))

    chunks = wp.array([chunk(1.0)], dtype=Chunk, device="cuda:0")
    filled = wp.zeros(2, dtype=Chunk, device="cuda:0").fill_(chunk(2.0))
    stored = wp.zeros(1, dtype=Chunk, device="cuda:0")
    stored[0] = chunk(3.0)
    moved = wp.array([chunk(4.0)], dtype=Chunk).to("cuda:0")
    gc.collect()
    assert chunks[0].data.numpy().tolist() == [1.0] * 4  # the device array itself, kept alive
    assert [c.data.numpy().tolist() for c in filled.list()] == [[2.0] * 4] * 2
    assert stored[0].data.numpy().tolist() == [3.0] * 4 and moved[0].data.numpy().tolist() == [4.0] * 4
    assert wp.clone(chunks)[0].data is chunks[0].data
