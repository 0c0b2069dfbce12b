"""The flux pass across rows on a GPU: the faces normal to j (or k) without a team's scratch.

On a GPU the hydro passes slice the mesh by rows (``la.i_pencil``: a row of a block per thread block). A
face normal to ``d >= 2`` lies between two rows, so a row's team reconstructed its own row and the one below
into per-point scratch (both face states of each cell, half of them never read), then solved each face
after a barrier: twice the row's reconstruction, 41 KB of shared memory per team for a row of 256 float64
cells (five teams per SM where registers allow seven) and a barrier, where no team reuses a neighbour's
reconstruction. This body reconstructs the two states of each face where it solves it, in one loop,
as the hand-written CUDA kernel does: the same arithmetic on the same values as the scratch body
(``HydroKernels._make_fluxes``), so the fluxes are the same bits.
"""

from __future__ import annotations

import brickwork as wp
from brickwork import la

from .variables import density, energy, momentum, prim, scalars


def make_fluxes_across_rows(kernels, d: int, recon, wide: bool, solver, char=None):
    """The flux body of ``kernels`` (a ``HydroKernels``) for the faces normal to direction ``d`` (2 or 3),
    written face by face (for a space whose slice is a row along i); ``char``: the function of characteristic.py
    that gives density, normal velocity and pressure limited in characteristic variables, or None."""
    T, cons, w, coef = kernels.T, kernels.cons_pack, kernels.prim_pack, kernels.coef
    D = int(kernels.faces[d].get_delta(d))  # an int, as in _make_fluxes (part of the kernel's key)
    DIR = d
    VN, VT1, VT2 = 1 + (d - 1), 1 + d % 3, 1 + (d + 1) % 3  # prim slots: normal, transverse velocities
    MN, MT1, MT2 = VN - 1, VT1 - 1, VT2 - 1
    D2 = 2 * D if wide else D
    NS = kernels.nscalars
    CHAR = char is not None

    def fluxes_across_rows(rng, b):
        gamma = coef[5]
        q = la.make_pack_view(rng, w)
        f = la.make_flux_pack_view(rng, cons, DIR)
        for idx in la.inner(rng):
            m = idx - D  # the cell below the face: its upper state is the left state
            if CHAR:  # characteristic.py: density, normal velocity and pressure of each side together
                x0, l0, xn, ln, x4, l4 = char(q[prim(0), m - D2], q[prim(0), m - D], q[prim(0), m], q[prim(0), m + D],
                                              q[prim(0), m + D2], q[prim(VN), m - D2], q[prim(VN), m - D],
                                              q[prim(VN), m], q[prim(VN), m + D], q[prim(VN), m + D2],
                                              q[prim(4), m - D2], q[prim(4), m - D], q[prim(4), m], q[prim(4), m + D],
                                              q[prim(4), m + D2], gamma)
                r0, y0, rn, yn, r4, y4 = char(q[prim(0), idx - D2], q[prim(0), idx - D], q[prim(0), idx],
                                              q[prim(0), idx + D], q[prim(0), idx + D2], q[prim(VN), idx - D2],
                                              q[prim(VN), idx - D], q[prim(VN), idx], q[prim(VN), idx + D],
                                              q[prim(VN), idx + D2], q[prim(4), idx - D2], q[prim(4), idx - D],
                                              q[prim(4), idx], q[prim(4), idx + D], q[prim(4), idx + D2], gamma)
                xt1, lt1 = recon(q[prim(VT1), m - D2], q[prim(VT1), m - D], q[prim(VT1), m], q[prim(VT1), m + D],
                                 q[prim(VT1), m + D2])
                xt2, lt2 = recon(q[prim(VT2), m - D2], q[prim(VT2), m - D], q[prim(VT2), m], q[prim(VT2), m + D],
                                 q[prim(VT2), m + D2])
                r1, yt1 = recon(q[prim(VT1), idx - D2], q[prim(VT1), idx - D], q[prim(VT1), idx],
                                q[prim(VT1), idx + D], q[prim(VT1), idx + D2])
                r2, yt2 = recon(q[prim(VT2), idx - D2], q[prim(VT2), idx - D], q[prim(VT2), idx],
                                q[prim(VT2), idx + D], q[prim(VT2), idx + D2])
            else:
                _, l0 = recon(q[prim(0), m - D2], q[prim(0), m - D], q[prim(0), m], q[prim(0), m + D],
                              q[prim(0), m + D2])
                _, ln = recon(q[prim(VN), m - D2], q[prim(VN), m - D], q[prim(VN), m], q[prim(VN), m + D],
                              q[prim(VN), m + D2])
                _, lt1 = recon(q[prim(VT1), m - D2], q[prim(VT1), m - D], q[prim(VT1), m], q[prim(VT1), m + D],
                               q[prim(VT1), m + D2])
                _, lt2 = recon(q[prim(VT2), m - D2], q[prim(VT2), m - D], q[prim(VT2), m], q[prim(VT2), m + D],
                               q[prim(VT2), m + D2])
                _, l4 = recon(q[prim(4), m - D2], q[prim(4), m - D], q[prim(4), m], q[prim(4), m + D],
                              q[prim(4), m + D2])
                r0, _ = recon(q[prim(0), idx - D2], q[prim(0), idx - D], q[prim(0), idx], q[prim(0), idx + D],
                              q[prim(0), idx + D2])
                rn, _ = recon(q[prim(VN), idx - D2], q[prim(VN), idx - D], q[prim(VN), idx], q[prim(VN), idx + D],
                              q[prim(VN), idx + D2])
                r1, _ = recon(q[prim(VT1), idx - D2], q[prim(VT1), idx - D], q[prim(VT1), idx], q[prim(VT1), idx + D],
                              q[prim(VT1), idx + D2])
                r2, _ = recon(q[prim(VT2), idx - D2], q[prim(VT2), idx - D], q[prim(VT2), idx], q[prim(VT2), idx + D],
                              q[prim(VT2), idx + D2])
                r4, _ = recon(q[prim(4), idx - D2], q[prim(4), idx - D], q[prim(4), idx], q[prim(4), idx + D],
                              q[prim(4), idx + D2])
            f0, f1, f2, f3, f4 = solver(l0, ln, lt1, lt2, l4, r0, rn, r1, r2, r4, gamma)
            f[density(), idx] = f0
            f[momentum(MN), idx] = f1
            f[momentum(MT1), idx] = f2
            f[momentum(MT2), idx] = f3
            f[energy(), idx] = f4
            if NS > 0:  # upwinded by the mass flux, as in _make_fluxes
                for n in range(NS):
                    c = 5 + n
                    _, ls = recon(q[prim(c), m - D2], q[prim(c), m - D], q[prim(c), m], q[prim(c), m + D],
                                  q[prim(c), m + D2])
                    rs, _ = recon(q[prim(c), idx - D2], q[prim(c), idx - D], q[prim(c), idx], q[prim(c), idx + D],
                                  q[prim(c), idx + D2])
                    f[scalars(n), idx] = f0 * wp.where(f0 >= T(0.0), ls, rs)

    return fluxes_across_rows
