"""Semantics §15 items 1-9 and 11: which cells ``la.inner`` visits, per slice, for base and halo ranges
(docs/reference/loop_abstraction_semantics.md).

Bodies log every visit (slice origin, cell, ``get_kji`` of the index, the index itself) and the
logs are compared with the invariants and with the reference model of ``la_model``. Compile-time
choices (tag pair, backend, ndim, chunk kind, halo, body form) are drawn per example; several
geometries (runtime values) then run through the same compiled body.
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

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)


def expected_logs(space, geo, halo):
    """{(sweep, b, origin): sorted cells} from the model."""
    exp = {}
    for sl in M.slices(space, geo):
        exp[(0, sl.b, sl.start)] = sorted(M.visits(space, geo, sl))
        exp[(1, sl.b, sl.start)] = sorted(M.visits(space, geo, sl, halo))
    return exp


def check_invariants(space, geo, halo, got):
    """Items 1-7, stated on the implementation's visits only (the model gives S, S_H, Box_H)."""
    lt, it = space.loop_tag, space.inner_tag
    sls = {(sl.b, sl.start): sl for sl in M.slices(space, geo)}
    assert {(b, s) for (_, b, s) in got} <= set(sls), "visits logged for a slice origin that is not a slice"
    L = geo.lbox
    base_count = np.zeros(geo.shape, dtype=np.int64)
    for (sweep, b, start), cells in got.items():
        sl = sls[(b, start)]
        assert len(set(cells)) == len(cells), f"item 5/3: a cell visited twice in one inner call of slice {start}"
        for q in cells:
            assert M.in_memory(geo, q), f"visited {q} outside the memory box {geo.M}"
        if sweep == 0:
            for q in cells:
                base_count[(b, *q)] += 1
            assert set(sl.cells) <= set(cells), f"item 1/3: slice {start} misses logical cells"
            if it is not la.memory:
                outside = [q for q in cells if not L.contains(*q)]
                assert not outside, f"item 2: logical tag visits non-logical cells {outside[:4]}"
            elif lt is la.bovi:
                lo, hi = M.mflat(geo, sl.start), M.mflat(geo, sl.end)
                assert all(lo <= M.mflat(geo, q) <= hi for q in cells), "item 3: ghost outside its chunk's span"
        else:
            need = M.s_h(geo, sl, halo)
            missing = need - set(cells)
            assert not missing, f"item 4: halo range of slice {start} misses {sorted(missing)[:4]}"
            if it is not la.memory:
                box = M.box_h(geo, sl, halo)
                extra = [q for q in cells if not box.contains(*q)]
                assert not extra, f"item 6: visits {extra[:4]} outside Box_H {box}"
                if lt is la.bvoi and M.contiguous_single_axis(halo):
                    assert set(cells) == need, "item 6: bvoi + single-axis halo must visit exactly S_H"
    interior = base_count[:, L.ks:L.ke + 1, L.js:L.je + 1, L.is_:L.ie + 1]
    assert (interior == 1).all(), f"item 1: logical cells visited {sorted(set(interior.ravel()))} times"
    assert base_count.max() <= 1, "item 3: a memory cell visited twice over one outer sweep without halo"


def run_case(lt, it, halo, backend, form, geo, kind):
    space = M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo), backend=backend)
    if not M.halo_fits(geo, halo):  # item 18 (PROPOSED, semantics §14): Box_H must stay inside M
        with pytest.raises(wp.LaunchError, match="outside the memory box"):
            if form in B.LOG_FORMS:
                B.run_logged(space, B.LOG_FORMS[form], halo, 16)
            else:
                la.outer(space, B.COUNT_FORMS[form](wp.zeros(geo.shape, dtype=wp.int32), halo))
        return
    exp = expected_logs(space, geo, halo)
    if form in B.COUNT_FORMS:
        visits = wp.zeros(geo.shape, dtype=wp.int32)
        la.outer(space, B.COUNT_FORMS[form](visits, halo))
        want = M.count_array(geo, {})
        for (sweep, b, _), cells in exp.items():
            if sweep == 1:
                for q in cells:
                    want[(b, *q)] += 1
        np.testing.assert_array_equal(visits.numpy(), want)
        if halo.is_none:  # items 1-3 on the counts alone
            L = geo.lbox
            v = visits.numpy()
            assert (v[:, L.ks:L.ke + 1, L.js:L.je + 1, L.is_:L.ie + 1] == 1).all() and v.max() <= 1
            if it is not la.memory:
                assert v.sum() == geo.nblocks * L.size, "item 2: a logical tag visited ghost cells"
        return
    total = sum(len(v) for v in exp.values())
    rows = B.run_logged(space, B.LOG_FORMS[form], halo, total + 8)
    got, full = B.group(rows)
    check_invariants(space, geo, halo, got)
    assert got == exp, "visits differ from the reference model"
    # item 10: get_kji of a copy of the index (the decode path) and the argument itself (semantics §7, §8)
    for (sweep, b, start), rs in full.items():
        sl = M.SliceModel(b, start, start, [])
        for r in rs:
            q = tuple(int(x) for x in r[5:8])
            assert tuple(int(x) for x in r[8:11]) == q, f"item 10: get_kji(arg({q})) = {tuple(r[8:11])}"
            if form in ("for-idx", "def-idx"):
                a = M.arg(space, geo, sl, q)
                assert tuple(int(x) for x in r[11:11 + len(a)]) == a, f"arg at {q}: {tuple(r[11:15])} != {a}"


