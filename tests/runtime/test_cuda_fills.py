"""Fills of CUDA arrays outside a capture (types/device_fill.py), against the fake driver, which applies memsets
to its memory: ``zero_``, ``fill_``, ``wp.zeros``/``wp.full``/``zeros_like`` and gradient arrays are the driver's
asynchronous memsets on the device's current stream (no host buffer, no upload); what memsets cannot write is
filled on the host and uploaded. Values on a GPU: test_cuda_device.py (scripts/gpu_check.sh)."""

import struct

import numpy as np
import pytest

import brickwork as wp
from brickwork.cuda_driver import CudaError
from brickwork.jit import nvrtc
from brickwork.types.device_fill import fill_memsets

from .test_cuda_capture import axpy, fake  # noqa: F401 - the fake driver with two devices (a fixture), a kernel


def word(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def uploads(fake) -> list:
    return [e for e in fake.stream_log if e[0] == "upload"]


def filled(a, value) -> np.ndarray:
    expected = np.empty_like(a.numpy())
    expected[...] = value
    return expected


@pytest.mark.parametrize("dtype, value, calls", [  # (call, byte offset in the array, its other arguments)
    (wp.float32, 2.5, [("memset", 0, word(2.5), 6, 4)]),
    (wp.float32, 0.0, [("memset", 0, 0, 4 * 6, 1)]),
    (wp.int16, -2, [("memset", 0, 0xFFFE, 6, 2)]),
    (wp.uint8, 9, [("memset", 0, 9, 6, 1)]),
    (wp.float64, 1.0, [("memset_2d32", 0, 8, 0, 1, 6), ("memset_2d32", 4, 8, 0x3FF00000, 1, 6)]),
    (wp.vec3, (1.0, -2.0, 3.5), [("memset_2d32", 0, 12, word(1.0), 1, 6), ("memset_2d32", 4, 12, word(-2.0), 1, 6),
                                 ("memset_2d32", 8, 12, word(3.5), 1, 6)]),
    (wp.vec3, (0.25, 0.25, 0.25), [("memset", 0, word(0.25), 3 * 6, 4)]),
])
def test_fill_is_the_fewest_memsets_on_the_legacy_stream_with_no_upload(fake, dtype, value, calls):
    a = wp.empty(6, dtype=dtype, device="cuda:0")
    fake.stream_log.clear()
    assert a.fill_(value) is a
    assert fake.memory_ops == [(kind, a.ptr + args[0], *args[1:]) for kind, *args in calls]
    assert uploads(fake) == [] and {e[1] for e in fake.stream_log} == {0}
    np.testing.assert_array_equal(a.numpy(), filled(a, value))


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.vec3, wp.mat22d, wp.int8])
def test_zero_is_one_byte_memset_of_the_whole_array(fake, dtype):
    a = wp.full((3, 2), dtype(*([1] * getattr(dtype, "_length", 1))), dtype=dtype, device="cuda:0")
    fake.memory_ops.clear()
    fake.stream_log.clear()
    a.zero_()
    assert fake.memory_ops == [("memset", a.ptr, 0, a.numpy().nbytes, 1)] and uploads(fake) == []
    assert not a.numpy().any()


def test_allocations_are_filled_by_memsets(fake):
    z = wp.zeros((4, 3), dtype=wp.float64, device="cuda:0")
    f = wp.full(5, wp.vec2(1.0, 1.0), device="cuda:0")
    o = wp.ones(7, dtype=wp.int32, device="cuda:0")
    like = wp.zeros_like(f)
    g = wp.full(3, 4.0, device="cuda:0", requires_grad=True)
    assert uploads(fake) == []
    assert fake.memory_ops == [
        ("memset", z.ptr, 0, 4 * 3 * 8, 1),
        ("memset", f.ptr, word(1.0), 10, 4),
        ("memset", o.ptr, 1, 7, 4),
        ("memset", like.ptr, 0, 5 * 8, 1),
        ("memset", g.ptr, word(4.0), 3, 4),
        ("memset", g.grad.ptr, 0, 12, 1)]  # the gradient array: wp.zeros
    assert not z.numpy().any() and not like.numpy().any() and not g.grad.numpy().any()
    assert f.numpy().tolist() == [[1.0, 1.0]] * 5 and o.numpy().tolist() == [1] * 7 and g.numpy().tolist() == [4.0] * 3


def test_a_fill_runs_on_the_current_stream(fake):
    a = wp.zeros(4, device="cuda:0")
    s = wp.Stream("cuda:0")
    fake.stream_log.clear()
    with wp.ScopedStream(s, sync_enter=False):
        a.fill_(3.0)
        a.zero_()
        b = wp.full(2, 1.0, device="cuda:0")
    wp.set_stream(wp.Stream("cuda:1"))  # another device's current stream changes nothing here
    a.fill_(2.0)
    assert [e for e in fake.stream_log if e[0] == "memset"] == [("memset", s.cuda_stream)] * 3 + [("memset", 0)]
    assert a.numpy().tolist() == [2.0] * 4 and b.numpy().tolist() == [1.0] * 2


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_a_fill_is_ordered_after_the_launches_on_its_stream_and_numpy_sees_it(fake):
    x, y = wp.full(4, 1.0, device="cuda:0"), wp.zeros(4, device="cuda:0")
    s = wp.Stream("cuda:0")
    fake.stream_log.clear()
    with wp.ScopedStream(s, sync_enter=False):
        wp.launch(axpy, dim=4, inputs=[2.0, x, y], device="cuda:0")
        x.fill_(5.0)
    assert [e for e in fake.stream_log if e[0] in ("launch", "memset")] == [("launch", s.cuda_stream),
                                                                             ("memset", s.cuda_stream)]
    # the host copy runs on the legacy stream, which a blocking stream (wp.Stream's kind) is ordered with
    assert x.numpy().tolist() == [5.0] * 4


