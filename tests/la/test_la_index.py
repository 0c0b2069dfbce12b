"""Semantics §3-§5 host queries and §15 items 9, 10, 12: index values, get_delta and offset arithmetic
(docs/reference/loop_abstraction_semantics.md)."""

from __future__ import annotations

import la_bodies as B
import la_model as M
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import la
from brickwork.la.indices import Indexer3D
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))

# (dk, dj, di) of each offset expression in offsets_body, in order
OFFSETS = [(0, 0, 0), (0, 0, 1), (0, 0, -1), (0, 1, 0), (-1, 0, 0), (1, 1, 1), (-1, -1, -1), (-1, 2, 1), (1, 0, -2)]


def offsets_body(out, cnt, d1, d2, d3):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            copy = idx
            B.record(out, cnt, b, k, j, i, 0, rng.get_kji(copy), B.arg_comps(idx))
            B.record(out, cnt, b, k, j, i, 1, rng.get_kji(idx + d1), B.arg_comps(idx + d1))
            B.record(out, cnt, b, k, j, i, 2, rng.get_kji(idx - d1), B.arg_comps(idx - d1))
            B.record(out, cnt, b, k, j, i, 3, rng.get_kji(idx + d2), B.arg_comps(idx + d2))
            B.record(out, cnt, b, k, j, i, 4, rng.get_kji(idx - d3), B.arg_comps(idx - d3))
            B.record(out, cnt, b, k, j, i, 5, rng.get_kji(idx + d1 + d2 + d3), B.arg_comps(idx + d1 + d2 + d3))
            B.record(out, cnt, b, k, j, i, 6, rng.get_kji(idx - d1 - d2 - d3), B.arg_comps(idx - d1 - d2 - d3))
            B.record(out, cnt, b, k, j, i, 7, rng.get_kji(idx + (2 * d2 + d1 - d3)), B.arg_comps(idx + (2 * d2 + d1 - d3)))
            B.record(out, cnt, b, k, j, i, 8, rng.get_kji(idx - d1 * 2 + d3), B.arg_comps(idx - d1 * 2 + d3))

    return body


def slice_of(space, geo):
    """{(b, p): slice} for the logical cells."""
    return {(sl.b, p): sl for sl in M.slices(space, geo) for p in sl.cells}


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=3, **SETTINGS)
@given(geo=M.geometries(max_ghost=3), backend=st.sampled_from(M.BACKENDS), kind=st.sampled_from(M.NINNER_KINDS))
def test_offset_arithmetic_denotes_p_plus_h(lt, it, geo, backend, kind):
    """Item 12: arg(p) + sum_d h_d * get_delta(d) denotes p + h (flat / Index3 / MemoryOffset); item 9:
    a zero delta in an inactive direction leaves the index unchanged; item 10 for shifted indices."""
    space = M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo), backend=backend)
    d1, d2, d3 = (space.get_delta(d) for d in (wp.X1DIR, wp.X2DIR, wp.X3DIR))
    nlog = len(OFFSETS) * sum(len(M.visits(space, geo, sl)) for sl in M.slices(space, geo))
    out = wp.full((nlog + 1, 12), -777, dtype=wp.int32)
    cnt = wp.zeros(1, dtype=wp.int32)
    la.outer(space, offsets_body(out, cnt, d1, d2, d3))
    assert cnt.numpy()[0] == nlog
    got = {(r[0], (r[1], r[2], r[3]), r[4]): r[5:] for r in out.numpy()[:nlog].tolist()}
    assert len(got) == nlog, "a (cell, offset) pair recorded twice"
    owner = slice_of(space, geo)
    for (b, p), sl in owner.items():
        for n, h in enumerate(OFFSETS):
            # a direction with memory extent 1 has a zero delta: the offset collapses there (item 9)
            h_eff = tuple(c if geo.M[d] > 1 or d == 2 else 0 for d, c in enumerate(h))
            q = M.add(p, h_eff)
            if not M.in_memory(geo, q):
                continue
            row = got[(b, p, n)]
            assert tuple(row[:3]) == q, f"get_kji(arg({p}) + {h}) = {tuple(row[:3])}, expected {q}"
            a = M.arg(space, geo, sl, q)
            assert tuple(row[3:3 + len(a)]) == a, f"arg({p}) + {h} = {tuple(row[3:])}, expected {a}"


