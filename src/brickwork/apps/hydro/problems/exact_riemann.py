"""The exact solution of the Riemann problem of the Euler equations (ideal gas), in numpy.

Toro, *Riemann Solvers and Numerical Methods for Fluid Dynamics* (2009), chapter 4: the star
pressure is the root of ``f_L(p) + f_R(p) + (u_R - u_L) = 0`` (in closed form for two
rarefactions, else by Newton's method kept above the smaller pressure: no absolute floor, so the
solution scales with the pressures down to any scale), and the solution is sampled along rays
``x / t``. States that move apart fast enough generate a vacuum (section 4.6): ``star_state``
then raises ``VacuumError`` (there is no star state) and ``solve`` returns the two rarefactions
with the vacuum between them.
"""

from __future__ import annotations

import math

import numpy as np

from ....errors import BrickworkError


def _f_and_df(p, rho, pk, ck, gamma):
    if p > pk:  # shock
        b = (gamma - 1.0) / (gamma + 1.0) * pk
        # sqrt(A / (p + b)) with A = 2 / ((gamma + 1) rho), as a quotient of square roots: A / (p + b)
        # overflows when the density and the pressures are tiny (1e-300), its square root does not
        root = math.sqrt(2.0 / (gamma + 1.0)) / (math.sqrt(rho) * math.sqrt(p + b))
        return (p - pk) * root, root * (1.0 - 0.5 * (p - pk) / (p + b))
    ratio = p / pk  # rarefaction
    f = 2.0 * ck / (gamma - 1.0) * (ratio ** ((gamma - 1.0) / (2.0 * gamma)) - 1.0)
    df = 1.0 / (rho * ck) * ratio ** (-(gamma + 1.0) / (2.0 * gamma))
    return f, df


class VacuumError(BrickworkError, ValueError):
    """The two states move apart so fast that a vacuum forms between them: there is no star state."""


def generates_vacuum(left, right, gamma) -> bool:
    """True when ``left`` and ``right`` (``(rho, u, p)``) generate a vacuum (Toro, section 4.6)."""
    cl, cr = math.sqrt(gamma * left[2] / left[0]), math.sqrt(gamma * right[2] / right[0])
    return 2.0 * (cl + cr) / (gamma - 1.0) <= right[1] - left[1]


def _two_rarefactions(left, right, cl, cr, gamma):
    """The root of ``f`` when both waves are rarefactions (p* below both pressures), in closed form
    (Toro, equation 4.46), positive whenever the states generate no vacuum."""
    rl, ul, pl = left
    rr, ur, pr = right
    z = (gamma - 1.0) / (2.0 * gamma)
    # cl / pl**z + cr / pr**z divided by pl**-z: each power stays finite for any positive double
    # pressure (z < 1/2), where 1 / pl**z or pl / pr can overflow
    base = (cl + cr - 0.5 * (gamma - 1.0) * (ur - ul)) / (cl + cr * (pl ** z / pr ** z))
    return pl * base ** (1.0 / z)


def star_state(left, right, gamma):
    """``(p*, u*)`` between the left and right states ``(rho, u, p)``; ``VacuumError`` when they
    generate a vacuum (no star state exists: ``solve`` handles that case)."""
    rl, ul, pl = left
    rr, ur, pr = right
    cl, cr = math.sqrt(gamma * pl / rl), math.sqrt(gamma * pr / rr)
    critical = 2.0 * (cl + cr) / (gamma - 1.0)
    if critical <= ur - ul:
        raise VacuumError(f"the initial states generate a vacuum: u_r - u_l = {ur - ul:.6g} >= 2 (c_l + c_r) / "
                          f"(gamma - 1) = {critical:.6g}, so there is no star state; the solution is two "
                          f"rarefactions with a vacuum between them")

    def f(p):
        fl, dfl = _f_and_df(p, rl, pl, cl, gamma)
        fr, dfr = _f_and_df(p, rr, pr, cr, gamma)
        return fl + fr + ur - ul, dfl + dfr

    # f increases and is concave (Toro, section 4.3.1), so p* lies above pmin exactly when
    # f(pmin) < 0, and Newton's iterates from below the root rise to it without passing it. Every
    # bound is a pressure of the problem: nothing depends on the pressure scale (an absolute floor
    # such as 1e-12 is wrong for a problem whose pressures are all below it).
    pmin = min(pl, pr)
    if f(pmin)[0] >= 0.0:
        p = _two_rarefactions(left, right, cl, cr, gamma)
    else:
        p = max(pmin, 0.5 * (pl + pr) - 0.125 * (ur - ul) * (rl + rr) * (cl + cr))  # linearised guess
        for _ in range(200):
            value, slope = f(p)
            new = max(pmin, p - value / slope)  # from above the root, one step may overshoot below pmin
            if abs(new - p) <= 1e-14 * (new + p):
                p = new
                break
            p = new
    fl, _ = _f_and_df(p, rl, pl, cl, gamma)
    fr, _ = _f_and_df(p, rr, pr, cr, gamma)
    return p, 0.5 * (ul + ur) + 0.5 * (fr - fl)


