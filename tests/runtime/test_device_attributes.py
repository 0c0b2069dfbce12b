"""Device attributes and CUDA queries of Warp's API: ``sm_count``, ``max_shared_memory_per_block``,
``get_cuda_supported_archs``, ``get_cuda_device``, the driver and toolkit versions, ``unmap_cuda_device``,
``clear_kernel_cache`` and ``config.verify_cuda`` (with a fake driver where no GPU exists)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.errors import LaunchError
from brickwork.jit import nvrtc

from .cuda_fake import FakeDriver, installed


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@wp.kernel
def double_it(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 2.0 * x[i]


def test_the_cpu_has_no_multiprocessors_and_no_shared_memory():
    cpu = wp.get_device("cpu")
    assert cpu.sm_count == 0 and cpu.max_shared_memory_per_block == 0


def test_the_cpu_ordinal_is_minus_one_as_warps_and_is_cpu_is_cuda_follow_the_ordinal(fake):
    cpu, gpu = wp.get_device("cpu"), wp.get_device("cuda:0")
    assert (cpu.ordinal, cpu.is_cpu, cpu.is_cuda, cpu.alias, cpu.arch, cpu.sm_arch) == (-1, True, False, "cpu", 0,
                                                                                      None)
    assert (gpu.ordinal, gpu.is_cpu, gpu.is_cuda, gpu.alias) == (0, False, True, "cuda:0")
    assert (gpu.arch, gpu.sm_arch) == (90, "sm_90")  # arch: Warp's int, 10 major + minor; sm_arch: NVRTC's name
    with installed(FakeDriver(devices=2)):
        assert (wp.get_device("cuda:1").ordinal, wp.get_device("cuda:1").is_cuda) == (1, True)


def test_cuda_devices_read_their_attributes_from_the_driver(fake):
    gpu = wp.get_device("cuda:0")
    assert gpu.sm_count == 132 and gpu.max_shared_memory_per_block == 48 * 1024


def test_supported_archs_are_sorted_distinct_integers():
    archs = wp.get_cuda_supported_archs()
    assert isinstance(archs, list) and archs == sorted(set(archs))
    assert all(type(a) is int and 50 <= a <= 150 for a in archs)
    assert (len(archs) > 0) == nvrtc.is_available()


def test_get_cuda_device_is_the_current_cuda_device_or_the_one_named():
    with installed(FakeDriver(devices=2)):
        assert wp.get_cuda_device() == wp.get_device("cuda:0")  # the current device is the CPU
        assert wp.get_cuda_device(1) == wp.get_device("cuda:1")
        with wp.ScopedDevice("cuda:1"):
            assert wp.get_cuda_device() == wp.get_device("cuda:1")
        with pytest.raises(TypeError, match="ordinal must be an int or None, got str"):
            wp.get_cuda_device("cuda:0")
        assert wp.get_cuda_driver_version() == (12, 9)  # the fake's cuDriverGetVersion: 12090


def test_without_a_cuda_driver_there_is_no_cuda_device_and_no_driver_version():
    if cuda_driver.available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        wp.get_cuda_device()
    assert wp.get_cuda_driver_version() is None


def test_the_toolkit_version_is_nvrtcs():
    assert wp.get_cuda_toolkit_version() == (nvrtc.version() if nvrtc.is_available() else None)


def test_clear_kernel_cache_empties_the_cache_and_kernels_compile_again(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = """
import os, numpy as np, brickwork as wp
from brickwork.jit import cache

@wp.kernel
def inc(x: wp.array(dtype=float)):
    x[wp.tid()] += 1.0

x = wp.zeros(3)
wp.launch(inc, 3, inputs=[x])
assert len(cache.entries()) == 1
wp.clear_kernel_cache()
assert cache.entries() == [] and not os.path.exists(os.environ["BRICKWORK_CACHE_DIR"])
wp.launch(inc, 3, inputs=[x])  # the loaded instance keeps running

@wp.kernel
def dec(x: wp.array(dtype=float)):
    x[wp.tid()] -= 0.5

wp.launch(dec, 3, inputs=[x])  # a new instance compiles into a new cache
assert len(cache.entries()) == 1 and x.numpy().tolist() == [1.5, 1.5, 1.5]
print("cleared")
"""
    src = str(Path(wp.__file__).resolve().parents[1])
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=src)
    path = tmp_path / "clear_cache.py"  # kernels need a source file
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "cleared", done.stderr


def test_unmap_cuda_device_refuses_aliases_it_never_mapped():
    for alias in ("imaginary_device:0", "cpu"):
        with pytest.raises(RuntimeError, match=f"Invalid CUDA device alias '{alias}'"):
            wp.unmap_cuda_device(alias)
    with pytest.raises(TypeError, match="alias must be a str"):
        wp.unmap_cuda_device(0)


def test_verify_cuda_is_off_by_default():
    assert wp.config.verify_cuda is False


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_verify_cuda_waits_for_each_launch_and_names_the_kernel_of_a_failure(fake):
    x = wp.array(np.ones(4, dtype=np.float32), device="cuda:0")
    wp.launch(double_it, dim=4, inputs=[x], device="cuda:0")
    assert ("sync", 0) not in fake.stream_log  # asynchronous unless verified
    with wp.config.override(verify_cuda=True):
        wp.launch(double_it, dim=4, inputs=[x], device="cuda:0")
        assert fake.stream_log[-1] == ("sync", 0)

        def failing_sync(ordinal, stream):
            raise cuda_driver.CudaError("an illegal memory access was encountered", 700)

        fake.stream_synchronize = failing_sync
        with pytest.raises(LaunchError, match="launch of 'double_it' on cuda:0 failed: an illegal memory access"):
            wp.launch(double_it, dim=4, inputs=[x], device="cuda:0")