# -- host values: Index3, MemoryOffset, get_delta, queries (semantics §3, §5) ---------------------------------
ints = st.integers(-50, 50)


@settings(max_examples=60, **SETTINGS)
@given(a=st.tuples(ints, ints, ints), b=st.tuples(ints, ints, ints), n=ints, fa=ints, fb=ints)
def test_index3_and_memory_offset_arithmetic(a, b, n, fa, fb):
    """Semantics §3: componentwise ops; MemoryOffset behaves as its flat int; int - MemoryOffset is an int."""
    A, Bv = la.Index3(*a), la.Index3(*b)
    assert A + Bv == la.Index3(*(x + y for x, y in zip(a, b)))
    assert A - Bv == la.Index3(*(x - y for x, y in zip(a, b)))
    assert -A == la.Index3(*(-x for x in a)) and n * A == A * n == la.Index3(*(n * x for x in a))
    P, Q = la.MemoryOffset(*a, fa), la.MemoryOffset(*b, fb)
    s = P + Q
    assert isinstance(s, la.MemoryOffset) and (s.dk, s.dj, s.di, s.flat) == (*[x + y for x, y in zip(a, b)], fa + fb)
    d = P - Q
    assert isinstance(d, la.MemoryOffset) and (d.dk, d.dj, d.di, d.flat) == (*[x - y for x, y in zip(a, b)], fa - fb)
    m = n * P
    assert (m.dk, m.dj, m.di, m.flat) == (n * a[0], n * a[1], n * a[2], n * fa) and P * n == m
    neg = -P
    assert (neg.dk, neg.dj, neg.di, neg.flat) == (-a[0], -a[1], -a[2], -fa)
    assert int(P) == fa and n - P == n - fa and type(n - P) is int and P + n == fa + n and n + P == fa + n
    assert [0, 1, 2, 3][la.MemoryOffset(0, 0, 1, 1)] == 1  # usable as an index (implicit int)
    # numpy integers too, and comparisons compare the flat offset with an int
    assert P + np.int32(n) == fa + n and P - np.int64(n) == fa - n and np.int64(n) + P == fa + n
    assert type(P + np.int32(n)) is int
    assert P == fa and (P < fa + 1) and (P >= fa) and not (P > fa) and P != fa + 1
    assert (P == Q) == ((*a, fa) == (*b, fb)) and hash(P) == hash(fa)


@pytest.mark.parametrize("factor", [2.5, np.float64(2.0), True, "2"], ids=repr)
def test_index_values_scale_by_integers_only(factor):
    for value in (la.Index3(1, 2, 3), la.MemoryOffset(1, 2, 3, 40)):
        with pytest.raises(TypeError, match="can be multiplied by an integer only"):
            value * factor
    assert la.Index3(1, 2, 3) * np.int64(2) == la.Index3(2, 4, 6)


@settings(max_examples=60, **SETTINGS)
@given(geo=M.geometries(), lt_it=st.sampled_from(M.TAG_PAIRS), kind=st.sampled_from(M.NINNER_KINDS),
       h=st.tuples(ints, ints, ints))