def _sample(s, left, right, ps, us, gamma):
    """(rho, u, p) on the ray x/t = s."""
    g = gamma
    if s <= us:  # left of the contact
        r, u, p = left
        sign = 1.0
    else:
        r, u, p = right
        sign = -1.0
        s, u, us = -s, -u, -us  # mirror: the right side is the left side of the mirrored problem
    c = math.sqrt(g * p / r)
    if ps > p:  # shock
        speed = u - c * math.sqrt((g + 1.0) / (2.0 * g) * ps / p + (g - 1.0) / (2.0 * g))
        if s <= speed:
            return r, sign * u, p
        ratio = ps / p
        rs = r * (ratio + (g - 1.0) / (g + 1.0)) / ((g - 1.0) / (g + 1.0) * ratio + 1.0)
        return rs, sign * us, ps
    head = u - c  # rarefaction
    cs = c * (ps / p) ** ((g - 1.0) / (2.0 * g))
    tail = us - cs
    if s <= head:
        return r, sign * u, p
    if s >= tail:
        return r * (ps / p) ** (1.0 / g), sign * us, ps
    rf, uf, pf = _left_fan(s, r, u, p, c, g)
    return rf, sign * uf, pf


def _left_fan(s, r, u, p, c, g):
    """(rho, u, p) inside a left rarefaction fan of the state (r, u, p) (sound speed c), on ray s."""
    # 0 at the tail of a fan that reaches a vacuum: rounding must not take it below (a NaN power)
    factor = max(0.0, 2.0 / (g + 1.0) + (g - 1.0) / ((g + 1.0) * c) * (u - s))
    return r * factor ** (2.0 / (g - 1.0)), 2.0 / (g + 1.0) * (c + (g - 1.0) / 2.0 * u + s), p * factor ** (
        2.0 * g / (g - 1.0))


def _sample_vacuum(s, left, right, gamma):
    """(rho, u, p) on the ray x/t = s when the states generate a vacuum (Toro, section 4.6): a left
    rarefaction whose tail moves at u_l + 2 c_l / (gamma - 1), vacuum, a right rarefaction whose tail
    moves at u_r - 2 c_r / (gamma - 1). In the vacuum density and pressure are 0 and the velocity is
    taken as s, which joins the two tails' velocities continuously."""
    g = gamma
    rl, ul, pl = left
    rr, ur, pr = right
    cl, cr = math.sqrt(g * pl / rl), math.sqrt(g * pr / rr)
    if s < ul + 2.0 * cl / (g - 1.0):
        return (rl, ul, pl) if s <= ul - cl else _left_fan(s, rl, ul, pl, cl, g)
    if s > ur - 2.0 * cr / (g - 1.0):  # the right fan is the left fan of the mirrored problem
        if s >= ur + cr:
            return rr, ur, pr
        rf, uf, pf = _left_fan(-s, rr, -ur, pr, cr, g)
        return rf, -uf, pf
    return 0.0, s, 0.0


def solve(left, right, gamma, x, t, x0=0.0):
    """Density, velocity and pressure arrays at positions ``x`` and time ``t`` for the Riemann
    problem with ``left = (rho, u, p)`` for ``x < x0`` and ``right`` for ``x > x0`` at ``t = 0``.
    States that generate a vacuum give two rarefactions with zero density and pressure between them."""
    x = np.asarray(x, dtype=np.float64)
    vacuum = generates_vacuum(left, right, gamma)
    ps, us = star_state(left, right, gamma) if not vacuum else (0.0, 0.0)
    out = np.empty((3,) + x.shape)
    flat = out.reshape(3, -1)
    for n, xv in enumerate(x.ravel().tolist()):  # Python floats: math, not numpy scalars and their warnings
        if t <= 0.0:
            flat[:, n] = left if xv < x0 else right
        elif vacuum:
            flat[:, n] = _sample_vacuum((xv - x0) / t, left, right, gamma)
        else:
            flat[:, n] = _sample((xv - x0) / t, left, right, ps, us, gamma)
    return out[0], out[1], out[2]
