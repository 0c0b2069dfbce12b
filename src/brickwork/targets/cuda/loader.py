"""A built CUDA instance as a launchable entry: the cubin, loaded into each device's context on first use."""

from __future__ import annotations

import ctypes
import re
import struct

from ... import cuda_driver, pending_checks
from ...errors import DeviceUnavailableError
from ...jit.store import symbol
from ..cpu import recorded_error
from . import BOUNDS_SYMBOL, ENTRY_SYMBOL, GLOBAL_ENTRY_SYMBOL
from .geometry import LaunchPlan
from .resources import from_meta

#: ``bw::bounds_error`` of brickwork.h on the device: set, where (a device pointer), n, index[4], shape[4]
_BOUNDS = struct.Struct("<i4xQi4x4q4q")
#: Dynamic shared memory a kernel may use without asking the driver for more (cuFuncSetAttribute).
_DEFAULT_DYNAMIC_SHARED = 48 * 1024


class CudaEntry:
    """The entry point of one cubin; ``launch(buf, dims, device, args, params)`` runs it on ``device``.

    A kernel with a scratch arena has two (``unit.py``): ``bw_entry``, whose arena is the launch's dynamic
    shared memory, and ``bw_entry_global``, whose arena is the global buffer; each launch runs the one its
    arena's size calls for (``LaunchPlan.geometry``), and passes the global buffer only to the second.
    """

    def __init__(self, path: str, meta: dict):
        with open(path, "rb") as f:
            self.cubin = f.read()
        self.label = meta.get("label", "kernel")
        self.symbol = symbol(meta, ENTRY_SYMBOL)  # renamed in a batch-built cubin
        self.global_symbol = symbol(meta, GLOBAL_ENTRY_SYMBOL)
        # entry ("bw_entry", "bw_entry_global") -> KernelResources: ptxas's report of the build (resources.py)
        self.resources = from_meta(meta, {ENTRY_SYMBOL: self.symbol, GLOBAL_ENTRY_SYMBOL: self.global_symbol})
        # the unit-stride body only (unit.py): a launch without unit innermost strides runs the strided variant
        self.unit_only = "strided" not in str(meta.get("variant", "")).split("+")
        self.plan = LaunchPlan(meta.get("gpu_launch", {}), self.label)
        self.block, self.per_block = self.plan.block, self.plan.per_block
        self.ndims = int(meta.get("tid_dims", 1))
        # a one-dimensional plain kernel: ceil(n / points per block) blocks, no scratch (the launch's fast path)
        self.one_row_of_points = self.ndims == 1 and self.plan.per_point and self.plan.arena_text is None
        # debug mode: the launch waits and reads the record of the first access out of bounds back, as the CPU's
        # does; accesses of struct array fields tested as they run (ir/field_checks) in a release build: the
        # launch notes the kernel, and the record is read where the host next waits for it (pending_checks)
        self.checked = meta.get("mode") == "debug"
        self.checks_later = not self.checked and bool(meta.get("field_checks"))
        self.where = meta.get("where", str)  # a release build's "+N" access line -> file:line
        self._loaded: dict = {}  # device ordinal -> (module, function)
        self._global_entries: dict = {}  # device ordinal -> the function whose arena is the global buffer
        self._shared_allowed: dict = {}  # device ordinal -> dynamic shared bytes the function may use
        self._arenas: dict = {}  # (device ordinal, stream) -> (pointer, bytes) of the global scratch buffer

    def __call__(self, buf) -> None:
        raise DeviceUnavailableError(f"kernel '{self.label}' is a CUDA instance: launch it on a CUDA device")

    def _function(self, drv, ordinal: int) -> tuple:
        found = self._loaded.get(ordinal)
        if found is None:
            module = drv.load_module(ordinal, self.cubin)
            found = self._loaded[ordinal] = (module, drv.function(ordinal, module, self.symbol))
        return found

    def launch(self, buf: bytes, dims: tuple, device, args=(), params=(), stream: int = 0) -> None:
        """The launch points ``dims`` (the four extents, 1 past the kernel's dimensions): one thread each
        (plain kernels), or one block per slice or team; on the ``CUstream`` ``stream`` (0: the legacy
        default stream)."""
        drv = cuda_driver.driver()
        ordinal = device.ordinal
        module, function = self._loaded.get(ordinal) or self._function(drv, ordinal)
        if self.one_row_of_points:  # the common case, without building a Geometry
            grid, block, shared, arena = (dims[0] + self.per_block - 1) // self.per_block, self.block, 0, 0
        else:
            g = self.plan.geometry(dims[:self.ndims], args, params)
            self._allow_shared(drv, ordinal, function, g.shared)
            arena = 0
            if g.global_arena:  # the arena does not fit in shared memory: the other entry, and the buffer
                function = self._global_entries.get(ordinal) or self._global_entry(drv, ordinal, module)
                arena = self._global_arena(drv, ordinal, stream, g.blocks * g.global_arena)
            grid, block, shared = g.grid, g.block, g.shared
        drv.launch(ordinal, function, grid, block, buf, shared=shared, arena=arena, stream=stream)
        if self.checks_later:
            pending_checks.note(self, ordinal, module, stream)
        elif self.checked:
            self.raise_recorded(ordinal, module)

    def noted(self, ordinal: int, stream: int) -> None:
        """A CUDA graph holding a launch of this kernel was launched on ``stream`` (its record read later)."""
        if self.checks_later:
            pending_checks.note(self, ordinal, self._loaded[ordinal][0], stream)

    def graph_node(self, device, dims: tuple, args=(), params=()) -> tuple | None:
        """``(function, grid, block, shared)`` of this launch as a node of a CUDA graph, with the module loaded
        and its shared memory allowed now: a stream capture records the launch and nothing else may happen
        during it. None where a graph cannot hold the launch: a debug-mode kernel (it reads its bounds record
        back after each launch) or one whose scratch arena is a global buffer (one per stream, regrown). A kernel
        that checks struct array fields is a node: each launch of its graph notes it (``noted``)."""
        if self.checked:
            return None
        drv = cuda_driver.driver()
        ordinal = device.ordinal
        function = (self._loaded.get(ordinal) or self._function(drv, ordinal))[1]
        if self.one_row_of_points:
            return function, (dims[0] + self.per_block - 1) // self.per_block, self.block, 0
        g = self.plan.geometry(dims[:self.ndims], args, params)
        if g.global_arena:
            return None
        self._allow_shared(drv, ordinal, function, g.shared)
        return function, g.grid, g.block, g.shared

    def _allow_shared(self, drv, ordinal: int, function: int, nbytes: int) -> None:
        if nbytes > self._shared_allowed.get(ordinal, _DEFAULT_DYNAMIC_SHARED):
            drv.allow_dynamic_shared(ordinal, function, nbytes)
            self._shared_allowed[ordinal] = nbytes

    def _global_entry(self, drv, ordinal: int, module: int) -> int:
        function = self._global_entries[ordinal] = drv.function(ordinal, module, self.global_symbol)
        return function

    def _global_arena(self, drv, ordinal: int, stream: int, nbytes: int) -> int:
        """The global scratch buffer of launches on (device, stream), at least ``nbytes`` (grown, never
        shrunk): one per stream, so launches on two streams never share scratch."""
        ptr, have = self._arenas.get((ordinal, stream), (0, 0))
        if nbytes <= have:
            return ptr
        if ptr:
            drv.synchronize(ordinal)  # launches still running may use the old buffer
            drv.free(ordinal, ptr)
        ptr = drv.alloc(ordinal, nbytes)
        self._arenas[(ordinal, stream)] = (ptr, nbytes)
        return ptr

    def raise_recorded(self, ordinal: int, module) -> None:
        """Raise the first out-of-bounds access the kernel's launches in ``module`` recorded (the copy waits for
        the device), clearing the record."""
        drv = cuda_driver.driver()
        ptr, size = drv.global_address(ordinal, module, BOUNDS_SYMBOL)
        record = ctypes.create_string_buffer(size)
        drv.copy_to_host(ordinal, ctypes.addressof(record), ptr, size)  # waits for the launch
        set_, where_ptr, n, *rest = _BOUNDS.unpack_from(record.raw)
        if not set_:
            return
        zeros = ctypes.create_string_buffer(size)
        drv.copy_to_device(ordinal, ptr, ctypes.addressof(zeros), size)  # cleared for the next launch
        index, shape = rest[:max(n, 0)], rest[4:4 + max(n, 0)]
        where = _RELATIVE.sub(lambda m: self.where(m.group(0)), _device_string(drv, ordinal, where_ptr), 1)
        if n < 0:  # a slice's zero step (brickwork.h array_slice)
            raise recorded_error(self.label, f"slice step cannot be zero at {where}")
        message = (f"index ({', '.join(map(str, index))}) is out of bounds for shape ({', '.join(map(str, shape))}) "
                   f"at {where}")
        raise recorded_error(self.label, message)


