"""Source terms: constant gravity (``hydro.gravity``, Athena++'s ``grav_acc1..3``) and a problem's own
``SOURCE`` function (Athena++'s ``EnrollUserExplicitSourceFunction``).

Both are integrated with the Runge-Kutta stages of the fluxes: a stage is
``U = a * U0 + b * (U + dt * (L(U) + S(U)))``, the fluxes' ``L`` and the sources' ``S`` of the same state,
the stage's start. The split passes leave that state's primitives in the ``prim`` field, so a run with a
source runs split stages, and after each stage's update ``apply`` adds ``b * dt * S`` from ``prim``:

* gravity ``g``: ``d(rho v)/dt = rho g``, ``dE/dt = g . F_mass`` (the mean of the stage's face mass fluxes,
  still in the flux fields: ``E + rho Phi`` is conserved to round-off), one compiled pass over the interior (the
  default kernels, and a run without sources, are unchanged);
* ``SOURCE``: ``fn(density, v1, v2, v3, pressure, params, gamma, x1, x2, x3, time, dt)`` gets a rank's
  blocks' primitives, float64 arrays ``(nblocks, nk, nj, ni)``, the cell centres ``x1`` ``(nblocks, 1, 1,
  ni)``, ``x2`` ``(nblocks, 1, nj, 1)``, ``x3`` ``(nblocks, nk, 1, 1)``, the stage's time and the step
  ``dt``, and returns the rates ``(d density, d momentum_1, d momentum_2, d momentum_3, d energy) / dt``,
  arrays or numbers that broadcast to the cells. It runs on the host, with numpy (on a GPU the primitives
  come to the host and the conserved fields go there and back once per stage). Cell by cell, so the same
  on any number of ranks. It may name the arguments it takes instead, in any order (``user_arguments``).
"""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import storage

from . import user_arguments
from .custom_problem import broadcast_values, call_user, host_function, kernel_note
from .rank_errors import agree
from .schema import ConfigError
from .variables import density, energy, momentum, prim

#: what the problem's ``SOURCE`` returns, per unit time, in this order
RATES = ("density", "momentum_1", "momentum_2", "momentum_3", "energy")
SIGNATURE = "fn(density, v1, v2, v3, pressure, params, gamma, x1, x2, x3, time, dt)"
#: the time of each Runge-Kutta stage's starting state, in steps after the step's start
STAGE_TIMES = {"rk2": (0.0, 1.0), "rk3": (0.0, 1.0, 0.5)}


def describe_mistakes(problem) -> list[str]:
    """What ``problem``'s ``SOURCE`` gets wrong (for ``custom_problem.describe_mistakes``)."""
    function = getattr(problem, "SOURCE", None)
    if function is not None and not host_function(function):
        return [f"SOURCE must be a function {SIGNATURE} returning the rates of change of ({', '.join(RATES)}), "
                f"got {function!r}{kernel_note(function)}"]
    return [] if function is None else user_arguments.describe_mistake(function, "SOURCE", "SOURCE")


def gravity(hydro: dict) -> tuple[float, float, float]:
    """``hydro.gravity`` as three components (missing ones zero)."""
    g = list(hydro.get("gravity") or ())
    return tuple(g + [0.0] * (3 - len(g)))


def check(sections: dict, problem) -> None:
    """``ConfigError`` when ``hydro.gravity`` has more than 3 entries, when a ``hydrostatic`` direction has no
    gravity, or when a run with a source asks for fused stages (the sources need the split passes'
    primitives)."""
    hydro = sections["hydro"]
    g = hydro.get("gravity")
    if g is not None and len(g) > 3:
        raise ConfigError(f"hydro.gravity: expected 1 to 3 entries (g1, g2, g3), got {g!r}")
    for d in range(1, len(sections["mesh"]["nx"]) + 1):
        if sections["mesh"][f"bc_x{d}"] == "hydrostatic" and not gravity(hydro)[d - 1]:
            raise ConfigError(f"mesh.bc_x{d} = 'hydrostatic' balances gravity along x{d}, but hydro.gravity has no "
                              f"g{d} (hydro.gravity = {g!r}): give it one, or make the walls 'reflecting'")
    if hydro["stage"] == "fused" and (any(gravity(hydro)) or getattr(problem, "SOURCE", None) is not None):
        which = "hydro.gravity" if any(gravity(hydro)) else f"problem {problem.NAME!r}'s SOURCE"
        raise ConfigError(f"hydro.stage = 'fused' has no source terms, and {which} is one: set hydro.stage = "
                          f"'split' or 'auto' (which splits a run with sources)")


