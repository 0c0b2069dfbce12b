"""The update pass of the split hydro stages: ``U = a * U0 + b * (U - dt * div F)`` over the interior (one SSP-RK
stage), from the flux fields the flux passes wrote (``HydroKernels.update``; the fused stage updates from scratch)."""

from __future__ import annotations

from brickwork import la

from .variables import density, density0, energy, energy0, momentum, momentum0, scalars, scalars0


def make_update(kernels, first: bool):
    """The update body of ``kernels`` (a ``HydroKernels``): ``U = a * U0 + b * (U - dt * div F)`` over the interior
    from the flux views of every direction (one SSP-RK stage of the split passes; the first also saves ``U0 = U``)."""
    cons, cons0, coef = kernels.cons_pack, kernels.cons0_pack, kernels.coef
    D1 = int(kernels.cells.get_delta(1))  # ints, as in _make_fluxes
    D2 = int(kernels.cells.get_delta(2))
    D3 = int(kernels.cells.get_delta(3))
    NDIM = kernels.ndim
    FIRST = first  # the first stage (a = 0) also saves U0 = U: one pass over memory less
    NS = kernels.nscalars

    def update(rng, b):
        a = coef[0]
        wgt = coef[1]
        c1 = coef[2]
        c2 = coef[3]
        c3 = coef[4]
        u = la.make_pack_view(rng, cons)
        u0 = la.make_pack_view(rng, cons0)
        f1 = la.make_flux_pack_view(rng, cons, 1)
        f2 = la.make_flux_pack_view(rng, cons, 2)
        f3 = la.make_flux_pack_view(rng, cons, 3)
        for idx in la.inner(rng):
            r = u[density(), idx]
            m0 = u[momentum(0), idx]
            m1 = u[momentum(1), idx]
            m2 = u[momentum(2), idx]
            e = u[energy(), idx]
            d0 = c1 * (f1[density(), idx + D1] - f1[density(), idx])
            d1 = c1 * (f1[momentum(0), idx + D1] - f1[momentum(0), idx])
            d2 = c1 * (f1[momentum(1), idx + D1] - f1[momentum(1), idx])
            d3 = c1 * (f1[momentum(2), idx + D1] - f1[momentum(2), idx])
            d4 = c1 * (f1[energy(), idx + D1] - f1[energy(), idx])
            if NDIM >= 2:
                d0 = d0 + c2 * (f2[density(), idx + D2] - f2[density(), idx])
                d1 = d1 + c2 * (f2[momentum(0), idx + D2] - f2[momentum(0), idx])
                d2 = d2 + c2 * (f2[momentum(1), idx + D2] - f2[momentum(1), idx])
                d3 = d3 + c2 * (f2[momentum(2), idx + D2] - f2[momentum(2), idx])
                d4 = d4 + c2 * (f2[energy(), idx + D2] - f2[energy(), idx])
            if NDIM >= 3:
                d0 = d0 + c3 * (f3[density(), idx + D3] - f3[density(), idx])
                d1 = d1 + c3 * (f3[momentum(0), idx + D3] - f3[momentum(0), idx])
                d2 = d2 + c3 * (f3[momentum(1), idx + D3] - f3[momentum(1), idx])
                d3 = d3 + c3 * (f3[momentum(2), idx + D3] - f3[momentum(2), idx])
                d4 = d4 + c3 * (f3[energy(), idx + D3] - f3[energy(), idx])
            if FIRST:
                u0[density0(), idx] = r
                u0[momentum0(0), idx] = m0
                u0[momentum0(1), idx] = m1
                u0[momentum0(2), idx] = m2
                u0[energy0(), idx] = e
                u[density(), idx] = r - d0
                u[momentum(0), idx] = m0 - d1
                u[momentum(1), idx] = m1 - d2
                u[momentum(2), idx] = m2 - d3
                u[energy(), idx] = e - d4
            else:
                u[density(), idx] = a * u0[density0(), idx] + wgt * (r - d0)
                u[momentum(0), idx] = a * u0[momentum0(0), idx] + wgt * (m0 - d1)
                u[momentum(1), idx] = a * u0[momentum0(1), idx] + wgt * (m1 - d2)
                u[momentum(2), idx] = a * u0[momentum0(2), idx] + wgt * (m2 - d3)
                u[energy(), idx] = a * u0[energy0(), idx] + wgt * (e - d4)
            if NS > 0:
                for n in range(NS):
                    s = u[scalars(n), idx]
                    ds = c1 * (f1[scalars(n), idx + D1] - f1[scalars(n), idx])
                    if NDIM >= 2:
                        ds = ds + c2 * (f2[scalars(n), idx + D2] - f2[scalars(n), idx])
                    if NDIM >= 3:
                        ds = ds + c3 * (f3[scalars(n), idx + D3] - f3[scalars(n), idx])
                    if FIRST:
                        u0[scalars0(n), idx] = s
                        u[scalars(n), idx] = s - ds
                    else:
                        u[scalars(n), idx] = a * u0[scalars0(n), idx] + wgt * (s - ds)

    return update
