"""What ``cuda_driver.Driver`` hands the driver library: a stand-in for libcuda.so.1 records the calls
and reads the memory the ctypes arguments point at, so the launch parameter blocks, dimensions and
attribute arithmetic are checked without a GPU (the real library is exercised by gpu_check.sh)."""

import ctypes

import pytest

from brickwork import cuda_driver

MEMORY_CLOCK_KHZ, BUS_BITS = 3_201_000, 6144  # an H200's


class FakeLibcuda:
    def __init__(self, sizes=(56,)):
        self.launches = []
        self.fail_launch = 0
        self.sizes = sizes  # bytes to read behind each kernelParams entry

    def cuInit(self, flags):
        return 0

    def cuDeviceGet(self, ref, ordinal):
        ref._obj.value = ordinal
        return 0

    def cuDevicePrimaryCtxRetain(self, ref, device):
        ref._obj.value = 0x1000 + device.value
        return 0

    def cuCtxSetCurrent(self, ctx):
        return 0

    def cuDeviceGetAttribute(self, ref, attr, device):
        ref._obj.value = {36: MEMORY_CLOCK_KHZ, 37: BUS_BITS, 75: 9, 76: 0}[attr]
        return 0

    def cuGetErrorString(self, code, ref):
        ref._obj.value = b"CUDA_ERROR_INVALID_VALUE"
        return 0

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, argv, extra):
        # the real library's argtypes make handles of ints and None; this stand-in sees them as passed
        handle = lambda h: getattr(h, "value", h)  # noqa: E731
        # what the driver reads during the call: the bytes each kernelParams entry points at
        seen = [ctypes.string_at(argv[k], size) for k, size in enumerate(self.sizes)]
        self.launches.append(((handle(function), gx, gy, gz, bx, by, bz, shared, handle(stream)), seen))
        return self.fail_launch


class GraphLibcuda(FakeLibcuda):
    """The stream-capture and graph calls, each recorded with the ctypes types of its arguments: a handle must
    be a c_void_p (a Python int would be passed as a 32-bit int), flags and modes their C integer types."""

    def __init__(self):
        super().__init__()
        self.calls = []
        self.fail = {}  # function name -> CUresult
        self.null_graph = False

    def _record(self, name, *args):
        self.calls.append((name, *[(type(a).__name__, getattr(a, "value", a)) for a in args]))
        return self.fail.get(name, 0)

    def cuStreamCreate(self, ref, flags):
        ref._obj.value = 0x5100
        return self._record("cuStreamCreate", flags)

    def cuStreamDestroy_v2(self, stream):
        return self._record("cuStreamDestroy_v2", stream)

    def cuStreamBeginCapture_v2(self, stream, mode):
        return self._record("cuStreamBeginCapture_v2", stream, mode)

    def cuStreamEndCapture(self, stream, ref):
        ref._obj.value = None if self.null_graph else 0x6100
        return self._record("cuStreamEndCapture", stream)

    def cuGraphInstantiateWithFlags(self, ref, graph, flags):
        ref._obj.value = 0x7100
        return self._record("cuGraphInstantiateWithFlags", graph, flags)

    def cuGraphLaunch(self, exe, stream):
        return self._record("cuGraphLaunch", exe, stream)

    def cuGraphExecDestroy(self, exe):
        return self._record("cuGraphExecDestroy", exe)

    def cuGraphDestroy(self, graph):
        return self._record("cuGraphDestroy", graph)

    def cuMemsetD8Async(self, dst, value, count, stream):
        return self._record("cuMemsetD8Async", dst, value, count, stream)

    def cuMemsetD16Async(self, dst, value, count, stream):
        return self._record("cuMemsetD16Async", dst, value, count, stream)

    def cuMemsetD32Async(self, dst, value, count, stream):
        return self._record("cuMemsetD32Async", dst, value, count, stream)

    def cuMemsetD2D32Async(self, dst, pitch, value, width, height, stream):
        return self._record("cuMemsetD2D32Async", dst, pitch, value, width, height, stream)

    def cuMemcpyDtoDAsync_v2(self, dst, src, nbytes, stream):
        return self._record("cuMemcpyDtoDAsync_v2", dst, src, nbytes, stream)


@pytest.fixture
def lib():
    return FakeLibcuda()


