"""Streams and events (Warp's basic API) against the fake driver: which stream each launch and copy goes
to, what waits for what, and the errors. Running them on a GPU: test_cuda_device_la.py."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.runtime import streams

from .cuda_fake import FakeDriver, installed

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@pytest.fixture
def fake():
    with installed(FakeDriver(devices=2)) as drv:
        streams.forget_device_streams()
        yield drv
        streams.forget_device_streams()


@wp.kernel
def scale(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s


def launched_on(fake) -> list:
    return [s for kind, s, *_ in fake.stream_log if kind == "launch"]


@needs_nvrtc
def test_launches_go_to_the_current_stream_or_the_one_named(fake):
    x = wp.zeros(10, device="cuda:0")
    default = wp.get_stream("cuda:0")
    assert default.cuda_stream == 0 and default.device == "cuda:0" and wp.get_stream("cuda:0") is default
    s = wp.Stream("cuda:0")
    assert ("create", s.cuda_stream) in fake.stream_log and s.cuda_stream != 0
    wp.launch(scale, dim=10, inputs=[x, 2.0], device="cuda:0")
    wp.launch(scale, dim=10, inputs=[x, 2.0], stream=s)  # the stream's device
    with wp.ScopedStream(s):
        assert wp.get_device() == "cuda:0" and wp.get_stream() is s
        wp.launch(scale, dim=10, inputs=[x, 2.0])
    assert wp.get_stream("cuda:0") is default and wp.get_device() == "cpu"
    wp.launch(scale, dim=10, inputs=[x, 2.0], device="cuda:0")
    assert launched_on(fake) == [0, s.cuda_stream, s.cuda_stream, 0]


def test_scoped_stream_waits_for_the_previous_stream_on_entry_and_optionally_on_exit(fake):
    a, b = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    wp.set_stream(a)
    fake.stream_log.clear()
    with wp.ScopedStream(b):  # b waits for a: an event recorded on a, waited for on b
        pass
    [(_, event, on), (_, waiter, waited)] = fake.stream_log
    assert (on, waiter, waited) == (a.cuda_stream, b.cuda_stream, event)
    fake.stream_log.clear()
    with wp.ScopedStream(b, sync_enter=False, sync_exit=True):  # on exit a waits for b
        pass
    [(_, event, on), (_, waiter, waited)] = fake.stream_log
    assert (on, waiter, waited) == (b.cuda_stream, a.cuda_stream, event)
    assert wp.get_stream("cuda:0") is a
    with wp.ScopedStream(None):
        assert wp.get_stream("cuda:0") is a


def test_events_record_wait_synchronize_and_time(fake):
    s = wp.Stream("cuda:1")
    with wp.ScopedDevice("cuda:1"):
        e = wp.record_event()  # on the current stream of cuda:1 (its default)
        s.wait_event(e)
        wp.wait_stream(s)
        wp.synchronize_stream(s)
        wp.synchronize_event(e)
        start, end = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
        s.record_event(start)
        s.record_event(end)
        assert wp.get_event_elapsed_time(start, end) == 1.5
    log = fake.stream_log
    assert log[1] == ("record", e.cuda_event, 0) and log[2] == ("wait", s.cuda_stream, e.cuda_event)
    assert log[3][0] == "record" and log[3][2] == s.cuda_stream and log[4] == ("wait", 0, log[3][1])
    assert log[5] == ("sync", s.cuda_stream) and log[6] == ("event_sync", e.cuda_event)
    assert e.is_complete and s.is_complete and fake.events[start.cuda_event] is True
    assert fake.events[e.cuda_event] is False  # no timing unless asked


def test_a_device_to_device_copy_runs_on_the_stream_named(fake):
    a = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
    b = wp.zeros(4, device="cuda:0")
    s = wp.Stream("cuda:0")
    wp.copy(b, a, stream=s)
    wp.copy(a, b)
    assert [e for e in fake.stream_log if e[0] == "copy"] == [("copy", s.cuda_stream), ("copy", None)]
    np.testing.assert_array_equal(b.numpy(), [0, 1, 2, 3])


@needs_nvrtc
def test_stream_and_event_errors_name_the_problem(fake):
    with pytest.raises(RuntimeError, match="cpu has no streams"):
        wp.Stream("cpu")
    with pytest.raises(RuntimeError, match="cpu has no streams"):
        wp.get_stream()  # the current device is the CPU
    s0, e1 = wp.Stream("cuda:0"), wp.Event("cuda:1")
    with pytest.raises(ValueError, match="event belongs to cuda:1, the stream to cuda:0"):
        s0.record_event(e1)
    with pytest.raises(ValueError, match="enable_timing=True"):
        wp.get_event_elapsed_time(e1, e1)
    with pytest.raises(ValueError, match="stream belongs to cuda:0, not cuda:1"):
        wp.set_stream(s0, device="cuda:1")
    x = wp.zeros(4, device="cuda:1")
    with pytest.raises(wp.LaunchError, match="the stream belongs to cuda:0"):
        wp.launch(scale, dim=4, inputs=[x, 2.0], device="cuda:1", stream=s0)
    with pytest.raises(ValueError, match="the stream belongs to cuda:0, the destination to cuda:1"):
        wp.copy(x, wp.zeros(4, device="cuda:1"), stream=s0)
    assert launched_on(fake) == [] and wp.get_stream("cuda:1").cuda_stream == 0


def test_cuda_arrays_share_memory_through_both_interchange_protocols(fake):
    a = wp.zeros((2, 3), dtype=wp.float32, device="cuda:0")
    cai = a.__cuda_array_interface__
    assert cai["data"] == (a.ptr, False) and cai["shape"] == (2, 3) and cai["typestr"] == "<f4"
    assert a.__dlpack_device__() == (2, 0)


def test_host_to_device_copies_run_on_the_legacy_stream_without_a_host_wait(fake):
    """Uploads (creation, assign, item assignment) are asynchronous on the legacy default stream: ordered after
    every launch made before them, and the host does not wait for the device. A fill is a memset on the current
    stream (types/device_fill.py), ordered after the launches made there."""
    a = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
    s = wp.Stream("cuda:0")
    with wp.ScopedStream(s):
        a.assign(np.full(4, 2.0, dtype=np.float32))
        a.fill_(3.0)
    a[1] = 5.0
    uploads = [e for e in fake.stream_log if e[0] == "upload"]
    assert uploads == [("upload", 0)] * 3
    assert [e for e in fake.stream_log if e[0] == "memset"] == [("memset", s.cuda_stream)]
    assert not [e for e in fake.stream_log if e[0] == "sync"]
    np.testing.assert_array_equal(a.numpy(), [3, 5, 3, 3])


@pytest.mark.parametrize("call", ["ScopedStream", "set_stream"])
@pytest.mark.parametrize("value", ["cuda:0", "cpu", 3])
def test_what_is_no_stream_is_refused_by_name(call, value):
    """A device name or a number where a stream goes said "'str' object has no attribute 'device'" (attacker
    probe); nothing changes: the current device stays the CPU."""
    before = wp.get_device()
    with pytest.raises(TypeError, match=rf"wp\.{call}: stream must be a wp\.Stream \(such as wp\.Stream\('cuda:0'\) "
                                        rf"or wp\.get_stream\('cuda:0'\)\), got {type(value).__name__} "):
        if call == "ScopedStream":
            with wp.ScopedStream(value):
                pass
        else:
            wp.set_stream(value)
    assert wp.get_device() == before
