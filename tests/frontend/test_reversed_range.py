"""``reversed(range(start, stop, step))`` with bounds and step known only at run time: the same values as
Python's, backwards, for rising, falling and empty ranges."""

import numpy as np

import brickwork as wp


@wp.kernel
def reversed_values(starts: wp.array(dtype=wp.int32), stops: wp.array(dtype=wp.int32),
                    steps: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32),
                    values: wp.array2d(dtype=wp.int32)):
    tid = wp.tid()
    n = wp.int32(0)
    for i in reversed(range(starts[tid], stops[tid], steps[tid])):
        if n < values.shape[1]:
            values[tid, n] = i
        n += 1
    counts[tid] = n


def test_runtime_step_matches_python():
    cases = [(s, e, k) for s in range(-6, 7, 3) for e in range(-7, 8, 2) for k in (-4, -3, -1, 1, 2, 5)]
    starts, stops, steps = (wp.array(np.array([c[j] for c in cases], dtype=np.int32), dtype=wp.int32)
                            for j in range(3))
    counts = wp.zeros(len(cases), dtype=wp.int32)
    values = wp.zeros((len(cases), 16), dtype=wp.int32)
    wp.launch(reversed_values, dim=len(cases), inputs=[starts, stops, steps, counts, values])
    c, v = counts.numpy(), values.numpy()
    for row, (s, e, k) in enumerate(cases):
        expected = list(reversed(range(s, e, k)))
        assert v[row, :c[row]].tolist() == expected, (s, e, k)


def test_zero_step_runs_no_iteration():
    one = wp.array(np.array([3], dtype=np.int32), dtype=wp.int32)
    counts = wp.full(1, 7, dtype=wp.int32)
    values = wp.zeros((1, 4), dtype=wp.int32)
    wp.launch(reversed_values, dim=1, inputs=[wp.zeros(1, dtype=wp.int32), one, wp.zeros(1, dtype=wp.int32),
                                              counts, values])
    assert counts.numpy()[0] == 0