def test_a_struct_launch_passes_the_parameter_bytes_and_three_dimensions(lib):
    params = bytes(range(56))
    cuda_driver.Driver(lib).launch_struct(0, 0xF00, (3, 5, 7), (32, 4, 2), params, stream=0xAB)
    (dims, (seen,)), = lib.launches
    assert dims == (0xF00, 3, 5, 7, 32, 4, 2, 0, 0xAB)
    assert seen == params


def test_a_kernel_launch_passes_its_block_by_value_and_the_arena_pointer():
    lib = FakeLibcuda(sizes=(56, 8))  # the packed block, the arena pointer
    params = bytes(range(1, 41))
    cuda_driver.Driver(lib).launch(0, 0xF00, grid=10, block=128, params=params, shared=512, arena=0xDEAD0, stream=0)
    (dims, (block, arena)), = lib.launches
    assert dims == (0xF00, 10, 1, 1, 128, 1, 1, 512, None)
    assert block == params + bytes(16)  # zero padding after the block
    assert int.from_bytes(arena[:8], "little") == 0xDEAD0


def test_the_peak_bandwidth_is_two_transfers_per_memory_clock_over_the_bus(lib):
    bandwidth = cuda_driver.Driver(lib).memory_bandwidth(0)
    assert bandwidth == 2 * MEMORY_CLOCK_KHZ * 1e3 * BUS_BITS / 8  # about 4.9 TB/s
    assert cuda_driver.Driver(lib).capability(0) == (9, 0)


def test_a_failed_launch_raises_with_the_driver_s_error_name(lib):
    lib.fail_launch = 1
    with pytest.raises(cuda_driver.CudaError, match=r"launch a kernel: CUDA_ERROR_INVALID_VALUE \(CUresult 1\)"):
        cuda_driver.Driver(lib).launch_struct(0, 1, (1, 1, 1), (1, 1, 1), b"\0" * 8)


def test_a_missing_driver_library_is_named_once(monkeypatch):
    def missing(name):
        raise OSError(f"{name}: cannot open shared object file: No such file or directory")  # ctypes' words

    monkeypatch.setattr(ctypes, "CDLL", missing)
    with pytest.raises(cuda_driver.DeviceUnavailableError) as info:
        cuda_driver._load_library()
    assert str(info.value) == ("no CUDA driver on this machine (libcuda.so.1: cannot open shared object file: No "
                               "such file or directory)")


def test_a_cuda_graph_is_captured_instantiated_launched_and_destroyed_with_the_drivers_types():
    lib = GraphLibcuda()
    drv = cuda_driver.Driver(lib)
    stream = drv.stream_create(0, non_blocking=True)
    drv.capture_begin(0, stream)
    graph = drv.capture_end(0, stream)
    exe = drv.graph_instantiate(0, graph)
    drv.graph_launch(0, exe, 0xAB)
    drv.graph_launch(0, exe, 0)  # the legacy default stream: NULL
    drv.graph_destroy(0, graph)
    drv.graph_exec_destroy(0, exe)
    drv.stream_destroy(0, stream)
    assert (stream, graph, exe) == (0x5100, 0x6100, 0x7100)
    handle = ("c_void_p",)
    assert lib.calls == [
        ("cuStreamCreate", ("c_uint", 1)),  # CU_STREAM_NON_BLOCKING
        ("cuStreamBeginCapture_v2", (*handle, 0x5100), ("c_int", 1)),  # CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        ("cuStreamEndCapture", (*handle, 0x5100)),
        ("cuGraphInstantiateWithFlags", (*handle, 0x6100), (ctypes.c_ulonglong.__name__, 0)),  # 64 bits
        ("cuGraphLaunch", (*handle, 0x7100), (*handle, 0xAB)),
        ("cuGraphLaunch", (*handle, 0x7100), (*handle, None)),
        ("cuGraphDestroy", (*handle, 0x6100)),
        ("cuGraphExecDestroy", (*handle, 0x7100)),
        ("cuStreamDestroy_v2", (*handle, 0x5100)),
    ]
    assert cuda_driver.Driver(lib).stream_create(0) == 0x5100 and lib.calls[-1] == ("cuStreamCreate", ("c_uint", 0))


