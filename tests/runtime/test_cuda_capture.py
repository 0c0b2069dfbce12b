"""Graph capture of CUDA launches, against the fake driver (launches recorded, not run): a launch during a
capture is checked and packed then, and runs at each replay with the same arguments, in order with the
captured host writes, on the stream the graph is launched on. Values on a GPU: scripts/gpu_check.sh."""

import gc

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
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
    # a graph of CUDA launches only is one CUDA graph, launched on the stream
    assert [st for kind, st, *_ in fake.stream_log if kind == "graph"] == [0, s.cuda_stream, s.cuda_stream]


def test_host_writes_and_nested_graphs_replay_in_order_with_the_launches(fake):
    x = wp.zeros(4, device="cuda:0")
    y = wp.zeros(4, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as inner:
        wp.launch(axpy, dim=4, inputs=[1.0, x, y], device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as outer:
        x.assign(np.full(4, 5.0, dtype=np.float32))  # from host memory: a host call, recorded, not run now
        wp.capture_launch(inner.graph)
        wp.launch(axpy, dim=2, inputs=[2.0, x, y], device="cuda:0")
    assert np.all(x.numpy() == 0.0) and fake.launches == []
    fake.stream_log.clear()
    wp.capture_launch(outer.graph)
    assert np.all(x.numpy() == 5.0)
    # the fill, the inner graph's launch, the launch: with a host write, the outer graph is replayed node by node
    assert fake.stream_log == [("upload", 0), ("launch", 0), ("launch", 0)]
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


# -- CUDA graph objects: a graph of CUDA launches on one device replays as one cuGraphLaunch --------------------
def capture_three(x, y, device="cuda:0"):
    with wp.ScopedCapture(device=device) as capture:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device=device)
        wp.launch(axpy, dim=3, inputs=[3.0, y, x], device=device)
        wp.launch(axpy, dim=5, inputs=[4.0, x, y], device=device)
    return capture.graph


def test_a_graph_of_cuda_launches_is_made_into_a_cuda_graph_once_at_its_first_replay(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    for a, src, dst, n in ((2.0, x, y, 8), (3.0, y, x, 3), (4.0, x, y, 5)):  # the same launches, run directly
        wp.launch(axpy, dim=n, inputs=[a, src, dst], device="cuda:0")
    direct = list(fake.launches)
    fake.launches.clear()
    graph = capture_three(x, y)
    assert fake.graph_log == [] and fake.launches == []  # nothing made or run at the capture
    wp.capture_launch(graph)
    [(_, stream, non_blocking), *_] = fake.graph_log
    [template] = [g for kind, *rest in fake.graph_log if kind == "end" for g in rest[1:]]
    [exe] = [e for kind, g, *rest in fake.graph_log if kind == "instantiate" for e in rest]
    assert non_blocking and fake.graph_log == [  # a private stream, captured, instantiated, freed, then launched
        ("create_stream", stream, True), ("begin", stream), *[("captured", stream)] * 3, ("end", stream, template),
        ("instantiate", template, exe), ("destroy_graph", template), ("destroy_stream", stream), ("launch", exe, 0)]
    wp.capture_launch(graph)
    assert fake.graph_log[-2:] == [("launch", exe, 0), ("launch", exe, 0)]  # instantiated once
    assert fake.launches == direct * 2  # the captured launches, with the arguments packed at capture


def test_a_cuda_graph_replays_on_each_stream_it_is_given(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    graph = capture_three(x, y)
    s1, s2, other = wp.Stream("cuda:0"), wp.Stream("cuda:0"), wp.Stream("cuda:1")
    wp.capture_launch(graph, stream=s1)
    wp.capture_launch(graph, stream=s2)
    wp.capture_launch(graph, stream=other)  # another device's stream: the graph's device's current stream
    with wp.ScopedStream(s2, sync_enter=False):
        wp.capture_launch(graph)
    wp.capture_launch(graph)
    assert [s for kind, _, s in (e for e in fake.graph_log if e[0] == "launch")] == [
        s1.cuda_stream, s2.cuda_stream, 0, s2.cuda_stream, 0]
    assert len([e for e in fake.graph_log if e[0] == "instantiate"]) == 1


def test_the_cuda_graph_is_destroyed_when_its_graph_goes_away(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    graph = capture_three(x, y)
    wp.capture_launch(graph)
    [exe] = list(fake.execs)
    assert fake.graphs == {}  # the template went at once: the executable graph does not need it
    del graph
    gc.collect()
    assert fake.execs == {} and fake.graph_log[-1] == ("destroy_exec", exe)


def test_a_driver_error_while_instantiating_names_the_call_and_leaves_nothing_allocated(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.full(8, 1.0, device="cuda:0")
    graph = capture_three(x, y)
    fake.fail["graph_instantiate"] = 1
    with pytest.raises(wp.CaptureError, match=r"cannot make a CUDA graph of the 3 nodes captured on cuda:0: "
                       r"CUDA driver: cannot instantiate a CUDA graph \(cuGraphInstantiateWithFlags\)"):
        wp.capture_launch(graph)
    assert fake.launches == [] and fake.graphs == {} and fake.execs == {} and fake.capturing == {}
    assert [e[0] for e in fake.graph_log][-2:] == ["destroy_graph", "destroy_stream"]
    assert x.numpy().tolist() == [0.0] * 8 and y.numpy().tolist() == [1.0] * 8
    del fake.fail["graph_instantiate"]
    wp.capture_launch(graph)  # made now
    assert len(fake.launches) == 3


def test_a_launch_refused_during_the_stream_capture_ends_the_capture(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    graph = capture_three(x, y)
    fake.fail["launch"] = 1
    with pytest.raises(wp.CaptureError, match=r"CUDA graph of the 3 nodes .*cannot launch a kernel"):
        wp.capture_launch(graph)
    assert fake.capturing == {} and fake.graphs == {} and fake.execs == {}
    assert [e[0] for e in fake.graph_log] == ["create_stream", "begin", "end", "destroy_graph", "destroy_stream"]


def test_a_graph_of_cuda_launches_launched_during_a_capture_adds_its_launches(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    inner = capture_three(x, y)
    with wp.ScopedCapture(device="cuda:0") as with_host_write:
        x.assign(np.ones(8, dtype=np.float32))
    with wp.ScopedCapture(device="cuda:0") as outer:
        wp.capture_launch(inner)
        wp.launch(axpy, dim=2, inputs=[5.0, x, y], device="cuda:0")
        wp.capture_launch(inner)
    assert len(outer.graph) == 7 and outer.graph.cuda_nodes == 7
    wp.capture_launch(outer.graph)
    assert [e[0] for e in fake.graph_log].count("captured") == 7  # one CUDA graph of the seven
    assert [e for e in fake.stream_log if e[0] in ("graph", "launch")] == [("graph", 0)]
    assert [int.from_bytes(params[:8], "little") for _, params in launched(fake)] == [8, 3, 5, 2, 8, 3, 5]
    with wp.ScopedCapture(device="cuda:0") as mixed:
        wp.capture_launch(with_host_write.graph)  # not launches only: one node, replayed with its write
        wp.capture_launch(inner)
    assert len(mixed.graph) == 4 and mixed.graph.cuda_nodes == 3


def test_graphs_a_cuda_graph_cannot_hold_keep_the_launch_by_launch_replay(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    on_1 = wp.zeros(8, device="cuda:1")
    host_x, host_y = wp.zeros(8, device="cpu"), wp.zeros(8, device="cpu")
    with wp.ScopedCapture() as two_devices:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device="cuda:0")
        wp.launch(axpy, dim=8, inputs=[2.0, on_1, on_1], device="cuda:1")
    with wp.ScopedCapture() as with_cpu:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device="cuda:0")
        wp.launch(axpy, dim=8, inputs=[1.0, host_x, host_y], device="cpu")
    with wp.ScopedCapture() as with_host_write:
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device="cuda:0")
        y.assign(np.zeros(8, dtype=np.float32))  # from host memory
    host_x.fill_(1.0)
    for graph in (two_devices.graph, with_cpu.graph, with_host_write.graph):
        wp.capture_launch(graph)
    assert fake.graph_log == []  # no CUDA graph made
    assert [st for kind, st, *_ in fake.stream_log if kind in ("launch", "graph")] == [0, 0, 0, 0]
    assert host_y.numpy().tolist() == [1.0] * 8  # the CPU launch ran


def test_verify_cuda_waits_for_each_cuda_graph_launch_and_names_a_failure(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.zeros(8, device="cuda:0")
    graph = capture_three(x, y)
    s = wp.Stream("cuda:0")
    wp.capture_launch(graph, stream=s)
    assert fake.stream_log[-1] == ("graph", s.cuda_stream)  # asynchronous unless verified
    with wp.config.override(verify_cuda=True):
        wp.capture_launch(graph, stream=s)
        assert fake.stream_log[-2:] == [("graph", s.cuda_stream), ("sync", s.cuda_stream)]

        def failing_sync(ordinal, stream):
            raise cuda_driver.CudaError("an illegal memory access was encountered", 700)

        fake.stream_synchronize = failing_sync
        with pytest.raises(wp.LaunchError, match="capture_launch: the CUDA graph of 3 nodes on cuda:0 failed: "
                           "an illegal memory access"):
            wp.capture_launch(graph)
