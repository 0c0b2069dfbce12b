"""Approximate Riemann solvers for the Euler equations: HLLE and HLLC.

Both take the primitive states on the two sides of a face, rotated so that ``u`` is the velocity
normal to the face and ``v, w`` the transverse ones, and return the flux of (density, normal
momentum, transverse momenta, energy). Wave speeds are Einfeldt's estimates (the extreme of the
one-sided signal speeds and the Roe-averaged ones; Einfeldt 1988, Toro 2009 section 10.6); the
HLLC middle state follows Toro, Spruce & Speares (1994), Toro (2009) equations 10.37-10.39.
"""

from __future__ import annotations

import typing

import brickwork as wp


@wp.func
def physical_flux(r: typing.Any, u: typing.Any, v: typing.Any, w: typing.Any, p: typing.Any, e: typing.Any):
    """Flux of the conserved variables for a state with total energy density ``e``."""
    mu = r * u
    return mu, mu * u + p, mu * v, mu * w, (e + p) * u


@wp.func
def einfeldt_speeds(rl: typing.Any, ul: typing.Any, hl: typing.Any, cl: typing.Any,
                    rr: typing.Any, ur: typing.Any, hr: typing.Any, cr: typing.Any, gm1: typing.Any,
                    kinetic_roe: typing.Any):
    """(smallest, largest) signal speed from the one-sided and Roe-averaged estimates."""
    T = type(rl)
    sql = wp.sqrt(rl)
    sqr = wp.sqrt(rr)
    inv = T(1.0) / (sql + sqr)
    u_roe = (sql * ul + sqr * ur) * inv
    h_roe = (sql * hl + sqr * hr) * inv
    c_roe = wp.sqrt(wp.max(gm1 * (h_roe - kinetic_roe), T(0.0)))
    return wp.min(ul - cl, u_roe - c_roe), wp.max(ur + cr, u_roe + c_roe)


@wp.func
def energies_and_speeds(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
                        rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any,
                        gamma: typing.Any):
    """Total energies of both states and Einfeldt's wave-speed estimates (shared by HLLE and HLLC)."""
    T = type(rl)
    gm1 = gamma - T(1.0)
    el = pl / gm1 + T(0.5) * rl * (ul * ul + vl * vl + wl * wl)
    er = pr / gm1 + T(0.5) * rr * (ur * ur + vr * vr + wr * wr)
    cl = wp.sqrt(gamma * pl / rl)
    cr = wp.sqrt(gamma * pr / rr)
    sql = wp.sqrt(rl)
    sqr = wp.sqrt(rr)
    inv = T(1.0) / (sql + sqr)
    vroe = (sql * vl + sqr * vr) * inv
    wroe = (sql * wl + sqr * wr) * inv
    uroe = (sql * ul + sqr * ur) * inv
    kin = T(0.5) * (uroe * uroe + vroe * vroe + wroe * wroe)
    sl, sr = einfeldt_speeds(rl, ul, (el + pl) / rl, cl, rr, ur, (er + pr) / rr, cr, gm1, kin)
    return el, er, sl, sr


@wp.func
def hlle(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
         rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any, gamma: typing.Any):
    """The HLLE flux (Harten, Lax, van Leer; Einfeldt's speeds)."""
    T = type(rl)
    el, er, sl, sr = energies_and_speeds(rl, ul, vl, wl, pl, rr, ur, vr, wr, pr, gamma)
    sl = wp.min(sl, T(0.0))
    sr = wp.max(sr, T(0.0))
    fl0, fl1, fl2, fl3, fl4 = physical_flux(rl, ul, vl, wl, pl, el)
    fr0, fr1, fr2, fr3, fr4 = physical_flux(rr, ur, vr, wr, pr, er)
    prod = sl * sr
    inv_span = T(1.0) / (sr - sl)
    f0 = (sr * fl0 - sl * fr0 + prod * (rr - rl)) * inv_span
    f1 = (sr * fl1 - sl * fr1 + prod * (rr * ur - rl * ul)) * inv_span
    f2 = (sr * fl2 - sl * fr2 + prod * (rr * vr - rl * vl)) * inv_span
    f3 = (sr * fl3 - sl * fr3 + prod * (rr * wr - rl * wl)) * inv_span
    f4 = (sr * fl4 - sl * fr4 + prod * (er - el)) * inv_span
    return f0, f1, f2, f3, f4


@wp.func
def hllc(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
         rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any, gamma: typing.Any):
    """The HLLC flux (HLL with the contact restored; Einfeldt's speeds)."""
    T = type(rl)
    el, er, sl, sr = energies_and_speeds(rl, ul, vl, wl, pl, rr, ur, vr, wr, pr, gamma)
    ml = rl * (sl - ul)  # mass flux through the left wave, in its frame
    mr = rr * (sr - ur)
    sm = (pr - pl + ml * ul - mr * ur) / (ml - mr)  # the contact speed
    # the star pressure is continuous: p* = pl + ml (sm - ul)
    f0 = T(0.0)
    f1 = T(0.0)
    f2 = T(0.0)
    f3 = T(0.0)
    f4 = T(0.0)
    if sl >= T(0.0):
        f0, f1, f2, f3, f4 = physical_flux(rl, ul, vl, wl, pl, el)
    elif sr <= T(0.0):
        f0, f1, f2, f3, f4 = physical_flux(rr, ur, vr, wr, pr, er)
    elif sm >= T(0.0):
        fl0, fl1, fl2, fl3, fl4 = physical_flux(rl, ul, vl, wl, pl, el)
        rs = ml / (sl - sm)  # star density
        ps = pl + ml * (sm - ul)
        es = (el * (sl - ul) + ps * sm - pl * ul) / (sl - sm)
        f0 = fl0 + sl * (rs - rl)
        f1 = fl1 + sl * (rs * sm - rl * ul)
        f2 = fl2 + sl * (rs * vl - rl * vl)
        f3 = fl3 + sl * (rs * wl - rl * wl)
        f4 = fl4 + sl * (es - el)
    else:
        fr0, fr1, fr2, fr3, fr4 = physical_flux(rr, ur, vr, wr, pr, er)
        rs = mr / (sr - sm)
        ps = pr + mr * (sm - ur)
        es = (er * (sr - ur) + ps * sm - pr * ur) / (sr - sm)
        f0 = fr0 + sr * (rs - rr)
        f1 = fr1 + sr * (rs * sm - rr * ur)
        f2 = fr2 + sr * (rs * vr - rr * vr)
        f3 = fr3 + sr * (rs * wr - rr * wr)
        f4 = fr4 + sr * (es - er)
    return f0, f1, f2, f3, f4


SOLVERS = {"hlle": hlle, "hllc": hllc}
