"""Another library's CUDA memory as a brickwork array without a copy (with the fake driver of cuda_fake.py):
``wp.array`` of an object with ``__cuda_array_interface__`` (CuPy, PyTorch, Numba) and ``wp.from_dlpack`` of
a CUDA tensor view the memory, keep its owner alive, wait for the producer's stream, and refuse what a
contiguous device array cannot be."""

import ctypes
import gc
import struct
import weakref

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc

from .cuda_fake import FakeDriver, installed


@pytest.fixture
def fake():
    with installed(FakeDriver(devices=2)) as drv:
        yield drv


class Foreign:
    """Memory another library allocated on the fake device, exported as CuPy exports it."""

    def __init__(self, drv, values: np.ndarray, ordinal: int = 0, **extra):
        self.drv, self.values = drv, np.ascontiguousarray(values)
        self.ptr = drv.alloc(ordinal, self.values.nbytes)
        drv.copy_to_device(ordinal, self.ptr, self.values.ctypes.data, self.values.nbytes)
        self.extra = extra

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.values.shape, "typestr": self.values.dtype.str, "data": (self.ptr, False),
                "strides": None, "version": 3, **self.extra}

    def read(self) -> np.ndarray:
        out = np.empty_like(self.values)
        self.drv.copy_to_host(0, out.ctypes.data, self.ptr, out.nbytes)
        return out


def test_an_array_of_foreign_memory_views_it_on_its_device(fake):
    src = Foreign(fake, np.arange(6, dtype=np.float32).reshape(2, 3))
    a = wp.array(src)  # no device given: the memory's own
    assert a.device == wp.get_device("cuda:0") and a.dtype is wp.float32 and a.shape == (2, 3)
    assert a.ptr == src.ptr  # no copy (as in Warp, whatever `copy` says)
    np.testing.assert_array_equal(a.numpy(), src.values)
    a.fill_(7.0)  # writes reach the producer's memory
    np.testing.assert_array_equal(src.read(), np.full((2, 3), 7.0, np.float32))
    v = wp.array(src, dtype=wp.vec3)  # trailing dimensions make vectors, as from_numpy does
    assert v.shape == (2,) and v.dtype is wp.vec3 and v.ptr == src.ptr
    other = Foreign(fake, np.array([1, 2], np.int64), ordinal=1)
    b = wp.array(other, device="cuda:1")
    assert b.device == wp.get_device("cuda:1") and b.numpy().tolist() == [1, 2]


def test_the_foreign_owner_lives_as_long_as_the_array_and_its_memory_is_never_freed_here(fake):
    src = Foreign(fake, np.ones(4, np.float64))
    alive = weakref.ref(src)
    a = wp.array(src)
    view = a.reshape((2, 2))
    del src, a
    gc.collect()
    assert alive() is not None  # the view keeps the producer
    del view
    gc.collect()
    assert alive() is None and fake.freed == []  # the producer frees its memory, brickwork never does


def test_the_producers_stream_is_waited_for(fake):
    synced = []
    fake.stream_synchronize = lambda ordinal, stream: synced.append((ordinal, stream))
    wp.array(Foreign(fake, np.zeros(2, np.float32), stream=0x1234))
    for default in (None, 1, 2):  # the default streams are ordered with brickwork's work already
        wp.array(Foreign(fake, np.zeros(2, np.float32), stream=default))
    assert synced == [(0, 0x1234)]


def test_foreign_memory_that_is_no_contiguous_array_of_the_type_is_refused(fake):
    values = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"describes a strided view \(strides \(4, 16\) bytes for shape \(4, 3\)\); "
                                         r"brickwork's device arrays are contiguous"):
        wp.array(Foreign(fake, values, strides=(4, 16)))
    assert wp.array(Foreign(fake, values, strides=(12, 4))).shape == (4, 3)  # C strides spelled out
    with pytest.raises(TypeError, match=r"holds float32 data of shape \(4, 3\), which is no array of vec2f"):
        wp.array(Foreign(fake, values), dtype=wp.vec2)
    with pytest.raises(TypeError, match="holds float32 data .* no array of float64"):
        wp.array(Foreign(fake, values), dtype=wp.float64)
    with pytest.raises(TypeError, match="elements of type <c8, which brickwork has no scalar type for"):
        wp.array(Foreign(fake, np.zeros(2, np.complex64)))
    with pytest.raises(ValueError, match="is memory of cuda:0, not of cuda:1: pass device='cuda:0'"):
        wp.array(Foreign(fake, values), device="cuda:1")
    with pytest.raises(ValueError, match="describes CUDA memory; an array of it is on a CUDA device, not cpu"):
        wp.array(Foreign(fake, values), device="cpu")
    with pytest.raises(ValueError, match="has a mask"):
        wp.array(Foreign(fake, values, mask=object()))
    with pytest.raises(ValueError, match="has version 1; brickwork reads versions 2 and 3"):
        wp.array(Foreign(fake, values, version=1))