def test_memsets_and_device_copies_pass_the_drivers_c_types_on_their_stream():
    # a device pointer is 64 bits (c_uint64), counts and pitches size_t, the value the width of the memset, and
    # the stream a handle (None: the legacy default stream)
    lib = GraphLibcuda()
    drv = cuda_driver.Driver(lib)
    drv.memset(0, 0x7F00_0000_0000, 0xAB, 40, 1, 0x5100)
    drv.memset(0, 0x7F00_0000_0002, 0x3C00, 20, 2, 0)
    drv.memset(0, 0x7F00_0000_0004, 0x3FF0_0000, 10, 4, 0x5100)
    drv.memset_2d32(0, 0x7F00_0000_0008, 12, 0x4000_0000, 1, 1000, 0x5100)
    drv.copy_on_device(0, 0x7F00_0000_0100, 0x7F00_0000_0200, 96, 0x5100)
    ptr, size, handle = ctypes.c_uint64.__name__, ctypes.c_size_t.__name__, "c_void_p"
    assert lib.calls == [
        ("cuMemsetD8Async", (ptr, 0x7F00_0000_0000), ("c_ubyte", 0xAB), (size, 40), (handle, 0x5100)),
        ("cuMemsetD16Async", (ptr, 0x7F00_0000_0002), ("c_ushort", 0x3C00), (size, 20), (handle, None)),
        ("cuMemsetD32Async", (ptr, 0x7F00_0000_0004), ("c_uint", 0x3FF0_0000), (size, 10), (handle, 0x5100)),
        ("cuMemsetD2D32Async", (ptr, 0x7F00_0000_0008), (size, 12), ("c_uint", 0x4000_0000), (size, 1),
         (size, 1000), (handle, 0x5100)),
        ("cuMemcpyDtoDAsync_v2", (ptr, 0x7F00_0000_0100), (ptr, 0x7F00_0000_0200), (size, 96), (handle, 0x5100)),
    ]


@pytest.mark.parametrize("call, width", [("cuMemsetD8Async", 1), ("cuMemsetD16Async", 2), ("cuMemsetD32Async", 4),
                                         ("cuMemsetD2D32Async", None)])
def test_a_failed_memset_is_named_with_the_driver_s_error(call, width):
    lib = GraphLibcuda()
    lib.fail[call] = 1
    drv = cuda_driver.Driver(lib)
    with pytest.raises(cuda_driver.CudaError, match=rf"^CUDA driver: cannot set device memory \({call}\): "
                       r"CUDA_ERROR_INVALID_VALUE \(CUresult 1\)$"):
        if width is None:
            drv.memset_2d32(0, 0x1000, 8, 1, 1, 4, 0)
        else:
            drv.memset(0, 0x1000, 1, 4, width, 0)


@pytest.mark.parametrize("call, doing", [
    ("cuStreamBeginCapture_v2", "begin a stream capture"),
    ("cuStreamEndCapture", "end a stream capture"),
    ("cuGraphInstantiateWithFlags", "instantiate a CUDA graph"),
    ("cuGraphLaunch", "launch a CUDA graph"),
    ("cuGraphExecDestroy", "destroy an executable CUDA graph"),
    ("cuGraphDestroy", "destroy a CUDA graph"),
])
def test_a_failed_graph_call_is_named_with_the_driver_s_error(call, doing):
    lib = GraphLibcuda()
    lib.fail[call] = 1
    drv = cuda_driver.Driver(lib)
    steps = {"cuStreamBeginCapture_v2": lambda: drv.capture_begin(0, 5),
             "cuStreamEndCapture": lambda: drv.capture_end(0, 5),
             "cuGraphInstantiateWithFlags": lambda: drv.graph_instantiate(0, 6),
             "cuGraphLaunch": lambda: drv.graph_launch(0, 7, 0),
             "cuGraphExecDestroy": lambda: drv.graph_exec_destroy(0, 7),
             "cuGraphDestroy": lambda: drv.graph_destroy(0, 6)}
    with pytest.raises(cuda_driver.CudaError, match=rf"^CUDA driver: cannot {doing} \({call}\): "
                       r"CUDA_ERROR_INVALID_VALUE \(CUresult 1\)$"):
        steps[call]()


def test_an_invalidated_capture_that_returns_no_graph_is_an_error():
    lib = GraphLibcuda()
    lib.null_graph = True
    with pytest.raises(cuda_driver.CudaError,
                       match=r"end a stream capture \(cuStreamEndCapture\): it returned no graph"):
        cuda_driver.Driver(lib).capture_end(0, 5)
