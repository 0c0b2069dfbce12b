"""expand_loop_abstraction fuses stages with i-only halos row by row (``passes/row_fusion.py``).

Golden text of the fused loops, the bodies it must leave unfused (fusing them could change a
result), and results equal to numpy for every tag pair and chunk, block shape and dimensionality.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_helpers import check_golden, run, typed_la_body

import brickwork as wp
from brickwork import config, ir, la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.passes import ExpandLoopAbstraction, InlineLocalFunctions, ring_rows, row_fusion

Q = VarTag("fuse_q")
G = 2
_UNFUSED_CACHE = tempfile.mkdtemp(prefix="unfused-", dir=os.environ["BRICKWORK_TEST_TMP"])  # instances built with fusion turned off


def _setup(loop, inner, nx=(8, 8, 8), block_nx=(4, 4, 4), chunk=la.ij_slab):
    pkg = Package("fuse_test")
    pkg.add_field("fuse_q", Metadata("Cell", "Independent", "WithFluxes"))
    mesh = Mesh(nx=nx, block_nx=block_nx, nghost=G, packages=[pkg])
    data = mesh.data("fuse_q")
    data[:] = np.random.default_rng(sum(nx) + sum(block_nx)).random(data.shape) - 0.5
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [Q], with_fluxes=True).get_pack(md)
    space = la.IndexSpace(getattr(la, loop), getattr(la, inner), ninner=chunk, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md, te=TE.F1)
    space.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=2)
    return mesh, pack, space


def _recon(pack, space):
    """PLM-like reconstruction into two scratch buffers, a barrier, an upwind-ish flux from them."""
    dx1 = space.get_delta(wp.X1DIR)

    def body(rng, b):
        hr = rng.add_halo(la.halo.minus_i)
        left = la.get_per_point_scratch(wp.float64, hr)
        right = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            q0 = pv[Q(), idx]
            slope = wp.float64(0.5) * (pv[Q(), idx + dx1] - pv[Q(), idx - dx1])
            left[idx] = q0 - wp.float64(0.5) * slope
            right[idx] = q0 + wp.float64(0.5) * slope
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = wp.float64(3.0) * right[idx - dx1] - left[idx]

    return body


def _recon_numpy(q):
    """The flux on x1 faces i = G .. ni - G of ``q`` (.., ni): face i takes cells i - 1 and i."""
    slope = np.zeros_like(q)
    slope[..., 1:-1] = 0.5 * (q[..., 2:] - q[..., :-2])
    left, right = q - 0.5 * slope, q + 0.5 * slope
    ni = q.shape[-1]
    return 3.0 * right[..., G - 1:ni - G] - left[..., G:ni - G + 1]


def _fused(fn) -> bool:
    return any(name.startswith("_la_row") for name in fn.locals)


def _skewed_steps(kloop) -> list:
    """The simd row loop of each stage in the plane's loop over steps, checking that stage n visits
    row ``step - n`` (the skew of ``row_fusion_schedule.skewed_rows``) under a guard of its own."""
    (steps,) = [s for s in kloop.body if isinstance(s, ir.IRFor)]
    loops = []
    for n, guard in enumerate(steps.body):
        assert isinstance(guard, ir.IRIf) and not guard.orelse
        row = guard.body[0].value  # the stage's row: the step, less n
        if n == 0:
            assert isinstance(row, ir.IRLocal) and row.name == steps.var.name
        else:
            assert isinstance(row, ir.IRCall) and row.op == "sub" and row.args[0].name == steps.var.name
            assert row.args[1].value == n
        (loop,) = [s for s in guard.body if isinstance(s, ir.IRFor)]
        assert loop.simd
        loops.append(loop)
    return loops


@pytest.mark.parametrize("inner", ["memory", "logical_coords"])
def test_golden_fused_rows(inner):
    _, pack, space = _setup("bvoi", inner)
    out = run(typed_la_body(_recon(pack, space), space), InlineLocalFunctions(), ExpandLoopAbstraction())
    check_golden(f"expand_loop_abstraction.fused_rows_{inner}", out)
    assert _fused(out)
    (kloop,) = [s for s in out.body if isinstance(s, ir.IRFor)]
    base = kloop.body[0]  # the plane's scratch base
    assert isinstance(base, ir.IRAssign) and base.target.name.startswith("_la_row")
    if inner == "memory":  # ij_slab pieces: each stage over its plane's one memory span, no row loop
        spans = [s for s in kloop.body if isinstance(s, ir.IRFor)]
        assert len(spans) == 2 and all(s.simd for s in spans)
    else:  # one loop over the rows inside, both stages per row, the second a row behind the first
        assert len(_skewed_steps(kloop)) == 2


@pytest.mark.parametrize("inner", ["logical_flat", "logical_coords"])
def test_golden_fused_rows_of_a_bovi_chunk(inner):
    """A bovi chunk's rows: the rows and the first and last row's i span are cut where the chunk
    starts and ends (selects on k and j), both stages run per row, the second a row behind."""
    _, pack, space = _setup("bovi", inner, chunk=5)
    out = run(typed_la_body(_recon(pack, space), space), InlineLocalFunctions(), ExpandLoopAbstraction())
    check_golden(f"expand_loop_abstraction.fused_rows_bovi_{inner}", out)
    assert _fused(out)
    (kloop,) = [s for s in out.body if isinstance(s, ir.IRFor)]
    base, first_row, _, steps = kloop.body
    assert isinstance(base, ir.IRAssign) and base.target.name.startswith("_la_row")
    assert isinstance(first_row.value, ir.IRSelect)  # the chunk's first row in its first plane
    assert steps.start.name == first_row.target.name
    assert len(_skewed_steps(kloop)) == 2
    assert not ir.contains(out.body, ir.IRWhile)  # no row-by-row divisions


@pytest.mark.parametrize(("loop", "inner", "chunk"), [
    ("bvoi", "memory", la.ij_slab), ("bvoi", "memory", la.i_pencil), ("bvoi", "memory", la.kji_cube),
    ("bvoi", "logical_flat", la.ij_slab), ("bvoi", "logical_coords", la.ij_slab),
    ("bovi", "logical_flat", la.ij_slab), ("bovi", "memory", la.ij_slab), ("bovi", "logical_coords", la.i_pencil),
    ("bovi", "logical_flat", 7), ("bovi", "logical_flat", la.kji_cube),
])
@pytest.mark.parametrize(("nx", "block_nx"), [((8, 8, 8), (4, 4, 4)), ((16, 4, 2), (8, 2, 2)), ((6, 6), (3, 6)),
                                              ((10,), (5,))])
def test_results_equal_numpy_fused_or_not(loop, inner, chunk, nx, block_nx):
    mesh, pack, space = _setup(loop, inner, nx, block_nx, chunk)
    body = _recon(pack, space)
    fn = run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction())
    assert _fused(fn) is ((loop == "bvoi" and chunk is not la.kji_cube) or (loop == "bovi" and inner != "memory"))
    la.outer(space, body)
    q = mesh.data("fuse_q")[:, 0]
    flux = mesh.field("fuse_q").flux[:, 0]
    ks, js = (slice(G, n - G) if n > 1 else slice(None) for n in q.shape[1:3])
    want = _recon_numpy(q[:, ks, js, :])
    np.testing.assert_allclose(flux[:, ks, js, G:q.shape[-1] - G + 1], want, rtol=1e-14, atol=1e-14)


def _three_stages(pack, space):
    """Three stages: cells into ``a``, ``b = 2 a`` on the same cells, then face i from ``b[i - 1] - a[i]``."""
    dx1 = space.get_delta(wp.X1DIR)

    def body(rng, b):
        hr = rng.add_halo(la.halo.minus_i)
        a = la.get_per_point_scratch(wp.float64, hr)
        twice = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            a[idx] = pv[Q(), idx]
        rng.team_barrier()
        for idx in la.inner(hr):
            twice[idx] = wp.float64(2.0) * a[idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = twice[idx - dx1] - a[idx]

    return body


@pytest.mark.parametrize(("loop", "chunk"), [("bvoi", la.ij_slab), ("bovi", la.ij_slab), ("bovi", 5)])
def test_three_stages_run_one_row_apart(loop, chunk):
    """Stage n of a plane visits row step - n: the middle stage's guard bounds the step on both sides
    (j0 + 1 <= step <= j1 + 1), the plane ends with the last stage's last row; every face as numpy."""
    mesh, pack, space = _setup(loop, "logical_flat", chunk=chunk)
    body = _three_stages(pack, space)
    fn = run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction())
    assert _fused(fn)
    (kloop,) = [s for s in fn.body if isinstance(s, ir.IRFor)]
    assert len(_skewed_steps(kloop)) == 3
    (steps,) = [s for s in kloop.body if isinstance(s, ir.IRFor)]
    guards = [g.cond for g in steps.body]
    assert guards[0].op == "le" and guards[1].op == "logical_and" and guards[2].op == "ge"
    la.outer(space, body)
    q = mesh.data("fuse_q")[:, 0]
    flux = mesh.field("fuse_q").flux[:, 0]
    ni = q.shape[-1]
    inner = (slice(None), slice(G, -G), slice(G, -G))
    np.testing.assert_array_equal(flux[(*inner, slice(G, ni - G + 1))],
                                  2.0 * q[(*inner, slice(G - 1, ni - G))] - q[(*inner, slice(G, ni - G + 1))])


