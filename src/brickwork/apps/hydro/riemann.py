"""Approximate Riemann solvers for the Euler equations: HLLE, HLLC, LLF (Rusanov) and Roe's.

Each takes the primitive states on the two sides of a face, rotated so that ``u`` is the velocity
normal to the face and ``v, w`` the transverse ones, and return the flux of (density, normal
momentum, transverse momenta, energy). Wave speeds are Einfeldt's estimates (the extreme of the
one-sided signal speeds and the Roe-averaged ones; Einfeldt 1988, Toro 2009 section 10.6); the
HLLC middle state follows Toro, Spruce & Speares (1994), Toro (2009) equations 10.37-10.39. LLF and Roe
are written so that the mirrored face (states swapped, normal velocities negated) gives the mirrored flux
bit for bit: every sum of a left and a right term is one addition of the pair (``roe.py``).
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
def einfeldt_speeds(ul: typing.Any, cl: typing.Any, ur: typing.Any, cr: typing.Any, u_roe: typing.Any,
                    h_roe: typing.Any, kinetic_roe: typing.Any, gm1: typing.Any):
    """(smallest, largest) signal speed from the one-sided and the Roe-averaged estimates."""
    T = type(ul)
    # selects rather than wp.min/wp.max, whose NaN handling (a NaN operand yields the other) costs
    # two vector operations each: these speeds are finite whenever the states are, and a state
    # that is not is reported by the time step's check (3 % of a fused 2-D stage, measured)
    c2 = gm1 * (h_roe - kinetic_roe)
    c_roe = wp.sqrt(wp.where(c2 > T(0.0), c2, T(0.0)))
    one_sided_left, roe_left = ul - cl, u_roe - c_roe
    one_sided_right, roe_right = ur + cr, u_roe + c_roe
    return (wp.where(roe_left < one_sided_left, roe_left, one_sided_left),
            wp.where(roe_right > one_sided_right, roe_right, one_sided_right))


@wp.func
def energies_and_speeds(rl: typing.Any, ul: typing.Any, vl: typing.Any, wl: typing.Any, pl: typing.Any,
                        rr: typing.Any, ur: typing.Any, vr: typing.Any, wr: typing.Any, pr: typing.Any,
                        gamma: typing.Any):
    """Total energies of both states and Einfeldt's wave-speed estimates (shared by HLLE and HLLC)."""
    T = type(rl)
    # Reciprocals instead of quotients: a division costs several multiplications (a vector
    # division unit is slow and not pipelined), and 1/gm1 is the same for every face.
    gm1 = gamma - T(1.0)
    inv_gm1 = T(1.0) / gm1
    inv_rl = T(1.0) / rl
    inv_rr = T(1.0) / rr
    el = pl * inv_gm1 + T(0.5) * rl * (ul * ul + vl * vl + wl * wl)
    er = pr * inv_gm1 + T(0.5) * rr * (ur * ur + vr * vr + wr * wr)
    cl = wp.sqrt(gamma * pl * inv_rl)
    cr = wp.sqrt(gamma * pr * inv_rr)
    # Roe averages weighted by sqrt(rl) : sqrt(rr), written with the one ratio sqrt(rr / rl) (from
    # the reciprocal at hand): one square root per face instead of two. The divide/square-root unit
    # bounds these loops (measured: a fused 2-D stage without its divisions and square roots takes
    # 8 ms instead of 12).
    ratio = wp.sqrt(rr * inv_rl)
    inv = T(1.0) / (T(1.0) + ratio)
    uroe = (ul + ratio * ur) * inv
    vroe = (vl + ratio * vr) * inv
    wroe = (wl + ratio * wr) * inv
    hroe = ((el + pl) * inv_rl + ratio * ((er + pr) * inv_rr)) * inv
    kin = T(0.5) * (uroe * uroe + vroe * vroe + wroe * wroe)
    sl, sr = einfeldt_speeds(ul, cl, ur, cr, uroe, hroe, kin, gm1)
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
    # The flux is one side's: its physical flux when that side's wave leaves the face (sl >= 0:
    # left, sr <= 0: right), else its star flux, the left side's when the contact moves right
    # (sm >= 0). Choosing the side first computes one physical and one star flux instead of four
    # and two (the vectorized loop evaluates every branch), with the same arithmetic per side.
    left = sl >= T(0.0) or (sr > T(0.0) and sm >= T(0.0))
    s = wp.where(left, sl, sr)
    r = wp.where(left, rl, rr)
    u = wp.where(left, ul, ur)
    v = wp.where(left, vl, vr)
    w = wp.where(left, wl, wr)
    p = wp.where(left, pl, pr)
    e = wp.where(left, el, er)
    m = wp.where(left, ml, mr)
    f0, f1, _, _, f4 = physical_flux(r, u, v, w, p, e)
    if sl < T(0.0) and sr > T(0.0):  # the face lies between the waves: the star state's flux
        # the star pressure is continuous: p* = p + m (sm - u)
        inv_gap = T(1.0) / (s - sm)
        rs = m * inv_gap  # star density
        ps = p + m * (sm - u)
        es = (e * (s - u) + ps * sm - p * u) * inv_gap
        f0 = f0 + s * (rs - r)
        f1 = f1 + s * (rs * sm - r * u)
        f4 = f4 + s * (es - e)
    # the transverse velocities do not jump across the outer waves, so the mass flux carries the
    # transverse momenta, in the star region as outside it (r u v + s (rs - r) v = f0 v)
    return f0, f1, f0 * v, f0 * w, f4


from .roe import llf, roe  # noqa: E402  (they use physical_flux above)

SOLVERS = {"hlle": hlle, "hllc": hllc, "llf": llf, "roe": roe}
