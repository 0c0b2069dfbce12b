"""Array writes captured on a CUDA device as memset and memcpy nodes (runtime/cuda_memory_nodes.py), against
the fake driver, which applies memsets and copies to its host-side memory and records them, in order with the
launches, into a stream capture: a graph of launches, fills and device copies is one CUDA graph, writes from
host memory keep the node-by-node replay. Values on a GPU: test_cuda_device.py (scripts/gpu_check.sh)."""

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.types.device_fill import fill_memsets

from .test_cuda_capture import axpy, fake  # noqa: F401 - the fake driver with two devices (a fixture), a kernel

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


def captured_kinds(fake) -> list:
    """What the stream captures recorded, in order: "launch", "memset", "memset_2d32" or "copy"."""
    return [e[2] if len(e) > 2 else "launch" for e in fake.graph_log if e[0] == "captured"]


def word(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


@needs_nvrtc
def test_fills_copies_and_launches_are_one_cuda_graph_replayed_in_order(fake):
    x, y = wp.zeros(8, device="cuda:0"), wp.full(8, 7.0, device="cuda:0")
    wp.launch(axpy, dim=8, inputs=[1.0, x, y], device="cuda:0")  # compiled and loaded before the capture
    fake.launches.clear()
    fake.memory_ops.clear()
    with wp.ScopedCapture(device="cuda:0") as capture:
        x.fill_(2.0)
        wp.launch(axpy, dim=8, inputs=[2.0, x, y], device="cuda:0")
        wp.copy(y, x, dest_offset=2, src_offset=1, count=3)
        y.zero_()
        y.assign(x)
        z = wp.full(4, 1.5, device="cuda:0")  # allocated now, filled now and at each replay
    graph = capture.graph
    assert len(graph) == graph.cuda_nodes == 6
    assert x.numpy().tolist() == [0.0] * 8 and y.numpy().tolist() == [7.0] * 8  # nothing ran at the capture
    z.zero_()
    assert fake.memory_ops == [("memset", z.ptr, word(1.5), 4, 4), ("memset", z.ptr, 0, 16, 1)]  # run now: no upload
    fake.stream_log.clear()
    fake.memory_ops.clear()
    wp.capture_launch(graph)
    assert captured_kinds(fake) == ["memset", "launch", "copy", "memset", "copy", "memset"]
    assert [e[0] for e in fake.stream_log if e[0] in ("graph", "launch", "memset", "copy", "upload")] == ["graph"]
    assert fake.memory_ops == [
        ("memset", x.ptr, word(2.0), 8, 4),
        ("copy", y.ptr + 2 * 4, x.ptr + 1 * 4, 3 * 4),
        ("memset", y.ptr, 0, 32, 1),  # zero: bytes
        ("copy", y.ptr, x.ptr, 32),
        ("memset", z.ptr, word(1.5), 4, 4)]
    assert x.numpy().tolist() == [2.0] * 8 and y.numpy().tolist() == [2.0] * 8 and z.numpy().tolist() == [1.5] * 4
    assert len(fake.launches) == 1
    y.fill_(-1.0)  # not captured: a memset now
    wp.capture_launch(graph)
    assert y.numpy().tolist() == [2.0] * 8 and len([e for e in fake.graph_log if e[0] == "instantiate"]) == 1


@needs_nvrtc
def test_a_partial_copy_writes_only_its_elements(fake):
    src = wp.array(np.arange(6, dtype=np.float32), device="cuda:0")
    dst = wp.full((2, 4), -1.0, device="cuda:0")  # shapes may differ: elements counted in row-major order
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.copy(dst, src, dest_offset=3, src_offset=2, count=4)
    wp.capture_launch(capture.graph)
    assert captured_kinds(fake) == ["copy"]
    assert dst.numpy().tolist() == [[-1.0, -1.0, -1.0, 2.0], [3.0, 4.0, 5.0, -1.0]]


@pytest.mark.parametrize("dtype, value, calls", [  # (call, byte offset in the array, its other arguments)
    (wp.float32, 0.0, [("memset", 0, 0, 4 * 5, 1)]),
    (wp.int8, 7, [("memset", 0, 7, 5, 1)]),
    (wp.uint8, 255, [("memset", 0, 255, 5, 1)]),
    (wp.float16, 1.0, [("memset", 0, 0x3C00, 5, 2)]),
    (wp.int64, -1, [("memset", 0, 0xFF, 8 * 5, 1)]),
    (wp.int32, 0x01010101, [("memset", 0, 1, 4 * 5, 1)]),
    (wp.float64, 1.0, [("memset_2d32", 0, 8, 0, 1, 5), ("memset_2d32", 4, 8, 0x3FF00000, 1, 5)]),
    (wp.vec3, (1.0, 2.0, 3.0), [("memset_2d32", 4 * k, 12, word(float(k + 1)), 1, 5) for k in range(3)]),
    (wp.vec4, (0.5, 0.5, 0.5, 0.5), [("memset", 0, word(0.5), 4 * 5, 4)]),
])
def test_a_fill_is_the_fewest_memsets_of_its_element_bytes(fake, dtype, value, calls):
    a = wp.zeros(5, dtype=dtype, device="cuda:0")
    fake.memory_ops.clear()
    with wp.ScopedCapture(device="cuda:0") as capture:
        a.fill_(value)
    assert capture.graph.cuda_nodes == 1
    wp.capture_launch(capture.graph)
    assert fake.memory_ops == [(kind, a.ptr + args[0], *args[1:]) for kind, *args in calls]
    expected = np.empty_like(a.numpy())
    expected[...] = value
    np.testing.assert_array_equal(a.numpy(), expected)


@pytest.mark.parametrize("dtype, value", [(wp.mat33, np.arange(9.0).reshape(3, 3)), (wp.vec3h, (1.0, 2.0, 3.0))])
def test_a_fill_no_memsets_can_write_stays_a_host_write(fake, dtype, value):
    # nine distinct words (more than four 2-D memsets), or 6 bytes (no 32-bit words): written from the host
    a = wp.zeros(5, dtype=dtype, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        a.fill_(value)
    assert capture.graph.cuda_nodes == 0
    wp.capture_launch(capture.graph)
    assert fake.graph_log == [] and ("upload", 0) in fake.stream_log
    expected = np.empty_like(a.numpy())
    expected[...] = value
    np.testing.assert_array_equal(a.numpy(), expected)


@needs_nvrtc
def test_writes_from_host_memory_keep_the_node_by_node_replay_with_the_memsets_on_the_replay_stream(fake):
    x, y = wp.zeros(4, device="cuda:0"), wp.zeros(4, device="cuda:0")
    on_host = wp.array([1.0, 2.0, 3.0, 4.0], device="cpu")
    s = wp.Stream("cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        x.fill_(3.0)
        y.assign(on_host)  # host memory: a host call at each replay
        wp.launch(axpy, dim=4, inputs=[1.0, x, y], device="cuda:0")
    assert len(capture.graph) == 3 and capture.graph.cuda_nodes == 2
    on_host.fill_(5.0)  # read at replay
    fake.stream_log.clear()
    wp.capture_launch(capture.graph, stream=s)
    assert [e for e in fake.graph_log if e[0] != "create_stream"] == []  # no CUDA graph (s was created above)
    assert [e for e in fake.stream_log if e[0] in ("memset", "upload", "launch")] == [
        ("memset", s.cuda_stream), ("upload", 0), ("launch", s.cuda_stream)]
    assert x.numpy().tolist() == [3.0] * 4 and y.numpy().tolist() == [5.0] * 4


@wp.struct
class Pair:
    a: float
    b: int


def test_copies_between_devices_and_fills_of_structs_stay_host_writes(fake):
    on_0, on_1 = wp.full(4, 2.0, device="cuda:0"), wp.zeros(4, device="cuda:1")
    pairs = wp.zeros(3, dtype=Pair, device="cuda:0")
    p = Pair()
    p.a, p.b = 1.5, 2
    with wp.ScopedCapture() as capture:
        wp.copy(on_1, on_0)
        pairs.fill_(p)
    assert len(capture.graph) == 2 and capture.graph.cuda_nodes == 0
    wp.capture_launch(capture.graph)
    assert fake.graph_log == [] and on_1.numpy().tolist() == [2.0] * 4
    assert pairs.numpy()["a"].tolist() == [1.5] * 3 and pairs.numpy()["b"].tolist() == [2] * 3


@needs_nvrtc
def test_a_graph_of_memory_nodes_launched_during_a_capture_adds_them(fake):
    x = wp.zeros(8, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as inner:
        x.fill_(1.0)
    with wp.ScopedCapture(device="cuda:0") as outer:
        wp.capture_launch(inner.graph)
        wp.launch(axpy, dim=8, inputs=[1.0, x, x], device="cuda:0")
    assert len(outer.graph) == outer.graph.cuda_nodes == 2
    wp.capture_launch(outer.graph)
    assert captured_kinds(fake) == ["memset", "launch"] and x.numpy().tolist() == [1.0] * 8


def test_a_memset_refused_during_the_stream_capture_names_it_and_leaves_nothing(fake):
    x = wp.full(8, 4.0, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        x.zero_()
    fake.fail["memset"] = 1
    with pytest.raises(wp.CaptureError, match=r"cannot make a CUDA graph of the 1 nodes captured on cuda:0: "
                       r"CUDA driver: cannot set device memory"):
        wp.capture_launch(capture.graph)
    assert fake.capturing == {} and fake.graphs == {} and fake.execs == {}
    assert x.numpy().tolist() == [4.0] * 8  # nothing written
    del fake.fail["memset"]
    wp.capture_launch(capture.graph)
    assert x.numpy().tolist() == [0.0] * 8


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1, max_size=16), st.integers(1, 7))
def test_the_memsets_of_a_fill_write_the_element_bytes_count_times(pattern, count):
    ops = fill_memsets(0x1000, pattern, count)
    distinct = {pattern[k:k + 4] for k in range(0, len(pattern), 4)}
    if ops is None:  # refused only where no memset of 8, 16 or 32 bits can write it
        assert len(pattern) % 4 or len(distinct) > 1
        return
    memory = bytearray(len(pattern) * count)
    for method, args in ops:
        if method == "memset":
            dst, value, n, width = args
            memory[dst - 0x1000:dst - 0x1000 + n * width] = value.to_bytes(width, "little") * n
        else:
            dst, pitch, value, width, height = args
            for row in range(height):
                at = dst - 0x1000 + row * pitch
                memory[at:at + 4 * width] = value.to_bytes(4, "little") * width
    assert bytes(memory) == pattern * count