def test_space_queries(geo, lt_it, kind, h):
    """Semantics §5: GetNdim, GetNInner, GetNOuter, GetMemoryOffset, GetDelta (zero when the extent is 1)."""
    lt, it = lt_it
    space = M.make_space(lt, it, geo, ninner=M.ninner_value(kind, geo))
    NK, NJ, NI = geo.M
    assert space.get_ndim() == sum(n > 1 for n in geo.M) == geo.ndim
    n = M.chunk_len(space.ninner, geo.lbox)
    assert space.get_ninner() == n and space.get_nouter() == -(-geo.lbox.size // n)
    assert space.get_memory_offset(*h) == h[0] * NJ * NI + h[1] * NI + h[2]
    for direction, step in ((wp.X1DIR, (0, 0, 1)), (wp.X2DIR, (0, int(NJ > 1), 0)), (wp.X3DIR, (int(NK > 1), 0, 0)),
                            (0, (0, 0, 0)), (4, (0, 0, 0))):
        d = space.get_delta(direction)
        if it is la.logical_coords:
            assert d == la.Index3(*step)
        else:
            assert isinstance(d, la.MemoryOffset)
            assert (d.dk, d.dj, d.di, d.flat) == (*step, space.get_memory_offset(*step))


def test_production_constructor_bounds():
    """Semantics §5: M from the entire bounds of memory_te, L from (domain, te) widened by the integer halo in
    active directions only."""
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell"))
    for nx, bnx in (((8,), (4,)), ((8, 6), (4, 3)), ((4, 4, 6), (2, 4, 3))):
        mesh = Mesh(nx, bnx, nghost=2, packages=[pkg])
        md = mesh.mesh_data()
        cb = mesh.cellbounds
        for domain, te, mem_te, halo in ((IndexDomain.interior, TE.CC, TE.CC, 0), (IndexDomain.interior, TE.F1, TE.CC, 1),
                                        (IndexDomain.entire, TE.CC, TE.CC, -1), (IndexDomain.interior, TE.NN, TE.NN, 0),
                                        (IndexDomain.outer_x1, TE.CC, TE.CC, 0)):
            space = la.IndexSpace(la.bovi, la.logical_flat, domain=domain, nblocks=md.nblocks, md=md, te=te,
                                  memory_te=mem_te, halo=halo)
            ndim = len(nx)
            grow = [halo if ndim >= 3 else 0, halo if ndim >= 2 else 0, halo]
            kb, jb, ib = cb.get_bounds_k(domain, te), cb.get_bounds_j(domain, te), cb.get_bounds_i(domain, te)
            assert space.L == Indexer3D(kb.s - grow[0], kb.e + grow[0], jb.s - grow[1], jb.e + grow[1],
                                        ib.s - grow[2], ib.e + grow[2])
            mk, mj, mi = (cb.get_bounds_k(IndexDomain.entire, mem_te), cb.get_bounds_j(IndexDomain.entire, mem_te),
                          cb.get_bounds_i(IndexDomain.entire, mem_te))
            assert space.M == Indexer3D(mk.s, mk.e, mj.s, mj.e, mi.s, mi.e)
            assert space.get_ndim() == ndim
        with pytest.raises(ValueError, match="memory_te"):
            la.IndexSpace(la.bovi, la.logical_flat, nblocks=1, md=md, memory_te=TE.F1)
        with pytest.raises(TypeError, match="nblocks"):
            la.IndexSpace(la.bovi, la.logical_flat, md=md)
        with pytest.raises(TypeError, match="md="):
            la.IndexSpace(la.bovi, la.logical_flat, nblocks=1)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "ij_slab", la.bvoi])
def test_bad_ninner_is_rejected(bad):
    """Semantics §5: ninner <= 0 (and anything that is neither an int nor a chunk shape) is an error."""
    with pytest.raises((ValueError, TypeError), match="ninner"):
        la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1, ninner=bad)


def test_bad_tags_are_rejected():
    with pytest.raises(TypeError, match="loop tag"):
        la.IndexSpace.box(la.logical_flat, la.bvoi, 1, 4, 4, 4, 1)
    with pytest.raises(TypeError, match="backend"):
        la.IndexSpace.box(la.bvoi, la.memory, 1, 4, 4, 4, 1, backend=la.bvoi)


def test_negative_flat_indices_of_halo_ranges_decode():
    """Item 10 with negative flats: a bovi minus_j range starts before the base origin."""
    geo = M.Geo(1, (1, 2, 1, 2, 1, 2), (4, 4, 4), via_box=True)
    space = M.make_space(la.bovi, la.logical_flat, geo, ninner=2)
    rows = B.run_logged(space, B.probe, la.halo.minus_j, 1000)
    halo_rows = rows[rows[:, 0] == 1]
    assert (halo_rows[:, 11] < 0).any()
    np.testing.assert_array_equal(halo_rows[:, 5:8], halo_rows[:, 8:11])


def negated(out, d):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            q, r, s = rng.get_kji(idx + (-d))
            out[b, k, j, i] = (q * 100 + r) * 100 + s

    return body


@pytest.mark.xfail(strict=True, reason="bug in frontend/expressions.py expr_UnaryOp: unary minus of a compile-time "
                   "Index3/MemoryOffset is not folded on the host (BinOp is), so '-dx1' fails to compile")
