"""The local Lax-Friedrichs (Rusanov) flux and Roe's linearised flux (Roe 1981), with Athena++'s fallback.

Both take the rotated primitive states of ``riemann.py``'s solvers and return the same five fluxes. Roe's flux
is the mean of the two physical fluxes less half of sum_k |lambda_k| alpha_k K_k over the five waves of the
Roe-averaged state (Toro 2009, section 11.2: the wave strengths alpha_k from the primitive jumps, eq. 11.68
for three velocities), with

* Harten & Hyman's (1983) entropy fix on the two acoustic waves: where |lambda| is below
  delta = max(0, lambda - lambda_L, lambda_R - lambda) (lambda_L, lambda_R: the wave's speed in the left and
  right states), |lambda| becomes (lambda^2 + delta^2) / (2 delta), so a transonic rarefaction is spread
  instead of kept as an expansion shock; the contact and shear waves are linearly degenerate and need none;
* the upwind flux where every wave leaves the face one way (the smallest Roe speed >= 0: the left
  physical flux; the largest <= 0: the right one), as Athena++'s roe.cpp;
* the LLF flux where the linearisation fails: the Roe sound speed is not positive, or a star state next to
  the contact (left state plus the first wave, right state less the last) has density or pressure <= 0
  (Athena++ checks each partial sum of the waves and falls back to LLF with max(|lambda_1|, |lambda_5|)
  and no 1/2 on the jump; here the fallback is ``llf`` itself, the one-sided speeds' Rusanov flux).

Every sum of a left and a right term is one addition of the pair, and the Roe averages take both square
roots: the mirrored face (states swapped, normal velocities negated) gives the mirrored flux bit for bit.
"""

from __future__ import annotations

import typing

import brickwork as wp

from .riemann import physical_flux


@wp.func
def total_energy(r: typing.Any, u: typing.Any, v: typing.Any, w: typing.Any, p: typing.Any, inv_gm1: typing.Any):
    """Total energy density of a primitive state."""
    T = type(r)
    return p * inv_gm1 + T(0.5) * r * (u * u + v * v + w * w)


@wp.func
def rusanov(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any, el: typing.Any,
            rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any, er: typing.Any,
            speed: typing.Any):
    """The mean of the two physical fluxes less half ``speed`` times the jump of the conserved variables."""
    T = type(rl)
    fl0, fl1, fl2, fl3, fl4 = physical_flux(rl, ul, vl, wl, pl, el)
    fr0, fr1, fr2, fr3, fr4 = physical_flux(rr, ur, vr, wr, pr, er)
    half = T(0.5)
    hs = half * speed
    return (half * (fl0 + fr0) - hs * (rr - rl), half * (fl1 + fr1) - hs * (rr * ur - rl * ul),
            half * (fl2 + fr2) - hs * (rr * vr - rl * vl), half * (fl3 + fr3) - hs * (rr * wr - rl * wl),
            half * (fl4 + fr4) - hs * (er - el))


@wp.func
def llf(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
        rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any, gamma: typing.Any):
    """The local Lax-Friedrichs (Rusanov) flux: the largest |u| + c of the two states as the one signal speed."""
    T = type(rl)
    inv_gm1 = T(1.0) / (gamma - T(1.0))
    sl = wp.abs(ul) + wp.sqrt(gamma * pl / rl)
    sr = wp.abs(ur) + wp.sqrt(gamma * pr / rr)
    return rusanov(rl, ul, vl, wl, pl, total_energy(rl, ul, vl, wl, pl, inv_gm1),
                   rr, ur, vr, wr, pr, total_energy(rr, ur, vr, wr, pr, inv_gm1), wp.where(sr > sl, sr, sl))


@wp.func
def harten_hyman(speed: typing.Any, delta: typing.Any):
    """|speed|, or (speed^2 + delta^2) / (2 delta) where |speed| < delta (Harten & Hyman's entropy fix)."""
    T = type(speed)
    a = wp.abs(speed)
    return wp.where(a < delta, (speed * speed + delta * delta) / (T(2.0) * wp.where(delta > T(0.0), delta, T(1.0))),
                    a)


@wp.func
def star_pressure(r: typing.Any, m0: typing.Any, m1: typing.Any, m2: typing.Any, e: typing.Any, gm1: typing.Any):
    """The pressure of a conserved state (for the fallback's check)."""
    T = type(r)
    return gm1 * (e - T(0.5) * (m0 * m0 + m1 * m1 + m2 * m2) / r)


