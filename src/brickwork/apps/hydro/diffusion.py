"""Explicit diffusion: isotropic shear viscosity (``hydro.viscosity``, Athena++'s ``nu_iso``) and thermal
conduction (``hydro.conduction``, Athena++'s ``kappa_iso``), as diffusive face fluxes added to each stage's
hydro fluxes (unsplit, as Athena++ does), and the time step they allow.

The face fluxes follow Athena++'s discretisation (``HydroDiffusion::ViscousFluxIso`` and
``ThermalFluxIso``), with ``nu`` and ``kappa`` constant: on the face between cells ``m`` and ``c`` (normal
``n``, transverse ``t``), with ``rho_f`` the mean of the two cells' densities,

* momentum: ``F(m_n) -= rho_f nu (2 dv_n/dn - 2/3 div v)``, ``F(m_t) -= rho_f nu (dv_t/dn + dv_n/dt)``,
  where ``dv/dn`` is the difference of the two cells over ``dx_n``, ``dv_n/dt`` the mean of the two cells'
  central differences, and ``div v`` the mean of the two cells' central divergences;
* energy: the viscous work, the momentum fluxes times the face's mean velocity, and the heat flux
  ``-kappa rho_f dT/dn`` with ``T = p / rho`` (``kappa`` is a diffusivity, as Athena++'s ``kappa_iso``:
  the conductivity is ``kappa rho``).

The passes read the primitives that the split passes leave in ``prim`` (ghost cells included, so a face
on a block's edge reads its neighbour's cells) and add to the flux arrays before the update: each face's
flux is computed once per block from the same values on both sides, so the totals are conserved to
round-off, across blocks and ranks. A run with diffusion runs split stages (as a run with sources).
"""

from __future__ import annotations

import brickwork as wp
from brickwork import la

from .schema import ConfigError
from .variables import energy, momentum, prim


def diffusivity(hydro: dict) -> float:
    """The largest diffusivity of ``[hydro]``: ``nu``, and ``(gamma - 1) kappa`` (the rate at which the
    temperature diffuses while the density stays: the explicit update's stability limit)."""
    return max(hydro["viscosity"], (hydro["gamma"] - 1.0) * hydro["conduction"])


def check(sections: dict) -> None:
    """``ConfigError`` when a run with diffusion asks for fused stages (the diffusive fluxes need the split
    passes' primitives and flux arrays)."""
    hydro = sections["hydro"]
    if hydro["stage"] == "fused" and diffusivity(hydro) > 0.0:
        key = "hydro.viscosity" if hydro["viscosity"] > 0.0 else "hydro.conduction"
        raise ConfigError(f"hydro.stage = 'fused' has no diffusive fluxes, and {key}={hydro[key.split('.')[1]]!r} "
                          f"asks for them: set hydro.stage = 'split' or 'auto' (which splits a run with diffusion)")


def time_step(hydro: dict, dx: list[float], ndim: int) -> float:
    """The diffusive time step ``cfl * min(dx)^2 / (2 ndim D)``, ``D`` the largest diffusivity; inf without
    diffusion."""
    d = diffusivity(hydro)
    if d <= 0.0:
        return float("inf")
    return hydro["cfl"] * min(dx[:ndim]) ** 2 / (2.0 * ndim * d)


class Diffusion:
    """The diffusive fluxes of the run ``sim`` (a ``Hydro``); ``active`` is false without viscosity and
    conduction, and then nothing is built or run."""

    def __init__(self, sim):
        h = sim.cfg["hydro"]
        self.sim = sim
        self.nu, self.kappa = h["viscosity"], h["conduction"]
        self.active = diffusivity(h) > 0.0
        #: the largest time step the diffusion allows (inf without it)
        self.dt = time_step(h, sim.kernels.dx, sim.ndim)  # the cells' widths, as the kernels take them
        self._bodies = None  # built on first use

    def add_fluxes(self) -> None:
        """Add the diffusive fluxes of the state in ``prim`` to every direction's flux arrays (after the hydro
        fluxes, before the update)."""
        k = self.sim.kernels
        if self._bodies is None:
            inv = [1.0 / k.dx[d] for d in range(3)]
            self._coef = wp.types.vector(5, k.T)(self.nu, self.kappa, *inv)
            self._bodies = {d: _make_face_fluxes(k.T, k.cons_pack, k.prim_pack, self._coef, d,
                                                 {e: int(k.faces[d].get_delta(e)) for e in (1, 2, 3)})
                            for d in range(1, k.ndim + 1)}
        for d, body in self._bodies.items():
            la.outer(k.faces[d], body)


