"""Semantics §11 and §15 item 20: pack, variable, flux and sparse views against the pack's own access
(docs/reference/loop_abstraction_semantics.md)."""

from __future__ import annotations

import la_model as M
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))
rho, mom, bf, dye = VarTag("rho"), VarTag("mom"), VarTag("B"), VarTag("dye")
NOUT = 14  # reads recorded per cell
NSRC = 5  # values written per cell


def make_mesh(ndim, bnx, ng, seed):
    pkg = Package("views")
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    pkg.add_field("mom", Metadata("Cell", "Vector", "WithFluxes"), shape=(3,))
    pkg.add_field("B", Metadata("Face", "CellMemAligned"))
    pkg.add_field("dye", Metadata("Cell", "Sparse", "WithFluxes"), sparse_ids=[1, 2, 3])
    nx = tuple(2 * bnx[0] if d == 0 else bnx[d] for d in range(ndim))  # two blocks along x1
    mesh = Mesh(nx, tuple(bnx[:ndim]), nghost=ng, packages=[pkg])
    mesh.allocate_sparse(0, "dye", 1)
    mesh.allocate_sparse(0, "dye", 3)
    mesh.allocate_sparse(1, "dye", 3)
    rng = np.random.default_rng(seed)
    for name in ("rho", "mom", "B"):
        mesh.data(name)[...] = rng.random(mesh.data(name).shape)
    for name in ("rho", "mom"):
        mesh.field(name).flux[...] = rng.random(mesh.field(name).flux.shape)
    for name in ("dye_1", "dye_3"):
        mesh.data(name)[...] = rng.random(mesh.data(name).shape)
    return mesh


def views_body(pack, spack, out, src, mask, hout, ndirs, d1, d2):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        vv = la.make_var_view(rng, pack, mom)
        vi = la.make_var_view(rng, pack, pack.get_lower_bound(b, rho))
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            if mask[k, j, i] == 1:
                p = wp.vec3i(k, j, i)
                o = b * NOUT
                out[o + 0, k, j, i] = pv[rho(), idx]
                out[o + 1, k, j, i] = pv[mom(2), idx]
                out[o + 2, k, j, i] = vv[idx]
                out[o + 3, k, j, i] = vv[1, idx]
                out[o + 4, k, j, i] = vv[p]
                out[o + 5, k, j, i] = vv[k, j, i]
                out[o + 6, k, j, i] = pv[TE.F1, bf(), idx]
                out[o + 7, k, j, i] = pv[TE.F2, bf(), idx]
                out[o + 8, k, j, i] = pv[TE.F3, bf(), idx]
                out[o + 9, k, j, i] = vi[idx]
                out[o + 10, k, j, i] = pv[rho(), idx + d1]
                out[o + 11, k, j, i] = vv[2, idx - d2]
                for s in range(spack.get_size(b, dye)):
                    sv = la.make_sparse_pack_view(rng, spack, s)
                    out[o + 12 + s, k, j, i] = sv[dye(), idx]
                w = b * NSRC
                pv[mom(1), idx] = src[w + 0, k, j, i]
                pv[TE.F2, bf(), p] = src[w + 1, k, j, i]
                for d in range(1, ndirs + 1):
                    fp = la.make_flux_pack_view(rng, pack, d)
                    fv = la.make_flux_view(rng, pack, d, mom)
                    fp[rho(), idx] = src[w + 2, k, j, i] * wp.float64(d)
                    fv[2, idx] = src[w + 3, k, j, i] + wp.float64(d)
                    fp[mom(0), k, j, i] = fp[mom(2), idx] + wp.float64(0.0)
        hr = rng.add_halo(la.halo.pm_i)
        for idx in la.inner(hr):  # a view made from the base range serves its halo range (same origin)
            k, j, i = hr.get_kji(idx)
            hout[b, k, j, i] = pv[rho(), idx]

    return body


@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
@settings(max_examples=3, **SETTINGS)
@given(ndim=st.sampled_from((1, 2, 3)), bnx=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3)),
       ng=st.integers(1, 3), backend=st.sampled_from(M.BACKENDS), kind=st.sampled_from(M.NINNER_KINDS))