@st.composite
def configs(draw, halos=M.ALL_HALOS, forms=tuple(B.LOG_FORMS) + tuple(B.COUNT_FORMS), ngeo=3):
    halo = draw(st.sampled_from(halos))
    backend = draw(st.sampled_from(M.BACKENDS))
    form = draw(st.sampled_from(forms))
    ndim = draw(st.sampled_from((1, 2, 3)))
    chunk = draw(st.sampled_from(("count", "i_pencil", "ij_slab", "kji_cube")))
    geos = draw(M.geometries_for(ndim, ngeo))
    kinds = [draw(st.sampled_from(M.kinds_for(chunk))) for _ in geos]
    return halo, backend, form, list(zip(geos, kinds))


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=9, **SETTINGS)
@given(cfg=configs())
def test_visits_match_spec(lt, it, cfg):
    """Items 1-7 and 10 for every tag pair, random halos, backends, body forms, ninner and geometry."""
    halo, backend, form, cases = cfg
    for geo, kind in cases:
        run_case(lt, it, halo, backend, form, geo, kind)


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_exactly_once_every_ninner(lt, it):
    """Item 1 for each ninner of the brief (1, N-1, N, N+1, i_pencil, ij_slab, kji_cube) on fixed geometries
    (uneven ghosts, thin active directions); the team backend for one ninner. Random ndim: test_visits_match_spec."""
    geos = [M.Geo(2, (2, 4, 1, 3, 2, 5), (7, 5, 8)), M.Geo(1, (1, 1, 1, 3, 1, 4), (3, 5, 6), via_box=True),
            M.Geo(3, (1, 3, 1, 1, 1, 1), (5, 3, 3), via_box=True), M.Geo(1, (2, 5, 1, 3, 3, 3), (8, 5, 7))]
    for kind in M.NINNER_KINDS:
        for geo in geos:
            run_case(lt, it, la.halo.none, la.raw, "lambda-kji", geo, kind)
            if kind == "N-1":
                run_case(lt, it, la.halo.none, la.team, "lambda-kji", geo, kind)


OTHER_FORMS = ["for-kji", "def-idx", "def-kji", "lambda-idx", "lambda-kji"]


@pytest.mark.parametrize("n,lt,it", [(n, *p) for n, p in enumerate(M.TAG_PAIRS)], ids=M.TAG_IDS)
@settings(max_examples=1, **SETTINGS)
@given(cfg=configs(halos=M.MULTI_AXIS + [la.halo.pm_j, la.halo.minus_i], forms=("for-idx",), ngeo=3))
def test_forms_and_backends_agree(n, lt, it, cfg):
    """Item 11: body forms visit the same cells (two forms per tag pair, rotating, besides ``for idx``) and the
    raw and team backends leave the same memory."""
    halo, _, _, cases = cfg
    forms = ["for-idx", OTHER_FORMS[n % 5], OTHER_FORMS[(n + 2) % 5]]
    for geo, kind in cases:
        if not M.halo_fits(geo, halo):
            continue
        spaces = {be.name: M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo), backend=be)
                  for be in M.BACKENDS}
        exp = expected_logs(spaces["raw"], geo, halo)
        total = sum(len(v) for v in exp.values())
        want = np.zeros(geo.shape, dtype=np.int64)
        for (sweep, b, _), cells in exp.items():
            for q in cells:
                want[(b, *q)] += sweep
        for form in forms:
            if form in B.LOG_FORMS:
                got = B.group(B.run_logged(spaces["raw"], B.LOG_FORMS[form], halo, total + 8))[0]
                assert got == exp, f"form {form} differs from the model"
            else:
                visits = wp.zeros(geo.shape, dtype=wp.int32)
                la.outer(spaces["raw"], B.COUNT_FORMS[form](visits, halo))
                np.testing.assert_array_equal(visits.numpy(), want, err_msg=form)
        # identical memory: the logs hold the same rows (order across slices is unspecified)
        raw_rows = B.run_logged(spaces["raw"], B.probe, halo, total + 8)
        team_rows = B.run_logged(spaces["team"], B.probe, halo, total + 8)
        assert len(raw_rows) == len(team_rows) == total
        np.testing.assert_array_equal(raw_rows[np.lexsort(raw_rows.T)], team_rows[np.lexsort(team_rows.T)])


