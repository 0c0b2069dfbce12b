"""Benchmark cases for the loop abstraction (``brickwork.la``), and a side-by-side comparison.

Two kernels, each written with ``la.outer`` / ``la.inner`` on a mesh and pack views:

- ``la_laplacian3d_f32_<tags>``: the 7-point Laplacian of ``cases.laplacian3d_f32`` (same 256³
  float32 array, same 254³ interior, same C and numpy references), in two tag pairs: bovi +
  logical_flat (chunks of one k plane, rows with simd loops) and bvoi + memory (one slice per
  block, contiguous memory spans). The 254³ interior is cut into ``LAPLACIAN_BLOCKS`` blocks
  along k (one ghost layer), so that a one-thread-per-slice backend has a slice for every core;
  the block storage is the 256³ array cut into k slabs, each with its own ghost planes.
- ``la_recon_flux_f64_<tags>``: the reconstruction-to-flux pattern of docs/loop_abstraction.md: an
  x1 sweep over 128³ cells in 32³ blocks (2 ghosts, float64): PLM with a minmod limiter into two
  per-point scratch buffers over the halo range ``la.halo.minus_i``, a team barrier, then the HLL flux of
  Burgers' equation (f = u²/2) on the F1 faces from ``plus[idx - dx1]`` and ``minus[idx]``, written
  through ``make_flux_pack_view``. The C reference (``c/la_kernels.cpp``) does the same
  arithmetic the way AthenaPK does, with a per-thread pencil buffer per (k, j) row.

The cases are appended to ``cases.CASES`` (``python benchmarks/run.py --cases NAME``); their
brickwork implementation is keyed ``"brickwork"`` (it needs ``brickwork.la``), so other
kernel-language peers show "—". The flux case also has a numpy and a Numba version (Numba
reconstructs both states of a face where it uses them, in one pass per row). Run this file for a
four-way interleaved comparison of the Laplacian (both tag pairs, the plain-kernel Laplacian, C)
and of the flux kernel (tag pairs, C):

    python benchmarks/la_cases.py [--quick] [--min-time S] [--nblocks N]
"""

from __future__ import annotations

from importlib import import_module

import numpy as np
from cnative import ptr

# cases.py appends la_cases() to its CASES, so this module takes what it needs from cases.py
# inside functions (either module may be imported first).

LAPLACIAN_BLOCKS = 2  # blocks along k of the Laplacian's 254³ interior (254 = 2 x 127)
RECON_CELLS, RECON_BLOCK, RECON_QUICK = 128, 32, (32, 16)
NGHOST = 2


def _modules(kl):
    """``brickwork``, ``brickwork.la`` and ``brickwork.mesh`` of the kernel-language context."""
    wp = kl.wp
    return wp, import_module(wp.__name__ + ".la"), import_module(wp.__name__ + ".mesh")


# --- 7-point Laplacian on the loop abstraction -----------------------------------------------------


