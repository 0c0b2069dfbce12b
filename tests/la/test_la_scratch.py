"""Semantics §9 and §15 items 13-17: per-point scratch (index forms, bounds, halo roundtrip, zero, registration;
docs/reference/loop_abstraction_semantics.md).

Bounds (item 14) are checked on the whole storage of each slice's scratch: it has three components
(dims=(3,)), the producer writes component 1 only, and the body then reads every storage slot
through the int form ``s[0, m + scratch_index_start]`` (hierarchical tags; component-major layout,
semantics §9) or through every (k, j, i) of the halo box (boiv). Components 0 and 2 must still be zero
and component 1 must hold exactly one slot per visited cell: a write outside [0, ScratchSize)
would show up in a guard component (or, beyond them, as a slot missing from component 1).
"""

from __future__ import annotations

import la_bodies as B
import la_model as M
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import la

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))
NREAD = 7  # consumer reads per cell (halos with more reduced offsets are not used here)
SCRATCH_HALOS = [la.halo.none, la.halo.minus_i, la.halo.plus_j, la.halo.pm_k, la.halo.pm_i, M.MINUS_ALL, M.PLUS_ALL,
                 M.FACES, M.DIAG, M.WIDE_I, M.GAP_J]


def padded(halo, ndim):
    hs = list(M.reduced(halo, ndim))
    assert len(hs) <= NREAD
    return tuple(hs + [(0, 0, 0)] * (NREAD - len(hs)))


def hier_body(f, out, tab, errs, mask, H, HS, d1, d2, d3):
    """Hierarchical tags: producer over the halo range, full storage scan, consumer reads in three forms."""
    def body(rng, b):
        hr = rng.add_halo(H)
        s = la.get_per_point_scratch(wp.int32, hr, dims=(3,))
        s.zero()
        key = wp.vec3i(-1, -1, -1)
        for k, j, i in la.inner(rng):
            if key[0] < 0:
                key = wp.vec3i(k, j, i)
        sis = tab[b, key[0], key[1], 2 * key[2]]
        size = tab[b, key[0], key[1], 2 * key[2] + 1]
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s[1, idx] = f[b, k, j, i]
        rng.team_barrier()
        for m in range(3 * size):
            v = s[0, m + sis]
            if m < size or m >= 2 * size:
                if v != 0:
                    wp.atomic_add(errs, 0, 1)
            elif v != 0:
                wp.atomic_add(errs, 1, 1)
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            if mask[k, j, i] == 1:
                o = i * 3 * NREAD
                out[b, k, j, o + 0] = s[1, idx + HS[0][0] * d3 + HS[0][1] * d2 + HS[0][2] * d1]
                out[b, k, j, o + 1] = s[1, idx + HS[1][0] * d3 + HS[1][1] * d2 + HS[1][2] * d1]
                out[b, k, j, o + 2] = s[1, idx + HS[2][0] * d3 + HS[2][1] * d2 + HS[2][2] * d1]
                out[b, k, j, o + 3] = s[1, idx + HS[3][0] * d3 + HS[3][1] * d2 + HS[3][2] * d1]
                out[b, k, j, o + 4] = s[1, idx + HS[4][0] * d3 + HS[4][1] * d2 + HS[4][2] * d1]
                out[b, k, j, o + 5] = s[1, idx + HS[5][0] * d3 + HS[5][1] * d2 + HS[5][2] * d1]
                out[b, k, j, o + 6] = s[1, idx + HS[6][0] * d3 + HS[6][1] * d2 + HS[6][2] * d1]
                for n in range(NREAD):
                    hk, hj, hi = HS_DYN[n, 0], HS_DYN[n, 1], HS_DYN[n, 2]
                    out[b, k, j, o + NREAD + n] = s[1, k + hk, j + hj, i + hi]
                    out[b, k, j, o + 2 * NREAD + n] = s[1, wp.vec3i(k + hk, j + hj, i + hi)]

    HS_DYN = HS_TABLE[HS]  # noqa: N806 - (runtime) table of the same offsets
    return body


