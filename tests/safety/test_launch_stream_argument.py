"""wp.launch(..., stream=5) without a device was "AttributeError: 'int' object has no attribute 'device'" (attacker
round 16, lead 4): a stream that is no wp.Stream is a LaunchError naming the kernel and the value, before anything
runs (no compile on the CPU: the refusal comes before the kernel's instance is looked up); on a CUDA device (the
stand-in driver) and with print_launches (before its line) too."""

from __future__ import annotations

import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp
from brickwork.jit import nvrtc

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@wp.kernel
def add(a: wp.array(dtype=wp.float32), s: float):
    i = wp.tid()
    a[i] = a[i] + s


@pytest.mark.parametrize("stream", [5, "cuda", object])
def test_a_stream_that_is_no_stream_is_named(stream):
    a = wp.full(4, 1.0, dtype=wp.float32)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(add, dim=4, inputs=[a, 2.0], stream=stream)
    assert str(e.value) == (f"launch of 'add': stream must be a wp.Stream, got {type(stream).__name__} "
                            f"{stream!r:.40}")
    assert a.numpy().tolist() == [1.0] * 4


def test_with_print_launches_the_refusal_comes_before_the_line(monkeypatch, capsys):
    monkeypatch.setattr(wp.config, "print_launches", True)
    a = wp.full(4, 1.0, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=r"^launch of 'add': stream must be a wp.Stream, got int 5$"):
        wp.launch(add, dim=4, inputs=[a, 2.0], stream=5)
    assert capsys.readouterr().out == ""
    assert a.numpy().tolist() == [1.0] * 4


@needs_nvrtc
def test_on_a_cuda_device_too():
    with installed(FakeDriver()) as driver:
        a = wp.full(4, 1.0, dtype=wp.float32, device="cuda:0")
        with pytest.raises(wp.LaunchError, match=r"^launch of 'add': stream must be a wp.Stream, got int 5$"):
            wp.launch(add, dim=4, inputs=[a, 2.0], device="cuda:0", stream=5)
        assert driver.launches == [] and a.numpy().tolist() == [1.0] * 4