class Sources:
    """The source terms of the run ``sim`` (a ``Hydro``); ``active`` is false when it has none."""

    def __init__(self, sim):
        self.sim = sim
        self.g = gravity(sim.cfg["hydro"])
        self.function = getattr(sim.cfg.problem, "SOURCE", None)
        self.active = any(self.g) or self.function is not None
        self._body = None  # the gravity pass, built on first use
        self._positions = None
        self._rates = None  # what SOURCE returned for the current stage (``prepare``)

    def prepare(self, dt: float, stage: int) -> None:
        """Call the problem's ``SOURCE`` on the stage's starting state (its primitives in ``prim``), before
        the stage's update: a function that fails or returns the wrong thing raises before any change."""
        if self.function is not None:
            time = self.sim.time + STAGE_TIMES[self.sim.cfg["hydro"]["integrator"]][stage] * dt
            rates: list = []
            # on several ranks one that fails stops them all (one allgather per stage), none waits for it
            agree(self.sim.mesh.comm, lambda: rates.append(self._call(time, dt)))
            self._rates = rates[0]

    def apply(self, b: float, dt: float) -> None:
        """Add ``b * dt * S`` of the stage's starting state to the conserved variables (after the stage's
        update; ``prepare`` first)."""
        if any(self.g):
            self._apply_gravity(b * dt)
        if self.function is not None and self.sim.mesh.blocks:
            self._add(b * dt, self._rates)
            self._rates = None

    def _apply_gravity(self, bdt: float) -> None:
        k = self.sim.kernels
        if self._body is None:
            self._coef = wp.types.vector(4, k.T)(0.0, *self.g)
            deltas = tuple(int(k.cells.get_delta(d)) for d in (1, 2, 3))
            self._body = _make_gravity(k.T, k.cons_pack, k.prim_pack, self._coef, k.ndim, deltas)
        self._coef[0] = bdt
        la.outer(k.cells, self._body)

    def _call(self, time: float, dt: float) -> list:
        sim = self.sim
        if not sim.mesh.blocks:
            return []
        q = storage.host(sim.mesh.data("prim"))[(slice(None), slice(0, 5)) + sim._interior]
        arguments = [q[:, c].astype(np.float64) for c in range(5)]
        rates = call_user(sim, "SOURCE", self.function, arguments, extra=(*self.positions(), time, dt),
                          as_array=False)
        return self._checked(rates, arguments[0].shape)

    def _add(self, bdt: float, rates: list) -> None:
        sim = self.sim
        names = ("density", "momentum", "energy")
        fields = {name: storage.host(sim.mesh.data(name)) for name in names}
        targets = [(fields["density"], 0), (fields["momentum"], 0), (fields["momentum"], 1), (fields["momentum"], 2),
                   (fields["energy"], 0)]
        for (data, comp), rate in zip(targets, rates):
            view = data[(slice(None), comp) + sim._interior]
            view += (bdt * rate).astype(data.dtype)
        for name in names:  # on a device: one copy of each field back
            if fields[name] is not sim.mesh.data(name):
                sim.mesh.data(name).assign(fields[name])

    def _checked(self, rates, shape: tuple) -> list:
        """The five rates ``SOURCE`` returned as float64 arrays of the cells' ``shape``; ``ConfigError``
        naming the function and what it returned when they are something else."""
        what = f"problem {self.sim.cfg.problem.NAME!r}: SOURCE must return 5 rates ({', '.join(RATES)})"
        if not isinstance(rates, (tuple, list)) or len(rates) != 5:
            got = f"{len(rates)} values" if isinstance(rates, (tuple, list)) else type(rates).__name__
            raise ConfigError(f"{what} as a tuple of arrays or numbers, got {got}")
        # strings, objects and complex numbers are refused as initial()'s values are
        checked = broadcast_values(zip(RATES, rates), shape,
                                   f"{what}, numbers or arrays that broadcast to the blocks' cells {shape}")
        return [values.astype(np.float64, copy=False) for values in checked]

    def positions(self) -> tuple:
        """The interior cell centres of this rank's blocks: ``x1 (nblocks, 1, 1, ni)``, ``x2 (nblocks, 1, nj,
        1)``, ``x3 (nblocks, nk, 1, 1)``."""
        if self._positions is None:
            kji = self.sim._interior
            out = []
            for d, shape in ((1, (1, 1, -1)), (2, (1, -1, 1)), (3, (-1, 1, 1))):
                centres = [np.asarray(b.coords.x_center(d), dtype=np.float64)[kji[3 - d]] for b in self.sim.mesh.blocks]
                out.append(np.stack([c.reshape(shape) for c in centres]))
            self._positions = tuple(out)
        return self._positions


def _make_gravity(T, cons, w, coef, ndim, deltas):
    """The pass adding ``bdt * (rho g, g . F_mass)`` to the momentum and energy; ``coef = [bdt, g1, g2, g3]``.

    The energy source of an active direction d is ``g_d`` times the mean of the stage's mass fluxes through the
    cell's two faces normal to d (Athena++'s): summed over a closed box it cancels the change of ``rho Phi``
    (``Phi = -g . x``) that those fluxes make, face by face, so ``E + rho Phi`` is conserved to round-off. A
    direction the mesh does not have carries no flux: there the cell's ``rho v_d g_d``."""
    D1, D2, D3 = deltas  # flat steps between cells, ints (as the update's)
    NDIM = ndim

    def gravity_source(rng, b):
        bdt = coef[0]
        g1 = coef[1]
        g2 = coef[2]
        g3 = coef[3]
        half = T(0.5) * bdt
        u = la.make_pack_view(rng, cons)
        q = la.make_pack_view(rng, w)
        f1 = la.make_flux_pack_view(rng, cons, 1)
        f2 = la.make_flux_pack_view(rng, cons, 2)
        f3 = la.make_flux_pack_view(rng, cons, 3)
        for idx in la.inner(rng):
            r = bdt * q[prim(0), idx]
            u[momentum(0), idx] = u[momentum(0), idx] + r * g1
            u[momentum(1), idx] = u[momentum(1), idx] + r * g2
            u[momentum(2), idx] = u[momentum(2), idx] + r * g3
            de = half * g1 * (f1[density(), idx] + f1[density(), idx + D1])
            if NDIM >= 2:
                de = de + half * g2 * (f2[density(), idx] + f2[density(), idx + D2])
            else:
                de = de + r * q[prim(2), idx] * g2
            if NDIM >= 3:
                de = de + half * g3 * (f3[density(), idx] + f3[density(), idx + D3])
            else:
                de = de + r * q[prim(3), idx] * g3
            u[energy(), idx] = u[energy(), idx] + de

    return gravity_source