def boiv_body(f, out, errs, H, HS, BOX, d1, d2, d3):
    """boiv: producer p+h, full scan of the halo box in (c, k, j, i) form, consumer reads."""
    def body(rng, b):
        hr = rng.add_halo(H)
        s = la.get_per_point_scratch(wp.int32, hr, dims=(3,))
        s.zero()
        pk, pj, pi = 0, 0, 0
        for k, j, i in la.inner(rng):
            pk, pj, pi = k, j, i
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s[1, idx] = f[b, k, j, i]
        rng.team_barrier()
        for c in range(3):
            for dk in range(BOX[0][0], BOX[0][1] + 1):
                for dj in range(BOX[1][0], BOX[1][1] + 1):
                    for di in range(BOX[2][0], BOX[2][1] + 1):
                        v = s[c, pk + dk, pj + dj, pi + di]
                        if v != 0:
                            wp.atomic_add(errs, 0 if c != 1 else 1, 1)
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            o = i * 3 * NREAD
            out[b, k, j, o + 0] = s[1, idx + HS[0][0] * d3 + HS[0][1] * d2 + HS[0][2] * d1]
            out[b, k, j, o + 1] = s[1, idx + HS[1][0] * d3 + HS[1][1] * d2 + HS[1][2] * d1]
            out[b, k, j, o + 2] = s[1, idx + HS[2][0] * d3 + HS[2][1] * d2 + HS[2][2] * d1]
            out[b, k, j, o + 3] = s[1, idx + HS[3][0] * d3 + HS[3][1] * d2 + HS[3][2] * d1]
            out[b, k, j, o + 4] = s[1, idx + HS[4][0] * d3 + HS[4][1] * d2 + HS[4][2] * d1]
            out[b, k, j, o + 5] = s[1, idx + HS[5][0] * d3 + HS[5][1] * d2 + HS[5][2] * d1]
            out[b, k, j, o + 6] = s[1, idx + HS[6][0] * d3 + HS[6][1] * d2 + HS[6][2] * d1]
            for n in range(NREAD):
                hk, hj, hi = HS_DYN[n, 0], HS_DYN[n, 1], HS_DYN[n, 2]
                out[b, k, j, o + NREAD + n] = s[1, k + hk, j + hj, i + hi]
                out[b, k, j, o + 2 * NREAD + n] = s[1, wp.vec3i(k + hk, j + hj, i + hi)]

    HS_DYN = HS_TABLE[HS]  # noqa: N806
    return body


class _Tables(dict):
    """Runtime copies of padded offset lists (a (NREAD, 3) int32 array per list)."""

    def __missing__(self, hs):
        a = wp.array(np.array(hs, dtype=np.int32).reshape(NREAD, 3), dtype=wp.int32)
        self[hs] = a
        return a


HS_TABLE = _Tables()


def run_scratch(space, geo, halo, seed=0):
    """Run the scratch body; return (out, errs) as numpy arrays, and the model's expectations."""
    rng = np.random.default_rng(seed)
    fvals = rng.integers(1, 2**30, size=geo.shape, dtype=np.int32)
    f = wp.array(fvals, dtype=wp.int32)
    out = wp.full((geo.nblocks, geo.M[0], geo.M[1], geo.M[2] * 3 * NREAD), -5, dtype=wp.int32)
    errs = wp.zeros(2, dtype=wp.int32)
    HS = padded(halo, geo.ndim)
    d1, d2, d3 = (space.get_delta(d) for d in (wp.X1DIR, wp.X2DIR, wp.X3DIR))
    sls = M.slices(space, geo)
    if space.loop_tag is la.boiv:
        box = halo.box(M.reduced(halo, geo.ndim))
        la.outer(space, boiv_body(f, out, errs, halo, HS, box, d1, d2, d3))
    else:
        tab = np.zeros((geo.nblocks, geo.M[0], geo.M[1], 2 * geo.M[2]), dtype=np.int32)
        for sl in sls:
            first, size = M.scratch_span(space, geo, sl, halo)
            tab[sl.b, sl.start[0], sl.start[1], 2 * sl.start[2]:2 * sl.start[2] + 2] = (first - M.mflat(geo, sl.start),
                                                                                       size)
        mask = wp.array(M.logical_mask(geo), dtype=wp.int32)
        la.outer(space, hier_body(f, out, wp.array(tab, dtype=wp.int32), errs, mask, halo, HS, d1, d2, d3))
    return fvals, out.numpy().reshape(*geo.shape, 3, NREAD), errs.numpy(), sls, HS


