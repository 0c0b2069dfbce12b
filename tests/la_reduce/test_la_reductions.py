"""Reductions of the loop abstraction against numpy over the logical cells (ghosts hold NaN/huge)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import la

NB, NX, NY, NZ, NG = 2, 6, 5, 3, 2
SHAPE = (NB, NZ + 2 * NG, NY + 2 * NG, NX + 2 * NG)
TAG_PAIRS = [(lt, it) for lt in (la.bvoi, la.bovi, la.boiv) for it in (la.logical_flat, la.logical_coords, la.memory)
             if not (lt is la.boiv and it is la.memory)]


def field(dtype, np_dtype, ghost):
    rng = np.random.default_rng(7)
    data = (rng.random(SHAPE) * 10 - 3).astype(np_dtype) if np.dtype(np_dtype).kind == "f" else \
        rng.integers(-50, 50, SHAPE).astype(np_dtype)
    data[:, :NG] = ghost
    data[:, -NG:] = ghost
    data[:, :, :NG] = ghost
    data[:, :, :, -NG:] = ghost
    return wp.array(data, dtype=dtype), data[:, NG:NG + NZ, NG:NG + NY, NG:NG + NX]


def fold_kji(rng, b):
    la.inner_reduce(rng, lambda k, j, i: values[b, k, j, i])


def fold_idx(rng, b):
    def v(idx):
        k, j, i = rng.get_kji(idx)
        return values[b, k, j, i]

    la.inner_reduce(rng, v)


values = None


@pytest.mark.parametrize("lt, it", TAG_PAIRS, ids=[f"{a.name}-{b.name}" for a, b in TAG_PAIRS])
@pytest.mark.parametrize("backend", [la.raw, la.team], ids=["raw", "team"])
def test_every_reducer_matches_numpy(lt, it, backend):
    global values
    values, inner = field(wp.float64, np.float64, np.nan)
    values.numpy()[:, :, :, :NG] = 1e300  # huge on one side, NaN on others: neither may be folded
    for reducer, expected in ((la.Sum(wp.float64), inner.sum()), (la.Min(wp.float64), inner.min()),
                              (la.Max(wp.float64), inner.max()), (la.Prod(wp.float64), np.prod(inner / 4 + 1))):
        space = la.IndexSpace.box(lt, it, NB, NX, NY, NZ, NG, ninner=7, backend=backend).with_reducer(reducer)
        if isinstance(reducer, la.Prod):
            values = wp.array(np.where(np.isfinite(values.numpy()), values.numpy() / 4 + 1, np.nan), dtype=wp.float64)
        result = la.outer_reduce(space, fold_kji if it is la.logical_coords else fold_idx)
        np.testing.assert_allclose(result, expected, rtol=1e-12)
        if not isinstance(reducer, (la.Sum, la.Prod)):
            assert result == expected  # exact
    values, inner = field(wp.float64, np.float64, np.nan)
    for reducer, index in ((la.MinLoc(wp.float64), np.argmin(inner)), (la.MaxLoc(wp.float64), np.argmax(inner))):
        space = la.IndexSpace.box(lt, it, NB, NX, NY, NZ, NG, ninner=5, backend=backend).with_reducer(reducer)
        value, loc = la.outer_reduce(space, fold_kji)
        b, k, j, i = np.unravel_index(index, inner.shape)
        assert value == inner[b, k, j, i] and loc == (b, k + NG, j + NG, i + NG)


@pytest.mark.parametrize("lt, it", TAG_PAIRS, ids=[f"{a.name}-{b.name}" for a, b in TAG_PAIRS])
def test_min_and_max_skip_nan_where_sum_propagates_it(lt, it, backend=la.raw):
    """docs/loop_abstraction.md (Reductions, NaN) and semantics §10: Min, Max, MinLoc and MaxLoc fold the
    values that are not NaN, so a NaN in the cell that would win, or in a block's first cell, is hidden;
    only when every value is NaN do they give their identity, with location (-1, -1, -1, -1). Sum and Prod
    propagate NaN."""
    global values
    values, inner = field(wp.float64, np.float64, 1e300)  # ghosts huge, never folded
    data = values.numpy()
    for cell in (np.argmin(inner), np.argmax(inner), 0, inner[0].size):  # the winners, each block's first cell
        b, k, j, i = np.unravel_index(cell, inner.shape)
        data[b, k + NG, j + NG, i + NG] = np.nan
    inner = data[:, NG:NG + NZ, NG:NG + NY, NG:NG + NX]
    valued = fold_kji if it is la.logical_coords else fold_idx

    def reduce(reducer):
        space = la.IndexSpace.box(lt, it, NB, NX, NY, NZ, NG, ninner=7, backend=backend).with_reducer(reducer)
        return la.outer_reduce(space, fold_kji if reducer.with_location else valued)

    def cell_of(index):
        return tuple(int(x) + (NG if d else 0) for d, x in enumerate(np.unravel_index(index, inner.shape)))

    assert reduce(la.Min(wp.float64)) == np.nanmin(inner) and reduce(la.Max(wp.float64)) == np.nanmax(inner)
    assert reduce(la.MinLoc(wp.float64)) == (np.nanmin(inner), cell_of(np.nanargmin(inner)))
    assert reduce(la.MaxLoc(wp.float64)) == (np.nanmax(inner), cell_of(np.nanargmax(inner)))
    assert np.isnan(reduce(la.Sum(wp.float64))) and np.isnan(reduce(la.Prod(wp.float64)))
    inner[...] = np.nan
    assert reduce(la.Min(wp.float64)) == np.inf and reduce(la.Max(wp.float64)) == -np.inf
    assert reduce(la.MinLoc(wp.float64)) == (np.inf, (-1, -1, -1, -1))
    assert reduce(la.MaxLoc(wp.float64)) == (-np.inf, (-1, -1, -1, -1))
    assert np.isnan(reduce(la.Sum(wp.float64)))


@pytest.mark.parametrize("dtype, np_dtype", [(wp.int32, np.int32), (wp.int64, np.int64), (wp.float32, np.float32)])
def test_integer_and_single_precision(dtype, np_dtype):
    global values
    values, inner = field(dtype, np_dtype, np.iinfo(np_dtype).max if np.dtype(np_dtype).kind == "i" else np.nan)
    for reducer, expected in ((la.Sum(dtype), inner.sum(dtype=np_dtype)), (la.Min(dtype), inner.min()),
                              (la.Max(dtype), inner.max())):
        space = la.ReductionIndexSpace(reducer, la.bovi, la.logical_flat, box=True, nblocks=NB, nx=NX, ny=NY, nz=NZ,
                                       nghost=NG, ninner=la.i_pencil)
        result = la.outer_reduce(space, fold_kji)
        np.testing.assert_allclose(result, expected, rtol=1e-5)


def test_two_inner_reduce_calls_double_a_sum_and_scratch_producer():
    global values
    values, inner = field(wp.float64, np.float64, np.nan)
    space = la.IndexSpace.box(la.bovi, la.memory, NB, NX, NY, NZ, NG, ninner=9)
    space.add_per_point_scratch(wp.float64)
    rspace = space.with_reducer(la.Sum(wp.float64))

    def body(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng)
        for idx in la.inner(rng):  # memory tag: sweeps ghosts inside the span too
            k, j, i = rng.get_kji(idx)
            s[idx] = values[b, k, j, i] * wp.float64(2.0)
        rng.team_barrier()
        la.inner_reduce(rng, lambda idx: s[idx])
        la.inner_reduce(rng, lambda idx: s[idx])

    np.testing.assert_allclose(la.outer_reduce(rspace, body), 4 * inner.sum(), rtol=1e-12)


def test_out_array_form_equals_returning_form():
    global values
    values, inner = field(wp.float64, np.float64, np.nan)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, NB, NX, NY, NZ, NG).with_reducer(la.Max(wp.float64))
    out = wp.zeros(1, dtype=wp.float64)
    assert la.outer_reduce(space, fold_idx, out=out) is None
    assert out.numpy()[0] == la.outer_reduce(space, fold_idx) == inner.max()
    loc_space = space.with_reducer(la.MinLoc(wp.float64))
    loc_out = wp.zeros(1, dtype=la.value_loc(wp.float64))
    la.outer_reduce(loc_space, fold_kji, out=loc_out)
    assert loc_out.numpy()[0]["value"] == inner.min()


def test_static_rejections():
    global values
    values, _ = field(wp.float64, np.float64, np.nan)
    plain = la.IndexSpace.box(la.bovi, la.logical_flat, NB, NX, NY, NZ, NG)
    with pytest.raises(wp.LaunchError, match="needs a reduction space"):
        la.outer_reduce(plain, fold_kji)
    with pytest.raises(wp.TypeError, match="inner_reduce needs a reduction space"):
        la.outer(plain, fold_kji)
    rspace = plain.with_reducer(la.Sum(wp.float64))

    def halo_body(rng, b):
        hr = rng.add_halo(la.halo.minus_i)
        la.inner_reduce(hr, lambda k, j, i: values[b, k, j, i])

    with pytest.raises(wp.TypeError, match="inner_reduce over a halo range"):
        la.outer_reduce(rspace, halo_body)
    with pytest.raises(wp.LaunchError, match="out must be a 1-D array of float64"):
        la.outer_reduce(rspace, fold_kji, out=wp.zeros(1, dtype=wp.float32))
    with pytest.raises(TypeError, match="with_reducer needs an la reducer"):
        plain.with_reducer(np.sum)

    def wrong_type(rng, b):
        la.inner_reduce(rng, lambda k, j, i: wp.float32(1.0))

    with pytest.raises(wp.TypeError, match="returns float32 but the reducer la.Sum\\(float64\\) folds float64"):
        la.outer_reduce(rspace, wrong_type)


SCRIPT = """
import numpy as np, brickwork as wp
from brickwork import la
vals = wp.array(np.random.default_rng(0).random((8, 36, 36, 36)), dtype=wp.float64)
space = la.IndexSpace.box(la.bovi, la.logical_flat, 8, 32, 32, 32, 2).with_reducer(la.Sum(wp.float64))
def body(rng, b):
    la.inner_reduce(rng, lambda k, j, i: vals[b, k, j, i])
print(repr(la.outer_reduce(space, body)))
"""


def test_sum_is_bitwise_equal_for_one_and_two_threads(tmp_path):
    script = tmp_path / "sum_threads.py"
    script.write_text(SCRIPT)
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    results = []
    for threads in ("1", "2"):
        env = dict(os.environ, BRICKWORK_NUM_THREADS=threads, PYTHONPATH=src)
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        results.append(out.stdout.strip())
    assert results[0] == results[1]