# -- item 7: halo ranges of neighbouring slices overlap ---------------------------------------------------
@pytest.mark.parametrize("lt", [la.bovi, la.boiv], ids=["bovi", "boiv"])
def test_neighbouring_halo_ranges_overlap(lt):
    """Item 7: no global uniqueness across slices: bovi/boiv halo ranges of neighbours share cells."""
    geo = M.Geo(1, (1, 3, 1, 3, 1, 3), (5, 5, 5), via_box=True)
    space = M.make_space(lt, la.logical_flat, geo, ninner=la.i_pencil)
    rows = B.run_logged(space, B.probe, la.halo.pm_j, 10_000)
    halo_rows = rows[rows[:, 0] == 1]
    _, counts = np.unique(halo_rows[:, 5:8], axis=0, return_counts=True)
    assert counts.max() > 1
    got, _ = B.group(rows)
    assert got == expected_logs(space, geo, la.halo.pm_j)


# -- item 8: bovi + k_triplet ------------------------------------------------------------------------------
@pytest.mark.parametrize("it", [la.logical_flat, la.logical_coords, la.memory], ids=lambda t: t.name)
@settings(max_examples=4, **SETTINGS)
@given(geos=M.geometries_for(3, 3), data=st.data())
def test_bovi_k_triplet_three_regions(it, geos, data):
    """Item 8: bovi + pm_k with chunk < ni*nj: three increasing spans of |chunk| cells each."""
    for geo in geos:
        nk, nj, ni = geo.lbox.shape
        if ni * nj < 2:
            continue
        n = data.draw(st.integers(1, ni * nj - 1))
        space = M.make_space(la.bovi, it, geo, ninner=n)
        exp = expected_logs(space, geo, la.halo.pm_k)
        rows = B.run_logged(space, B.probe, la.halo.pm_k, sum(len(v) for v in exp.values()) + 8)
        got, full = B.group(rows)
        assert got == exp
        for sl in M.slices(space, geo):
            sp, LI = M.spans(space, geo, sl, la.halo.pm_k)
            assert len(sp) == 3 and all(a[1] < b[0] for a, b in zip(sp, sp[1:]))
            length = len(sl.cells) if it is not la.memory else M.mflat(geo, sl.end) - M.mflat(geo, sl.start) + 1
            assert sum(e - s + 1 for s, e in sp) == 3 * length
            cells = got[(1, sl.b, sl.start)]
            assert len(cells) == 3 * length
            # raw order: the three spans one after the other, each increasing in flat order
            order = [tuple(int(x) for x in r[5:8]) for r in full[(1, sl.b, sl.start)]]
            flat = [M.mflat(geo, q) for q in order]
            assert flat == sorted(flat)


# -- item 9: reduced dimensions ----------------------------------------------------------------------------
@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=2, **SETTINGS)
@given(ndim=st.sampled_from((1, 2)), data=st.data())
def test_reduced_dimension_drops_k_offsets(lt, it, ndim, data):
    """Item 9: with M extent_k == 1 a k halo visits exactly S; in-plane halos are unchanged."""
    geos = data.draw(M.geometries_for(ndim, 3))
    halo = data.draw(st.sampled_from([la.halo.pm_k, la.halo.minus_k, la.halo.plus_k]))
    for geo in geos:
        assert geo.M[0] == 1 and space_ndim(geo) == ndim
        space = M.make_space(lt, it, geo, ninner=data.draw(st.sampled_from([1, 3, la.ij_slab])))
        exp = expected_logs(space, geo, halo)
        rows = B.run_logged(space, B.probe, halo, sum(len(v) for v in exp.values()) + 8)
        got, _ = B.group(rows)
        assert got == exp
        for (sweep, b, start), cells in got.items():
            if sweep == 1:
                assert cells == got[(0, b, start)], "a k halo in 2-D must visit exactly the base cells"
        d3 = space.get_delta(wp.X3DIR)
        if it is la.logical_coords:
            assert d3 == la.Index3(0, 0, 0)
        else:
            assert (d3.dk, d3.dj, d3.di, d3.flat) == (0, 0, 0, 0)
        if ndim == 1:
            d2 = space.get_delta(wp.X2DIR)
            assert (tuple(vars(d2).values())[:3]) == (0, 0, 0)


def space_ndim(geo):
    return M.make_space(la.bvoi, la.logical_flat, geo).get_ndim()
