"""A row's fold runs in blocks of lanes kept across rows (passes/lower_reductions.py): every cell of
every row length (shorter than the lanes, a multiple of them, or neither) is folded exactly once."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import la

NG = 1
values = None


def fold(rng, b):
    la.inner_reduce(rng, lambda k, j, i: values[b, k, j, i])


@settings(max_examples=25, deadline=None)
@given(nx=st.integers(1, 35), ny=st.integers(1, 3), nz=st.integers(1, 2), nb=st.integers(1, 2),
       pair=st.sampled_from([(la.bvoi, la.logical_flat), (la.bovi, la.logical_flat), (la.bovi, la.logical_coords)]),
       ninner=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_integer_sums_and_extrema_count_every_cell_once(nx, ny, nz, nb, pair, ninner, seed):
    global values
    rng = np.random.default_rng(seed)
    data = rng.integers(-1000, 1000, (nb, nz + 2 * NG, ny + 2 * NG, nx + 2 * NG)).astype(np.int32)
    inner = data[:, NG:-NG, NG:-NG, NG:-NG].copy()
    data[...] = 10**6  # ghosts: a ghost folded by mistake shows
    data[:, NG:-NG, NG:-NG, NG:-NG] = inner
    values = wp.array(data, dtype=wp.int32)
    for reducer, expected in ((la.Sum(wp.int32), inner.sum()), (la.Min(wp.int32), inner.min()),
                              (la.Max(wp.int32), inner.max())):
        space = la.IndexSpace.box(*pair, nb, nx, ny, nz, NG, ninner=ninner).with_reducer(reducer)
        assert la.outer_reduce(space, fold) == expected, reducer
