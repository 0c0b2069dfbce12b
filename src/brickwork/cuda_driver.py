"""The CUDA driver API (libcuda.so.1, installed with the GPU driver) through ctypes.

Only what brickwork uses: devices, primary contexts, memory, copies and memsets, modules from cubins, kernel
launches (a by-value parameter block and a scratch pointer), streams, events, synchronisation, and CUDA
graphs made by stream capture.
``driver()`` returns the process's ``Driver`` or raises ``DeviceUnavailableError`` (no library, or
``cuInit`` fails: no GPU). Tests put a fake in its place with ``use(fake)``; everything above this
module talks to a ``Driver`` only.
"""

from __future__ import annotations

import ctypes
import threading

from .errors import DeviceUnavailableError

_ATTR_CC_MAJOR, _ATTR_CC_MINOR, _ATTR_SM_COUNT = 75, 76, 16
# CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: what a kernel may use after cuFuncSetAttribute (Warp's)
_ATTR_MAX_SHARED_PER_BLOCK = 97
# the CUdevice_attribute numbers of cuda.h that ``Driver.attribute`` reads by name (Device's Warp properties)
DEVICE_ATTRIBUTES = {"pci_bus_id": 33, "pci_device_id": 34, "unified_addressing": 41, "pci_domain_id": 50,
                     "managed_memory": 83, "host_native_atomic_supported": 86, "pageable_memory_access": 88,
                     "concurrent_managed_access": 89, "direct_managed_mem_access_from_host": 101}
_ATTR_MEMORY_CLOCK_KHZ, _ATTR_MEMORY_BUS_BITS = 36, 37
_NOT_INITIALIZED, _NO_DEVICE = 3, 100
_FUNC_MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
_NOT_READY = 600  # CUDA_ERROR_NOT_READY: a stream or event query whose work is still running
_CAPTURE_INVALIDATED = 901  # CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
_EVENT_DISABLE_TIMING = 2
_POINTER_DEVICE_ORDINAL = 9  # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
_STREAM_NON_BLOCKING = 1  # CU_STREAM_NON_BLOCKING: no implicit order with the legacy default stream
# CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: during a capture, this thread may make no potentially unsafe call (one
# that the graph would not repeat, such as cuMemAlloc); other threads' calls are not checked
_CAPTURE_MODE_THREAD_LOCAL = 1
# the asynchronous memsets by element width: the function and the C type of its value
_MEMSETS = {1: ("cuMemsetD8Async", ctypes.c_ubyte), 2: ("cuMemsetD16Async", ctypes.c_ushort),
            4: ("cuMemsetD32Async", ctypes.c_uint)}
_ARGV1, _ARGV2 = ctypes.c_void_p * 1, ctypes.c_void_p * 2  # cuLaunchKernel's kernelParams


