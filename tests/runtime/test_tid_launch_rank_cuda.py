"""A CUDA launch of more extents than the kernel's ``tid()`` gives indices (Warp's rule, tests/lang/
test_tid_launch_rank.py), host side with the fake driver: the ranked instance is a module of its own, its
launch packs every extent, and the launch check bounds ``tid()`` by the first extent."""

import struct

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc

from .cuda_fake import FakeDriver, installed

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@wp.kernel
def scale_add(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@needs_nvrtc
def test_a_launch_of_more_extents_runs_the_ranked_kernel_over_all_of_them(fake):
    x = wp.array(np.arange(10, dtype=np.float32), device="cuda:0")
    y = wp.zeros(10, device="cuda:0")
    wp.launch(scale_add, dim=10, inputs=[2.0, x, y], device="cuda:0")
    wp.launch(scale_add, dim=(10, 30), inputs=[2.0, x, y], device="cuda:0")
    assert len(fake.modules) == 2 and len(fake.launches) == 2  # the 1-D instance, then the ranked one
    assert struct.unpack_from("<4q", fake.launches[0][4]) == (10, 1, 1, 1)
    assert struct.unpack_from("<4q", fake.launches[1][4]) == (10, 30, 1, 1)  # 300 threads, i below 10
    wp.launch(scale_add, dim=(10, 30), inputs=[3.0, x, y], device="cuda:0")  # found again: no third module
    assert len(fake.modules) == 2 and len(fake.launches) == 3
    with pytest.raises(wp.LaunchError, match=r"'x' .*index 10 .*shape \(10,\)"):
        wp.launch(scale_add, dim=(11, 2), inputs=[2.0, x, y], device="cuda:0")
    assert len(fake.launches) == 3