def _make_face_fluxes(T, cons, w, coef, d: int, deltas: dict):
    """The pass adding the viscous and conductive fluxes through the faces normal to ``d``; ``coef = [nu,
    kappa, 1/dx1, 1/dx2, 1/dx3]``, ``deltas`` the flat step of each direction (0 where the mesh has none)."""
    t1, t2 = d % 3 + 1, (d + 1) % 3 + 1  # the transverse directions, cyclic
    DN, DT1, DT2 = deltas[d], deltas[t1], deltas[t2]
    ACT1, ACT2 = DT1 != 0, DT2 != 0  # transverse directions the mesh has: only they carry derivatives
    VN, VT1, VT2 = d, t1, t2  # prim slots of the normal and transverse velocities
    MN, MT1, MT2 = d - 1, t1 - 1, t2 - 1  # the same as momentum components
    IN, IT1, IT2 = 1 + d, 1 + t1, 1 + t2  # coef slots of 1/dx
    DIR = d

    def diffusive_fluxes(rng, b):
        nu = coef[0]
        kappa = coef[1]
        inv_n = coef[IN]
        inv_t1 = coef[IT1]
        inv_t2 = coef[IT2]
        half = T(0.5)
        quarter = T(0.25)
        q = la.make_pack_view(rng, w)
        f = la.make_flux_pack_view(rng, cons, DIR)
        for idx in la.inner(rng):
            m = idx - DN  # the cell below the face
            rho_f = half * (q[prim(0), idx] + q[prim(0), m])
            vn_c = q[prim(VN), idx]
            vn_m = q[prim(VN), m]
            vt1_c = q[prim(VT1), idx]
            vt1_m = q[prim(VT1), m]
            vt2_c = q[prim(VT2), idx]
            vt2_m = q[prim(VT2), m]
            # twice the mean of the two cells' central divergences
            div2 = (q[prim(VN), idx + DN] - vn_m) * inv_n * half + (vn_c - q[prim(VN), m - DN]) * inv_n * half
            g_t1 = (vt1_c - vt1_m) * inv_n
            g_t2 = (vt2_c - vt2_m) * inv_n
            if ACT1:
                div2 = div2 + half * inv_t1 * (q[prim(VT1), idx + DT1] - q[prim(VT1), idx - DT1]
                                               + q[prim(VT1), m + DT1] - q[prim(VT1), m - DT1])
                g_t1 = g_t1 + quarter * inv_t1 * (q[prim(VN), idx + DT1] + q[prim(VN), m + DT1]
                                                  - q[prim(VN), idx - DT1] - q[prim(VN), m - DT1])
            if ACT2:
                div2 = div2 + half * inv_t2 * (q[prim(VT2), idx + DT2] - q[prim(VT2), idx - DT2]
                                               + q[prim(VT2), m + DT2] - q[prim(VT2), m - DT2])
                g_t2 = g_t2 + quarter * inv_t2 * (q[prim(VN), idx + DT2] + q[prim(VN), m + DT2]
                                                  - q[prim(VN), idx - DT2] - q[prim(VN), m - DT2])
            g_n = T(2.0) * (vn_c - vn_m) * inv_n - div2 / T(3.0)  # 2/3 of the mean divergence
            visc = -rho_f * nu
            fn = visc * g_n
            ft1 = visc * g_t1
            ft2 = visc * g_t2
            # the viscous work, and the heat flux down the temperature gradient
            heat = -kappa * rho_f * (q[prim(4), idx] / q[prim(0), idx] - q[prim(4), m] / q[prim(0), m]) * inv_n
            work = half * ((vn_c + vn_m) * fn + (vt1_c + vt1_m) * ft1 + (vt2_c + vt2_m) * ft2)
            f[momentum(MN), idx] = f[momentum(MN), idx] + fn
            f[momentum(MT1), idx] = f[momentum(MT1), idx] + ft1
            f[momentum(MT2), idx] = f[momentum(MT2), idx] + ft2
            f[energy(), idx] = f[energy(), idx] + (work + heat)

    return diffusive_fluxes

