"""A kernel whose module asks for deterministic atomics is refused on a CUDA device (with a fake driver:
the refusal comes before anything reaches the device)."""

import pytest

import brickwork as wp

from .cuda_fake import FakeDriver, installed


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.GPU_TO_GPU})
def _ordered_sum(values: wp.array(dtype=wp.float32), total: wp.array(dtype=wp.float32)):
    wp.atomic_add(total, 0, values[wp.tid()])


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


def test_deterministic_kernels_refuse_cuda_devices(fake):
    values = wp.zeros(4, dtype=wp.float32, device="cuda:0")
    total = wp.zeros(1, dtype=wp.float32, device="cuda:0")
    with pytest.raises(wp.LaunchError, match="deterministic atomics"):
        wp.launch(_ordered_sum, 4, inputs=[values, total], device="cuda:0")
    assert fake.launches == []
