"""Warp 1.19's allocator API and enums (newuser round 11): wp.MemoryKind and array.memory_kind, wp.Allocator,
wp.get_device_allocator, wp.set_device_allocator, wp.set_cuda_allocator, wp.ScopedAllocator, and wp.CaptureMode with
capture_begin's and ScopedCapture's capture_mode and apic, which a Warp program met as AttributeErrors and
TypeErrors. The CPU answers as Warp 1.19's CPU does (checked); a CUDA device takes a custom allocator for real
(the stand-in driver's memory)."""

import ctypes

import numpy as np
import pytest

import brickwork as wp

from .cuda_fake import FakeDriver, installed


class CountingAllocator:
    """Device memory from the stand-in driver, with a record of each call."""

    memory_kind = wp.MemoryKind.CUDA_MANAGED  # what it says its memory is, reported by the arrays it backs

    def __init__(self, fake):
        self.fake, self.calls = fake, []

    def allocate(self, size_in_bytes):
        ptr = self.fake.alloc(0, size_in_bytes)
        self.calls.append(("allocate", size_in_bytes, ptr))
        return ptr

    def deallocate(self, ptr, size_in_bytes):
        self.calls.append(("deallocate", size_in_bytes, ptr))
        self.fake.free(0, ptr)


def test_the_cpu_allocator_gives_host_memory_and_cpu_arrays_are_host_memory():
    allocator = wp.get_device_allocator("cpu")
    assert allocator is wp.get_device("cpu").get_allocator() and isinstance(allocator, wp.Allocator)
    assert allocator.memory_kind is wp.MemoryKind.HOST and wp.MemoryKind.HOST == 1  # Warp's numbers
    ptr = allocator.allocate(64)
    ctypes.memset(ptr, 7, 64)
    assert (ctypes.c_uint8 * 64).from_address(ptr)[:] == [7] * 64
    allocator.deallocate(ptr, 64)
    a = wp.zeros(4, dtype=float)
    assert a.memory_kind is wp.MemoryKind.HOST and a[1:].memory_kind is wp.MemoryKind.HOST
    assert not isinstance(object(), wp.Allocator)


@pytest.mark.parametrize("call", [lambda a: wp.set_device_allocator("cpu", a), lambda a: wp.ScopedAllocator("cpu", a)],
                         ids=["set_device_allocator", "ScopedAllocator"])
def test_the_cpu_takes_no_custom_allocator(call):
    with pytest.raises(RuntimeError, match="^Custom allocators are only supported on CUDA devices$"):
        call(wp.get_device_allocator("cpu"))
    assert wp.get_device_allocator("cpu").memory_kind is wp.MemoryKind.HOST


def test_set_cuda_allocator_without_cuda_devices_is_refused():
    with installed(FakeDriver(devices=0)):
        with pytest.raises(RuntimeError, match="^set_cuda_allocator: no CUDA devices available$"):
            wp.set_cuda_allocator(wp.get_device_allocator("cpu"))


def test_a_cuda_device_takes_its_arrays_memory_from_a_custom_allocator():
    fake = FakeDriver()
    with installed(fake):
        default = wp.get_device_allocator("cuda:0")
        assert default.memory_kind is wp.MemoryKind.CUDA_DEVICE
        counting = CountingAllocator(fake)
        with pytest.raises(TypeError, match="allocator must implement the Allocator protocol"):
            wp.set_device_allocator("cuda:0", object())
        assert wp.get_device_allocator("cuda:0") is default  # the refusal changed nothing
        with wp.ScopedAllocator("cuda:0", counting):
            assert wp.get_device_allocator("cuda:0") is counting
            a = wp.array([1.0, 2.0, 3.0, 4.0], dtype=float, device="cuda:0")
            ptr = counting.calls[0][2]
            assert counting.calls == [("allocate", 16, ptr)] and a.ptr == ptr
            assert a.memory_kind is wp.MemoryKind.CUDA_MANAGED
        a.fill_(5.0)
        assert a.numpy().tolist() == [5.0] * 4
        b = wp.zeros(2, dtype=float, device="cuda:0")  # after the block: the driver's memory again
        assert b.memory_kind is wp.MemoryKind.CUDA_DEVICE and len(counting.calls) == 1
        del a  # given back to the allocator that gave it
        assert counting.calls[1] == ("deallocate", 16, ptr) and ptr in fake.freed
        wp.set_cuda_allocator(counting)
        c = wp.zeros(3, dtype=wp.int32, device="cuda:0")
        assert counting.calls[2][:2] == ("allocate", 12) and c.numpy().tolist() == [0, 0, 0]
        wp.set_device_allocator("cuda:0", None)
        assert wp.get_device_allocator("cuda:0") is default