class CudaError(DeviceUnavailableError):
    """A driver call failed; ``code`` is the CUresult."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class Driver:
    """The driver API of one process (every call takes the device's primary context first)."""

    def __init__(self, lib):
        self.lib = lib
        self._contexts: dict = {}
        self._lock = threading.Lock()
        self._check(lib.cuInit(0), "initialise the driver (cuInit)")
        # the launch path's two calls without ctypes' per-argument conversion (0.8 us of a launch):
        # their arguments are C ints, c_void_p handles or None, passed as they are
        self._launch_kernel = _unconverted(lib, "cuLaunchKernel")
        self._set_current = _unconverted(lib, "cuCtxSetCurrent")

    def _check(self, code: int, doing: str) -> None:
        if code:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(code, ctypes.byref(text))
            name = text.value.decode(errors="replace") if text.value else f"error {code}"
            raise CudaError(f"CUDA driver: cannot {doing}: {name} (CUresult {code})", code)

    # -- devices ---------------------------------------------------------------------------------
    def version(self) -> int:
        v = ctypes.c_int()
        self._check(self.lib.cuDriverGetVersion(ctypes.byref(v)), "report its version")
        return v.value

    def device_count(self) -> int:
        n = ctypes.c_int()
        self._check(self.lib.cuDeviceGetCount(ctypes.byref(n)), "count devices")
        return n.value

    def _device(self, ordinal: int) -> ctypes.c_int:
        d = ctypes.c_int()
        self._check(self.lib.cuDeviceGet(ctypes.byref(d), ordinal), f"open device {ordinal}")
        return d

    def name(self, ordinal: int) -> str:
        buf = ctypes.create_string_buffer(256)
        self._check(self.lib.cuDeviceGetName(buf, 256, self._device(ordinal)), "read the device name")
        return buf.value.decode(errors="replace")

    def _attribute(self, ordinal: int, attr: int) -> int:
        v = ctypes.c_int()
        self._check(self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, self._device(ordinal)), "read an attribute")
        return v.value

    def capability(self, ordinal: int) -> tuple[int, int]:
        return self._attribute(ordinal, _ATTR_CC_MAJOR), self._attribute(ordinal, _ATTR_CC_MINOR)

    def sm_count(self, ordinal: int) -> int:
        return self._attribute(ordinal, _ATTR_SM_COUNT)

    def max_shared_memory_per_block(self, ordinal: int) -> int:
        return self._attribute(ordinal, _ATTR_MAX_SHARED_PER_BLOCK)

    def memory_bandwidth(self, ordinal: int) -> float:
        """The memory's theoretical peak in bytes/s: two transfers per clock over the whole bus."""
        clock_hz = self._attribute(ordinal, _ATTR_MEMORY_CLOCK_KHZ) * 1e3
        return 2.0 * clock_hz * self._attribute(ordinal, _ATTR_MEMORY_BUS_BITS) / 8

    def attribute(self, ordinal: int, name: str) -> int:
        """The device attribute ``name`` (a key of ``DEVICE_ATTRIBUTES``) of device ``ordinal``."""
        return self._attribute(ordinal, DEVICE_ATTRIBUTES[name])

    def uuid(self, ordinal: int) -> bytes:
        """The 16 bytes of the device's UUID (cuDeviceGetUuid_v2)."""
        buf = ctypes.create_string_buffer(16)
        self._check(self.lib.cuDeviceGetUuid_v2(buf, self._device(ordinal)), "read the device UUID")
        return buf.raw

    def memory_info(self, ordinal: int) -> tuple[int, int]:
        """``(free, total)`` bytes of the device's memory (cuMemGetInfo_v2, in its primary context)."""
        self._enter(ordinal)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self._check(self.lib.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), "read the free memory")
        return free.value, total.value

    def context(self, ordinal: int) -> int:
        """The ``CUcontext`` handle of the device's primary context (retained on first use)."""
        self._enter(ordinal)
        return self._contexts[ordinal].value

    def has_context(self, ordinal: int) -> bool:
        """Whether this process has retained the device's primary context yet (no driver call)."""
        return ordinal in self._contexts

    def total_memory(self, ordinal: int) -> int:
        v = ctypes.c_size_t()
        self._check(self.lib.cuDeviceTotalMem_v2(ctypes.byref(v), self._device(ordinal)), "read the memory size")
        return v.value

    def _enter(self, ordinal: int) -> None:
        """Make the device's primary context current on this thread (retained once per process)."""
        ctx = self._contexts.get(ordinal)
        if ctx is None:
            with self._lock:
                ctx = self._contexts.get(ordinal)
                if ctx is None:
                    ctx = ctypes.c_void_p()
                    self._check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self._device(ordinal)),
                                f"create a context on device {ordinal}")
                    self._contexts[ordinal] = ctx
        code = self._set_current(ctx)
        if code:
            self._check(code, f"use the context of device {ordinal}")

    # -- memory ----------------------------------------------------------------------------------
    def alloc(self, ordinal: int, nbytes: int) -> int:
        self._enter(ordinal)
        p = ctypes.c_uint64()
        self._check(self.lib.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(nbytes, 1))),
                    f"allocate {nbytes} bytes on device {ordinal}")
        return p.value

    def pointer_device(self, ptr: int) -> int:
        """The ordinal of the device whose memory holds address ``ptr`` (``CudaError`` when none does)."""
        v = ctypes.c_int()
        self._check(self.lib.cuPointerGetAttribute(ctypes.byref(v), _POINTER_DEVICE_ORDINAL, ctypes.c_uint64(ptr)),
                    f"find the device of address {ptr:#x} (is it device memory?)")
        return v.value

    def free(self, ordinal: int, ptr: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuMemFree_v2(ctypes.c_uint64(ptr)), "free device memory")

    def copy_to_device(self, ordinal: int, dst: int, src_host: int, nbytes: int, stream: int | None = None) -> None:
        """Host to device; on ``stream`` when given: ordered with its work, and the host does not wait for
        the device (the driver has read the pageable source when the call returns, so it may be reused)."""
        self._enter(ordinal)
        if stream is None:
            self._check(self.lib.cuMemcpyHtoD_v2(ctypes.c_uint64(dst), ctypes.c_void_p(src_host),
                                                 ctypes.c_size_t(nbytes)), "copy to the device")
        else:
            self._check(self.lib.cuMemcpyHtoDAsync_v2(ctypes.c_uint64(dst), ctypes.c_void_p(src_host),
                                                      ctypes.c_size_t(nbytes), ctypes.c_void_p(stream or None)),
                        "copy to the device")

    def copy_to_host(self, ordinal: int, dst_host: int, src: int, nbytes: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuMemcpyDtoH_v2(ctypes.c_void_p(dst_host), ctypes.c_uint64(src), ctypes.c_size_t(nbytes)),
                    "copy to the host")

    def copy_on_device(self, ordinal: int, dst: int, src: int, nbytes: int, stream: int | None = None) -> None:
        """Device to device; on ``stream`` (ordered with its work, the host does not wait) when given."""
        self._enter(ordinal)
        if stream is None:
            self._check(self.lib.cuMemcpyDtoD_v2(ctypes.c_uint64(dst), ctypes.c_uint64(src), ctypes.c_size_t(nbytes)),
                        "copy on the device")
        else:
            self._check(self.lib.cuMemcpyDtoDAsync_v2(ctypes.c_uint64(dst), ctypes.c_uint64(src),
                                                      ctypes.c_size_t(nbytes), ctypes.c_void_p(stream or None)),
                        "copy on the device")

    def memset(self, ordinal: int, dst: int, value: int, count: int, width: int, stream: int) -> None:
        """Set ``count`` elements of ``width`` bytes (1, 2 or 4) at ``dst`` to ``value`` (an unsigned integer of
        that width) on ``stream``, ordered with its work (``cuMemsetD8Async``/``D16``/``D32``)."""
        self._enter(ordinal)
        name, ctype = _MEMSETS[width]
        self._check(getattr(self.lib, name)(ctypes.c_uint64(dst), ctype(value), ctypes.c_size_t(count),
                                            ctypes.c_void_p(stream or None)), f"set device memory ({name})")

    def memset_2d32(self, ordinal: int, dst: int, pitch: int, value: int, width: int, height: int,
                    stream: int) -> None:
        """Set ``width`` 32-bit words in each of ``height`` rows ``pitch`` bytes apart from ``dst`` to ``value``
        on ``stream`` (``cuMemsetD2D32Async``): one word of a repeated element of several words."""
        self._enter(ordinal)
        self._check(self.lib.cuMemsetD2D32Async(ctypes.c_uint64(dst), ctypes.c_size_t(pitch), ctypes.c_uint(value),
                                                ctypes.c_size_t(width), ctypes.c_size_t(height),
                                                ctypes.c_void_p(stream or None)),
                    "set device memory (cuMemsetD2D32Async)")

    # -- modules and launches --------------------------------------------------------------------
    def load_module(self, ordinal: int, image: bytes) -> int:
        self._enter(ordinal)
        m = ctypes.c_void_p()
        self._check(self.lib.cuModuleLoadData(ctypes.byref(m), ctypes.c_char_p(image)), "load a cubin")
        return m.value

    def function(self, ordinal: int, module: int, name: str) -> int:
        self._enter(ordinal)
        f = ctypes.c_void_p()
        self._check(self.lib.cuModuleGetFunction(ctypes.byref(f), ctypes.c_void_p(module), name.encode()),
                    f"find {name} in a cubin")
        return f.value

    def global_address(self, ordinal: int, module: int, name: str) -> tuple[int, int]:
        self._enter(ordinal)
        p, size = ctypes.c_uint64(), ctypes.c_size_t()
        self._check(self.lib.cuModuleGetGlobal_v2(ctypes.byref(p), ctypes.byref(size), ctypes.c_void_p(module),
                                                  name.encode()), f"find the global {name}")
        return p.value, size.value

    def launch(self, ordinal: int, function: int, grid, block, params: bytes, shared: int = 0,
               arena: int = 0, stream: int = 0) -> None:
        """Launch ``function`` on ``grid`` x ``block`` threads (ints, or (x, y, z) tuples) with ``shared``
        bytes of dynamic shared memory on ``stream`` (0: the legacy default stream); its parameters are
        ``params`` (the packed block, by value) and ``arena`` (a device pointer)."""
        self._enter(ordinal)
        gx, gy, gz = (grid, 1, 1) if type(grid) is int else grid
        bx, by, bz = (block, 1, 1) if type(block) is int else block
        # zero padding: the kernel's parameter struct may round the packed size up to its alignment.
        # The addresses are taken with addressof (ctypes.cast and pointer cost 2 us a launch); the
        # buffers live until cuLaunchKernel, which copies the parameters, returns.
        buf = ctypes.create_string_buffer(params, len(params) + 16)
        pointer = ctypes.c_void_p(arena or None)
        argv = _ARGV2(ctypes.addressof(buf), ctypes.addressof(pointer))
        code = self._launch_kernel(ctypes.c_void_p(function), gx, gy, gz, bx, by, bz, shared,
                                   ctypes.c_void_p(stream) if stream else None, argv, None)
        if code:
            self._check(code, "launch a kernel")

    def launch_struct(self, ordinal: int, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                      params: bytes, stream: int = 0) -> None:
        """Launch a kernel whose one parameter is a struct passed by value (``params``: its bytes) on a 3-D
        ``grid`` of 3-D ``block``s: hand-written CUDA, such as the benchmarks' references."""
        self._enter(ordinal)
        buf = ctypes.create_string_buffer(params, len(params))
        argv = _ARGV1(ctypes.addressof(buf))
        self._check(self.lib.cuLaunchKernel(function, *grid, *block, 0, stream or None, argv, None), "launch a kernel")

    def allow_dynamic_shared(self, ordinal: int, function: int, nbytes: int) -> None:
        """Let ``function`` use ``nbytes`` of dynamic shared memory (beyond the default 48 KiB)."""
        self._enter(ordinal)
        self._check(self.lib.cuFuncSetAttribute(ctypes.c_void_p(function), _FUNC_MAX_DYNAMIC_SHARED, nbytes),
                    f"allow {nbytes} bytes of dynamic shared memory")

    # -- streams and events ------------------------------------------------------------------------
    def stream_create(self, ordinal: int, non_blocking: bool = False) -> int:
        """A new stream: blocking (ordered with the legacy default stream), or not."""
        self._enter(ordinal)
        h = ctypes.c_void_p()
        flags = ctypes.c_uint(_STREAM_NON_BLOCKING if non_blocking else 0)
        self._check(self.lib.cuStreamCreate(ctypes.byref(h), flags), "create a stream")
        return h.value

    def stream_destroy(self, ordinal: int, stream: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuStreamDestroy_v2(ctypes.c_void_p(stream)), "destroy a stream")

    def stream_synchronize(self, ordinal: int, stream: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuStreamSynchronize(ctypes.c_void_p(stream or None)), "synchronise a stream")

    def stream_query(self, ordinal: int, stream: int) -> bool:
        self._enter(ordinal)
        code = self.lib.cuStreamQuery(ctypes.c_void_p(stream or None))
        if code != _NOT_READY:
            self._check(code, "query a stream")
        return code == 0

    def stream_wait_event(self, ordinal: int, stream: int, event: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuStreamWaitEvent(ctypes.c_void_p(stream or None), ctypes.c_void_p(event), 0),
                    "make a stream wait for an event")

    def event_create(self, ordinal: int, timing: bool = False) -> int:
        self._enter(ordinal)
        h = ctypes.c_void_p()
        self._check(self.lib.cuEventCreate(ctypes.byref(h), 0 if timing else _EVENT_DISABLE_TIMING), "create an event")
        return h.value

    def event_destroy(self, ordinal: int, event: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuEventDestroy_v2(ctypes.c_void_p(event)), "destroy an event")

    def event_record(self, ordinal: int, event: int, stream: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuEventRecord(ctypes.c_void_p(event), ctypes.c_void_p(stream or None)), "record an event")

    def event_query(self, ordinal: int, event: int) -> bool:
        self._enter(ordinal)
        code = self.lib.cuEventQuery(ctypes.c_void_p(event))
        if code != _NOT_READY:
            self._check(code, "query an event")
        return code == 0

    def event_synchronize(self, ordinal: int, event: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuEventSynchronize(ctypes.c_void_p(event)), "wait for an event")

    def event_elapsed(self, ordinal: int, start: int, end: int) -> float:
        """Milliseconds between two recorded timing events."""
        self._enter(ordinal)
        ms = ctypes.c_float()
        self._check(self.lib.cuEventElapsedTime(ctypes.byref(ms), ctypes.c_void_p(start), ctypes.c_void_p(end)),
                    "measure the time between two events")
        return ms.value

    def synchronize(self, ordinal: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuCtxSynchronize(), f"synchronise device {ordinal}")

    # -- CUDA graphs: work captured from a stream, instantiated, launched as one -------------------------
    def capture_begin(self, ordinal: int, stream: int) -> None:
        """Start capturing ``stream`` (not the legacy default stream): its work is recorded into a graph, not run."""
        self._enter(ordinal)
        self._check(self.lib.cuStreamBeginCapture_v2(ctypes.c_void_p(stream), ctypes.c_int(_CAPTURE_MODE_THREAD_LOCAL)),
                    "begin a stream capture (cuStreamBeginCapture_v2)")

    def capture_end(self, ordinal: int, stream: int) -> int:
        """End the capture of ``stream``: the ``CUgraph`` of its work (``graph_destroy`` frees it)."""
        self._enter(ordinal)
        graph = ctypes.c_void_p()
        self._check(self.lib.cuStreamEndCapture(ctypes.c_void_p(stream), ctypes.byref(graph)),
                    "end a stream capture (cuStreamEndCapture)")
        if not graph.value:  # an invalidated capture: the driver returns no graph
            raise CudaError("CUDA driver: cannot end a stream capture (cuStreamEndCapture): it returned no graph",
                            _CAPTURE_INVALIDATED)
        return graph.value

    def graph_instantiate(self, ordinal: int, graph: int) -> int:
        """The executable ``CUgraphExec`` of ``graph`` (``graph_exec_destroy`` frees it; the graph may go)."""
        self._enter(ordinal)
        exe = ctypes.c_void_p()
        self._check(self.lib.cuGraphInstantiateWithFlags(ctypes.byref(exe), ctypes.c_void_p(graph),
                                                         ctypes.c_ulonglong(0)),
                    "instantiate a CUDA graph (cuGraphInstantiateWithFlags)")
        return exe.value

    def graph_launch(self, ordinal: int, exe: int, stream: int) -> None:
        """Launch an executable graph on ``stream`` (0: the legacy default stream), after the stream's earlier
        work and the graph's earlier launches."""
        self._enter(ordinal)
        self._check(self.lib.cuGraphLaunch(ctypes.c_void_p(exe), ctypes.c_void_p(stream or None)),
                    "launch a CUDA graph (cuGraphLaunch)")

    def graph_exec_destroy(self, ordinal: int, exe: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuGraphExecDestroy(ctypes.c_void_p(exe)),
                    "destroy an executable CUDA graph (cuGraphExecDestroy)")

    def graph_destroy(self, ordinal: int, graph: int) -> None:
        self._enter(ordinal)
        self._check(self.lib.cuGraphDestroy(ctypes.c_void_p(graph)), "destroy a CUDA graph (cuGraphDestroy)")