def test_views_share_the_fill(fake):
    a = wp.zeros((2, 3), device="cuda:0")
    a.flatten().fill_(1.5)
    a.reshape((3, 2)).zero_()
    a.reshape(-1).fill_(wp.float32(-1.0))
    assert uploads(fake) == [] and a.numpy().tolist() == [[-1.0] * 3] * 2


@wp.struct
class Pair:
    a: float
    b: int


@pytest.mark.parametrize("dtype, value", [
    (wp.mat33, np.arange(9.0).reshape(3, 3)),  # nine distinct words: more than four 2-D memsets
    (wp.vec3h, (1.0, 2.0, 3.0)),  # 6-byte elements: no 32-bit words
    (wp.vec2d, (1.0, 2.0)),  # four distinct words: memsets
])
def test_elements_memsets_cannot_write_are_filled_on_the_host(fake, dtype, value):
    a = wp.zeros(5, dtype=dtype, device="cuda:0")
    fake.stream_log.clear()
    fake.memory_ops.clear()
    a.fill_(value)
    by_memsets = dtype is wp.vec2d
    assert (uploads(fake) == []) is by_memsets and bool(fake.memory_ops) is by_memsets
    np.testing.assert_array_equal(a.numpy(), filled(a, value))


def test_structs_and_indexed_arrays_are_filled_on_the_host(fake):
    pairs = wp.zeros(3, dtype=Pair, device="cuda:0")
    p = Pair()
    p.a, p.b = 1.5, 2
    base = wp.zeros(6, device="cuda:0")
    fake.stream_log.clear()
    pairs.fill_(p)
    base[wp.array([1, 4], dtype=wp.int32, device="cuda:0")].fill_(7.0)
    assert len(uploads(fake)) == 3  # the struct fill, the index array, the scatter
    assert pairs.numpy()["a"].tolist() == [1.5] * 3 and pairs.numpy()["b"].tolist() == [2] * 3
    assert base.numpy().tolist() == [0.0, 7.0, 0.0, 0.0, 7.0, 0.0]


def test_memory_of_another_library_at_an_odd_address_is_filled_on_the_host(fake):
    class Lent:  # float32 data 2 bytes into an allocation: no 32-bit memset may start there
        def __init__(self, ptr):
            self.ptr = ptr

        @property
        def __cuda_array_interface__(self):
            return {"shape": (3,), "typestr": "<f4", "data": (self.ptr, False), "version": 3}

    whole = wp.zeros(4, device="cuda:0")
    a = wp.array(Lent(whole.ptr + 2), device="cuda:0")
    fake.stream_log.clear()
    a.fill_(1.0)
    assert len(uploads(fake)) == 1
    a.zero_()  # bytes: a memset
    assert [e[0] for e in fake.stream_log if e[0] in ("upload", "memset")] == ["upload", "memset"]
    assert a.numpy().tolist() == [0.0] * 3


def test_empty_arrays_make_no_driver_calls(fake):
    a = wp.zeros(0, dtype=wp.vec3, device="cuda:0")
    a.fill_((1.0, 2.0, 3.0))
    wp.full(0, 2.0, device="cuda:0").zero_()
    assert fake.memory_ops == [] and uploads(fake) == []


@pytest.mark.parametrize("dtype, value, method, call", [
    (wp.float32, 2.0, "memset", "cuMemsetD32Async"),
    (wp.vec3, (1.0, 2.0, 3.0), "memset_2d32", "cuMemsetD2D32Async"),
])
def test_a_driver_error_names_the_fill_and_leaves_the_array(fake, dtype, value, method, call):
    a = wp.full(8, dtype(*[4.0] * getattr(dtype, "_length", 1)), dtype=dtype, device="cuda:0")
    before = a.numpy()
    fake.fail[method] = 700
    with pytest.raises(CudaError, match=rf"fill_ of an array of \w+ of shape \(8,\) on cuda:0 failed: CUDA driver: "
                                        rf"cannot set device memory \({call}\)") as e:
        a.fill_(value)
    assert e.value.code == 700
    np.testing.assert_array_equal(a.numpy(), before)


def test_a_failed_zero_is_a_clear_error(fake):
    a = wp.full((2, 2), 3.0, device="cuda:0")
    fake.fail["memset"] = 700
    with pytest.raises(CudaError, match=r"zero_ of an array of float32 of shape \(2, 2\) on cuda:0 failed: .*"
                                        r"cuMemsetD8Async"):
        a.zero_()
    with pytest.raises(CudaError, match=r"zero_ of an array of float64 of shape \(3,\) on cuda:0"):
        wp.zeros(3, dtype=wp.float64, device="cuda:0")
    assert a.numpy().tolist() == [[3.0, 3.0]] * 2


@pytest.mark.parametrize("ptr, pattern, expected", [
    (0x1002, struct.pack("<f", 1.0), None),  # a 32-bit value 2 bytes past a word
    (0x1002, b"\x00\x3c" * 2, [("memset", (0x1002, 0x3C00, 6, 2))]),  # 16-bit halves: a 16-bit memset fits
    (0x1001, b"\x07" * 4, [("memset", (0x1001, 7, 12, 1))]),  # bytes go anywhere
    (0x1006, struct.pack("<d", 1.0), None),  # 2-D memsets of 32-bit words
])
def test_a_memset_starts_only_where_its_width_divides_the_address(ptr, pattern, expected):
    assert fill_memsets(ptr, pattern, 3) == expected
