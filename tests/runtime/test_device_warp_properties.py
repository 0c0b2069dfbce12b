"""Device's Warp properties (``name``, ``is_uva``, ``uuid``, ``pci_bus_id``, memory, context, streams, capture,
the output format...) against the values Warp 1.19 gives: its CPU device's as Warp reports them, a CUDA device's
read from the driver (a fake one here; the driver calls themselves with a libcuda stand-in)."""

import ctypes
import platform

import pytest

import brickwork as wp
from brickwork import config, cuda_driver
from brickwork.jit import nvrtc
from brickwork.runtime import streams

from .cuda_fake import FakeDriver, installed
from .test_cuda_driver_calls import FakeLibcuda

# Warp 1.19's CPU device (warp.get_device("cpu"), read attribute by attribute; psutil's figures aside)
WARP_CPU = {"alias": "cpu", "ordinal": -1, "arch": 0, "sm_count": 0, "max_shared_memory_per_block": 0,
            "is_uva": False, "is_cpu_memory_access_from_gpu_supported": False,
            "is_gpu_memory_access_from_cpu_supported": False, "is_cpu_gpu_atomic_supported": False,
            "is_managed_memory_supported": False, "is_concurrent_managed_access_supported": False,
            "is_mempool_supported": False, "is_mempool_enabled": False, "is_ipc_supported": False,
            "is_cubin_supported": False, "is_primary": False, "uuid": None, "pci_bus_id": None, "context": None,
            "has_context": False, "has_stream": False, "null_stream": None, "is_capturing": False, "is_cpu": True,
            "is_cuda": False}


@pytest.fixture
def fake():
    with installed(FakeDriver(devices=2)) as drv:
        streams.forget_device_streams()
        try:
            yield drv
        finally:
            streams.forget_device_streams()  # no stream of this fake stays current for the next test


def test_the_cpu_answers_as_warps_cpu_device():
    cpu = wp.get_device("cpu")
    assert {k: getattr(cpu, k) for k in WARP_CPU} == WARP_CPU
    assert (str(cpu), repr(cpu), cpu.name) == ("cpu", "'cpu'", platform.processor() or "CPU")
    assert (cpu.get_cuda_output_format(), cpu.get_cuda_compile_arch()) == (None, None)


def test_the_cpu_memory_is_the_hosts_physical_memory():
    with open("/proc/meminfo") as f:
        kib = {line.split(":")[0]: int(line.split()[1]) for line in f}
    cpu = wp.get_device("cpu")
    assert cpu.total_memory == 1024 * kib["MemTotal"]  # psutil's virtual_memory().total, which Warp reads
    assert 0 < cpu.free_memory <= cpu.total_memory


def test_the_cpu_has_no_stream_to_read_or_set():
    cpu = wp.get_device("cpu")
    for touch in (lambda: cpu.stream, lambda: setattr(cpu, "stream", None), lambda: cpu.set_stream(None)):
        with pytest.raises(RuntimeError, match="Device cpu is not a CUDA device"):
            touch()


def test_a_cuda_device_reads_its_properties_from_the_driver(fake):
    gpu = wp.get_device("cuda:1")
    assert (str(gpu), repr(gpu), gpu.alias, gpu.name, gpu.ordinal) == ("cuda:1", "'cuda:1'", "cuda:1", "Fake GPU 1", 1)
    assert (gpu.is_uva, gpu.is_managed_memory_supported, gpu.is_concurrent_managed_access_supported) == (True,) * 3
    assert (gpu.is_cpu_memory_access_from_gpu_supported, gpu.is_gpu_memory_access_from_cpu_supported,
            gpu.is_cpu_gpu_atomic_supported) == (False,) * 3
    assert (gpu.is_mempool_supported, gpu.is_mempool_enabled, gpu.is_ipc_supported) == (False,) * 3  # brickwork's
    assert gpu.is_primary is True
    assert gpu.uuid == "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f"  # bytes 16..31, as nvidia-smi -L writes them
    assert gpu.pci_bus_id == "00000000:19:00"  # Warp's format: domain, bus, device in hexadecimal
    assert (gpu.total_memory, gpu.free_memory) == (1 << 34, FakeDriver.FREE_MEMORY)
    assert gpu.is_cubin_supported == (nvrtc.is_available() and 90 in nvrtc.supported_archs())


