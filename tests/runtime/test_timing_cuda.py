"""Activity timing on a CUDA device, against the fake driver (tests/runtime/cuda_fake.py: an event pair measures
1.5 ms): each launch, copy, memset and graph launch between ``wp.timing_begin`` and ``timing_end`` is bracketed by
two timing events on its stream, read and released at the end; captured work is not timed; the driver's and the
CUDA entry's methods are their own again after the range. Timings on a GPU: scripts/gpu_check.sh."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.jit import nvrtc
from brickwork.runtime import streams
from brickwork.targets.cuda.loader import CudaEntry

from .cuda_fake import FakeDriver, installed
from .test_cuda_capture import axpy  # the same kernel: no build of its own

pytestmark = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")

WRAPPED = ("copy_to_device", "copy_to_host", "copy_on_device", "memset", "memset_2d32", "graph_launch",
           "capture_begin", "capture_end")


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        streams.forget_device_streams()
        yield drv
        streams.forget_device_streams()


def timed(results) -> list:
    return [(r.name, r.filter, r.device.alias, r.elapsed) for r in results]


def test_launches_copies_and_memsets_are_bracketed_by_events_on_their_stream(fake):
    methods = {name: vars(FakeDriver)[name] for name in WRAPPED}
    entry_launch = CudaEntry.launch
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    wp.launch(axpy, 4, inputs=[1.0, x, y], device="cuda:0")  # built and loaded outside the range
    s = wp.Stream("cuda:0")
    fake.stream_log.clear()
    wp.timing_begin()
    wp.launch(axpy, 4, inputs=[2.0, x, y], device="cuda:0", stream=s)
    h = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
    wp.copy(y, h)
    y.zero_()
    values = y.numpy()
    results = wp.timing_end()
    ms = 1.5
    kernel = f"forward kernel {axpy.key}"
    assert timed(results) == [(kernel, wp.TIMING_KERNEL, "cuda:0", ms), ("memcpy HtoD", wp.TIMING_MEMCPY, "cuda:0", ms),
                              ("memcpy DtoD", wp.TIMING_MEMCPY, "cuda:0", ms), ("memset", wp.TIMING_MEMSET, "cuda:0", ms),
                              ("memcpy DtoH", wp.TIMING_MEMCPY, "cuda:0", ms)]
    launch_at = [i for i, e in enumerate(fake.stream_log) if e[0] == "launch"]
    assert len(launch_at) == 1 and fake.stream_log[launch_at[0] - 1] == ("record", fake.stream_log[launch_at[0] - 1][1],
                                                                         s.cuda_stream)
    assert fake.stream_log[launch_at[0] + 1][0] == "record" and fake.stream_log[launch_at[0] + 1][2] == s.cuda_stream
    assert fake.events == {}  # every event released at timing_end
    assert np.array_equal(values, np.zeros(4))
    assert CudaEntry.launch is entry_launch and all(vars(FakeDriver)[n] is m for n, m in methods.items())
    assert "launch" not in vars(fake) and wp.config.print_launches is False


def test_a_filter_leaves_the_other_activities_untimed(fake):
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    wp.launch(axpy, 4, inputs=[1.0, x, y], device="cuda:0")
    wp.timing_begin(wp.TIMING_MEMSET)
    wp.launch(axpy, 4, inputs=[2.0, x, y], device="cuda:0")
    y.zero_()
    assert timed(wp.timing_end()) == [("memset", wp.TIMING_MEMSET, "cuda:0", 1.5)]
    assert fake.events == {}


def test_a_captured_launch_is_not_timed_and_the_graph_launch_is(fake):
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    wp.launch(axpy, 4, inputs=[1.0, x, y], device="cuda:0")
    wp.timing_begin()
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(axpy, 4, inputs=[2.0, x, y], device="cuda:0")
    captured = wp.timing_end()
    wp.timing_begin(wp.TIMING_GRAPH | wp.TIMING_KERNEL)
    wp.capture_launch(capture.graph)  # made into a CUDA graph by a stream capture: its launch is not timed
    wp.capture_launch(capture.graph)
    replayed = wp.timing_end()
    assert captured == [] and timed(replayed) == [("graph", wp.TIMING_GRAPH, "cuda:0", 1.5)] * 2
    assert fake.events == {}


def test_a_failed_read_of_the_events_releases_them_all_and_raises(fake):
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    wp.timing_begin()
    x.zero_()
    y.zero_()
    reads = []

    def failing(ordinal, start, end):
        reads.append(start)
        raise cuda_driver.CudaError("CUDA driver: cannot measure the time between two events", 700)

    fake.event_elapsed = failing
    with pytest.raises(cuda_driver.CudaError, match="cannot measure"):
        wp.timing_end()
    assert len(reads) == 2 and fake.events == {}  # both pairs read and released, the range closed
    with pytest.raises(RuntimeError, match="no timing is active"):
        wp.timing_end()
