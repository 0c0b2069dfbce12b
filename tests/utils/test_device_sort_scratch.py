"""A sort on a CUDA device keeps its work arrays for the next one (``runtime/device_scratch.py``): through the fake
driver of tests/runtime/cuda_fake.py (kernels compiled with NVRTC, launches recorded), a repeated sort allocates
and frees no device memory (``cuMemFree`` waits for the device: a sort made the host wait about twenty times), the
memory is per thread and stream, and a captured sort keeps arrays of its own. Results against numpy: the
emulation tests of test_device_sorts_runs.py and, on a GPU, tests/runtime/test_cuda_device.py."""

import os
import sys
import threading

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.runtime import device_scratch
from brickwork.utils import radix_sort_pairs

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

pytestmark = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


class CountingMemory(FakeDriver):
    """The fake driver, counting allocations and device synchronisations (frees are ``freed``)."""

    def __init__(self):
        super().__init__()
        self.allocs = []

    def alloc(self, ordinal, nbytes):
        ptr = super().alloc(ordinal, nbytes)
        self.allocs.append((ptr, nbytes))
        return ptr


@pytest.fixture
def fake():
    device_scratch.release()
    with installed(CountingMemory()) as drv:
        yield drv
    device_scratch.release()


def _pairs(n, dtype=np.int32, values=np.int32):
    return (wp.array(np.arange(2 * n, dtype=dtype)[::-1].copy(), device="cuda:0"),
            wp.array(np.arange(2 * n, dtype=values), device="cuda:0"))


def _sort(drv, keys, values, n, end=None):
    """The allocations, frees and launches of one sort."""
    allocs, freed, launches = len(drv.allocs), len(drv.freed), len(drv.launches)
    radix_sort_pairs(keys, values, n, 0, end)
    return drv.allocs[allocs:], drv.freed[freed:], drv.launches[launches:]


def test_a_repeated_sort_allocates_and_frees_nothing(fake):
    keys, values = _pairs(1000)
    first, _, launched = _sort(fake, keys, values, 1000)
    assert len(first) == len({ptr for ptr, _ in first}) > 10  # every work array its own memory
    for n in (1000, 700, 1):  # the same count, and fewer: views of the memory kept
        made, freed, _ = _sort(fake, keys, values, n)
        assert made == [] and freed == [], n
    assert fake.synchronized == []
    # 4 passes of 8-bit digits (count, 2 scan launches, scatter) + the words, a gather and a put of keys and values
    assert len(launched) == 4 * 4 + 3


def test_a_larger_sort_grows_the_memory_by_half_at_least(fake):
    keys, values = _pairs(3000)
    first, _, _ = _sort(fake, keys, values, 1000)
    grown, freed, _ = _sort(fake, keys, values, 1100)
    assert (1000 * 4, 1000 * 4 * 3 // 2) in {(a, b) for _, a in first for _, b in grown}  # the (n,) int32 arrays
    # each replaced memory goes, no array views it any more (a scan level more is new: 4608 counters > 64 * 64)
    assert set(freed) <= {ptr for ptr, _ in first} and len(freed) == len(grown) - 1
    assert _sort(fake, keys, values, 1500)[0] == []  # within the grown memory


def test_each_thread_and_stream_has_memory_of_its_own(fake):
    keys, values = _pairs(500)
    first, _, _ = _sort(fake, keys, values, 500)
    others = []
    thread = threading.Thread(target=lambda: others.append(_sort(fake, keys, values, 500)[0]))
    thread.start()
    thread.join()
    assert len(others[0]) == len(first) and not {p for p, _ in others[0]} & {p for p, _ in first}
    with wp.ScopedStream(wp.Stream("cuda:0")):
        on_stream, _, _ = _sort(fake, keys, values, 500)
    assert len(on_stream) == len(first)
    assert _sort(fake, keys, values, 500)[0] == []  # the default stream's memory is still kept


def test_a_captured_sort_has_arrays_of_its_own(fake):
    keys, values = _pairs(500)
    _sort(fake, keys, values, 500)
    with wp.ScopedCapture(device="cuda:0"):
        made, _, _ = _sort(fake, keys, values, 500)
    assert len(made) > 10  # the graph's launches keep them: a later sort never writes into a graph's arrays
    assert _sort(fake, keys, values, 500)[0] == []
