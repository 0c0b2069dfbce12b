"""DLPack 1.0 capsules and their read-only flag (attacker round 17, lead 2): wp.from_dlpack asked producers for a 0.x
capsule only, so numpy (>= 2.1) refused to export a read-only array at all ('Cannot export readonly array since
signalling readonly is unsupported by DLPack') and a 'dltensor_versioned' capsule was 'not an unconsumed DLPack
capsule'. Producers are asked with max_version=(1, 0) now; DLPACK_FLAG_BITMASK_READ_ONLY makes the view read-only
(a kernel may read it, never write it), and a capsule of a DLPack major version brickwork does not read is refused
before anything past its version is read, and left unconsumed."""

from __future__ import annotations

import ctypes
import gc
import sys

import numpy as np
import pytest
from tests.safety.test_dlpack_read_only import copy_out, double  # their kernels, compiled once

import brickwork as wp
from brickwork.types import dlpack_import


def _versioned(cap):
    return ctypes.cast(dlpack_import._capsule_pointer(id(cap), b"dltensor_versioned"),
                       ctypes.POINTER(dlpack_import.DLManagedTensorVersioned)).contents


@pytest.mark.parametrize("how", ["object", "capsule"])
def test_a_read_only_numpy_array_imports_read_only(how):
    data = np.arange(4, dtype=np.float32)
    data.setflags(write=False)
    a = wp.from_dlpack(data if how == "object" else data.__dlpack__(max_version=(1, 0)))
    assert not a.numpy().flags.writeable
    with pytest.raises(wp.LaunchError, match=r"^launch of 'double': argument 'a' is a read-only array \(it views "
                                             r"read-only memory\) but the kernel writes it"):
        wp.launch(double, dim=4, inputs=[a])
    out = wp.zeros(4, dtype=wp.float32)
    wp.launch(copy_out, dim=4, inputs=[a, out])
    assert out.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert data.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_the_flag_set_on_a_writable_array_s_capsule_is_honoured():
    data = np.arange(4, dtype=np.float32)
    cap = data.__dlpack__(max_version=(1, 0))
    _versioned(cap).flags |= 1  # DLPACK_FLAG_BITMASK_READ_ONLY
    a = wp.from_dlpack(cap)
    with pytest.raises(wp.LaunchError, match="read-only array"):
        wp.launch(double, dim=4, inputs=[a])
    assert data.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_writable_array_imports_writable_shares_memory_and_is_released():
    data = np.arange(4, dtype=np.float32)
    before = sys.getrefcount(data)
    a = wp.from_dlpack(data)
    wp.launch(double, dim=4, inputs=[a])
    assert data.tolist() == [0.0, 2.0, 4.0, 6.0]
    del a
    gc.collect()
    assert sys.getrefcount(data) == before  # the producer's deleter ran


def test_a_capsule_of_another_major_version_is_refused_and_left_unconsumed():
    data = np.arange(4, dtype=np.float32)
    cap = data.__dlpack__(max_version=(1, 0))
    _versioned(cap).version.major = 2
    with pytest.raises(ValueError, match=r"^wp.from_dlpack: the capsule is of DLPack 2.0; brickwork reads DLPack "
                                         r"0.x and 1.x capsules$"):
        wp.from_dlpack(cap)
    assert dlpack_import._capsule_valid(id(cap), b"dltensor_versioned")  # not consumed
    _versioned(cap).version.major = 1  # numpy's deleter, when the capsule goes, reads its own layout
    a = wp.from_dlpack(cap)
    assert a.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="not an unconsumed DLPack capsule"):
        wp.from_dlpack(cap)  # consumed now: renamed used_dltensor_versioned


def test_a_producer_that_does_not_know_max_version_is_asked_again():
    class Old:
        def __init__(self, arr):
            self.arr, self.calls = arr, []

        def __dlpack__(self, stream=None):
            self.calls.append(stream)
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    old = Old(np.arange(3, dtype=np.float32))
    assert wp.from_dlpack(old).numpy().tolist() == [0.0, 1.0, 2.0]
    assert old.calls == [None]


def test_on_a_cuda_device_the_flag_is_honoured_too():
    """The CUDA import (``_import_cuda``) with the stand-in driver, whose device memory is host memory: a 1.x capsule
    of that memory marked read-only and on device (kDLCUDA, 0) imports read-only; without the flag, writable."""
    from tests.runtime.cuda_fake import FakeDriver, installed

    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed")
    with installed(FakeDriver()):
        memory = wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float32, device="cuda:0")
        host = np.ctypeslib.as_array(ctypes.cast(memory.ptr, ctypes.POINTER(ctypes.c_float)), shape=(4,))
        imported = []
        for read_only in (True, False):
            cap = host.__dlpack__(max_version=(1, 0))
            managed = _versioned(cap)
            managed.dl_tensor.device.device_type, managed.dl_tensor.device.device_id = 2, 0  # kDLCUDA
            managed.flags |= int(read_only)
            imported.append(wp.from_dlpack(cap))
        lent, writable = imported
        assert lent.readonly and lent.ptr == memory.ptr and not writable.readonly
        with pytest.raises(wp.LaunchError, match="read-only array"):
            wp.launch(double, dim=4, inputs=[lent], device="cuda:0")
        assert memory.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
