"""``wp.load_module(device="cuda:0")`` and ``wp.force_load(device=...)`` build a module's kernels for that
device's architecture ahead of their launches (small ones sharing NVRTC runs); tested with the fake
driver (tests/runtime/cuda_fake.py): NVRTC really compiles, launches are recorded."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.errors import DeviceUnavailableError
from brickwork.jit import nvrtc
from brickwork.targets.cuda import build, cuda_target

from .cuda_fake import FakeDriver, installed

pytestmark = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def halve(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(0.5)


@wp.kernel
def fill(a: wp.array(dtype=Any), v: Any):
    a[wp.tid()] = v


FILL_INT = wp.overload(fill, [wp.array(dtype=wp.int32), wp.int32])


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


def _instances():
    target = cuda_target("sm_90")
    return [add_one.get_instance(add_one.concrete_types(), target), halve.get_instance(halve.concrete_types(), target),
            fill.get_instance((wp.array(dtype=wp.int32), wp.int32), target)]


def test_load_module_builds_the_modules_kernels_for_the_device_and_launches_compile_nothing(fake):
    before = build.nvrtc_calls
    wp.load_module(device="cuda:0")
    assert build.nvrtc_calls - before < len(_instances())  # small instances share runs (none if cached)
    assert all(inst.loaded for inst in _instances())
    compiled = build.nvrtc_calls
    a = wp.zeros(4, dtype=float, device="cuda:0")
    wp.launch(add_one, 4, inputs=[a], device="cuda:0")
    wp.launch(fill, 4, inputs=[wp.zeros(4, dtype=wp.int32, device="cuda:0"), wp.int32(3)], device="cuda:0")
    assert build.nvrtc_calls == compiled and len(fake.launches) == 2
    symbols = [inst.fn.symbol for inst in _instances()]
    assert fake.function_names == [symbols[0], symbols[2]]


def test_force_load_for_a_cuda_device_builds_the_named_modules(fake):
    wp.force_load(device="cuda:0", modules=[__name__])
    assert all(inst.loaded for inst in _instances())


def test_load_module_for_the_cpu_builds_the_declared_instances_only():
    wp.load_module(device="cpu")
    assert FILL_INT.instance.loaded
    x = wp.array(np.zeros(3, dtype=np.int32))
    wp.launch(FILL_INT, 3, inputs=[x, 7])
    np.testing.assert_array_equal(x.numpy(), [7, 7, 7])


@pytest.mark.skipif(cuda_driver.available(), reason="this machine has a CUDA device")
def test_load_module_for_a_cuda_device_without_one_says_so():
    with pytest.raises(DeviceUnavailableError, match="no CUDA device"):
        wp.load_module(device="cuda:0")
