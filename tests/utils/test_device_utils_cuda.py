"""``brickwork.utils`` on a CUDA device (the fake driver of tests/runtime/cuda_fake.py: kernels are compiled with
NVRTC and their launches recorded): every function launches kernels on the arrays' device and copies no array
between the host and the device; only the numbers Warp reads back (a sum without ``out``, a run count without
``run_count``) come to the host. (``segmented_sort_pairs`` reads its segment check back, which the fake driver,
running no kernel, cannot answer: it is not here.)"""

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.utils import array_cast, array_inner, array_scan, array_sum, radix_sort_pairs, runlength_encode

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from runtime.cuda_fake import counting_copies  # noqa: E402

pytestmark = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@pytest.fixture
def copies():
    """The fake driver, with ``copies``: each copy between host and device as ``(direction, bytes)``."""
    with counting_copies() as drv:
        yield drv


def _on_device(data, dtype=None):
    return wp.array(data, dtype=dtype, device="cuda:0")


def _run(drv, call):
    """Run ``call`` and return the copies it made and the number of kernels it launched on cuda:0."""
    drv.copies.clear()
    launched = len(drv.launches)
    call()
    assert all(launch[0] == 0 for launch in drv.launches[launched:])
    return list(drv.copies), len(drv.launches) - launched


def test_scans_sums_sorts_runs_and_casts_copy_nothing_through_the_host(copies):
    n = 3000
    ints = _on_device(np.arange(n, dtype=np.int32))
    floats = _on_device(np.ones((n, 3), dtype=np.float32), wp.vec3f)
    out_ints = wp.empty(n, dtype=wp.int32, device="cuda:0")
    out_vec = wp.empty(n, dtype=wp.vec3f, device="cuda:0")
    total = wp.empty(1, dtype=wp.vec3f, device="cuda:0")
    inner = wp.empty(1, dtype=wp.float32, device="cuda:0")
    keys = _on_device(np.arange(2 * n, dtype=np.float64))
    values = _on_device(np.arange(2 * n, dtype=np.int64))
    lengths = wp.empty(n, dtype=wp.int32, device="cuda:0")
    run_count = wp.empty(1, dtype=wp.int32, device="cuda:0")
    wide = wp.empty(n, dtype=wp.vec3d, device="cuda:0")
    grid = _on_device(np.ones((6, 500), dtype=np.float64))
    rows = wp.empty((6, 1), dtype=wp.float64, device="cuda:0")
    calls = {
        "scan": lambda: array_scan(ints, out_ints, inclusive=False),
        "vector scan": lambda: array_scan(floats, out_vec),
        "sum": lambda: array_sum(floats, out=total),
        "sum along an axis": lambda: array_sum(grid, axis=1, out=rows),
        "inner": lambda: array_inner(floats, floats, out=inner),
        "sort": lambda: radix_sort_pairs(keys, values, n, 0, 40),
        "runs": lambda: runlength_encode(ints, out_ints, lengths, run_count),
        "cast": lambda: array_cast(floats, wide),
    }
    for name, call in calls.items():
        made, launched = _run(copies, call)
        assert made == [] and launched > 0, name


def test_only_single_numbers_come_back(copies):
    ints = _on_device(np.arange(1000, dtype=np.int32))
    floats = _on_device(np.ones(1000, dtype=np.float32))
    made, _ = _run(copies, lambda: runlength_encode(ints, wp.empty(1000, dtype=wp.int32, device="cuda:0"),
                                                    wp.empty(1000, dtype=wp.int32, device="cuda:0")))
    assert made == [("down", 4)]  # the run count, as Warp reads it
    made, _ = _run(copies, lambda: array_sum(floats))
    assert made == [("down", 4)]  # the sum itself