def test_a_j_halo_is_not_fused():
    _, pack, space = _setup("bvoi", "memory")
    dx2 = space.get_delta(wp.X2DIR)

    def body(rng, b):
        hr = rng.add_halo(la.halo.minus_j)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = s[idx - dx2]

    space.add_per_point_scratch(wp.float64, halo=la.halo.minus_j)
    assert not _fused(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))


def test_a_bovi_stage_whose_i_offsets_have_a_gap_is_not_fused():
    """Unfused, a chunk of one short row grown by di in {-2, 0} skips the cell at di = -1 of a
    row: fused loops would visit it (a flux view write the unfused loops never make)."""
    gap = la.halo.make([(0, 0, -2), (0, 0, 0)])
    _, pack, space = _setup("bovi", "logical_flat", chunk=1)
    space.add_per_point_scratch(wp.float64, halo=gap)
    dx1 = space.get_delta(wp.X1DIR)

    def body(rng, b):
        hr = rng.add_halo(gap)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = s[idx - dx1 - dx1]

    assert not _fused(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))


def test_a_stage_that_writes_what_another_reads_is_not_fused():
    _, pack, space = _setup("bvoi", "memory")
    dx1 = space.get_delta(wp.X1DIR)

    def body(rng, b):
        hr = rng.add_halo(la.halo.minus_i)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        for idx in la.inner(rng):
            pv[Q(), idx] = s[idx - dx1]  # an in-place update of what the first stage reads

    assert not _fused(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))