def check_scratch(space, geo, halo, seed=0):
    fvals, out, errs, sls, HS = run_scratch(space, geo, halo, seed)
    visited = sum(len(set(M.visits(space, geo, sl, halo))) for sl in sls)
    assert errs[0] == 0, f"item 14: {errs[0]} scratch slots outside [0, ScratchSize) were written"
    assert errs[1] == visited, f"item 14: {errs[1]} slots filled for {visited} visited cells"
    L = geo.lbox
    for sl in sls:
        first, size = M.scratch_span(space, geo, sl, halo)
        for p in sl.cells:
            for n, h in enumerate(HS):
                q = M.add(p, h)
                if space.loop_tag is not la.boiv:
                    assert 0 <= M.mflat(geo, q) - first < size, "item 14 (model): consumer read outside the span"
                want = fvals[(sl.b, *q)]
                got = out[(sl.b, *p)][:, n]
                assert (got == want).all(), f"item 15: s[arg({p}) + delta{h}] forms read {got}, expected {want}"
    return out, errs, L


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=3, **SETTINGS)
@given(geo=M.geometries(max_n=4, max_ghost=2), halo=st.sampled_from(SCRATCH_HALOS),
       backend=st.sampled_from(M.BACKENDS), kind=st.sampled_from(M.NINNER_KINDS))
def test_scratch_bounds_and_halo_roundtrip(lt, it, geo, halo, backend, kind):
    """Items 14 and 15 (bvoi multi-axis halos included: the PROPOSED halo-box span)."""
    if not M.halo_fits(geo, halo):
        return
    space = M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo), backend=backend)
    check_scratch(space, geo, halo)


@pytest.mark.parametrize("lt,it", [(la.bvoi, la.memory), (la.bovi, la.logical_flat), (la.bovi, la.logical_coords),
                                   (la.boiv, la.logical_flat)], ids=["bvoi-memory", "bovi-flat", "bovi-coords", "boiv-flat"])
def test_scratch_backends_agree(lt, it):
    """Item 11 for scratch bodies: raw and team leave identical memory."""
    geo = M.Geo(2, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    res = [check_scratch(M.make_space(lt, it, geo, ninner=5, backend=be), geo, M.DIAG)[:2] for be in M.BACKENDS]
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


# -- item 13: index forms alias ---------------------------------------------------------------------------
def alias_body(f, errs, H):
    def body(rng, b):
        hr = rng.add_halo(H)
        s0 = la.get_per_point_scratch(wp.int32, hr)
        s2 = la.get_per_point_scratch(wp.int32, hr, dims=(2, 3))
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s0[idx] = f[b, k, j, i]
            for c0 in range(2):
                for c1 in range(3):
                    s2[c0, c1, idx] = f[b, k, j, i] * 6 + c0 * 3 + c1
        rng.team_barrier()
        for k, j, i in la.inner(hr):
            p = wp.vec3i(k, j, i)
            want = f[b, k, j, i]
            if s0[k, j, i] != want or s0[p] != want:
                wp.atomic_add(errs, 0, 1)
            for c0 in range(2):
                for c1 in range(3):
                    w2 = want * 6 + c0 * 3 + c1
                    if s2[c0, c1, k, j, i] != w2 or s2[c0, c1, p] != w2:
                        wp.atomic_add(errs, 1, 1)
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            if s0[idx] != f[b, k, j, i]:
                wp.atomic_add(errs, 2, 1)

    return body


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=2, **SETTINGS)
@given(geo=M.geometries(max_n=4, max_ghost=2), halo=st.sampled_from([la.halo.none, la.halo.pm_j, M.DIAG, M.FACES]),
       kind=st.sampled_from(M.NINNER_KINDS))