def _unconverted(lib, name: str):
    """The function ``name`` of ``lib`` as a ctypes function object of its own, without argtypes (the
    object ``lib.name`` keeps its argtypes for other callers); a stand-in library's attribute as is."""
    try:
        function = lib[name]
    except TypeError:  # not a ctypes library: a test's stand-in
        return getattr(lib, name)
    function.restype = ctypes.c_int
    return function


_driver: Driver | None = None
_failure: str | None = None


def _load_library():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise DeviceUnavailableError(f"no CUDA driver on this machine ({e})") from None  # e names the file
    for name in ("cuLaunchKernel",):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                       ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_void_p]
    return lib


def driver() -> Driver:
    """The process's driver (loaded once); ``DeviceUnavailableError`` says why there is none."""
    global _driver, _failure
    if _driver is not None:
        return _driver
    if _failure is not None:
        raise DeviceUnavailableError(_failure)
    try:
        _driver = Driver(_load_library())
    except CudaError as e:
        _failure = ("no CUDA device: the driver found no GPU" if e.code == _NO_DEVICE
                    else f"no CUDA device: {e}")
        raise DeviceUnavailableError(_failure) from None
    except DeviceUnavailableError as e:
        _failure = f"no CUDA device: {e}"
        raise DeviceUnavailableError(_failure) from None
    return _driver


def available() -> bool:
    """Whether a driver with at least one device can be used (never raises)."""
    try:
        return driver().device_count() > 0
    except DeviceUnavailableError:
        return False


def use(fake) -> None:
    """Replace the driver (tests: a fake with the ``Driver`` methods; None: look for the real one again)."""
    global _driver, _failure
    _driver, _failure = fake, None
