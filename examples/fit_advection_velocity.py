"""Fit the velocity of a 2-D advection scheme on a block mesh to a target state, on one or several MPI ranks.

A Gaussian blob is advected by first-order upwind steps (fluxes and updates in the loop abstraction, ghost
exchange with periodic sides). The target is the state after ``--steps`` steps with the velocity (0.7, 0.3);
the fit starts from (0.2, 0.2) and follows ``brickwork.optim.Adam`` on the gradient that a ``wp.Tape`` over
the steps and the loss gives:

    loss = sum over the cells of (u - u_target)^2      (an la.outer_reduce Sum into an array)

The velocity is a plain ``wp.array`` that every rank's kernels read, so each rank's backward pass gives the
part of its gradient that the rank's blocks contribute: ``mesh.sum_over_ranks(velocity.grad)`` adds the parts
up before each step, and every rank fits the same velocity, the one a single process fits.

Run: ``python examples/fit_advection_velocity.py [--iterations 150]``, or
``mpiexec -n 4 python examples/fit_advection_velocity.py``.
"""

from __future__ import annotations

import argparse

import numpy as np

import brickwork as wp
import brickwork.optim
from brickwork import la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

TRUTH = (0.7, 0.3)


class Advection:
    """Upwind advection of ``u`` with the velocity ``self.velocity`` (positive components) on an ``n`` x ``n``
    periodic mesh of ``block`` x ``block`` blocks, ``steps`` steps of dt = 0.4 dx."""

    def __init__(self, n: int = 64, block: int = 16, steps: int = 20):
        pkg = Package("advection")
        pkg.add_field("u", Metadata("Cell", "Independent", "FillGhost", "WithFluxes"))
        pkg.add_field("target", Metadata("Cell"))
        self.mesh = mesh = Mesh(nx=(n, n), block_nx=(block, block), nghost=1, packages=[pkg],
                                boundaries={"x1": "periodic", "x2": "periodic"})
        self.steps = steps
        self.u0 = np.zeros_like(mesh.data("u"))
        for blk in mesh.blocks:
            x, y = blk.coords.x_center(1), blk.coords.x_center(2)
            self.u0[blk.lid, 0, 0] = np.exp(-((x[None, :] - 0.4) ** 2 + (y[:, None] - 0.5) ** 2) / 0.01)
        self.velocity = wp.array([0.0, 0.0], dtype=wp.float64, requires_grad=True)
        md = mesh.mesh_data()
        self.pack = PackDescriptor(mesh, [VarTag("u"), VarTag("target")], with_fluxes=True).get_pack(md)
        common = dict(ninner=la.ij_slab, domain=IndexDomain.interior, nblocks=self.pack.get_nblocks(), md=md)
        self.cells = la.IndexSpace(la.bovi, la.logical_flat, **common)
        self.faces = [la.IndexSpace(la.bovi, la.logical_flat, te=te, **common) for te in (TE.F1, TE.F2)]
        self.misfit = self.cells.with_reducer(la.Sum(wp.float64))
        self.bodies = _bodies(self.pack, self.velocity, self.cells.get_delta(wp.X1DIR),
                              self.cells.get_delta(wp.X2DIR))

    def run(self, loss=None) -> None:
        """The steps from the initial state; with ``loss``, the misfit to the target into ``loss[0]``."""
        flux1, flux2, update, squared_error = self.bodies
        self.mesh.data("u")[...] = self.u0
        for _ in range(self.steps):
            self.mesh.fill_ghosts()
            la.outer(self.faces[0], flux1)
            la.outer(self.faces[1], flux2)
            la.outer(self.cells, update)
        if loss is not None:
            la.outer_reduce(self.misfit, squared_error, out=loss)

    def set_target(self, velocity) -> None:
        """The target: the state the steps reach with ``velocity``."""
        self.velocity.numpy()[:] = velocity
        self.run()
        self.mesh.data("target")[...] = self.mesh.data("u")

    def fit(self, start, iterations: int, lr: float = 0.05, log=None) -> float:
        """Adam from the velocity ``start``; returns the last loss (``self.velocity`` holds the fit)."""
        self.velocity.numpy()[:] = start
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        opt = brickwork.optim.Adam([self.velocity], lr=lr)
        tape = wp.Tape()
        for it in range(iterations):
            tape.reset()  # clears the recorded launches and zeroes the gradients
            with tape:
                self.run(loss)
            tape.backward(loss)
            self.mesh.sum_over_ranks(self.velocity.grad)  # each rank holds its blocks' part of the gradient
            if log is not None and it % 25 == 0:
                log(f"iteration {it}: loss {loss.numpy()[0]:.3e}, velocity {self.velocity.numpy()}")
            opt.step([self.velocity.grad])
        return float(loss.numpy()[0])


def _bodies(pack, velocity, d1, d2):
    """The loop bodies (defined here so that they capture the pack, the velocity and the deltas)."""
    u, target = VarTag("u"), VarTag("target")
    dtdx = wp.float64(0.4)

    def flux1(rng, b):
        uv = la.make_var_view(rng, pack, u)
        fx = la.make_flux_view(rng, pack, wp.X1DIR, u)
        for idx in la.inner(rng):
            fx[idx] = velocity[0] * uv[idx - d1]  # upwind for a positive velocity

    def flux2(rng, b):
        uv = la.make_var_view(rng, pack, u)
        fy = la.make_flux_view(rng, pack, wp.X2DIR, u)
        for idx in la.inner(rng):
            fy[idx] = velocity[1] * uv[idx - d2]

    def update(rng, b):
        uv = la.make_var_view(rng, pack, u)
        fx = la.make_flux_view(rng, pack, wp.X1DIR, u)
        fy = la.make_flux_view(rng, pack, wp.X2DIR, u)
        for idx in la.inner(rng):
            uv[idx] = uv[idx] - dtdx * (fx[idx + d1] - fx[idx] + fy[idx + d2] - fy[idx])

    def squared_error(rng, b):
        pv = la.make_pack_view(rng, pack)

        def error(idx):
            e = pv[u(), idx] - pv[target(), idx]
            return e * e

        la.inner_reduce(rng, error)

    return flux1, flux2, update, squared_error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=150, help="Adam steps (default 150)")
    parser.add_argument("--steps", type=int, default=20, help="advection steps per run (default 20)")
    args = parser.parse_args()
    problem = Advection(steps=args.steps)
    say = print if problem.mesh.rank == 0 else None
    problem.set_target(TRUTH)
    loss = problem.fit((0.2, 0.2), args.iterations, log=say)
    if say is not None:
        say(f"fitted velocity {problem.velocity.numpy()} (target {list(TRUTH)}), loss {loss:.3e} "
            f"on {problem.mesh.nranks} rank(s)")


if __name__ == "__main__":
    main()