def test_scratch_index_forms_alias(lt, it, geo, halo, kind):
    """Item 13: s[idx] == s[k, j, i] == s[Index3] and s[c0, c1, idx] == s[c0, c1, k, j, i] == s[c0, c1, Index3]."""
    if not M.halo_fits(geo, halo):
        return
    space = M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo))
    f = wp.array(np.random.default_rng(1).integers(0, 1000, size=geo.shape, dtype=np.int32), dtype=wp.int32)
    errs = wp.zeros(3, dtype=wp.int32)
    la.outer(space, alias_body(f, errs, halo))
    assert errs.numpy().tolist() == [0, 0, 0]


# -- item 16: zero() ------------------------------------------------------------------------------------------
def zero_body(errs, H):
    def body(rng, b):
        hr = rng.add_halo(H)
        s = la.get_per_point_scratch(wp.float64, hr, dims=(2,))
        for idx in la.inner(hr):
            s[0, idx] = wp.float64(1.5)
            s[1, idx] = wp.float64(2.5)
        s.zero()
        for idx in la.inner(hr):
            if s[0, idx] != wp.float64(0.0) or s[1, idx] != wp.float64(0.0):
                wp.atomic_add(errs, 0, 1)
        for idx in la.inner(hr):
            s[1, idx] = wp.float64(3.0)
        s.zero()
        s.zero()
        for k, j, i in la.inner(hr):
            if s[0, k, j, i] != wp.float64(0.0) or s[1, k, j, i] != wp.float64(0.0):
                wp.atomic_add(errs, 1, 1)
            wp.atomic_add(errs, 2, 1)

    return body


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_zero_clears_and_can_be_reused(lt, it):
    """Item 16: after zero() every slot reads T{}; buffers can be re-zeroed and reused."""
    geo = M.Geo(2, (1, 2, 1, 3, 1, 3), (4, 5, 5), via_box=True)
    space = M.make_space(lt, it, geo, ninner=4)
    errs = wp.zeros(3, dtype=wp.int32)
    la.outer(space, zero_body(errs, M.MINUS_ALL))
    visited = sum(len(M.visits(space, geo, sl, M.MINUS_ALL)) for sl in M.slices(space, geo))
    assert errs.numpy().tolist() == [0, 0, visited]


# -- item 17: registration ------------------------------------------------------------------------------------
def test_add_per_point_scratch_validates_its_arguments():
    """Item 17 (registration side): scalar dtype, a halo value, positive dims and count."""
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1)
    space.add_per_point_scratch(wp.float64)
    space.add_per_point_scratch(wp.int32, halo=la.halo.pm_i, dims=(2, 3), count=2)
    assert len(space.scratch) == 2
    with pytest.raises(TypeError, match="scalars"):
        space.add_per_point_scratch(wp.vec3d)
    with pytest.raises(TypeError, match="halo"):
        space.add_per_point_scratch(wp.float64, halo=[(0, 0, 0)])
    with pytest.raises(ValueError, match="positive"):
        space.add_per_point_scratch(wp.float64, dims=(2, 0))
    with pytest.raises(ValueError, match="positive"):
        space.add_per_point_scratch(wp.float64, count=0)
    assert len(space.scratch) == 2, "a rejected registration must not be recorded"


@pytest.mark.parametrize("lt,it", [(la.bvoi, la.memory), (la.bovi, la.logical_flat), (la.boiv, la.logical_coords)],
                         ids=["bvoi-memory", "bovi-flat", "boiv-coords"])
def test_parallel_slices(lt, it):
    """Items 1, 14, 15 when slices run on several threads (each with its own scratch arena)."""
    from brickwork import config

    geo = M.Geo(3, (2, 21, 2, 21, 2, 21), (24, 24, 24), via_box=True)
    assert geo.nblocks * geo.lbox.size >= config.parallel_threshold  # launch shares the slices among threads
    space = M.make_space(lt, it, geo, ninner=37)
    check_scratch(space, geo, M.FACES)
    visits = wp.zeros(geo.shape, dtype=wp.int32)
    la.outer(space, B.form_lambda_kji(visits, la.halo.none))
    L = geo.lbox
    v = visits.numpy()
    assert (v[:, L.ks:L.ke + 1, L.js:L.je + 1, L.is_:L.ie + 1] == 1).all() and v.max() == 1
