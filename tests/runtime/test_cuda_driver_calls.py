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