@wp.func
def loud(x: wp.float64) -> wp.float64:
    print(x)
    return x


def test_a_stage_that_prints_or_reads_scratch_off_its_row_span_is_not_fused():
    _, pack, space = _setup("bvoi", "memory")
    dx1 = space.get_delta(wp.X1DIR)

    def printing_function(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            s[idx] = loud(pv[Q(), idx])  # the print order would change
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = s[idx]

    def printing(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            print(idx)
            fv[Q(), idx] = s[idx]

    def off_span(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = s[idx - dx1]  # the first stage did not visit i = is - 1

    for body in (printing, printing_function, off_span):
        assert not _fused(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=st.tuples(st.integers(2, 5), st.integers(2, 4), st.integers(2, 3)),
       counts=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
       inner=st.sampled_from(["memory", "logical_flat", "logical_coords"]),
       chunk=st.sampled_from([la.ij_slab, la.i_pencil]))
def test_fused_rows_equal_stage_after_stage(blocks, counts, inner, chunk):
    """Property: on any block shape and tag, the fused loops leave the interior faces exactly as the
    stage-after-stage loops do (the same body compiled with fusion turned off)."""
    nx = tuple(b * c for b, c in zip(blocks, counts))
    results = []
    for fuse in (True, False):
        mesh, pack, space = _setup("bvoi", inner, nx, blocks, chunk)
        body = _recon(pack, space)
        with pytest.MonkeyPatch.context() as m:
            if not fuse:  # the same cache key as the fused instance: keep it in a cache of its own
                m.setattr(row_fusion, "plan", lambda outer, counts: None)
                m.setattr(ring_rows, "plan", lambda outer, counts: None)
                m.setattr(config, "cache_dir", _UNFUSED_CACHE)
            la.outer(space, body)
        q = mesh.data("fuse_q")[:, 0]
        results.append(mesh.field("fuse_q").flux[:, 0][:, G:q.shape[1] - G, G:q.shape[2] - G, G:q.shape[3] - G + 1])
    np.testing.assert_array_equal(results[0], results[1])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=st.tuples(st.integers(2, 5), st.integers(2, 4), st.integers(2, 3)),
       counts=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
       inner=st.sampled_from(["logical_flat", "logical_coords"]),
       chunk=st.one_of(st.sampled_from([la.ij_slab, la.i_pencil, la.kji_cube]), st.integers(1, 40)))
def test_fused_bovi_chunks_equal_stage_after_stage(blocks, counts, inner, chunk):
    """Property: bovi chunks of any size (rows cut anywhere) fused row by row leave every face,
    ghost faces included, exactly as the stage-after-stage loops do."""
    nx = tuple(b * c for b, c in zip(blocks, counts))
    results = []
    for fuse in (True, False):
        mesh, pack, space = _setup("bovi", inner, nx, blocks, chunk)
        body = _recon(pack, space)
        with pytest.MonkeyPatch.context() as m:
            if not fuse:
                m.setattr(row_fusion, "plan", lambda outer, counts: None)
                m.setattr(ring_rows, "plan", lambda outer, counts: None)
                m.setattr(config, "cache_dir", _UNFUSED_CACHE)
            la.outer(space, body)
        results.append(mesh.field("fuse_q").flux.copy())
    np.testing.assert_array_equal(results[0], results[1])


def _recon_with_coefficient(pack, space, coef, variant="plain"):
    """``_recon`` with the flux's factor read once before the stages (``c = coef[0]``) and the left
    cell named by a local (``m = idx - dx1``), as the hydro flux kernels write them. The variants
    change one of the two so that fusing could change a result."""
    dx1 = space.get_delta(wp.X1DIR)

    def plain(rng, b):
        c = coef[0]
        hr = rng.add_halo(la.halo.minus_i)
        left = la.get_per_point_scratch(wp.float64, hr)
        right = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            q0 = pv[Q(), idx]
            slope = wp.float64(0.5) * (pv[Q(), idx + dx1] - pv[Q(), idx - dx1])
            left[idx] = q0 - wp.float64(0.5) * slope
            right[idx] = q0 + wp.float64(0.5) * slope
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            m = idx - dx1
            fv[Q(), idx] = c * right[m] - left[idx]

    def stage_sets_c(rng, b):  # the first stage changes c: the second reads the last cell's value
        c = coef[0]
        hr = rng.add_halo(la.halo.minus_i)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
            c = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = c * s[idx]

    def m_set_twice(rng, b):  # m names idx - dx1 or idx: no constant offset
        hr = rng.add_halo(la.halo.minus_i)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            m = idx - dx1
            if pv[Q(), idx] > wp.float64(0.0):
                m = idx
            fv[Q(), idx] = s[m]

    return {"plain": plain, "stage_sets_c": stage_sets_c, "m_set_twice": m_set_twice}[variant]


@pytest.mark.parametrize(("loop", "inner"), [("bvoi", "memory"), ("bovi", "logical_flat"), ("bvoi", "logical_flat")])
def test_a_value_read_before_the_stages_and_a_named_left_cell_are_fused(loop, inner):
    mesh, pack, space = _setup(loop, inner)
    coef = wp.array(np.array([2.5]), dtype=wp.float64)
    body = _recon_with_coefficient(pack, space, coef)
    fn = run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction())
    assert _fused(fn)
    la.outer(space, body)
    q = mesh.data("fuse_q")[:, 0]
    flux = mesh.field("fuse_q").flux[:, 0][:, G:-G, G:-G, G:q.shape[-1] - G + 1]
    slope = np.zeros_like(q)
    slope[..., 1:-1] = 0.5 * (q[..., 2:] - q[..., :-2])
    left, right = (q - 0.5 * slope)[:, G:-G, G:-G], (q + 0.5 * slope)[:, G:-G, G:-G]
    ni = q.shape[-1]
    np.testing.assert_allclose(flux, 2.5 * right[..., G - 1:ni - G] - left[..., G:ni - G + 1], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("variant", ["stage_sets_c", "m_set_twice"])
def test_a_value_a_stage_changes_or_a_cell_name_without_one_offset_is_not_fused(variant):
    _, pack, space = _setup("bvoi", "memory")
    coef = wp.array(np.array([2.5]), dtype=wp.float64)
    body = _recon_with_coefficient(pack, space, coef, variant)
    assert not _fused(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))
