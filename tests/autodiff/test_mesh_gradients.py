"""Gradients through a mesh code: a tape over several stages of loop-abstraction kernels on pack and
flux views (per-point scratch, a barrier, in-place updates of the fields) and ghost exchanges
(periodic and reflecting sides) gives the gradient of a scalar of the final state with respect to
the initial state, checked against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

STEPS = 3
NG = 2
INTERIOR = (slice(None), 0, 0, slice(NG, -NG), slice(NG, -NG))  # (block, slot, k, j, i)


class Problem:
    """q_t + (c q^2)_x = nu q_yy on two 8x8 blocks, periodic in x1 and reflecting in x2."""

    def __init__(self, loop, inner, target):
        backend = la.team if target != "cpu" else None
        pkg = Package("burgers")
        pkg.add_field("q", Metadata("Cell", "FillGhost", "WithFluxes"))
        pkg.add_field("r", Metadata("Cell"))
        self.mesh = mesh = Mesh(nx=(16, 8), block_nx=(8, 8), nghost=NG, packages=[pkg],
                                boundaries={"x1": "periodic", "x2": "reflecting"})
        md = mesh.mesh_data()
        q, r = VarTag("q"), VarTag("r")
        pack = PackDescriptor(mesh, [q, r], with_fluxes=True).get_pack(md)
        faces = la.IndexSpace(getattr(la, loop), getattr(la, inner), ninner=la.i_pencil,
                              domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md, te=TE.F1,
                              backend=backend)
        faces.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=1)
        cells = la.IndexSpace(getattr(la, loop), getattr(la, inner), ninner=la.i_pencil,
                              domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md, backend=backend)
        dx = faces.get_delta(wp.X1DIR)
        dy = cells.get_delta(wp.X2DIR)
        c, dt, nu = wp.float64(0.8), wp.float64(0.05), wp.float64(0.1)

        def flux(rng, b):
            hr = rng.add_halo(la.halo.minus_i)
            s = la.get_per_point_scratch(wp.float64, hr)
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(hr):
                s[idx] = pv[q(), idx] * pv[q(), idx]
            rng.team_barrier()
            fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
            for idx in la.inner(rng):
                fv[q(), idx] = c * s[idx - dx]

        cdx = cells.get_delta(wp.X1DIR)

        def update(rng, b):
            pv = la.make_pack_view(rng, pack)
            fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
            for idx in la.inner(rng):
                lap = pv[q(), idx + dy] - wp.float64(2.0) * pv[q(), idx] + pv[q(), idx - dy]
                pv[r(), idx] = pv[q(), idx] - dt * (fv[q(), idx + cdx] - fv[q(), idx]) + nu * lap

        def copy_back(rng, b):
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(rng):
                pv[q(), idx] = pv[r(), idx]

        self.stages = [(faces, flux), (cells, update), (cells, copy_back)]
        self.target = target

    def run(self, q0):
        mesh = self.mesh
        mesh.data("q")[...] = q0
        with config.override(target=self.target):
            for _ in range(STEPS):
                mesh.fill_ghosts()
                for space, body in self.stages:
                    la.outer(space, body)
        return mesh.data("q").copy()


@pytest.mark.parametrize("loop, inner, target", [("bvoi", "logical_flat", "cpu"), ("bovi", "logical_flat", "cpu"),
                                                 ("bvoi", "memory", "cpu"), ("bovi", "logical_coords", "cuda-emulation")])
def test_tape_over_stages_and_ghost_exchanges(loop, inner, target):
    p = Problem(loop, inner, target)
    rng = np.random.default_rng(11)
    q0 = 1.0 + 0.2 * rng.random(p.mesh.data("q").shape)
    w = np.zeros_like(q0)
    w[INTERIOR] = rng.random(w[INTERIOR].shape)

    def loss(x):
        return float((w * p.run(x)).sum())

    fld = p.mesh.field("q")
    tape = wp.Tape()
    with tape:
        final = p.run(q0)
    fld.grad[...] = w
    tape.backward()
    grad = fld.grad.copy()
    np.testing.assert_array_equal(p.mesh.data("q"), final)  # the backward pass leaves the final state
    assert not grad[:, :, :, :NG].any() and not grad[:, :, :, -NG:].any()  # initial ghosts are overwritten

    h = 1e-6
    for cell in [(0, 0, 0, 2, 2), (0, 0, 0, 5, 9), (1, 0, 0, 9, 2), (1, 0, 0, 2, 9), (0, 0, 0, 7, 6)]:
        up, down = q0.copy(), q0.copy()
        up[cell] += h
        down[cell] -= h
        fd = (loss(up) - loss(down)) / (2 * h)
        assert grad[cell] == pytest.approx(fd, rel=1e-6, abs=1e-9), cell
    direction = rng.standard_normal(q0.shape)
    fd = (loss(q0 + h * direction) - loss(q0 - h * direction)) / (2 * h)
    assert float((grad * direction).sum()) == pytest.approx(fd, rel=1e-6)

    tape.zero()
    assert not fld.grad.any() and not fld.flux_grad.any()


def test_user_boundary_under_a_tape_is_refused_before_any_copy():
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost"))

    def wall(block, view, side):
        view[...] = 0.0

    mesh = Mesh(nx=(8, 8), block_nx=(8, 8), nghost=1, packages=[pkg], boundaries={"x1": wall})
    mesh.data("q")[...] = 1.0
    with wp.Tape():
        with pytest.raises(wp.KernelNotDifferentiableError, match="'q' has a user boundary function"):
            mesh.fill_ghosts()
    assert np.all(mesh.data("q") == 1.0)