@pytest.mark.parametrize("it", [la.logical_flat, la.logical_coords, la.boiv], ids=lambda t: t.name)
def test_unary_minus_of_a_delta_in_kernel_code(it):
    """Semantics §3: Index3 / MemoryOffset support unary minus; in kernel code ``idx + (-dx1)`` == ``idx - dx1``."""
    lt, it = (la.boiv, la.logical_flat) if it is la.boiv else (la.bvoi, it)
    space = la.IndexSpace.box(lt, it, 1, 3, 3, 3, 1)
    out = wp.zeros((1, 5, 5, 5), dtype=wp.int32)
    la.outer(space, negated(out, space.get_delta(wp.X1DIR)))
    assert out.numpy()[0, 2, 2, 2] == (2 * 100 + 2) * 100 + 1


def test_get_kji_of_a_reassigned_index_decodes_its_value():
    """Item 10/12: ``idx = idx + dx1`` inside the loop, then get_kji(idx) is p + (0, 0, 1), not p (the loop's
    own cell may only be reused while the name still holds the loop's index)."""
    for lt, it in M.TAG_PAIRS:
        space = la.IndexSpace.box(lt, it, 1, 3, 3, 3, 1)
        d1 = space.get_delta(wp.X1DIR)
        out = wp.zeros((1, 5, 5, 5), dtype=wp.int32)

        def body(rng, b):
            for idx in la.inner(rng):
                k0, j0, i0 = rng.get_kji(idx)
                idx = idx + d1
                k, j, i = rng.get_kji(idx)
                out[b, k0, j0, i0] = (k - k0) * 100 + (j - j0) * 10 + (i - i0)

            def fn(jdx):
                k0, j0, i0 = rng.get_kji(jdx)
                jdx = jdx - d1
                k, j, i = rng.get_kji(jdx)
                out[b, k0, j0, i0] = out[b, k0, j0, i0] + 1000 * (i0 - i)

            la.inner(rng, fn)

        la.outer(space, body)
        assert set(out.numpy()[0, 1:4, 1:4, 1:4].ravel().tolist()) == {1001}, (lt, it)


def test_get_kji_of_host_index_values():
    """Semantics §7: GetKJI(Index3 q) = q; GetKJI(MemoryOffset o) = GetKJI(o.flat) (hierarchical), p + (dk, dj, di)
    (boiv), also for compile-time values such as a delta."""
    for lt, it in M.TAG_PAIRS:
        space = la.IndexSpace.box(lt, it, 1, 3, 3, 3, 1)
        d = space.get_delta(wp.X2DIR)
        out = wp.zeros((1, 5, 5, 5), dtype=wp.int32)

        def body(rng, b):
            for k0, j0, i0 in la.inner(rng):
                k, j, i = rng.get_kji(d)
                out[b, k0, j0, i0] = k * 100 + j * 10 + i

        la.outer(space, body)
        for sl in M.slices(space, M.Geo(1, (1, 3, 1, 3, 1, 3), (5, 5, 5), via_box=True)):
            for p in sl.cells:
                want = (0, 1, 0) if it is la.logical_coords else M.add(sl.start, (0, 1, 0))
                got = out.numpy()[(0, *p)]
                assert got == want[0] * 100 + want[1] * 10 + want[2], (lt, it, p)


def test_a_host_offset_beyond_int32_is_refused_not_wrapped():
    """A captured MemoryOffset (or Index3) whose parts do not fit int32 would wrap in kernel code (2**32 + 1
    acting as +1): typing refuses it, naming the line, and nothing runs."""
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell"))
    mesh = Mesh(nx=(8,), block_nx=(8,), nghost=1, packages=[pkg])
    mesh.data("rho")[...] = np.arange(10.0)
    md = mesh.mesh_data()
    pack = wp.mesh.PackDescriptor(mesh, [wp.mesh.VarTag("rho")]).get_pack(md)
    space = la.IndexSpace(la.bovi, la.logical_flat, md=md, nblocks=1)
    far = la.MemoryOffset(0, 0, 1, 2**32 + 1)

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[0, idx] = pv[0, idx + far]  # E:far

    with pytest.raises(wp.KernelTypeError, match=r"4294967297 is beyond int32") as info:
        la.outer(space, body)
    assert "E:far" in str(info.value)
    assert mesh.data("rho").ravel().tolist() == list(np.arange(10.0))