@wp.func
def roe(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
        rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any, gamma: typing.Any):
    """Roe's flux with Harten & Hyman's entropy fix, the upwind flux for supersonic faces and the LLF flux
    where a star state is not physical (module docstring)."""
    T = type(rl)
    zero, half = T(0.0), T(0.5)
    gm1 = gamma - T(1.0)
    inv_gm1 = T(1.0) / gm1
    el = total_energy(rl, ul, vl, wl, pl, inv_gm1)
    er = total_energy(rr, ur, vr, wr, pr, inv_gm1)
    cl = wp.sqrt(gamma * pl / rl)
    cr = wp.sqrt(gamma * pr / rr)
    # Roe averages weighted sqrt(rl) : sqrt(rr)
    sql = wp.sqrt(rl)
    sqr = wp.sqrt(rr)
    inv = T(1.0) / (sql + sqr)
    u = (sql * ul + sqr * ur) * inv
    v = (sql * vl + sqr * vr) * inv
    w = (sql * wl + sqr * wr) * inv
    h = (sql * ((el + pl) / rl) + sqr * ((er + pr) / rr)) * inv
    q2 = u * u + v * v + w * w
    a2 = gm1 * (h - half * q2)
    linear = a2 > zero
    a2 = wp.where(linear, a2, T(1.0))  # the fallback's flux is taken where it is not positive
    a = wp.sqrt(a2)
    # wave strengths from the primitive jumps (rho_roe = sqrt(rl rr))
    rho_a_du = sql * sqr * a * (ur - ul)
    dp = pr - pl
    inv_2a2 = half / a2
    s1 = (dp - rho_a_du) * inv_2a2
    s5 = (dp + rho_a_du) * inv_2a2
    s2 = (rr - rl) - dp / a2
    s3 = sql * sqr * (vr - vl)
    s4 = sql * sqr * (wr - wl)
    lam1 = u - a
    lam5 = u + a
    d1 = wp.max(zero, wp.max(lam1 - (ul - cl), (ur - cr) - lam1))
    d5 = wp.max(zero, wp.max(lam5 - (ul + cl), (ur + cr) - lam5))
    t1 = harten_hyman(lam1, d1) * s1
    t5 = harten_hyman(lam5, d5) * s5
    au = wp.abs(u)
    t2 = au * s2
    t3 = au * s3
    t4 = au * s4
    mass = (t1 + t5) + t2
    fl0, fl1, fl2, fl3, fl4 = physical_flux(rl, ul, vl, wl, pl, el)
    fr0, fr1, fr2, fr3, fr4 = physical_flux(rr, ur, vr, wr, pr, er)
    f0 = half * (fl0 + fr0) - half * mass
    f1 = half * (fl1 + fr1) - half * ((t1 * lam1 + t5 * lam5) + t2 * u)
    f2 = half * (fl2 + fr2) - half * (mass * v + t3)
    f3 = half * (fl3 + fr3) - half * (mass * w + t4)
    ua = u * a
    f4 = half * (fl4 + fr4) - half * (((t1 * (h - ua) + t5 * (h + ua)) + t2 * (half * q2)) + (t3 * v + t4 * w))
    # every wave leaves the face one way: that side's physical flux
    right = lam5 <= zero
    up = lam1 >= zero or right
    f0 = wp.where(up, wp.where(right, fr0, fl0), f0)
    f1 = wp.where(up, wp.where(right, fr1, fl1), f1)
    f2 = wp.where(up, wp.where(right, fr2, fl2), f2)
    f3 = wp.where(up, wp.where(right, fr3, fl3), f3)
    f4 = wp.where(up, wp.where(right, fr4, fl4), f4)
    # the star states next to the contact: left plus the first wave, right less the last
    r1 = rl + s1
    r5 = rr - s5
    p1 = star_pressure(r1, rl * ul + s1 * lam1, rl * vl + s1 * v, rl * wl + s1 * w, el + s1 * (h - ua), gm1)
    p5 = star_pressure(r5, rr * ur - s5 * lam5, rr * vr - s5 * v, rr * wr - s5 * w, er - s5 * (h + ua), gm1)
    ok = linear and r1 > zero and r5 > zero and p1 > zero and p5 > zero
    # llf's flux, from the sound speeds and energies at hand (the same operations as llf's: the same bits)
    sl = wp.abs(ul) + cl
    sr = wp.abs(ur) + cr
    g0, g1, g2, g3, g4 = rusanov(rl, ul, vl, wl, pl, el, rr, ur, vr, wr, pr, er, wp.where(sr > sl, sr, sl))
    return (wp.where(ok, f0, g0), wp.where(ok, f1, g1), wp.where(ok, f2, g2), wp.where(ok, f3, g3),
            wp.where(ok, f4, g4))
