"""The loop-abstraction tests of this folder re-run on the emulation target ("cuda-emulation"): the GPU
mapping (a slice per thread block, cells shared out among the threads, scratch in the block's arena,
team barriers as block barriers) executed block by block on the CPU, against the same reference model
and numpy. Every space uses the ``team`` backend (``raw`` is host-only and rejected, tested here too).
A few examples per tag pair keep the time modest; the CPU runs of the same tests draw many more.
"""

from __future__ import annotations

import la_model as M
import numpy as np
import pytest
import test_la_coverage as coverage
import test_la_scratch as scratch
import test_la_views as views
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import brickwork as wp
import gpu_compile
from brickwork import config, la

EMULATION = dict(target="cuda-emulation")
# every GPU-mapped instance these tests build also compiles for CUDA (tests/gpu_compile.py)
pytestmark = pytest.mark.compiles_for_cuda


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=2, phases=[Phase.generate], **coverage.SETTINGS)
@given(cfg=coverage.configs(ngeo=2))
def test_visits_match_spec(lt, it, cfg):
    """Items 1-7 and 10: the cells each slice visits, as logged by the body, equal the model's."""
    halo, _, form, cases = cfg
    with config.override(**EMULATION):
        for geo, kind in cases:
            coverage.run_case(lt, it, halo, la.team, form, geo, kind)


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_exactly_once_for_each_ninner(lt, it):
    """Item 1 for every kind of ninner on a geometry with uneven ghosts (slices of 1 cell to the block)."""
    geo = M.Geo(2, (2, 4, 1, 3, 2, 5), (7, 5, 8))
    with config.override(**EMULATION):
        for kind in M.NINNER_KINDS:
            coverage.run_case(lt, it, la.halo.none, la.team, "lambda-kji", geo, kind)


def stencil_body(f, out, offsets, mask, H):
    """Producer over the halo range into scratch, a barrier, consumer at the offsets of the halo: a
    body portable to a team backend (no value carried from cell to cell, a barrier between them)."""
    n = offsets.shape[0]

    def body(rng, b):
        hr = rng.add_halo(H)
        s = la.get_per_point_scratch(wp.int32, hr, dims=(2,))
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s[0, idx] = -f[b, k, j, i]
            s[1, idx] = f[b, k, j, i]
        rng.team_barrier()
        for k, j, i in la.inner(rng):
            if mask[k, j, i] == 1:  # the memory tag sweeps ghost cells too
                acc = wp.int32(0)
                for m in range(n):
                    acc += (m + 1) * s[1, k + offsets[m, 0], j + offsets[m, 1], i + offsets[m, 2]]
                out[b, k, j, i] = acc - s[0, k, j, i]

    return body


def run_stencil(space, geo, halo, seed=0):
    """(out, expected) of ``stencil_body`` over the logical cells (ghosts of out stay 0)."""
    fv = np.random.default_rng(seed).integers(0, 1000, size=geo.shape, dtype=np.int32)
    hs = np.array(M.reduced(halo, geo.ndim), dtype=np.int32).reshape(-1, 3)
    out = wp.zeros(geo.shape, dtype=wp.int32)
    mask = wp.array(M.logical_mask(geo), dtype=wp.int32)
    la.outer(space, stencil_body(wp.array(fv, dtype=wp.int32), out, wp.array(hs, dtype=wp.int32), mask, halo))
    want = np.zeros(geo.shape, dtype=np.int64)
    L = geo.lbox
    for b in range(geo.nblocks):
        for k in range(L.ks, L.ke + 1):
            for j in range(L.js, L.je + 1):
                for i in range(L.is_, L.ie + 1):
                    want[b, k, j, i] = fv[b, k, j, i] + sum((m + 1) * int(fv[b, k + h[0], j + h[1], i + h[2]])
                                                            for m, h in enumerate(hs))
    return out.numpy(), want


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=2, phases=[Phase.generate], **coverage.SETTINGS)
@given(geo=M.geometries(max_n=4, max_ghost=2), halo=st.sampled_from(scratch.SCRATCH_HALOS),
       kind=st.sampled_from(M.NINNER_KINDS))
def test_scratch_halo_producer_consumer(lt, it, geo, halo, kind):
    """Items 14 and 15: scratch over a halo range written by one inner loop and read, after a barrier,
    at the halo's offsets by another (slots other threads wrote included), against numpy."""
    if not M.halo_fits(geo, halo):
        return
    with config.override(**EMULATION):
        got, want = run_stencil(M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo), backend=la.team),
                                geo, halo)
    np.testing.assert_array_equal(got, want)