def test_the_context_is_the_primary_one_retained_on_first_use(fake):
    gpu = wp.get_device("cuda:0")
    assert gpu.has_context is False
    assert gpu.context == 0xC000 and gpu.has_context is True
    gpu.make_current()
    assert wp.get_device("cpu").make_current() is None


def test_the_stream_property_is_the_current_stream_and_setting_it_waits_for_the_last(fake):
    gpu = wp.get_device("cuda:0")
    assert gpu.has_stream and gpu.stream == wp.get_stream(gpu) and gpu.stream.cuda_stream == 0
    assert gpu.null_stream.cuda_stream == 0
    s = wp.Stream(gpu)
    gpu.stream = s  # Warp's Device.set_stream synchronises by default
    assert wp.get_stream("cuda:0") is s and gpu.stream is s and gpu.null_stream.cuda_stream == 0
    assert fake.stream_log[-1][0] == "wait" and fake.stream_log[-1][1] == s.cuda_stream
    t = wp.Stream(gpu)
    logged = len(fake.stream_log)
    gpu.set_stream(t, sync=False)
    assert gpu.stream is t and len(fake.stream_log) == logged
    with pytest.raises(ValueError, match="the stream belongs to cuda:1, not cuda:0"):
        gpu.set_stream(wp.Stream("cuda:1"))
    assert gpu.stream is t


def test_is_capturing_follows_the_capture(fake):
    gpu, cpu = wp.get_device("cuda:0"), wp.get_device("cpu")
    wp.capture_begin()
    try:
        assert gpu.is_capturing and cpu.is_capturing  # a capture records every device's launches
    finally:
        wp.capture_end()
    assert not gpu.is_capturing and not cpu.is_capturing


def test_the_output_format_is_cubin_and_the_compile_arch_the_devices_or_the_forced_one(fake):
    gpu = wp.get_device("cuda:0")
    assert gpu.get_cuda_output_format() == gpu.get_cuda_output_format("cubin") == "cubin"
    with pytest.raises(ValueError, match="cubins only, not to 'ptx'"):
        gpu.get_cuda_output_format("ptx")
    assert gpu.get_cuda_compile_arch() == 90
    with config.override(cuda_arch="sm_80"):
        assert gpu.get_cuda_compile_arch() == 80


def test_devices_compare_by_alias_and_cuda_is_the_current_cuda_device(fake):
    a, b = wp.get_device("cuda:0"), wp.get_device("cuda:1")
    assert a == "cuda:0" and a != "cuda:1" and a == wp.get_cuda_devices()[0] and len({a, b, a}) == 2
    assert a == "cuda" and b != "cuda" and wp.get_device("cpu") != "cuda"
    with wp.ScopedDevice("cuda:1"):
        assert b == "cuda" and a != "cuda"
    assert a.can_access(a) and a.can_access("cuda:0") and not a.can_access(b) and not a.can_access("cpu")


@pytest.mark.parametrize("attribute, says", [("memset", "array.fill_"), ("runtime", "no Runtime object"),
                                             ("captures", "every device")])
def test_warps_runtime_attributes_are_refused_with_the_reason(attribute, says):
    with pytest.raises(AttributeError, match=rf"Device\.{attribute} is Warp's and not brickwork's: .*{says}"):
        getattr(wp.get_device("cpu"), attribute)
    with pytest.raises(AttributeError, match="'Device' object has no attribute 'no_such_thing'"):
        _ = wp.get_device("cpu").no_such_thing