_RELATIVE = re.compile(r"^\+\d+(?:#\d+)?")  # a release line (targets/locations.py)


def _device_string(drv, ordinal: int, ptr: int, chunk: int = 16, limit: int = 512) -> str:
    """A NUL-terminated string in device memory (a string literal of the module), read a few bytes at a
    time; a byte at a time where a chunk would reach past the module's data (the driver refuses such a
    copy); "an unknown location" when even that fails, so the bounds error itself is still raised."""
    out = b""
    buf = ctypes.create_string_buffer(chunk)
    while len(out) < limit:
        try:
            drv.copy_to_host(ordinal, ctypes.addressof(buf), ptr + len(out), chunk)
            got = buf.raw
        except cuda_driver.CudaError:
            got = _device_bytes(drv, ordinal, ptr + len(out), chunk)
            if not got:
                break
        out += got
        if b"\0" in got:
            break
    text = out.split(b"\0", 1)[0].decode(errors="replace")
    return text or "an unknown location"


def _device_bytes(drv, ordinal: int, ptr: int, n: int) -> bytes:
    """Up to ``n`` bytes from ``ptr``, one copy per byte, stopping at a NUL or the first refused copy."""
    one = ctypes.create_string_buffer(1)
    out = b""
    for k in range(n):
        try:
            drv.copy_to_host(ordinal, ctypes.addressof(one), ptr + k, 1)
        except cuda_driver.CudaError:
            break
        out += one.raw
        if one.raw == b"\0":
            break
    return out
