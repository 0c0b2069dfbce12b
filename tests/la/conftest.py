"""Fixtures of the loop-abstraction tests."""

import sys
from pathlib import Path

import pytest

import brickwork as wp


@pytest.fixture
def fake_cuda():
    """The stand-in CUDA driver (tests/runtime/cuda_fake.py) installed, ``cuda:0`` the current device: launches
    are packed and recorded, not run; NVRTC compiles them (skipped without it)."""
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed (pip install 'brickwork[cuda]')")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from runtime.cuda_fake import FakeDriver, installed

    with installed(FakeDriver()) as drv, wp.ScopedDevice("cuda:0"):
        yield drv
