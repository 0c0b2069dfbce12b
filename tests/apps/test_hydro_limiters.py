"""The PLM limiters of the hydro application against numpy, bit for bit, on random and edge-case
one-sided differences (the kernels write them branch-free, with selects)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.apps.hydro.reconstruction import half_mc, half_minmod, half_van_leer


@wp.kernel
def limit_all(dl: wp.array(dtype=wp.float64), dr: wp.array(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    out[0, i] = half_minmod(dl[i], dr[i])
    out[1, i] = half_van_leer(dl[i], dr[i])
    out[2, i] = half_mc(dl[i], dr[i])


def reference(dl: np.ndarray, dr: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # as the kernel: IEEE, no traps
        same = dl * dr > 0.0
        van_leer = np.where(same, dl * dr / (dl + dr), 0.0)
    minmod = 0.5 * np.where(same, np.where(np.abs(dr) < np.abs(dl), dr, dl), 0.0)
    s = dl + dr
    mag = np.minimum(np.minimum(np.abs(dl), np.abs(dr)), 0.25 * np.abs(s))
    mc = np.where(same, np.where(s < 0.0, -mag, mag), 0.0)
    return np.stack([minmod, van_leer, mc])


def check(dl: np.ndarray, dr: np.ndarray) -> None:
    out = wp.zeros((3, dl.size), dtype=wp.float64)
    wp.launch(limit_all, dim=dl.size, inputs=[wp.array(dl), wp.array(dr), out])
    want = reference(dl, dr)
    np.testing.assert_array_equal(out.numpy().view(np.uint64), want.view(np.uint64))  # bits, signed zeros too


def test_edge_cases():
    values = np.array([0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.25, 1e-300, -1e300, 5e-324])
    dl, dr = (a.ravel().copy() for a in np.meshgrid(values, values))
    check(dl, dr)


finite = st.floats(min_value=-1e150, max_value=1e150, allow_nan=False, allow_infinity=False)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=40))
def test_random_differences(pairs):
    dl = np.array([p[0] for p in pairs])
    dr = np.array([p[1] for p in pairs])
    check(dl, dr)


@pytest.mark.parametrize("n", [1000])
def test_many_cells_vectorized(n):
    """Long enough that the kernel's vector loop (not only its remainder) computes the limiters."""
    rng = np.random.default_rng(7)
    dl = rng.standard_normal(n) * np.exp(rng.uniform(-5, 5, n))
    dr = rng.standard_normal(n) * np.exp(rng.uniform(-5, 5, n))
    dl[::17] = 0.0
    dr[::13] = -dl[::13]
    check(dl, dr)
