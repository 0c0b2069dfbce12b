"""Graph capture of CUDA launches, against the fake driver (launches recorded, not run): a launch during a
capture is checked and packed then, and runs at each replay with the same arguments, in order with the
captured host writes, on the stream the graph is launched on. Values on a GPU: scripts/gpu_check.sh."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.runtime import streams

from .cuda_fake import FakeDriver, installed

pytestmark = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@pytest.fixture
def fake():
    with installed(FakeDriver(devices=2)) as drv:
        streams.forget_device_streams()
        yield drv
        streams.forget_device_streams()


@wp.kernel
def axpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def launched(fake) -> list:
    return [(grid, params) for _, _, grid, _, params in fake.launches]


def test_launches_during_a_capture_run_only_when_the_graph_is_launched(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    wp.launch(axpy, dim=8, inputs=[1.0, x, y], device="cuda:0")  # compiled and loaded before the capture
    fake.launches.clear()
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device="cuda:0")
        wp.launch(axpy, dim=3, inputs=[3.0, y, x], device="cuda:0")
    assert fake.launches == []
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    first, second = launched(fake)[:2]
    assert launched(fake) == [first, second, first, second]
    assert first[1] != second[1]  # each node keeps its own arguments (a, and x and y swapped)


def test_a_graph_runs_on_the_stream_it_is_launched_on(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    s = wp.Stream("cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], stream=s)  # the capture's stream is not the replay's
    fake.stream_log.clear()
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph, stream=s)
    with wp.ScopedStream(s, sync_enter=False):
        wp.capture_launch(capture.graph)
    assert [st for kind, st, *_ in fake.stream_log if kind == "launch"] == [0, s.cuda_stream, s.cuda_stream]


def test_host_writes_and_nested_graphs_replay_in_order_with_the_launches(fake):
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as inner:
        wp.launch(axpy, dim=4, inputs=[1.0, x, y], device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as outer:
        x.fill_(5.0)  # recorded: not written now
        wp.capture_launch(inner.graph)
        wp.launch(axpy, dim=2, inputs=[2.0, x, y], device="cuda:0")
    assert np.all(x.numpy() == 0.0) and fake.launches == []
    fake.stream_log.clear()
    wp.capture_launch(outer.graph)
    assert np.all(x.numpy() == 5.0)
    assert fake.stream_log == [("upload", 0), ("launch", 0), ("launch", 0)]  # the fill, the inner graph, ...
    assert [int.from_bytes(params[:8], "little") for _, params in launched(fake)] == [4, 2]  # ... their extents


def test_a_launch_refused_during_a_capture_records_nothing(fake):
    x = wp.zeros(4, device="cuda:0")
    on_host = wp.zeros(4, device="cpu")
    with wp.ScopedCapture(device="cuda:0") as capture:
        with pytest.raises(wp.LaunchError, match="'y'"):
            wp.launch(axpy, dim=4, inputs=[1.0, x, on_host], device="cuda:0")
    assert len(capture.graph) == 0
    wp.capture_launch(capture.graph)
    assert fake.launches == []


def test_reading_device_data_during_a_capture_is_refused(fake):
    # the recorded launches have not run: a host copy now would silently show the data before them
    y = wp.full(4, 2.0, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(axpy, dim=4, inputs=[1.0, y, y], device="cuda:0")
        with pytest.raises(wp.CaptureError, match="cuda:0 array on the host while a graph is captured"):
            y.numpy()
    assert len(capture.graph) == 1
    assert y.numpy().tolist() == [2.0] * 4  # after the capture (the fake driver runs no kernel)
