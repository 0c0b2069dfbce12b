"""wp.launch(..., stream=5) without a device was "AttributeError: 'int' object has no attribute 'device'" (attacker
round 16, lead 4): a stream that is no wp.Stream is a LaunchError naming the kernel and the value, before anything
runs (no compile: the refusal comes before the kernel's instance is looked up)."""

from __future__ import annotations

import pytest

import brickwork as wp


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
