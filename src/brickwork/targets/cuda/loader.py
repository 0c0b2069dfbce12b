"""A built CUDA instance as a launchable entry: the cubin, loaded into each device's context on first use."""

from __future__ import annotations

import ctypes
import struct

from ... import cuda_driver
from ...errors import BoundsError, DeviceUnavailableError
from .arch import BLOCK_SIZE, grid_size

#: ``bw::bounds_error`` of brickwork.h on the device: set, where (a device pointer), n, index[4], shape[4]
_BOUNDS = struct.Struct("<i4xQi4x4q4q")


class CudaEntry:
    """The entry point of one cubin; ``launch(buf, total, device)`` runs it on ``total`` threads."""

    def __init__(self, path: str, meta: dict):
        with open(path, "rb") as f:
            self.cubin = f.read()
        self.label = meta.get("label", "kernel")
        self.block = int(meta.get("gpu_launch", {}).get("block", BLOCK_SIZE))
        self.checked = meta.get("mode") == "debug"
        self._loaded: dict = {}  # device ordinal -> (module, function)

    def __call__(self, buf) -> None:
        raise DeviceUnavailableError(f"kernel '{self.label}' is a CUDA instance: launch it on a CUDA device")

    def _function(self, drv, ordinal: int) -> tuple:
        found = self._loaded.get(ordinal)
        if found is None:
            module = drv.load_module(ordinal, self.cubin)
            found = self._loaded[ordinal] = (module, drv.function(ordinal, module, "bw_entry"))
        return found

    def launch(self, buf: bytes, total: int, device) -> None:
        """One thread per launch point: ``ceil(total / block)`` blocks of ``block`` threads."""
        drv = cuda_driver.driver()
        module, function = self._function(drv, device.ordinal)
        drv.launch(device.ordinal, function, grid_size(total, self.block), self.block, buf)
        if self.checked:
            self._raise_out_of_bounds(drv, device.ordinal, module)

    def _raise_out_of_bounds(self, drv, ordinal: int, module) -> None:
        """Debug mode: wait for the launch, then raise the first out-of-bounds access it recorded."""
        ptr, size = drv.global_address(ordinal, module, "bw_bounds_record")
        record = ctypes.create_string_buffer(size)
        drv.copy_to_host(ordinal, ctypes.addressof(record), ptr, size)  # waits for the launch
        set_, where_ptr, n, *rest = _BOUNDS.unpack_from(record.raw)
        if not set_:
            return
        zeros = ctypes.create_string_buffer(size)
        drv.copy_to_device(ordinal, ptr, ctypes.addressof(zeros), size)  # cleared for the next launch
        index, shape = rest[:n], rest[4:4 + n]
        raise BoundsError(f"kernel '{self.label}': index ({', '.join(map(str, index))}) is out of bounds for shape "
                          f"({', '.join(map(str, shape))}) at {_device_string(drv, ordinal, where_ptr)}")


def _device_string(drv, ordinal: int, ptr: int, chunk: int = 16, limit: int = 512) -> str:
    """A NUL-terminated string in device memory, read a few bytes at a time (never far past its end)."""
    out = b""
    buf = ctypes.create_string_buffer(chunk)
    while len(out) < limit:
        drv.copy_to_host(ordinal, ctypes.addressof(buf), ptr + len(out), chunk)
        out += buf.raw
        if b"\0" in buf.raw:
            break
    return out.split(b"\0", 1)[0].decode(errors="replace")
