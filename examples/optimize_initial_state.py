"""Fit the initial density of a 1-D gas so that, after a time T, it matches a target profile.

The solver is a first-order finite-volume scheme for the Euler equations (HLL fluxes, periodic
domain, fixed time step) written as two brickwork kernels. Every step is launched inside a
``wp.Tape``; ``tape.backward(loss)`` gives the gradient of

    loss = sum_i (rho_i(T) - rho_target_i)^2 * dx

with respect to the initial density, which plain gradient descent then follows. The target is the
state a Gaussian density bump reaches at time T; the fit starts from a flat density.

Run: ``python examples/optimize_initial_state.py`` (or with ``PYTHONPATH=src`` from a checkout).
"""

from __future__ import annotations

import numpy as np

import brickwork as wp

GAMMA = 1.4


@wp.func
def pressure(u: wp.vec3d):
    return (wp.float64(GAMMA) - wp.float64(1.0)) * (u[2] - wp.float64(0.5) * u[1] * u[1] / u[0])


@wp.func
def physical_flux(u: wp.vec3d, p: wp.float64):
    v = u[1] / u[0]
    return wp.vec3d(u[1], u[1] * v + p, (u[2] + p) * v)


@wp.kernel
def hll_flux(u: wp.array(dtype=wp.vec3d), flux: wp.array(dtype=wp.vec3d)):
    """flux[i]: the HLL flux through the face between cells i - 1 and i (periodic)."""
    i = wp.tid()
    n = u.shape[0]
    ul = u[(i + n - 1) % n]
    ur = u[i]
    pl = pressure(ul)
    pr = pressure(ur)
    vl = ul[1] / ul[0]
    vr = ur[1] / ur[0]
    cl = wp.sqrt(wp.float64(GAMMA) * pl / ul[0])
    cr = wp.sqrt(wp.float64(GAMMA) * pr / ur[0])
    sl = wp.min(vl - cl, vr - cr)
    sr = wp.max(vl + cl, vr + cr)
    fl = physical_flux(ul, pl)
    fr = physical_flux(ur, pr)
    if sl >= wp.float64(0.0):
        flux[i] = fl
    elif sr <= wp.float64(0.0):
        flux[i] = fr
    else:
        flux[i] = (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl)


@wp.kernel
def update(u: wp.array(dtype=wp.vec3d), flux: wp.array(dtype=wp.vec3d), dt_dx: wp.float64,
           out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    n = u.shape[0]
    out[i] = u[i] - dt_dx * (flux[(i + 1) % n] - flux[i])


@wp.kernel
def initial_state(rho: wp.array(dtype=wp.float64), p0: wp.float64, u: wp.array(dtype=wp.vec3d)):
    """Gas at rest with pressure p0 and the given density."""
    i = wp.tid()
    u[i] = wp.vec3d(rho[i], wp.float64(0.0), p0 / (wp.float64(GAMMA) - wp.float64(1.0)))


@wp.kernel
def misfit(u: wp.array(dtype=wp.vec3d), target: wp.array(dtype=wp.float64), dx: wp.float64,
           loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    d = u[i][0] - target[i]
    wp.atomic_add(loss, 0, d * d * dx)


class Problem:
    """The 1-D periodic problem: ``n`` cells on [0, 1), ``steps`` steps of ``dt`` (CFL about 0.4)."""

    def __init__(self, n: int = 64, steps: int = 40, p0: float = 1.0):
        self.n, self.steps, self.p0 = n, steps, p0
        self.dx = 1.0 / n
        self.dt = 0.4 * self.dx / np.sqrt(GAMMA * p0 / 0.5)  # the sound speed of the lightest gas allowed
        self.x = (np.arange(n) + 0.5) * self.dx

    def final_density(self, rho0: np.ndarray) -> np.ndarray:
        return self.run(wp.array(rho0, dtype=wp.float64))[0].numpy()[:, 0].copy()

    def run(self, rho: wp.array, target: wp.array | None = None):
        """Launch every kernel of one solve (recorded when a tape is active): the final state, and
        the loss array when ``target`` is given."""
        grad = rho.requires_grad
        u = wp.zeros(self.n, dtype=wp.vec3d, requires_grad=grad)
        wp.launch(initial_state, self.n, inputs=[rho, wp.float64(self.p0), u])
        for _ in range(self.steps):
            flux = wp.zeros(self.n, dtype=wp.vec3d, requires_grad=grad)
            nxt = wp.zeros(self.n, dtype=wp.vec3d, requires_grad=grad)
            wp.launch(hll_flux, self.n, inputs=[u, flux])
            wp.launch(update, self.n, inputs=[u, flux, wp.float64(self.dt / self.dx), nxt])
            u = nxt
        loss = None
        if target is not None:
            loss = wp.zeros(1, dtype=wp.float64, requires_grad=grad)
            wp.launch(misfit, self.n, inputs=[u, target, wp.float64(self.dx), loss])
        return u, loss

    def loss_and_gradient(self, rho0: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
        rho = wp.array(rho0, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            _, loss = self.run(rho, wp.array(target, dtype=wp.float64))
        tape.backward(loss)
        return float(loss.numpy()[0]), rho.grad.numpy().copy()

    def loss(self, rho0: np.ndarray, target: np.ndarray) -> float:
        _, loss = self.run(wp.array(rho0, dtype=wp.float64), wp.array(target, dtype=wp.float64))
        return float(loss.numpy()[0])


def fit(problem: Problem, target: np.ndarray, rho0: np.ndarray, iterations: int = 40, rate: float = 0.5):
    """Gradient descent on the initial density (kept above 0.5); returns the fit and the loss history."""
    rho = rho0.copy()
    history = []
    for _ in range(iterations):
        loss, grad = problem.loss_and_gradient(rho, target)
        history.append(loss)
        rho = np.maximum(rho - rate * grad / problem.dx, 0.5)
    history.append(problem.loss(rho, target))
    return rho, history


def main():
    problem = Problem()
    true_rho0 = 1.0 + 0.5 * np.exp(-((problem.x - 0.5) / 0.08) ** 2)
    target = problem.final_density(true_rho0)
    rho, history = fit(problem, target, np.ones(problem.n))
    print(f"loss: {history[0]:.3e} at the start, {history[-1]:.3e} after {len(history) - 1} steps of gradient descent")
    print(f"initial density error (max): {np.abs(rho - true_rho0).max():.3f} "
          f"(start: {np.abs(1.0 - true_rho0).max():.3f})")


if __name__ == "__main__":
    main()
