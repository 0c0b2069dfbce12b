"""brickwork's own DLPack capsules (read-only, bfloat16 and CUDA arrays): numpy makes them, so their deleter and
destructor run no Python code. A consumer that refuses the tensor and drops the capsule with its exception set
keeps that exception (a ctypes callback used to turn it into a ``SystemError`` and lose it), the array is
unchanged and can be exported again, and a consumer's view keeps the array's memory alive."""

import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest

import brickwork as wp
from brickwork.types import dlpack_export

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "runtime"))
from cuda_fake import FakeDriver, installed  # noqa: E402


def read_only(values):
    src = np.array(values, dtype=np.float32)
    src.flags.writeable = False
    return wp.array(src, copy=False)


def test_a_refused_bfloat16_capsule_keeps_the_consumers_exception_and_changes_nothing():
    x = wp.array(np.array([1.5, -2.0, 3.25], dtype=np.float32), dtype=wp.bfloat16)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match="Unsupported dtype in DLTensor"):  # numpy's words, not a SystemError
        np.from_dlpack(x)
    assert x.numpy().tobytes() == before.tobytes()
    managed = dlpack_export.DLManagedTensor.from_address(
        dlpack_export._capsule_pointer(id(cap := x.__dlpack__()), dlpack_export._NAME))
    t = managed.dl_tensor
    assert (t.dtype.code, t.dtype.bits, t.device.device_type, t.data) == (4, 16, 1, x.ptr)  # kDLBfloat, kDLCPU
    del cap


def test_the_deleter_is_numpys_c_function_not_a_python_callback():
    cap = read_only([1.0, 2.0]).__dlpack__()
    managed = dlpack_export.DLManagedTensor.from_address(dlpack_export._capsule_pointer(id(cap), dlpack_export._NAME))
    deleter = ctypes.cast(managed.deleter, ctypes.c_void_p).value
    library = np._core._multiarray_umath.__file__
    with open("/proc/self/maps") as f:  # the address ranges of numpy's extension module in this process
        spans = [[int(v, 16) for v in line.split()[0].split("-")] for line in f if line.rstrip().endswith(library)]
    assert any(lo <= deleter < hi for lo, hi in spans)


def test_a_read_only_array_exports_its_memory_and_the_view_keeps_it_alive():
    x = read_only([1.0, 2.0, 3.0])
    gone = weakref.ref(x)
    y = np.from_dlpack(x)
    assert y.ctypes.data == x.ptr and y.tolist() == [1.0, 2.0, 3.0]
    del x
    gc.collect()
    assert gone() is not None and y.tolist() == [1.0, 2.0, 3.0]  # held by the consumer's view
    del y
    gc.collect()
    assert gone() is None  # numpy's deleter released it


def test_an_unconsumed_capsule_releases_the_array():
    x = read_only([4.0])
    gone = weakref.ref(x)
    cap = x.__dlpack__()
    del x
    gc.collect()
    assert gone() is not None
    del cap
    gc.collect()
    assert gone() is None


def test_a_strided_read_only_view_exports_its_strides():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)[::-1, ::2]
    src.flags.writeable = False
    x = wp.array(src, copy=False)
    assert np.from_dlpack(x).tolist() == src.tolist()


def test_a_cuda_array_refused_by_numpy_keeps_numpys_error_and_its_values():
    with installed(FakeDriver()):
        x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), device="cuda:0")
        with pytest.raises(RuntimeError, match="Unsupported device in DLTensor"):
            np.from_dlpack(x)
        assert x.numpy().tolist() == [1.0, 2.0, 3.0]
        cap = x.__dlpack__()
        managed = dlpack_export.DLManagedTensor.from_address(
            dlpack_export._capsule_pointer(id(cap), dlpack_export._NAME))
        t = managed.dl_tensor
        assert (t.device.device_type, t.device.device_id, t.data, t.ndim, t.shape[0]) == (2, 0, x.ptr, 1, 3)
        del cap