def test_from_dlpack_views_a_cuda_tensor(fake):
    a = wp.array(np.arange(8, dtype=np.int32), device="cuda:0")
    b = wp.from_dlpack(a)  # the device array's own capsule: kDLCUDA
    assert b.device == a.device and b.ptr == a.ptr and b.dtype is wp.int32
    a.fill_(3)
    assert b.numpy().tolist() == [3] * 8
    u = wp.from_dlpack(wp.to_dlpack(a), dtype=wp.uint32)  # same-size integers alias, as on the host
    assert u.dtype is wp.uint32 and u.ptr == a.ptr
    alive = weakref.ref(a)
    del a
    gc.collect()
    assert alive() is not None  # b's capsule owner keeps the exporting array
    del b, u
    gc.collect()
    assert alive() is None


def test_a_refused_cuda_capsule_is_left_to_its_own_deleter(fake):
    a = wp.array(np.zeros((2, 3), np.float32), device="cuda:0")
    cap = wp.to_dlpack(a)
    with pytest.raises(TypeError, match=r"the CUDA tensor holds float32 data of shape \(2, 3\), which is no array "
                                        r"of vec2f"):
        wp.from_dlpack(cap, dtype=wp.vec2)
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(cap) == b"dltensor"  # not consumed: the capsule still owns its deleter
    assert wp.from_dlpack(cap).shape == (2, 3)
    assert get_name(cap) == b"used_dltensor"


@wp.kernel
def _axpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = y[i] + wp.vec3(a * x[i])


needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@needs_nvrtc
def test_a_launch_takes_foreign_cuda_arrays_as_views(fake):
    """CuPy/PyTorch arrays passed to wp.launch on their device run without a copy (as in Warp), typed by their
    parameters; one that cannot be the parameter's array is a LaunchError naming it."""
    x = Foreign(fake, np.arange(4, dtype=np.float32))
    y = Foreign(fake, np.zeros((4, 3), np.float32))
    wp.launch(_axpy, dim=4, inputs=[2.0, x, y], device="cuda:0")
    wp.launch(_axpy, dim=4, inputs=[3.0, x, y], device="cuda:0")  # the instance is found again
    assert len(fake.modules) == 1 and len(fake.launches) == 2
    params = fake.launches[1][4]
    xp, xn, _ = struct.unpack_from("<Qqq", params, 56)
    yp, yn, _ = struct.unpack_from("<Qqq", params, 80)
    assert (xp, xn, yp, yn) == (x.ptr, 4, y.ptr, 4)  # their own memory: 4 floats, 4 vec3
    with pytest.raises(wp.LaunchError, match=r"argument 'y': the __cuda_array_interface__ of Foreign holds float32 "
                                             r"data of shape \(4,\), which is no array of vec3f"):
        wp.launch(_axpy, dim=4, inputs=[2.0, x, x], device="cuda:0")
    assert len(fake.launches) == 2


def test_a_cpu_launch_of_foreign_cuda_memory_says_where_it_is(fake):
    x = Foreign(fake, np.zeros(4, np.float32))
    with pytest.raises(wp.LaunchError, match=r"launch of '_axpy' on the CPU: argument 'x' is CUDA memory .*; launch "
                                             r"on its device \(device='cuda:0', \.\.\.\) or copy it to the host"):
        wp.launch(_axpy, dim=4, inputs=[2.0, x, wp.zeros(4, dtype=wp.vec3)])
    assert x.read().tolist() == [0.0] * 4 and fake.launches == []
