"""Outer bodies shared by the loop-abstraction tests.

Each factory returns a body whose source never changes; only the captured arrays (runtime) and the
captured halo (compile-time) differ between calls, so one compiled instance serves every geometry
of a (tag pair, backend, ndim, chunk kind, halo) combination.

Log rows (int32): ``[sweep, b, key_k, key_j, key_i, k, j, i, gk, gj, gi, a0, a1, a2, a3]`` where
sweep is 0 for the base range and 1 for the halo range, ``key`` the slice's origin, ``(k, j, i)`` the visited cell, ``g*`` ``get_kji`` of a copy of the
index (the decode path, not the loop's own cell) and ``a*`` the components of the body argument.
The slice's origin comes from ``rng.get_kji(0)`` (semantics §7: ``GetKJI(int m) = M.decode(m + mem0)``;
boiv: ``M.decode(m + mflat(p))``), so no body carries a value from one iteration to the next
(inner loops are ``omp simd``).
"""

from __future__ import annotations

import brickwork as wp
from brickwork import la

NCOL = 15


@wp.func
def arg_comps(a: wp.int32) -> wp.vec4i:
    return wp.vec4i(a, 0, 0, 0)


@wp.func
def arg_comps(a: wp.vec3i) -> wp.vec4i:  # noqa: F811 - an overload
    return wp.vec4i(a[0], a[1], a[2], 0)


@wp.func
def arg_comps(a: wp.vec4i) -> wp.vec4i:  # noqa: F811 - an overload
    return a


@wp.func
def log_row(log: wp.array2d(dtype=wp.int32), cnt: wp.array(dtype=wp.int32), sweep: wp.int32, b: wp.int32,
            key: wp.vec3i, k: wp.int32, j: wp.int32, i: wp.int32, g: wp.vec3i, a: wp.vec4i):
    n = wp.atomic_add(cnt, 0, 1)
    if n < log.shape[0]:
        log[n, 0] = sweep
        log[n, 1] = b
        log[n, 2] = key[0]
        log[n, 3] = key[1]
        log[n, 4] = key[2]
        log[n, 5] = k
        log[n, 6] = j
        log[n, 7] = i
        log[n, 8] = g[0]
        log[n, 9] = g[1]
        log[n, 10] = g[2]
        log[n, 11] = a[0]
        log[n, 12] = a[1]
        log[n, 13] = a[2]
        log[n, 14] = a[3]


@wp.func
def bump(visits: wp.array4d(dtype=wp.int32), b: wp.int32, kji: wp.Any):
    k, j, i = kji
    wp.atomic_add(visits, b, k, j, i, 1)


def probe(log, cnt, H):
    """Form ``for idx in la.inner(r)``: logs base and halo sweeps with arguments and get_kji."""

    def body(rng, b):
        hr = rng.add_halo(H)
        ok, oj, oi = rng.get_kji(0)  # GetKJI(int m) = M.decode(m + mem0): the origin
        key = wp.vec3i(ok, oj, oi)
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            copy = idx
            gk, gj, gi = rng.get_kji(copy)
            log_row(log, cnt, 0, b, key, k, j, i, wp.vec3i(gk, gj, gi), arg_comps(idx))
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            copy = idx
            gk, gj, gi = hr.get_kji(copy)
            log_row(log, cnt, 1, b, key, k, j, i, wp.vec3i(gk, gj, gi), arg_comps(idx))

    return body


def form_kji(log, cnt, H):
    """Form ``for k, j, i in la.inner(r)``."""

    def body(rng, b):
        hr = rng.add_halo(H)
        ok, oj, oi = rng.get_kji(0)  # GetKJI(int m) = M.decode(m + mem0): the origin
        key = wp.vec3i(ok, oj, oi)
        for k, j, i in la.inner(rng):
            log_row(log, cnt, 0, b, key, k, j, i, wp.vec3i(k, j, i), wp.vec4i(0, 0, 0, 0))
        for k, j, i in la.inner(hr):
            log_row(log, cnt, 1, b, key, k, j, i, wp.vec3i(k, j, i), wp.vec4i(0, 0, 0, 0))

    return body


