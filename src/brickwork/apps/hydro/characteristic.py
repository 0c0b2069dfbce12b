"""Characteristic reconstruction (``[hydro] characteristic = true``; Athena++'s ``xorder = 2c`` and ``3c``).

The face states of adiabatic hydro from PLM, PPM or WENO5 in characteristic variables instead of primitive
ones: each cell's stencil of differences ``w_{i+k} - w_i`` (k = -2..2, primitives rho, v_n, v_t1, v_t2, p) is
projected onto the left eigenvectors of the primitive equations at the cell's own state, the reconstruction
(``reconstruction.py``, with its limiter) runs on every characteristic variable, and the face values are
projected back with the right eigenvectors: Athena++'s variant, whose ``plm.cpp`` limits the projected
one-sided differences and ``ppm.cpp`` runs the whole of PPM (face interpolation and limiting) on the stencil
projected with the eigenvectors of cell i. WENO5 (Jiang & Shu's weights, as in primitive variables; Athena++ has
none) runs the same way: its smoothness indicators and weights are computed per characteristic variable on the
projected stencil. One cell's eigenvectors for its whole stencil keep the projection
linear, so a wave of one family (a sound wave) reaches the limiter as one smooth variable, and a state that is
uniform in the stencil comes back exactly.

With the cell's state (rho, u = v_n, p) and sound speed ``a = sqrt(gamma p / rho)`` the eigenvectors are
(Stone et al. 2008, eq. A3; columns of R, rows of L, the order of the waves u - a, u, u, u, u + a)::

    R: (1, -a/rho, a^2), (1, 0, 0), e_vt1, e_vt2, (1, a/rho, a^2)
    L: (0, -rho/(2a), 1/(2a^2)), (1, 0, -1/a^2), e_vt1, e_vt2, (0, rho/(2a), 1/(2a^2))

The transverse velocities and the passive scalars are advected waves whose eigenvectors are unit vectors:
they are reconstructed as in primitive variables (the same function on the same values). Only density,
normal velocity and pressure mix.

Projected back, a face's density or pressure may not be positive where the primitive limiter would have kept
it so (a strong jump next to a near vacuum); Athena++ applies its density and pressure floors there. Brickwork
has no floors, so such a cell takes its own state at both faces (first order there, positive, and the same
choice on a mirrored stencil).

Every formula keeps the mirror symmetry of the reconstructions: the mirrored stencil (reversed, ``u``
negated) swaps the first and last characteristic variables exactly, and the sums back are written with the
swapped pair inside, so a mirrored problem runs the mirrored arithmetic bit for bit.
"""

from __future__ import annotations

import functools
import typing

import brickwork as wp


@wp.func
def to_characteristic(dr: typing.Any, du: typing.Any, dp: typing.Any, half_rho_over_a: typing.Any,
                      half_over_asq: typing.Any):
    """The acoustic and entropy components ``(w-, w0, w+)`` of a primitive difference (density, normal velocity,
    pressure): the rows of L above, ``L = (0, -rho/(2a), 1/(2a^2)), (1, 0, -1/a^2), (0, rho/(2a), 1/(2a^2))``."""
    q = half_over_asq * dp
    h = half_rho_over_a * du
    return q - h, dr - (q + q), q + h


@wp.func
def from_characteristic(r: typing.Any, u: typing.Any, p: typing.Any, a_over_rho: typing.Any, asq: typing.Any,
                        wm: typing.Any, w0: typing.Any, wp_: typing.Any):
    """(density, normal velocity, pressure) of the cell's state plus R times ``(w-, w0, w+)`` (columns of R above)."""
    acoustic = wm + wp_
    return r + (w0 + acoustic), u + a_over_rho * (wp_ - wm), p + asq * acoustic


@functools.cache  # one function per reconstruction: every kernel of a scheme calls the same one
def characteristic_faces(recon):
    """A ``@wp.func`` of the five-cell stencils of density, normal velocity and pressure (15 values, cells i-2..i+2
    of each) and gamma that returns ``(rho_lo, rho_hi, u_lo, u_hi, p_lo, p_hi)``: the face states of ``recon``
    (a function of ``reconstruction.py``) limited in characteristic variables."""

    @wp.func
    def faces(rmm: typing.Any, rm: typing.Any, r0: typing.Any, rp: typing.Any, rpp: typing.Any,
              umm: typing.Any, um: typing.Any, u0: typing.Any, up: typing.Any, upp: typing.Any,
              pmm: typing.Any, pm: typing.Any, p0: typing.Any, pp: typing.Any, ppp: typing.Any, gamma: typing.Any):
        T = type(r0)
        zero = T(0.0)
        asq = gamma * p0 / r0
        a = wp.sqrt(asq)
        half_rho_over_a = T(0.5) * r0 / a
        half_over_asq = T(0.5) / asq
        amm, bmm, cmm = to_characteristic(rmm - r0, umm - u0, pmm - p0, half_rho_over_a, half_over_asq)
        am, bm, cm = to_characteristic(rm - r0, um - u0, pm - p0, half_rho_over_a, half_over_asq)
        ap, bp, cp = to_characteristic(rp - r0, up - u0, pp - p0, half_rho_over_a, half_over_asq)
        app, bpp, cpp = to_characteristic(rpp - r0, upp - u0, ppp - p0, half_rho_over_a, half_over_asq)
        alo, ahi = recon(amm, am, zero, ap, app)
        blo, bhi = recon(bmm, bm, zero, bp, bpp)
        clo, chi = recon(cmm, cm, zero, cp, cpp)
        a_over_rho = a / r0
        rlo, ulo, plo = from_characteristic(r0, u0, p0, a_over_rho, asq, alo, blo, clo)
        rhi, uhi, phi = from_characteristic(r0, u0, p0, a_over_rho, asq, ahi, bhi, chi)
        # Athena++'s floors: here the cell's own state where a face is not physical (see the module's docstring)
        ok = rlo > zero and rhi > zero and plo > zero and phi > zero
        return (wp.where(ok, rlo, r0), wp.where(ok, rhi, r0), wp.where(ok, ulo, u0), wp.where(ok, uhi, u0),
                wp.where(ok, plo, p0), wp.where(ok, phi, p0))

    return faces