def test_views_match_pack_access(lt, it, ndim, bnx, ng, backend, kind):
    """Item 20: reads and writes through every view kind (pack, var by tag and by index, flux pack, flux,
    sparse pack) at arg(p), and at arg(p) +- a delta, equal the pack's own access, for every
    flux direction and the face elements of a CellMemAligned face field."""
    bnx = tuple(max(b, ng) for b in bnx)  # a block must hold its ghost width
    mesh = make_mesh(ndim, bnx, ng, seed=sum(bnx) + ng)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [rho, mom, bf], with_fluxes=True).get_pack(md)
    spack = PackDescriptor(mesh, [dye], with_fluxes=True).get_pack(md)
    nb = pack.get_nblocks()
    geo_space = la.IndexSpace(lt, it, domain=IndexDomain.interior, nblocks=nb, md=md, te=TE.CC, backend=backend)
    L, Mb = geo_space.L, geo_space.M
    geo = M.Geo(nb, (L.ks, L.ke, L.js, L.je, L.is_, L.ie), Mb.shape)
    space = la.IndexSpace(lt, it, ninner=M.ninner_value(kind, geo), domain=IndexDomain.interior, nblocks=nb, md=md,
                          backend=backend)
    shape = Mb.shape
    out = wp.full((nb * NOUT, *shape), -1.0, dtype=wp.float64)
    src = wp.array(np.random.default_rng(3).random((nb * NSRC, *shape)), dtype=wp.float64)
    hout = wp.full((nb, *shape), -1.0, dtype=wp.float64)
    mask = wp.array(M.logical_mask(geo), dtype=wp.int32)
    before = {n: (mesh.data(n).copy(), mesh.field(n).flux.copy()) for n in ("rho", "mom")}
    before_b = mesh.data("B").copy()
    la.outer(space, views_body(pack, spack, out, src, mask, hout, wp.int32(ndim), space.get_delta(wp.X1DIR),
                                space.get_delta(wp.X2DIR)))
    o = out.numpy().reshape(nb, NOUT, *shape)
    s = src.numpy().reshape(nb, NSRC, *shape)
    h = hout.numpy()
    for b in range(nb):
        for p in M.box_cells(geo.lbox):
            k, j, i = p
            # reads see the values before the writes (mom(1), B.F2 and fluxes are written, not read)
            want = [before["rho"][0][b, 0, k, j, i], before["mom"][0][b, 2, k, j, i], before["mom"][0][b, 0, k, j, i],
                    before["mom"][0][b, 1, k, j, i], before["mom"][0][b, 0, k, j, i], before["mom"][0][b, 0, k, j, i],
                    before_b[b, 0, k, j, i], before_b[b, 1, k, j, i], before_b[b, 2, k, j, i],
                    before["rho"][0][b, 0, k, j, i], before["rho"][0][b, 0, k, j, i + 1],
                    before["mom"][0][b, 2, k, j - (1 if ndim >= 2 else 0), i]]
            np.testing.assert_array_equal(o[b, :12, k, j, i], want, err_msg=f"view reads at b={b}, p={p}")
            for sidx in range(spack.get_size(b, dye)):
                assert o[b, 12 + sidx, k, j, i] == spack[b, dye(sidx), k, j, i], "sparse view read"
            assert pack[b, mom(1), k, j, i] == s[b, 0, k, j, i]
            assert pack[b, TE.F2, bf(), k, j, i] == s[b, 1, k, j, i]
            for d in range(1, ndim + 1):
                assert pack.flux(b, d, rho(), k, j, i) == s[b, 2, k, j, i] * d
                assert pack.flux(b, d, mom(2), k, j, i) == s[b, 3, k, j, i] + d
                assert pack.flux(b, d, mom(0), k, j, i) == pack.flux(b, d, mom(2), k, j, i)
    # untouched storage stays untouched on the interior (components and elements not written)
    L = geo.lbox
    sl = (slice(None), slice(L.ks, L.ke + 1), slice(L.js, L.je + 1), slice(L.is_, L.ie + 1))
    for c in (0, 2):
        np.testing.assert_array_equal(mesh.data("mom")[:, c][sl], before["mom"][0][:, c][sl])
    for e in (0, 2):
        np.testing.assert_array_equal(mesh.data("B")[:, e][sl], before_b[:, e][sl])
    np.testing.assert_array_equal(mesh.data("rho")[:, 0][sl], before["rho"][0][:, 0][sl])
    # the halo sweep read rho through the base view at every visited cell
    for sl_ in M.slices(space, geo):
        for q in M.visits(space, geo, sl_, la.halo.pm_i):
            assert h[(sl_.b, *q)] == before["rho"][0][(sl_.b, 0, *q)], f"view read in the halo range at {q}"