def form_def_idx(log, cnt, H):
    """Form ``la.inner(r, fn)`` with a nested ``def fn(idx)``."""

    def body(rng, b):
        hr = rng.add_halo(H)
        ok, oj, oi = rng.get_kji(0)  # GetKJI(int m) = M.decode(m + mem0): the origin
        key = wp.vec3i(ok, oj, oi)

        def base(idx):
            k, j, i = rng.get_kji(idx)
            copy = idx
            gk, gj, gi = rng.get_kji(copy)
            log_row(log, cnt, 0, b, key, k, j, i, wp.vec3i(gk, gj, gi), arg_comps(idx))

        la.inner(rng, base)

        def halo(idx):
            k, j, i = hr.get_kji(idx)
            copy = idx
            gk, gj, gi = hr.get_kji(copy)
            log_row(log, cnt, 1, b, key, k, j, i, wp.vec3i(gk, gj, gi), arg_comps(idx))

        la.inner(hr, halo)

    return body


def form_def_kji(log, cnt, H):
    """Form ``la.inner(r, fn)`` with a nested ``def fn(k, j, i)``."""

    def body(rng, b):
        hr = rng.add_halo(H)
        ok, oj, oi = rng.get_kji(0)  # GetKJI(int m) = M.decode(m + mem0): the origin
        key = wp.vec3i(ok, oj, oi)

        def base(k, j, i):
            log_row(log, cnt, 0, b, key, k, j, i, wp.vec3i(k, j, i), wp.vec4i(0, 0, 0, 0))

        la.inner(rng, base)

        def halo(k, j, i):
            log_row(log, cnt, 1, b, key, k, j, i, wp.vec3i(k, j, i), wp.vec4i(0, 0, 0, 0))

        la.inner(hr, halo)

    return body


def form_lambda_idx(visits, H):
    """Form ``la.inner(r, lambda idx: ...)``: counts the halo sweep's visits."""

    def body(rng, b):
        hr = rng.add_halo(H)
        la.inner(hr, lambda idx: bump(visits, b, hr.get_kji(idx)))

    return body


def form_lambda_kji(visits, H):
    """Form ``la.inner(r, lambda k, j, i: ...)``: counts the halo sweep's visits."""

    def body(rng, b):
        hr = rng.add_halo(H)
        la.inner(hr, lambda k, j, i: wp.atomic_add(visits, b, k, j, i, 1))

    return body


LOG_FORMS = {"for-idx": probe, "for-kji": form_kji, "def-idx": form_def_idx, "def-kji": form_def_kji}
COUNT_FORMS = {"lambda-idx": form_lambda_idx, "lambda-kji": form_lambda_kji}


# -- running bodies ------------------------------------------------------------------------------------------
def run_logged(space, factory, H, capacity: int):
    """Run a logging body; return the log rows as a numpy array (fails on a log overflow)."""
    import numpy as np

    log = wp.full((capacity, NCOL), -999, dtype=wp.int32)
    cnt = wp.zeros(1, dtype=wp.int32)
    la.outer(space, factory(log, cnt, H))
    n = int(cnt.numpy()[0])
    assert n <= capacity, f"the body logged {n} visits, more than the {capacity} the model allows"
    return np.array(log.numpy()[:n])


def group(rows):
    """{(sweep, b, key): sorted list of visited (k, j, i)} and {same: rows}."""
    cells, full = {}, {}
    for r in rows:
        key = (int(r[0]), int(r[1]), (int(r[2]), int(r[3]), int(r[4])))
        cells.setdefault(key, []).append((int(r[5]), int(r[6]), int(r[7])))
        full.setdefault(key, []).append(r)
    return {k: sorted(v) for k, v in cells.items()}, full


@wp.func
def record(out: wp.array2d(dtype=wp.int32), cnt: wp.array(dtype=wp.int32), b: wp.int32, k: wp.int32, j: wp.int32,
           i: wp.int32, n: wp.int32, g: wp.Any, a: wp.vec4i):
    """A log row ``[b, k, j, i, n, gk, gj, gi, a0, a1, a2, a3]``: get_kji result and argument for offset n."""
    gk, gj, gi = g
    r = wp.atomic_add(cnt, 0, 1)
    if r < out.shape[0]:
        out[r, 0] = b
        out[r, 1] = k
        out[r, 2] = j
        out[r, 3] = i
        out[r, 4] = n
        out[r, 5] = gk
        out[r, 6] = gj
        out[r, 7] = gi
        out[r, 8] = a[0]
        out[r, 9] = a[1]
        out[r, 10] = a[2]
        out[r, 11] = a[3]
