"""Reconstruction of face states from cell averages: PLM with three limiters, and WENO5.

Each function takes the values of one variable on the five cells ``i-2 .. i+2`` (PLM uses the
middle three; the flux kernel passes the middle ones twice for PLM so it never reads past its
ghosts) and returns ``(lower, upper)``: the reconstructed values at the cell's lower face ``i - 1/2`` and
upper face ``i + 1/2``. The functions are generic: they compute in the type of their arguments
(float32 or float64), converting every literal with ``type(x)``.
"""

from __future__ import annotations

import typing

import brickwork as wp

# The limiters return half the limited slope, the offset of the face values from the cell's: the
# halving is folded into each formula (exact: scaling by a power of two rounds nothing outside the
# subnormal range), which saves the vector loops a multiplication per operand (measured: 5 % of the
# 2-D fused hydro stage for MC).

@wp.func
def half_minmod(dl: typing.Any, dr: typing.Any):
    """Half the minmod slope: half the smaller one-sided difference when both have the same sign, else zero."""
    T = type(dl)
    # computed, then selected (branch-free): see half_mc
    return T(0.5) * wp.where(dl * dr > T(0.0), wp.where(wp.abs(dr) < wp.abs(dl), dr, dl), T(0.0))


@wp.func
def half_van_leer(dl: typing.Any, dr: typing.Any):
    """Half van Leer's harmonic-mean slope 2 dl dr / (dl + dr): dl dr / (dl + dr), zero at extrema."""
    T = type(dl)
    # computed, then selected (branch-free): see half_mc; where dl + dr is 0 the quotient is not
    # finite, and dl * dr <= 0 selects 0
    return wp.where(dl * dr > T(0.0), dl * dr / (dl + dr), T(0.0))


@wp.func
def half_mc(dl: typing.Any, dr: typing.Any):
    """Half the monotonized central slope min(2|dl|, 2|dr|, |dl + dr|/2) with the common sign:
    min(|dl|, |dr|, |dl + dr|/4)."""
    T = type(dl)
    # computed, then selected: what the CPU target makes of the same limiter written with `if`s
    # (passes/select_branches.py), said here so that every target runs it branch-free
    # the minimum by selects, as einfeldt_speeds' (riemann.py): wp.min's NaN rule (a NaN operand yields
    # the other) costs two vector operations per call, and a state that is not finite is reported by
    # the time step's check; the operands are never negative, so no signed zero tells the two apart
    s = dl + dr
    adl, adr, quarter = wp.abs(dl), wp.abs(dr), T(0.25) * wp.abs(s)
    smaller = wp.where(adr < adl, adr, adl)
    mag = wp.where(quarter < smaller, quarter, smaller)
    return wp.where(dl * dr > T(0.0), wp.where(s < T(0.0), -mag, mag), T(0.0))


@wp.func
def plm_minmod(qmm: typing.Any, qm: typing.Any, q0: typing.Any, qp: typing.Any, qpp: typing.Any):
    """PLM with the minmod limiter: (value at i-1/2, value at i+1/2)."""
    half = half_minmod(q0 - qm, qp - q0)
    return q0 - half, q0 + half


@wp.func
def plm_van_leer(qmm: typing.Any, qm: typing.Any, q0: typing.Any, qp: typing.Any, qpp: typing.Any):
    """PLM with the van Leer limiter: (value at i-1/2, value at i+1/2)."""
    half = half_van_leer(q0 - qm, qp - q0)
    return q0 - half, q0 + half


@wp.func
def plm_mc(qmm: typing.Any, qm: typing.Any, q0: typing.Any, qp: typing.Any, qpp: typing.Any):
    """PLM with the monotonized central limiter: (value at i-1/2, value at i+1/2)."""
    half = half_mc(q0 - qm, qp - q0)
    return q0 - half, q0 + half


@wp.func
def weno5_upper(a: typing.Any, b: typing.Any, c: typing.Any, d: typing.Any, e: typing.Any):
    """Jiang & Shu's WENO5 value at the upper face of cell ``c`` from cells a..e (i-2..i+2)."""
    T = type(c)
    eps = T(1.0e-6)
    p1 = (T(2.0) * a - T(7.0) * b + T(11.0) * c) / T(6.0)
    p2 = (-b + T(5.0) * c + T(2.0) * d) / T(6.0)
    p3 = (T(2.0) * c + T(5.0) * d - e) / T(6.0)
    s1 = a - T(2.0) * b + c
    t1 = a - T(4.0) * b + T(3.0) * c
    s2 = b - T(2.0) * c + d
    t2 = b - d
    s3 = c - T(2.0) * d + e
    t3 = T(3.0) * c - T(4.0) * d + e
    beta1 = T(13.0) / T(12.0) * s1 * s1 + T(0.25) * t1 * t1
    beta2 = T(13.0) / T(12.0) * s2 * s2 + T(0.25) * t2 * t2
    beta3 = T(13.0) / T(12.0) * s3 * s3 + T(0.25) * t3 * t3
    w1 = T(0.1) / ((eps + beta1) * (eps + beta1))
    w2 = T(0.6) / ((eps + beta2) * (eps + beta2))
    w3 = T(0.3) / ((eps + beta3) * (eps + beta3))
    return (w1 * p1 + w2 * p2 + w3 * p3) / (w1 + w2 + w3)


@wp.func
def weno5(qmm: typing.Any, qm: typing.Any, q0: typing.Any, qp: typing.Any, qpp: typing.Any):
    """WENO5: (value at i-1/2, value at i+1/2) from cells i-2..i+2 (the lower face mirrors)."""
    return weno5_upper(qpp, qp, q0, qm, qmm), weno5_upper(qmm, qm, q0, qp, qpp)


#: name -> (function, cells on each side of the stencil, ghost cells it needs)
PLM = {"minmod": plm_minmod, "van_leer": plm_van_leer, "mc": plm_mc}
STENCIL_HALF_WIDTH = {"plm": 1, "weno5": 2}