def test_capture_modes_record_alike_and_a_wrong_one_is_refused():
    a = wp.zeros(2, dtype=float)
    with wp.ScopedCapture(capture_mode=wp.CaptureMode.RELAXED, apic=True) as capture:
        a.fill_(2.0)  # recorded, not run
    assert a.numpy().tolist() == [0.0, 0.0]
    wp.capture_launch(capture.graph)
    assert a.numpy().tolist() == [2.0, 2.0]
    wp.capture_begin(capture_mode=wp.CaptureMode.GLOBAL)
    a.fill_(3.0)
    wp.capture_launch(wp.capture_end())
    assert a.numpy().tolist() == [3.0, 3.0] and [int(m) for m in wp.CaptureMode] == [0, 1, 2]
    with pytest.raises(ValueError, match=r"capture_mode must be a wp.CaptureMode \(GLOBAL, THREAD_LOCAL or "
                                         r"RELAXED\), got 7"):
        wp.capture_begin(capture_mode=7)
    assert not wp.is_capturing()
    with pytest.raises(TypeError, match="capture_modes"):
        wp.ScopedCapture(capture_modes=1)  # a misspelt option is no longer swallowed
    np.testing.assert_array_equal(a.numpy(), [3.0, 3.0])


class WrappingAllocator:
    """A custom allocator over a device's built-in one (Warp's core example_custom_allocator's pattern)."""

    def __init__(self, device):
        self.inner, self.allocated, self.deallocated = device.default_allocator, 0, 0

    def allocate(self, size_in_bytes):
        self.allocated += size_in_bytes
        return self.inner.allocate(size_in_bytes)

    def deallocate(self, ptr, size_in_bytes):
        self.deallocated += size_in_bytes
        self.inner.deallocate(ptr, size_in_bytes)


def test_default_allocator_is_the_builtin_one_whatever_is_set():
    cpu = wp.get_device("cpu")
    assert cpu.default_allocator is wp.get_device_allocator("cpu")
    with pytest.raises(RuntimeError, match="^Custom allocators are only supported on CUDA devices$"):
        wp.set_device_allocator(cpu, WrappingAllocator(cpu))  # as Warp 1.19's CPU
    fake = FakeDriver()
    with installed(fake):
        device = wp.get_device("cuda:0")
        wrapping = WrappingAllocator(device)
        assert wrapping.inner.memory_kind is wp.MemoryKind.CUDA_DEVICE
        wp.set_device_allocator(device, wrapping)
        assert device.default_allocator is wrapping.inner and device.get_allocator() is wrapping
        a = wp.zeros(1000, dtype=wp.float32, device=device)
        b = wp.ones(500, dtype=wp.float32, device=device)
        with wp.ScopedAllocator(device, None):
            c = wp.zeros(100, dtype=wp.float32, device=device)  # the built-in one: not counted
        assert (wrapping.allocated, wrapping.deallocated) == (6000, 0)
        assert b.numpy().sum() == 500.0 and a.numpy().sum() == 0.0 and c.shape == (100,)
        del a, b
        assert (wrapping.allocated, wrapping.deallocated) == (6000, 6000)
        wp.set_device_allocator(device, None)
        assert device.get_allocator() is device.default_allocator