def test_the_preferred_device_is_cuda_0_where_there_is_one(fake):
    assert wp.get_preferred_device() == "cuda:0" and wp.get_device() == "cpu"  # the current device stays the CPU
    assert wp.get_cuda_device_count() == 2 and wp.is_cuda_available()
    assert wp.get_cuda_devices() == [wp.get_device("cuda:0"), wp.get_device("cuda:1")]
    with installed(FakeDriver(devices=0)):
        assert wp.get_preferred_device() == "cpu" and not wp.is_cuda_available() and wp.get_cuda_devices() == []


def test_set_device_makes_a_cuda_device_current(fake):
    wp.set_device("cuda:1")
    assert wp.get_device() == "cuda:1" and wp.get_device("cuda") == "cuda:1" and wp.get_cuda_device().ordinal == 1
    wp.set_device("cpu")
    assert wp.get_device("cuda") == "cuda:0"


def test_map_cuda_device_gives_back_a_device_under_its_own_name_and_refuses_other_aliases(fake):
    gpu = wp.get_device("cuda:1")
    assert wp.map_cuda_device("cuda:1") is gpu
    assert wp.map_cuda_device("cuda:1", ctypes.c_void_p(gpu.context)) is gpu
    for alias, context in (("mygpu", None), ("cuda:2", None), ("cuda:1", ctypes.c_void_p(0xBAD))):
        with pytest.raises(RuntimeError, match=rf"map_cuda_device\('{alias}'\): brickwork maps no CUDA contexts"):
            wp.map_cuda_device(alias, context)
    with pytest.raises(TypeError, match="map_cuda_device: alias must be a str, got int"):
        wp.map_cuda_device(1)
    assert wp.get_device("cuda:1").alias == "cuda:1" and not wp.is_device_available("mygpu")


# -- the driver calls behind them, with a stand-in for libcuda -----------------------------------------------
class QueryLibcuda(FakeLibcuda):
    ATTRIBUTES = {33: 0x3B, 34: 0, 41: 1, 50: 0, 83: 1, 86: 0, 88: 0, 89: 1, 97: 232448, 101: 0}

    def __init__(self):
        super().__init__()
        self.retained = 0

    def cuDeviceGetAttribute(self, ref, attr, device):
        ref._obj.value = self.ATTRIBUTES[attr]
        return 0

    def cuDevicePrimaryCtxRetain(self, ref, device):
        self.retained += 1
        return super().cuDevicePrimaryCtxRetain(ref, device)

    def cuDeviceGetUuid_v2(self, buf, device):
        ctypes.memmove(buf, bytes(range(0xA0, 0xB0)), 16)
        return 0

    def cuDeviceGetCount(self, ref):
        ref._obj.value = 1
        return 0

    def cuMemGetInfo_v2(self, free, total):
        free._obj.value, total._obj.value = 80 << 30, 85 << 30
        return 0


def test_the_driver_reads_attributes_uuid_memory_and_the_primary_context():
    lib = QueryLibcuda()
    drv = cuda_driver.Driver(lib)
    assert {name: drv.attribute(0, name) for name in ("pci_bus_id", "unified_addressing", "managed_memory")} == \
        {"pci_bus_id": 0x3B, "unified_addressing": 1, "managed_memory": 1}
    assert drv.max_shared_memory_per_block(0) == 232448  # the opt-in limit (attribute 97), as Warp's
    assert drv.uuid(0) == bytes(range(0xA0, 0xB0))
    assert drv.has_context(0) is False
    assert drv.memory_info(0) == (80 << 30, 85 << 30)
    assert drv.context(0) == 0x1000 and drv.has_context(0) and lib.retained == 1  # retained once
    with installed(drv):
        assert wp.get_device("cuda:0").uuid == "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"
        assert wp.get_device("cuda:0").pci_bus_id == "00000000:3B:00"