def la_laplacian(kl, a: np.ndarray, loop_tag: str, inner_tag: str, nblocks: int = LAPLACIAN_BLOCKS):
    """The Laplacian of ``a`` (an (n, n, n) float32 array) with ``la``: returns ``(run, out)``,
    where ``run()`` does one launch and ``out()`` the (n, n, n) result with a zero boundary."""
    wp, la, m = _modules(kl)
    n = a.shape[0]
    if a.shape != (n, n, n) or (n - 2) % nblocks:
        raise ValueError(f"la_laplacian: needs a cube whose interior {n - 2} splits into {nblocks} blocks")
    nkb = (n - 2) // nblocks
    pkg = m.Package("la_bench")
    pkg.add_field("u", m.Metadata("Cell"), dtype=np.float32)
    pkg.add_field("lap", m.Metadata("Cell"), dtype=np.float32)
    mesh = m.Mesh(nx=(n - 2,) * 3, block_nx=(n - 2, n - 2, nkb), nghost=1, packages=[pkg])
    u_store, lap_store = mesh.data("u"), mesh.data("lap")
    for blk in mesh.blocks:  # block lx3 holds planes [lx3 * nkb, lx3 * nkb + nkb + 1] of a
        u_store[blk.lid, 0] = a[blk.lx3 * nkb: blk.lx3 * nkb + nkb + 2]
    md = mesh.mesh_data()
    u, lap = m.VarTag("u"), m.VarTag("lap")
    pack = m.PackDescriptor(mesh, [u, lap]).get_pack(md)
    space = la.IndexSpace(getattr(la, loop_tag), getattr(la, inner_tag), ninner=la.ij_slab,
                          nblocks=pack.get_nblocks(), md=md)
    # The steps as plain ints (a MemoryOffset is its flat offset): ints are part of the instance
    # key, while the cache key does not yet see a captured MemoryOffset's value, so a body
    # compiled for one size would be reused for another.
    d1, d2, d3 = (int(space.get_delta(d)) for d in (wp.X1DIR, wp.X2DIR, wp.X3DIR))

    def laplacian(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[lap(), idx] = (pv[u(), idx - d3] + pv[u(), idx + d3] + pv[u(), idx - d2] + pv[u(), idx + d2]
                              + pv[u(), idx - d1] + pv[u(), idx + d1] - wp.float32(6.0) * pv[u(), idx])

    def out() -> np.ndarray:
        # The memory tag also writes the ghost cells inside its spans: keep the interior only.
        res = np.zeros_like(a)
        for blk in mesh.blocks:
            k0 = 1 + blk.lx3 * nkb
            res[k0:k0 + nkb, 1:-1, 1:-1] = lap_store[blk.lid, 0, 1:-1, 1:-1, 1:-1]
        return res

    return (lambda: la.outer(space, laplacian)), out


def _la_laplacian_factory(loop_tag: str, inner_tag: str):
    def factory(kl, inputs: dict):
        from cases import Bound

        run, out = la_laplacian(kl, inputs["a"], loop_tag, inner_tag)
        return Bound(run, lambda: {"out": out()})

    return factory


# --- PLM + HLL x1 flux: the reconstruction-to-flux pattern of docs/loop_abstraction.md ---------------


def _recon_inputs(quick: bool) -> dict:
    n, nb = RECON_QUICK if quick else (RECON_CELLS, RECON_BLOCK)
    nblocks, m = (n // nb) ** 3, nb + 2 * NGHOST
    rng = np.random.default_rng(12345)
    return {"q": rng.random((nblocks, m, m, m)) - 0.5, "cells": n, "block": nb}


def _interior_faces(shape) -> tuple:
    """Index of the x1 faces a flux kernel writes: interior k, j and faces i in [ng, ni - ng]."""
    g = NGHOST
    return (slice(None), slice(g, shape[1] - g), slice(g, shape[2] - g), slice(g, shape[3] - g + 1))


def _minmod_np(a, b):
    return np.where(a * b > 0.0, np.where(np.abs(a) < np.abs(b), a, b), 0.0)


def _hll_np(ul, ur):
    fl, fr = 0.5 * ul * ul, 0.5 * ur * ur
    lo, hi = np.where(ur < ul, ur, ul), np.where(ul < ur, ur, ul)
    sl, sr = np.where(0.0 < lo, 0.0, lo), np.where(hi < 0.0, 0.0, hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sr - sl > 0.0, (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl), 0.0)


def recon_flux_numpy(q: np.ndarray) -> np.ndarray:
    """The reference: PLM (minmod) states on cells, HLL on interior x1 faces; zero elsewhere."""
    slope = np.zeros_like(q)
    slope[..., 1:-1] = _minmod_np(q[..., 1:-1] - q[..., :-2], q[..., 2:] - q[..., 1:-1])
    plus, minus = q + 0.5 * slope, q - 0.5 * slope
    flux = np.zeros_like(q)
    f = _interior_faces(q.shape)
    left = (f[0], f[1], f[2], slice(f[3].start - 1, f[3].stop - 1))
    flux[f] = _hll_np(plus[left], minus[f])
    return flux


def _recon_numpy(_, inputs: dict):
    from cases import Bound

    q = inputs["q"].copy()
    box = {}

    def run() -> None:
        box["flux"] = recon_flux_numpy(q)

    return Bound(run, lambda: {"flux": box["flux"]})


def _recon_c(lib, inputs: dict):
    from cases import Bound

    q = inputs["q"].copy()
    nb, nk, nj, ni = q.shape
    flux = np.zeros((nb, 3, nk, nj, ni))  # the x1 slot of a 3-D WithFluxes field, as brickwork's
    pq, pf = ptr(q), ptr(flux)

    def result() -> dict:
        out = np.zeros_like(q)
        f = _interior_faces(q.shape)
        out[f] = flux[:, 0][f]
        return {"flux": out}

    return Bound(lambda: lib.la_recon_flux_f64(pq, pf, nb, nk, nj, ni, NGHOST, 3 * nk * nj * ni), result)


def _recon_numba(nb, inputs: dict):
    from cases import Bound

    q = inputs["q"].copy()
    flux = np.zeros_like(q)
    fn = nb.kernels.recon_flux
    return Bound(lambda: fn(q, flux, NGHOST), lambda: {"flux": flux})


def la_recon_flux(kl, q: np.ndarray, cells: int, block: int, loop_tag: str, inner_tag: str, ninner=None,
                  device=None):
    """The flux kernel with ``la`` on a mesh of ``cells``³ in ``block``³ blocks whose density is
    ``q`` (nblocks, m, m, m), on ``device`` (None: the current one): returns ``(run, flux)``;
    ``flux()`` is the x1 flux on interior faces."""
    wp, la, m = _modules(kl)
    TE, IndexDomain = m.TE, m.IndexDomain
    pkg = m.Package("la_bench_hydro")
    pkg.add_field("density", m.Metadata("Cell", "Independent", "WithFluxes"))
    mesh = m.Mesh(nx=(cells,) * 3, block_nx=(block,) * 3, nghost=NGHOST, packages=[pkg], device=device)
    mesh.data("density")[:, 0] = q
    md = mesh.mesh_data()
    rho = m.VarTag("density")
    pack = m.PackDescriptor(mesh, [rho], with_fluxes=True).get_pack(md)
    space = la.IndexSpace(getattr(la, loop_tag), getattr(la, inner_tag), ninner=ninner or la.ij_slab,
                          domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md, te=TE.F1)
    space.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=2)
    dx1 = space.get_delta(wp.X1DIR)
    minmod, hll = _recon_functions(wp)

    def recon_flux(idx_range, b):
        halo_range = idx_range.add_halo(la.halo.minus_i)
        s_plus = la.get_per_point_scratch(wp.float64, halo_range)
        s_minus = la.get_per_point_scratch(wp.float64, halo_range)
        pv = la.make_pack_view(idx_range, pack)
        for idx in la.inner(halo_range):
            q0 = pv[rho(), idx]
            slope = minmod(q0 - pv[rho(), idx - dx1], pv[rho(), idx + dx1] - q0)
            s_plus[idx] = q0 + wp.float64(0.5) * slope
            s_minus[idx] = q0 - wp.float64(0.5) * slope
        idx_range.team_barrier()
        fv = la.make_flux_pack_view(idx_range, pack, wp.X1DIR)
        for idx in la.inner(idx_range):
            fv[rho(), idx] = hll(s_plus[idx - dx1], s_minus[idx])

    store = mesh.field("density").flux

    def flux() -> np.ndarray:
        out = np.zeros_like(q)
        f = _interior_faces(q.shape)
        out[f] = store[:, 0][f]  # the memory tag also writes ghost faces: keep the interior ones
        return out

    return (lambda: la.outer(space, recon_flux)), flux


_FUNCTIONS: dict = {}


def _recon_functions(wp):
    """minmod and the HLL flux as brickwork functions (once per module). min/max are written as
    compare-and-select, as in the C reference: ``wp.min``/``wp.max`` also order NaNs (IEEE
    minNum), which costs extra mask operations in the vector loop."""
    if wp.__name__ in _FUNCTIONS:
        return _FUNCTIONS[wp.__name__]

    @wp.func
    def minmod(a: wp.float64, b: wp.float64) -> wp.float64:
        return wp.where(a * b > wp.float64(0.0), wp.where(wp.abs(a) < wp.abs(b), a, b), wp.float64(0.0))

    @wp.func
    def hll(ul: wp.float64, ur: wp.float64) -> wp.float64:
        fl = wp.float64(0.5) * ul * ul
        fr = wp.float64(0.5) * ur * ur
        # the C reference's order of operations: min(min(ul, ur), 0), then max(max(ul, ur), 0) (g++ 12
        # if-converts this order with three vector operations fewer than lo, hi, sl, sr: 0.9x the time)
        lo = wp.where(ur < ul, ur, ul)
        sl = wp.where(wp.float64(0.0) < lo, wp.float64(0.0), lo)
        hi = wp.where(ul < ur, ur, ul)
        sr = wp.where(hi < wp.float64(0.0), wp.float64(0.0), hi)
        return wp.where(sr - sl > wp.float64(0.0), (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl),
                        wp.float64(0.0))

    _FUNCTIONS[wp.__name__] = (minmod, hll)
    return minmod, hll


def _la_recon_factory(loop_tag: str, inner_tag: str):
    def factory(kl, inputs: dict):
        from cases import Bound

        run, flux = la_recon_flux(kl, inputs["q"], inputs["cells"], inputs["block"], loop_tag, inner_tag)
        return Bound(run, lambda: {"flux": flux()})

    return factory


def la_cases() -> list:
    """The loop-abstraction cases (``cases.Case``), appended to ``cases.CASES``."""
    from cases import Case, _laplacian_c, _laplacian_inputs, _laplacian_numpy

    lap_size = lambda inp: "x".join(str(d) for d in inp["a"].shape) + f", {LAPLACIAN_BLOCKS} blocks"  # noqa: E731
    rec_size = lambda inp: f"{inp['cells']}³ in {inp['block']}³ blocks"  # noqa: E731
    out = []
    for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory")):
        out.append(Case(
            name=f"la_laplacian3d_f32_{lt}_{it}",
            make_inputs=_laplacian_inputs,
            size_label=lap_size,
            bytes_moved=lambda inp: 2 * inp["a"].nbytes,
            impls={"brickwork": _la_laplacian_factory(lt, it), "c": _laplacian_c, "numpy": _laplacian_numpy},
            target=0.85,
        ))
    for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory")):
        out.append(Case(
            name=f"la_recon_flux_f64_{lt}_{it}",
            make_inputs=_recon_inputs,
            size_label=rec_size,
            bytes_moved=lambda inp: 2 * inp["q"].nbytes,
            impls={"brickwork": _la_recon_factory(lt, it), "c": _recon_c, "numpy": _recon_numpy,
                   "numba": _recon_numba},
            target=1.0,  # the project's goal: as fast as the fastest peer (here the hand-written C)
            rtol=1e-12,
            atol=1e-12,
        ))
    return out


# --- side-by-side comparison (python benchmarks/la_cases.py) ---------------------------------------


def main(argv=None) -> int:
    import argparse
    import os
    import sys

    import cnative
    from cases import _laplacian_c, _laplacian_inputs, _laplacian_kernel, _laplacian_numpy
    from peers import KernelLanguage
    from timing import measure_interleaved

    global LAPLACIAN_BLOCKS
    parser = argparse.ArgumentParser(description="loop abstraction vs plain kernel vs C, interleaved")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--min-time", type=float, default=2.0)
    parser.add_argument("--reps", type=int, default=11)
    parser.add_argument("--nblocks", type=int, default=LAPLACIAN_BLOCKS, help="Laplacian blocks along k")
    parser.add_argument("--only", choices=("laplacian", "recon"), default=None)
    args = parser.parse_args(argv)
    LAPLACIAN_BLOCKS = args.nblocks
    os.environ.setdefault("BRICKWORK_NUM_THREADS", str(cnative.thread_count()))
    kl, lib = KernelLanguage("brickwork"), cnative.build()
    print(f"threads: {cnative.thread_count()}; C: {lib.command}", file=sys.stderr)

    def table(title, fns, reference):
        results = measure_interleaved(fns, args.reps, min_time=0.0 if args.quick else args.min_time)
        print(f"\n{title}\n\n| implementation | ms (median [min–max]) | vs C | vs {reference} |\n|---|---|---|---|")
        c, ref = results["C"].median, results[reference].median
        for name, t in results.items():
            print(f"| {name} | {t.ms()} | {c / t.median:.2f}× | {ref / t.median:.2f}× |")

    if args.only in (None, "laplacian"):
        inputs = _laplacian_inputs(args.quick)
        expected = _laplacian_numpy(None, inputs)
        expected.run()
        fns = {}
        for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory"), ("bvoi", "logical_flat")):
            run, out = la_laplacian(kl, inputs["a"], lt, it, args.nblocks)
            run()
            np.testing.assert_allclose(out(), expected.result()["out"], rtol=1e-5, atol=1e-5)
            fns[f"la {lt}+{it}"] = run
        for name, factory, ctx in (("plain kernel", _laplacian_kernel, kl), ("C", _laplacian_c, lib)):
            bound = factory(ctx, inputs)
            bound.run()
            np.testing.assert_allclose(bound.result()["out"], expected.result()["out"], rtol=1e-5, atol=1e-5)
            fns[name] = bound.run
        n = inputs["a"].shape[0]
        table(f"7-point Laplacian, {n}³ float32 ({n - 2}³ interior in {args.nblocks} block(s) for la)", fns,
              "plain kernel")
    if args.only in (None, "recon"):
        inputs = _recon_inputs(args.quick)
        want = recon_flux_numpy(inputs["q"])
        fns = {}
        for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory"), ("bvoi", "logical_flat")):
            run, flux = la_recon_flux(kl, inputs["q"], inputs["cells"], inputs["block"], lt, it)
            run()
            np.testing.assert_allclose(flux(), want, rtol=1e-12, atol=1e-12)
            fns[f"la {lt}+{it}"] = run
        bound = _recon_c(lib, inputs)
        bound.run()
        np.testing.assert_allclose(bound.result()["flux"], want, rtol=1e-12, atol=1e-12)
        fns["C"] = bound.run
        table(f"PLM + HLL x1 flux, {inputs['cells']}³ cells in {inputs['block']}³ blocks, float64", fns,
              "la bovi+logical_flat")
    lib.close()
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
