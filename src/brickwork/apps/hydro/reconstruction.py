"""Reconstruction of face states from cell averages: PLM with three limiters, PPM and WENO5.

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


# PPM: Colella & Woodward (1984) with Colella & Sekora's (2008) extremum-preserving limiter, in the form of
# Peterson & Hammett (2013, eqs. 3.26-3.39), as AthenaK's PPM: the face values are limited where their
# curvature disagrees with the cells' (CS08 eq. 18, always applied: where the curvatures agree and the face's
# is the smallest it gives back the fourth-order value), and at a smooth extremum the parabola's curvature is
# limited instead of flattening it (CW84's flattening clips every extremum to first order). McCorquodale &
# Colella's (2011) further checks, which Athena++'s xorder = 3 adds, are left out, as AthenaK leaves them
# out: they can break monotonicity and changed little in practice. Every formula is written so that the
# mirrored stencil (qpp, qp, q0, qm, qmm) gives the swapped face values bit for bit (sums of mirrored pairs,
# never a left-to-right chain), so a reflected problem runs the reflected arithmetic.
CS_CURVATURE_BOUND = 1.25  # CS08's C: how far the face's curvature may exceed the cells' neighbouring ones


@wp.func
def cs_limited_curvature(main: typing.Any, a: typing.Any, b: typing.Any, c: typing.Any):
    """CS08's limited second difference: zero unless ``main, a, b, c`` share a sign, else ``main``'s sign with
    the least of ``|main|`` and 1.25 times ``|a|, |b|, |c|``."""
    T = type(main)
    zero = T(0.0)
    same = (main > zero and a > zero and b > zero and c > zero) or (main < zero and a < zero and b < zero
                                                                    and c < zero)
    aa, ab, ac = wp.abs(a), wp.abs(b), wp.abs(c)
    least = wp.where(ab < aa, ab, aa)
    least = T(CS_CURVATURE_BOUND) * wp.where(ac < least, ac, least)
    mag = wp.where(wp.abs(main) < least, wp.abs(main), least)
    return wp.where(same, wp.where(main < zero, -mag, mag), zero)


@wp.func
def ppm_face(a: typing.Any, b: typing.Any, c: typing.Any, d: typing.Any):
    """The face value between cells ``b`` and ``c`` of the row ``a, b, c, d``: the fourth-order interpolant
    (7 (b + c) - (a + d)) / 12, moved to b + c's mean less a sixth of the limited curvature (CS08 eq. 18)."""
    T = type(b)
    s = b + c
    # times the reciprocals (divisions of two constants of type T, which the compiler folds; a float literal alone
    # is float32, as in Warp), not divided: a division costs several multiplications in these vector loops
    face = (T(7.0) * s - (a + d)) * (T(1.0) / T(12.0))
    curvature = T(3.0) * (s - T(2.0) * face)
    limited = cs_limited_curvature(curvature, (a + c) - T(2.0) * b, (b + d) - T(2.0) * c, (b + d) - T(2.0) * c)
    return T(0.5) * s - limited * (T(1.0) / T(6.0))


@wp.func
def ppm(qmm: typing.Any, qm: typing.Any, q0: typing.Any, qp: typing.Any, qpp: typing.Any):
    """PPM with the Colella-Sekora limiter: (value at i-1/2, value at i+1/2) from cells i-2..i+2."""
    T = type(q0)
    face_lo = ppm_face(qmm, qm, q0, qp)
    face_hi = ppm_face(qm, q0, qp, qpp)
    dlo = face_lo - q0
    dhi = face_hi - q0
    # an extremum of the parabola or of the cells: limit the parabola's curvature by the cells' (PH 3.37-3.39)
    extremum = dlo * dhi >= T(0.0) or (qm - q0) * (q0 - qp) <= T(0.0)
    curvature = T(6.0) * (dlo + dhi)
    limited = cs_limited_curvature(curvature, (qm + qp) - T(2.0) * q0, (qmm + q0) - T(2.0) * qm,
                                   (q0 + qpp) - T(2.0) * qp)
    # limited is 0 where curvature is (both signs strict): the cell's value, donor cell
    ratio = limited / wp.where(curvature == T(0.0), T(1.0), curvature)
    # elsewhere CW84 eq. 1.10: a face more than twice as far from the mean as the other moves so that the
    # parabola has no extremum inside the cell
    lo = wp.where(wp.abs(dlo) >= T(2.0) * wp.abs(dhi), q0 - T(2.0) * dhi, face_lo)
    hi = wp.where(wp.abs(dhi) >= T(2.0) * wp.abs(dlo), q0 - T(2.0) * dlo, face_hi)
    return wp.where(extremum, q0 + dlo * ratio, lo), wp.where(extremum, q0 + dhi * ratio, hi)


PLM = {"minmod": plm_minmod, "van_leer": plm_van_leer, "mc": plm_mc}
#: reconstruction -> cells on each side of the cell its stencil reads
STENCIL_HALF_WIDTH = {"plm": 1, "ppm": 2, "weno5": 2}


def face_states(reconstruction: str, limiter: str):
    """The reconstruction function of ``hydro.reconstruction`` (with ``hydro.limiter`` for PLM)."""
    return {"ppm": ppm, "weno5": weno5}.get(reconstruction) or PLM[limiter]
