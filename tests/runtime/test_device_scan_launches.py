"""``device_scan.scan`` (the GPU's segmented scan, run here by CPU launches with small segments): its values
are those of the segment algorithm's additions in their order, bit for bit (a model in numpy scalars), and
where the segments' sums fit one segment the last step's threads add them themselves: ``2 k`` launches for up
to ``segment**(k + 1)`` elements, none of one thread scanning the sums."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.runtime import device_scan


def model(values: np.ndarray, segment: int, inclusive: bool) -> np.ndarray:
    """The segment algorithm's output, its additions made in its order in float64 (the wide type)."""
    n = len(values)
    if n <= segment:
        bases = [np.float64(0.0)]
    else:
        sums = []
        for s in range(0, n, segment):
            total = np.float64(0.0)
            for v in values[s:s + segment]:
                total = total + np.float64(v)
            sums.append(total)
        sums = np.array(sums)
        bases = model(sums, segment, False)
    out = np.empty(n, dtype=values.dtype)
    for s in range(0, n, segment):
        at = np.float64(bases[s // segment])
        for i in range(s, min(s + segment, n)):
            if inclusive:
                at = at + np.float64(values[i])
                out[i] = at
            else:
                out[i] = at
                at = at + np.float64(values[i])
    return out


def run(values: np.ndarray, segment: int, inclusive: bool):
    """The scan of ``values`` (float32 or float64, accumulated in float64) and its launches."""
    launched = []
    dtype = wp.float32 if values.dtype == np.float32 else wp.float64

    def launch(kernel, dim, *args):
        launched.append((kernel.key, dim))
        wp.launch(kernel, dim, inputs=list(args))

    a = wp.array(values, dtype=dtype)
    out = wp.zeros(len(values), dtype=dtype)
    device_scan.scan(a, out, len(values), wp.float64(0.0), lambda name, shape: wp.empty(shape, dtype=wp.float64),
                     launch, segment, inclusive)
    return out.numpy(), launched


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 700), st.sampled_from([2, 3, 4, 8]), st.booleans(), st.sampled_from([np.float32, np.float64]),
       st.integers(0, 2**31))
def test_a_scan_adds_in_the_segment_algorithms_order(n, segment, inclusive, dtype, seed):
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dtype)
    got, launched = run(values, segment, inclusive)
    np.testing.assert_array_equal(got, model(values, segment, inclusive))
    k = 0
    while segment ** (k + 1) < n:
        k += 1
    assert len(launched) == max(1, 2 * k)
    assert all(dim > 1 for _, dim in launched) or n <= segment  # no launch of one thread but a single segment's


@pytest.mark.parametrize("n", [1, 4, 5, 16, 17, 64, 65, 300])
def test_integer_counts_scan_exactly(n):
    counts = np.random.default_rng(n).integers(0, 1000, n).astype(np.int32)
    a = wp.array(counts, dtype=wp.int32)
    device_scan.exclusive_scan(a, n, lambda name, shape: wp.empty(shape, dtype=wp.int32),
                               lambda kernel, dim, *args: wp.launch(kernel, dim, inputs=list(args)), 4)
    np.testing.assert_array_equal(a.numpy(), np.concatenate([[0], np.cumsum(counts)[:-1]]))
