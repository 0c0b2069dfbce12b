"""expand_loop_abstraction runs stages with j or k halos as a ring of rows (``passes/ring_rows.py``).

Golden text of the ring's loops, the bodies it must leave alone (a ring could change a result),
results equal to numpy, and, for any block shape, tag pair and chunk, results equal to the
stage-after-stage loops bit for bit.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ir_helpers import check_golden, run, typed_la_body

import brickwork as wp
from brickwork import config, ir, la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.passes import ExpandLoopAbstraction, InlineLocalFunctions, ring_rows, row_fusion

Q = VarTag("ring_q")
U = VarTag("ring_u")
G = 2
_STAGED_CACHE = tempfile.mkdtemp(prefix="staged-", dir=os.environ["BRICKWORK_TEST_TMP"])  # instances built stage after stage
_MINUS = {1: la.halo.minus_i, 2: la.halo.minus_j, 3: la.halo.minus_k}
_FACES = {1: TE.F1, 2: TE.F2, 3: TE.F3}
_DIRS = {1: wp.X1DIR, 2: wp.X2DIR, 3: wp.X3DIR}


def _setup(loop, inner, nx=(8, 8, 8), block_nx=(4, 4, 4), chunk=la.ij_slab, d=2):
    pkg = Package("ring_test")
    pkg.add_field("ring_q", Metadata("Cell", "Independent", "WithFluxes"))
    pkg.add_field("ring_u", Metadata("Cell", "Independent", "WithFluxes"))
    mesh = Mesh(nx=nx, block_nx=block_nx, nghost=G, packages=[pkg])
    data = mesh.data("ring_q")
    data[:] = np.random.default_rng(sum(nx) + sum(block_nx) + d).random(data.shape) - 0.5
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [Q, U], with_fluxes=True).get_pack(md)
    space = la.IndexSpace(getattr(la, loop), getattr(la, inner), ninner=chunk, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md, te=_FACES[d])
    space.add_per_point_scratch(wp.float64, halo=_MINUS[d], count=2)
    return mesh, pack, space


def _sweep(pack, space, d, fold=False):
    """Reconstruct along direction ``d`` into scratch over the range grown by one cell below; the
    face values from the cell below's upper state and the cell's lower state; then the scratch
    overwritten (the faces read it one row down: the ring must wait) and a second variable from
    the new values, one of them one row down; with ``fold``, then fold the second variable and the
    scratch one row down (``inner_reduce``, for a space with a reducer)."""
    dd = space.get_delta(_DIRS[d])
    FOLD = fold

    def body(rng, b):
        hr = rng.add_halo(_MINUS[d])
        left = la.get_per_point_scratch(wp.float64, hr)
        right = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            q0 = pv[Q(), idx]
            slope = wp.float64(0.5) * (pv[Q(), idx + dd] - pv[Q(), idx - dd])
            left[idx] = q0 - wp.float64(0.5) * slope
            right[idx] = q0 + wp.float64(0.5) * slope
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, _DIRS[d])
        for idx in la.inner(rng):
            m = idx - dd
            fv[Q(), idx] = wp.float64(3.0) * right[m] - left[idx]
        rng.team_barrier()
        for idx in la.inner(hr):
            left[idx] = wp.float64(2.0) * pv[Q(), idx]
            right[idx] = wp.float64(0.5) * pv[Q(), idx - dd]
        rng.team_barrier()
        for idx in la.inner(rng):
            pv[U(), idx] = left[idx] + right[idx - dd]
        if FOLD:
            rng.team_barrier()
            la.inner_reduce(rng, lambda idx: pv[U(), idx] - wp.float64(0.25) * left[idx - dd])

    return body


def _sweep_numpy(q, d):
    """Faces ``G .. n - G`` along axis ``-d`` of ``q``, and the second variable on the cells of
    the same positions."""
    axis = q.ndim - d
    q = np.moveaxis(q, axis, -1)
    slope = np.zeros_like(q)
    slope[..., 1:-1] = 0.5 * (q[..., 2:] - q[..., :-2])
    left, right = q - 0.5 * slope, q + 0.5 * slope
    n = q.shape[-1]
    flux = 3.0 * right[..., G - 1:n - G] - left[..., G:n - G + 1]
    u = 2.0 * q[..., G:n - G + 1] + 0.5 * q[..., G - 2:n - G - 1]
    return np.moveaxis(flux, -1, axis), np.moveaxis(u, -1, axis)


def _ring(fn) -> bool:
    return any(name.startswith("_la_ring") for name in fn.locals)


def _staged(m):
    """Turn both row schedules off (the same cache key: a cache of its own)."""
    m.setattr(row_fusion, "plan", lambda outer, counts: None)
    m.setattr(ring_rows, "plan", lambda outer, counts: None)
    m.setattr(config, "cache_dir", _STAGED_CACHE)


def test_golden_ring_of_rows():
    _, pack, space = _setup("bvoi", "logical_coords", nx=(8, 8), block_nx=(4, 4))
    out = run(typed_la_body(_sweep(pack, space, 2), space), InlineLocalFunctions(), ExpandLoopAbstraction())
    check_golden("expand_loop_abstraction.ring_rows_logical_coords", out)
    assert _ring(out)
    (ring,) = [s for s in out.body if isinstance(s, ir.IRFor)]
    ifs = [s for s in ring.body if isinstance(s, ir.IRIf)]
    slides, stages = ifs[:2], ifs[2:]
    assert len(stages) == 4 and all(s.cond.op == "logical_and" for s in stages)  # a row of each stage a step
    # each scratch: a window of rows, its live rows copied down when it reaches the buffer's end
    assert all(s.cond.op == "ge" and s.body[-2].target.name.startswith("_la_base") for s in slides)


def test_the_lags_follow_the_dependences():
    """Each stage waits for what it reads (true) and for the reads of what it overwrites (anti), at
    the offsets of those reads."""
    _, pack, space = _setup("bvoi", "logical_coords", nx=(8, 8), block_nx=(4, 4))
    outer = next(s for s in run(typed_la_body(_sweep(pack, space, 2), space), InlineLocalFunctions()).body
                 if isinstance(s, ir.IRLAOuter))
    plan = ring_rows.plan(outer, {})
    assert plan is not None and len(plan.stages) == 4
    assert sorted(plan.waits[1]) == [(0, "true", (0, -1, 0)), (0, "true", (0, 0, 0))]
    # stage 3 overwrites what stage 2 read one row down; stage 4 reads stage 3's one row down
    assert (1, "anti", (0, -1, 0)) in plan.waits[2] and (2, "true", (0, -1, 0)) in plan.waits[3]


@pytest.mark.parametrize(("loop", "inner", "chunk"), [
    ("bvoi", "memory", la.ij_slab), ("bvoi", "memory", la.i_pencil), ("bvoi", "memory", la.kji_cube),
    ("bvoi", "logical_flat", la.ij_slab), ("bvoi", "logical_coords", la.ij_slab),
    ("bovi", "memory", la.kji_cube), ("bovi", "memory", la.ij_slab), ("bovi", "memory", 7),
    ("bovi", "logical_flat", la.kji_cube), ("bovi", "logical_coords", la.kji_cube),  # a chunk of the whole box
])
@pytest.mark.parametrize("d", [2, 3])
def test_results_equal_numpy(loop, inner, chunk, d):
    mesh, pack, space = _setup(loop, inner, (8, 6, 4), (4, 3, 2), chunk, d)
    body = _sweep(pack, space, d)
    q0 = mesh.data("ring_q")[:, 0].copy()
    fn = run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction())
    assert _ring(fn)
    la.outer(space, body)
    want_flux, want_u = _sweep_numpy(q0, d)
    flux = mesh.field("ring_q").flux_array(d)[:, 0]
    u = mesh.data("ring_u")[:, 0]
    # the range's positions along d (faces G .. n - G), interior cells across
    at = tuple(slice(G, n - G + 1) if a == 3 - d else slice(G, n - G) for a, n in enumerate(q0.shape[1:]))
    across = tuple(slice(None) if a == 3 - d else slice(G, n - G) for a, n in enumerate(q0.shape[1:]))
    np.testing.assert_allclose(flux[(slice(None), *at)], want_flux[(slice(None), *across)], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(u[(slice(None), *at)], want_u[(slice(None), *across)], rtol=1e-14, atol=1e-14)


def _refusals(pack, space):
    dy = space.get_delta(wp.X2DIR)

    def writes_off_its_cell(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng.add_halo(la.halo.minus_j))
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            s[idx - dy] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X2DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = s[idx - dy]

    def prints(rng, b):
        hr = rng.add_halo(la.halo.minus_j)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X2DIR)
        for idx in la.inner(rng):
            print(idx)  # the order of the lines would change
            fv[Q(), idx] = s[idx - dy]

    def reads_at_a_computed_cell(rng, b):
        hr = rng.add_halo(la.halo.minus_j)
        s = la.get_per_point_scratch(wp.float64, hr)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(hr):
            s[idx] = pv[Q(), idx]
        rng.team_barrier()
        fv = la.make_flux_pack_view(rng, pack, wp.X2DIR)
        for idx in la.inner(rng):
            m = idx
            if pv[Q(), idx] > wp.float64(0.0):
                m = idx - dy
            fv[Q(), idx] = s[m]

    def one_stage(rng, b):
        pv = la.make_pack_view(rng, pack)
        fv = la.make_flux_pack_view(rng, pack, wp.X2DIR)
        for idx in la.inner(rng):
            fv[Q(), idx] = pv[Q(), idx - dy]

    return [writes_off_its_cell, prints, reads_at_a_computed_cell, one_stage]


@pytest.mark.parametrize("n", range(4))
def test_bodies_a_ring_could_change_run_stage_after_stage(n):
    mesh, pack, space = _setup("bvoi", "memory")
    body = _refusals(pack, space)[n]
    assert not _ring(run(typed_la_body(body, space), InlineLocalFunctions(), ExpandLoopAbstraction()))
    la.outer(space, body)  # and they still run
    if n == 0:  # each cell's value lands one row below: the flux reads it back from there
        q = mesh.data("ring_q")[:, 0]
        flux = mesh.field("ring_q").flux_array(2)[:, 0]
        np.testing.assert_array_equal(flux[:, G:-G, G:-G + 1, G:-G], q[:, G:-G, G:-G + 1, G:-G])


@pytest.mark.parametrize(("loop", "inner", "chunk"), [("bovi", "logical_flat", la.ij_slab),
                                                      ("bvoi", "memory", 5)])
def test_spaces_whose_cells_are_not_whole_rows_run_stage_after_stage(loop, inner, chunk):
    """bovi with a logical inner tag visits a chunk's logical cells, bvoi memory pieces of a count
    of cells start anywhere in a row: neither is a set of rows the ring can lag."""
    _, pack, space = _setup(loop, inner, chunk=chunk)
    assert not _ring(run(typed_la_body(_sweep(pack, space, 2), space), InlineLocalFunctions(),
                         ExpandLoopAbstraction()))


_SPACES = [("bvoi", "memory", la.ij_slab), ("bvoi", "memory", la.i_pencil), ("bvoi", "memory", la.kji_cube),
           ("bvoi", "logical_flat", la.ij_slab), ("bvoi", "logical_coords", la.ij_slab),
           ("bovi", "memory", la.kji_cube), ("bovi", "memory", la.ij_slab), ("bovi", "memory", la.i_pencil),
           ("bovi", "logical_flat", la.kji_cube), ("bovi", "logical_coords", la.kji_cube)]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=st.tuples(st.integers(2, 5), st.integers(2, 4), st.integers(2, 3)),
       counts=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
       space_tags=st.sampled_from(_SPACES), chunk=st.one_of(st.none(), st.integers(1, 40)), d=st.sampled_from([1, 2, 3]))
def test_ring_equals_stage_after_stage(blocks, counts, space_tags, chunk, d):
    """Property: on any block shape, tag pair and chunk, and a sweep along any direction, the ring
    leaves every face and cell, ghosts included, exactly as the stage-after-stage loops do."""
    loop, inner, piece = space_tags
    if loop == "bovi" and inner == "memory" and chunk is not None:
        piece = chunk  # a chunk of any count of cells: spans cut anywhere
    nx = tuple(b * c for b, c in zip(blocks, counts))
    results = []
    for ring in (True, False):
        mesh, pack, space = _setup(loop, inner, nx, blocks, piece, d)
        body = _sweep(pack, space, d)
        with pytest.MonkeyPatch.context() as m:
            if not ring:
                _staged(m)
            la.outer(space, body)
        results.append((mesh.field("ring_q").flux.copy(), mesh.data("ring_u").copy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=st.tuples(st.integers(2, 5), st.integers(2, 4), st.integers(2, 3)),
       counts=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
       space_tags=st.sampled_from(_SPACES), chunk=st.one_of(st.none(), st.integers(1, 40)), d=st.sampled_from([1, 2, 3]),
       reducer=st.sampled_from(["Sum", "MinLoc"]))
@example(blocks=(2, 2, 2), counts=(1, 1, 1), space_tags=("bvoi", "logical_coords", la.ij_slab), chunk=None, d=1,
         reducer="Sum")  # an index vector, shifted through the inlined fold's alias of it
@example(blocks=(2, 2, 2), counts=(1, 1, 1), space_tags=("bovi", "logical_flat", la.kji_cube), chunk=1, d=1,
         reducer="Sum")  # a drawn chunk applies to the memory tag's bovi chunks only
def test_a_fold_after_the_stages_runs_in_the_ring_and_folds_as_stage_after_stage(blocks, counts, space_tags, chunk,
                                                                                  d, reducer):
    """Property: a body whose stages end in an ``inner_reduce`` runs as a ring too (its fold a stage
    that lags what it reads), and gives the stage-after-stage loops' fields and folded value bit for
    bit: a Sum folds each row's cells in the unfused order, a MinLoc finds the same first cell."""
    loop, inner, piece = space_tags
    if loop == "bovi" and inner == "memory" and chunk is not None:
        piece = chunk
    nx = tuple(b * c for b, c in zip(blocks, counts))
    results = []
    for ring in (True, False):
        mesh, pack, space = _setup(loop, inner, nx, blocks, piece, d)
        rspace = space.with_reducer(getattr(la, reducer)(wp.float64))
        body = _sweep(pack, space, d, fold=True)
        with pytest.MonkeyPatch.context() as m:
            if not ring:
                _staged(m)
            else:
                assert _ring(run(typed_la_body(body, rspace, reduce=True), InlineLocalFunctions(),
                                 ExpandLoopAbstraction()))
            value = la.outer_reduce(rspace, body)
        results.append((value, mesh.field("ring_q").flux.copy(), mesh.data("ring_u").copy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])


def test_lags_fold_as_a_balanced_tree():
    """A 3-D stage waits on dozens of offsets (hydro's fused stage on memory spans: every component
    read at every offset); a chain of that many ``max`` calls exhausted the recursion of the IR
    walkers. The fold is balanced: depth log2 of the terms, and the walkers copy it."""
    from brickwork.ir.walk import Rewriter
    from brickwork.passes.build import i32
    from brickwork.passes.ring_schedule import _fold

    def depth(e):
        return 1 + max((depth(a) for a in getattr(e, "args", [])), default=0)

    for n in (1, 2, 3, 5, 8, 1000):
        folded = _fold("max", [i32(v) for v in range(n)])
        assert depth(folded) == 1 + (n - 1).bit_length()
        copied = Rewriter().expr(folded)

        def leaves(e):
            return [e.value] if isinstance(e, ir.IRConst) else [v for a in e.args for v in leaves(a)]

        assert leaves(copied) == list(range(n))  # every term once, in order
