"""Warp's allocator API: ``wp.MemoryKind``, the ``wp.Allocator`` protocol, ``wp.get_device_allocator``,
``wp.set_device_allocator``, ``wp.set_cuda_allocator`` and ``wp.ScopedAllocator``, as Warp 1.19 has them.

A CUDA device takes a custom allocator: an object with ``allocate(size_in_bytes) -> int`` (a device pointer) and
``deallocate(ptr, size_in_bytes)``; the device's arrays made while it is set get their memory from it and give it
back to it when they go. The CPU takes none (Warp's ``RuntimeError``), as in Warp. Without a custom one, a device's
allocator is brickwork's own: host memory (numpy's) on the CPU, ``cuMemAlloc`` on a CUDA device."""

from __future__ import annotations

import enum
import typing

import numpy as np

from . import device as _device
from .device import get_cuda_devices, get_device

_CUSTOM: dict = {}  # CUDA ordinal -> the custom allocator set for it


class MemoryKind(enum.IntEnum):
    """The kind of memory behind an array (``array.memory_kind``), as Warp numbers them."""

    UNKNOWN = 0
    HOST = 1
    PINNED = 2
    CUDA_DEVICE = 3
    CUDA_MEMPOOL = 4
    CUDA_MANAGED = 5


@typing.runtime_checkable
class Allocator(typing.Protocol):
    """What a custom allocator has: ``allocate(size_in_bytes) -> int`` and ``deallocate(ptr, size_in_bytes)``;
    one whose memory is all of one kind may say so in a ``memory_kind`` attribute (a ``MemoryKind``)."""

    def allocate(self, size_in_bytes: int) -> int: ...

    def deallocate(self, ptr: int, size_in_bytes: int) -> None: ...


class CpuDefaultAllocator:
    """Host memory, as brickwork's CPU arrays have (numpy's): ``allocate`` gives the address of ``size_in_bytes``
    bytes that stay until ``deallocate`` of that address."""

    memory_kind = MemoryKind.HOST

    def __init__(self):
        self._blocks: dict = {}

    def allocate(self, size_in_bytes: int) -> int:
        block = np.empty(max(int(size_in_bytes), 1), dtype=np.uint8)
        self._blocks[block.ctypes.data] = block
        return block.ctypes.data

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self._blocks.pop(ptr, None)


class CudaDefaultAllocator:
    """Device memory of one CUDA device by ``cuMemAlloc``, as brickwork's CUDA arrays have without a custom one."""

    memory_kind = MemoryKind.CUDA_DEVICE

    def __init__(self, device):
        self.device = device

    def allocate(self, size_in_bytes: int) -> int:
        from . import cuda_driver

        return cuda_driver.driver().alloc(self.device.ordinal, int(size_in_bytes))

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        from . import cuda_driver

        cuda_driver.driver().free(self.device.ordinal, ptr)


_CPU_ALLOCATOR = CpuDefaultAllocator()
_CUDA_ALLOCATORS: dict = {}  # ordinal -> its CudaDefaultAllocator


def custom_allocator(ordinal: int):
    """The custom allocator set for CUDA device ``ordinal``, or None (read at each device allocation)."""
    return _CUSTOM.get(ordinal)


def _check_allocator(allocator) -> None:
    if allocator is None:
        return
    if not (callable(getattr(allocator, "allocate", None)) and callable(getattr(allocator, "deallocate", None))):
        raise TypeError(f"allocator must implement the Allocator protocol (allocate(size_in_bytes) -> int, "
                        f"deallocate(ptr, size_in_bytes) -> None), got {type(allocator)!r}")


def _cuda_device(device):
    found = get_device(device)
    if not found.is_cuda:
        raise RuntimeError("Custom allocators are only supported on CUDA devices")
    return found


def get_device_allocator(device) -> Allocator:
    """The allocator ``device``'s new arrays get their memory from: the custom one set for a CUDA device, else
    brickwork's own (host memory on the CPU, ``cuMemAlloc`` on a CUDA device)."""
    found = get_device(device)
    custom = None if found.is_cpu else _CUSTOM.get(found.ordinal)
    return builtin_allocator(found) if custom is None else custom


def builtin_allocator(device) -> Allocator:
    """brickwork's own allocator of ``device``, whatever custom one is set (``Device.default_allocator``)."""
    found = get_device(device)
    if found.is_cpu:
        return _CPU_ALLOCATOR
    if found.ordinal not in _CUDA_ALLOCATORS:
        _CUDA_ALLOCATORS[found.ordinal] = CudaDefaultAllocator(found)
    return _CUDA_ALLOCATORS[found.ordinal]


def set_device_allocator(device, allocator) -> None:
    """Let CUDA ``device``'s new arrays take their memory from ``allocator`` (None: brickwork's own again).
    Arrays made before keep the memory they have, and give it back to the allocator that gave it."""
    found = _cuda_device(device)
    _check_allocator(allocator)
    _set(found.ordinal, allocator)


def set_cuda_allocator(allocator) -> None:
    """``set_device_allocator`` for every CUDA device; with none, a ``RuntimeError`` (as Warp's)."""
    _check_allocator(allocator)
    devices = get_cuda_devices()
    if not devices:
        raise RuntimeError("set_cuda_allocator: no CUDA devices available")
    for device in devices:
        _set(device.ordinal, allocator)


def _set(ordinal: int, allocator) -> None:
    if allocator is None:
        _CUSTOM.pop(ordinal, None)
    else:
        _CUSTOM[ordinal] = allocator


class ScopedAllocator:
    """``with wp.ScopedAllocator(device, allocator):`` sets a CUDA device's allocator for the block (None:
    brickwork's own) and restores the one before on exit."""

    def __init__(self, device, allocator):
        self.device = _cuda_device(device)
        _check_allocator(allocator)
        self.allocator = allocator

    def __enter__(self):
        self.saved = _CUSTOM.get(self.device.ordinal)
        _set(self.device.ordinal, self.allocator)
        return self

    def __exit__(self, exc_type, exc, tb):
        _set(self.device.ordinal, self.saved)


_device._allocator_of = get_device_allocator  # Device.get_allocator()
_device._builtin_allocator_of = builtin_allocator  # Device.default_allocator
