"""bfloat16 arrays and numpy, as Warp 1.19: where ml_dtypes is installed (it comes with JAX) ``.numpy()`` views the
bits as ``ml_dtypes.bfloat16`` values and numpy data of that type is bfloat16 data; without it the bits are
uint16 numbers. brickwork does not depend on ml_dtypes: the tests of its type skip where it is missing."""

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp
from brickwork.types import bfloat16_numpy

BITS = [0x3FC0, 0xC010, 0x4040]  # 1.5, -2.25, 3.0


@wp.kernel
def _double(x: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    x[i] = x[i] * wp.bfloat16(2.0)


def test_without_ml_dtypes_numpy_gives_the_uint16_bits(monkeypatch):
    monkeypatch.setattr(bfloat16_numpy, "_ml_bfloat16", None)
    a = wp.array([1.5, -2.25, 3.0], dtype=wp.bfloat16)
    assert a.numpy().dtype == np.uint16 and a.numpy().tolist() == BITS
    assert str(a) == str(a.numpy()) and a.list() == [1.5, -2.25, 3.0]
    with installed(FakeDriver()):
        on_gpu = wp.array([1.5, -2.25, 3.0], dtype=wp.bfloat16, device="cuda:0")
        assert on_gpu.numpy().dtype == np.uint16 and on_gpu.numpy().tolist() == BITS


def test_with_ml_dtypes_numpy_views_the_bits_as_its_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = wp.array([1.5, -2.25, 3.0], dtype=wp.bfloat16)
    n = a.numpy()
    assert n.dtype == ml_dtypes.bfloat16 and n.astype(np.float32).tolist() == [1.5, -2.25, 3.0]
    assert n.view(np.uint16).tolist() == BITS
    n[0] = 4.0  # the same memory, as numpy() of any CPU array
    assert a.list() == [4.0, -2.25, 3.0]
    assert str(a) == str(a.numpy())
    v = wp.array([[1.0, 2.0, 3.0]], dtype=wp.vector(3, wp.bfloat16))
    assert v.numpy().dtype == ml_dtypes.bfloat16 and v.numpy().astype(np.float32).tolist() == [[1.0, 2.0, 3.0]]
    assert wp.empty(0, dtype=wp.bfloat16).numpy().dtype == ml_dtypes.bfloat16
    with installed(FakeDriver()):
        on_gpu = wp.array([1.5, -2.25, 3.0], dtype=wp.bfloat16, device="cuda:0")
        assert on_gpu.numpy().dtype == ml_dtypes.bfloat16 and on_gpu.numpy().view(np.uint16).tolist() == BITS
        assert on_gpu.to("cpu").numpy().view(np.uint16).tolist() == BITS


def test_numpy_data_of_ml_dtypes_bfloat16_is_bfloat16_data():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    data = np.array([1.5, -2.25, 3.0], dtype=ml_dtypes.bfloat16)
    assert wp.dtype_from_numpy(data.dtype) is wp.bfloat16
    assert wp.dtype_to_numpy(wp.bfloat16) is np.uint16  # as Warp: the type that holds the bits
    for a in (wp.array(data), wp.array(data, dtype=wp.bfloat16)):
        assert a.dtype is wp.bfloat16 and a.numpy().view(np.uint16).tolist() == BITS
    shared = wp.array(data, dtype=wp.bfloat16, copy=False)  # a view of the same memory
    wp.launch(_double, dim=3, inputs=[shared])
    assert data.astype(np.float32).tolist() == [3.0, -4.5, 6.0]
    wp.launch(_double, dim=3, inputs=[data])  # numpy data passed to a launch as it is
    assert data.astype(np.float32).tolist() == [6.0, -9.0, 12.0]