@pytest.mark.skipif(not hasattr(la, "make_sparse_flux_pack_view"), reason="la.make_sparse_flux_pack_view is not exported")
@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_sparse_flux_pack_view(lt, it):
    """Semantics §11: make_sparse_flux_pack_view(r, pack, dir, s) writes the fluxes of sparse instance s."""
    ndim = 2
    mesh = make_mesh(ndim, (3, 2, 1), 1, seed=7)
    md = mesh.mesh_data()
    spack = PackDescriptor(mesh, [dye], with_fluxes=True).get_pack(md)
    nb = spack.get_nblocks()
    space = la.IndexSpace(lt, it, ninner=4, domain=IndexDomain.interior, nblocks=nb, md=md)
    shape = space.M.shape
    src = wp.array(np.random.default_rng(5).random((nb, *shape)), dtype=wp.float64)
    mask = wp.array(M.logical_mask(M.Geo(nb, (space.L.ks, space.L.ke, space.L.js, space.L.je, space.L.is_,
                                                space.L.ie), shape)), dtype=wp.int32)

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            if mask[k, j, i] == 1:
                for d in range(1, 3):
                    for s in range(spack.get_size(b, dye)):
                        sf = la.make_sparse_flux_pack_view(rng, spack, d, s)
                        sf[dye(), idx] = src[b, k, j, i] * wp.float64(d) + wp.float64(s)

    la.outer(space, body)
    sv = src.numpy()
    L = space.L
    for b in range(nb):
        for p in M.box_cells(L):
            for d in (1, 2):
                for sidx in range(spack.get_size(b, dye)):
                    assert spack.flux(b, d, dye(sidx), *p) == sv[(b, *p)] * d + sidx


def test_a_flat_variable_index_from_the_host_names_the_variable():
    """``make_var_view(rng, pack, n)`` and ``pack_view[n, idx]`` with ``n`` a Python int (``pack.get_index(...)``
    captured, or a literal) name the flat variable ``n``, as an int32 does; one beyond the pack is refused."""
    mesh = make_mesh(2, (4, 4, 1), 1, seed=3)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [rho, mom]).get_pack(md)
    first_mom = pack.get_index(0, mom(0))  # a Python int: 1
    space = la.IndexSpace(la.bovi, la.logical_flat, nblocks=pack.get_nblocks(), md=md)

    def body(rng, b):
        vv = la.make_var_view(rng, pack, first_mom)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[0, idx] = vv[2, idx] + pv[2, idx]

    expected = mesh.data("mom")[:, 2] + mesh.data("mom")[:, 1]  # (block, k, j, i)
    la.outer(space, body)
    inner = (slice(None), 0, slice(1, -1), slice(1, -1))
    np.testing.assert_array_equal(mesh.data("rho")[:, 0][inner], expected[inner])

    before = mesh.data("rho").copy()

    def beyond(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[4, idx] = 1.0

    with pytest.raises(wp.KernelTypeError, match=r"flat variable index 4 is out of range \[0, 4\)"):
        la.outer(space, beyond)
    np.testing.assert_array_equal(mesh.data("rho"), before)


def test_flux_access_through_a_pack_without_fluxes_is_refused_before_it_runs():
    """A pack built without with_fluxes has empty flux tables: a body reaching its fluxes (a flux view, or
    pack.flux[...] in par_for) crashed the process (null pointers); it is a LaunchError naming the pack."""
    mesh = make_mesh(2, (4, 4, 1), 1, seed=4)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [rho]).get_pack(md)  # no with_fluxes
    space = la.IndexSpace(la.bvoi, la.logical_flat, nblocks=pack.get_nblocks(), md=md, te=TE.F1)
    before = mesh.field("rho").flux.copy()

    def flux_view(rng, b):
        fv = la.make_flux_pack_view(rng, pack, 1)
        for idx in la.inner(rng):
            fv[rho(), idx] = 1.0

    def subscript(b, k, j, i):
        pack.flux[b, 1, rho(), k, j, i] = 1.0

    with pytest.raises(wp.LaunchError, match="pack 'pack' has no fluxes .* with_fluxes=True"):
        la.outer(space, flux_view)
    with pytest.raises(wp.LaunchError, match="pack 'pack' has no fluxes"):
        wp.par_for(pack.get_nblocks(), (0, 0), (1, 4), (1, 4), subscript)
    np.testing.assert_array_equal(mesh.field("rho").flux, before)