# on blocks (not boiv's thread per cell): scratch in the block's arena, in shared memory when it fits
@pytest.mark.parametrize("lt,it", gpu_compile.checked(M.TAG_PAIRS, M.TAG_IDS, lambda lt, it: lt is not la.boiv,
                                                      gpu_compile.where("__syncthreads();", "bw::gpu_arena(bw_blk,",
                                                                        "extern __shared__", "bw_entry_global(")))
def test_scratch_index_forms_alias_and_zero(lt, it):
    """Items 13 and 16: every index form of a scratch reaches the same slot; zero() clears for every thread."""
    geo = M.Geo(2, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    with config.override(**EMULATION):
        space = M.make_space(lt, it, geo, ninner=5, backend=la.team)
        f = wp.array(np.random.default_rng(1).integers(0, 1000, size=geo.shape, dtype=np.int32), dtype=wp.int32)
        errs = wp.zeros(3, dtype=wp.int32)
        la.outer(space, scratch.alias_body(f, errs, M.DIAG))
        assert errs.numpy().tolist() == [0, 0, 0]
        zgeo = M.Geo(2, (1, 2, 1, 3, 1, 3), (4, 5, 5), via_box=True)
        zspace = M.make_space(lt, it, zgeo, ninner=4, backend=la.team)
        errs = wp.zeros(3, dtype=wp.int32)
        la.outer(zspace, scratch.zero_body(errs, M.MINUS_ALL))
        visited = sum(len(M.visits(zspace, zgeo, sl, M.MINUS_ALL)) for sl in M.slices(zspace, zgeo))
        assert errs.numpy().tolist() == [0, 0, visited]


@pytest.mark.parametrize("limit", [0, 1 << 30], ids=["global-arena", "shared-arena"])
def test_scratch_same_in_shared_and_global_arena(limit):
    """The block's arena in shared memory or in global memory (the limit decides) gives the CPU's result."""
    geo = M.Geo(2, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    for lt in (la.bvoi, la.bovi):
        space = M.make_space(lt, la.logical_flat, geo, ninner=5, backend=la.team)
        with config.override(target="cuda-emulation", gpu_shared_limit=limit):
            got, want = run_stencil(space, geo, M.DIAG)
        np.testing.assert_array_equal(got, want)


def test_raw_backend_is_rejected_on_a_device_target():
    """Semantics §12: la.raw is host-only; the error names the backend and the fix, and nothing is written."""
    geo = M.Geo(1, (1, 2, 1, 2, 1, 2), (4, 4, 4), via_box=True)
    space = M.make_space(la.bvoi, la.logical_flat, geo, backend=la.raw)
    visits = wp.zeros(geo.shape, dtype=wp.int32)
    body = coverage.B.COUNT_FORMS["lambda-kji"](visits, la.halo.none)
    with config.override(**EMULATION), pytest.raises(wp.LaunchError, match=r"la\.raw is host-only.*backend=la\.team"):
        la.outer(space, body)
    assert not visits.numpy().any()
    la.outer(space, body)  # the same space and body on the CPU
    assert visits.numpy().sum() == geo.nblocks * geo.lbox.size


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_views_match_pack_access(lt, it):
    """Item 20: pack, variable and flux views (their table loads hoisted per block) on a 2-D mesh."""
    with config.override(**EMULATION):
        views.test_views_match_pack_access.hypothesis.inner_test(lt, it, 2, (4, 3, 1), 2, la.team, "N-1")


def test_per_point_scratch_taken_in_a_loop_is_refused_on_gpu_targets():
    """A slice's arena counts each get_per_point_scratch call once (it cannot grow on a GPU): a call a loop
    repeats is a TargetUnsupportedError when the body is compiled, not a trap at run time; the CPU runs it."""
    u = wp.array(np.arange(2 * 4 * 4 * 4, dtype=np.float64).reshape(2, 4, 4, 4))
    out = wp.zeros((2, 4, 4, 4), dtype=wp.float64)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 2, 4, 4, 4, 0, backend=la.team)

    def body(rng, b):
        for it in range(3):
            s = la.get_per_point_scratch(wp.float64, rng)
            for idx in la.inner(rng):
                k, j, i = rng.get_kji(idx)
                s[idx] = u[b, k, j, i] * wp.float64(it + 1)
            rng.team_barrier()
            for k, j, i in la.inner(rng):
                out[b, k, j, i] = out[b, k, j, i] + s[k, j, i]
            rng.team_barrier()

    with config.override(**EMULATION):
        with pytest.raises(wp.TargetUnsupportedError, match="get_per_point_scratch is called in a loop"):
            la.outer(space, body)
    assert not out.numpy().any()
    la.outer(space, body)
    np.testing.assert_array_equal(out.numpy(), 6.0 * u.numpy())
