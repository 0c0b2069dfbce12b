"""BiCGSTAB's fused CPU iteration (optim/linear/bicgstab_fused.py) against the general one it stands for: the same
iterates bit for bit (solution, iteration count, residual, callbacks) on nonsymmetric matrices, with and without a
Jacobi preconditioner on the right, the device-side loop, padded matrices, several inner-product parts and threads;
a left preconditioner takes the general iteration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.optim.linear import BiCGSTAB, bicgstab, cg_fused, preconditioner

from .test_linear_cg_fused import NP, _same, _solve


def convection(n: int, scalar=wp.float64, wind: float = 0.4, shift: float = 0.0):
    """The 7-point Laplacian of an n^3 grid (Dirichlet) with an upwind term: ``-1 - wind`` to the lower neighbour
    and ``-1 + wind`` to the upper one in each axis (nonsymmetric), ``6 + shift`` on the diagonal; CSR."""
    idx = np.arange(n**3).reshape(n, n, n)
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [np.full(n**3, 6.0 + shift)]
    for axis in range(3):
        lo, hi = [slice(None)] * 3, [slice(None)] * 3
        lo[axis], hi[axis] = slice(None, -1), slice(1, None)
        up, down = idx[tuple(lo)].ravel(), idx[tuple(hi)].ravel()
        rows += [up, down]
        cols += [down, up]
        vals += [np.full(up.size, -1.0 + wind), np.full(up.size, -1.0 - wind)]
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals).astype(NP[scalar])
    return sp.bsr_from_triplets(n**3, n**3, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                wp.array(vals, dtype=scalar))


def _rhs(size: int, scalar, seed: int = 1):
    return wp.array(np.random.default_rng(seed).uniform(-1, 1, size).astype(NP[scalar]), dtype=scalar)


@pytest.mark.parametrize("scalar", [wp.float64, wp.float32])
@pytest.mark.parametrize("ptype", [None, "diag", "diag_abs"])
@pytest.mark.parametrize("kwargs", [{"tol": 1e-30, "atol": 1e-30, "maxiter": 25}, {"tol": 1e-5},
                                    {"tol": 1e-6, "check_every": 4}])
def test_the_fused_iteration_gives_the_general_ones_bits(scalar, ptype, kwargs):
    A = convection(20, scalar)  # 8000 rows: two parts per inner product
    b = _rhs(8000, scalar)
    M = None if ptype is None else preconditioner(A, ptype)
    fused = _solve(A, b, M, True, bicgstab, **kwargs)
    _same(fused, _solve(A, b, M, False, bicgstab, **kwargs))
    result, x, _ = fused
    assert result[0] > 0 and result[1] > 0
    if "maxiter" not in kwargs:  # converged: |b - A x| near the tolerance (the recursive residual's)
        ax = sp.bsr_mv(A, wp.array(x, dtype=scalar)).numpy().astype(np.float64)
        assert np.linalg.norm(b.numpy().astype(np.float64) - ax) <= 10 * result[2]


@pytest.mark.parametrize("threads", [1, 2])
def test_many_parts_on_any_thread_count_and_the_device_loop(threads):
    A = convection(26, wind=0.7)  # 17576 rows: four parts, launched in parallel
    b = _rhs(17576, wp.float64, 2)
    M = preconditioner(A, "diag")
    with config.override(num_threads=threads):
        fused = _solve(A, b, M, True, bicgstab, tol=1e-8, maxiter=150)
        general = _solve(A, b, M, False, bicgstab, tol=1e-8, maxiter=150)
        on_device = _solve(A, b, M, True, bicgstab, tol=1e-8, maxiter=150, check_every=0)
    _same(fused, general)
    assert fused[0][0] < 150 and fused[0][1] <= fused[0][2]
    iterations, residual_sq, tolerance_sq = on_device[0]
    # the device loop runs maxiter iterations with zero steps once converged: where the host loop stopped
    np.testing.assert_array_equal(on_device[1].view(np.uint8), fused[1].view(np.uint8))
    assert np.sqrt(residual_sq.numpy()[0]) == fused[0][1]
    assert iterations.numpy()[0] >= fused[0][0] and tolerance_sq.numpy()[0] == pytest.approx(fused[0][2] ** 2)


def test_padded_matrices_and_replaced_operands():
    A = convection(6, shift=1.0)
    P = sp.bsr_zeros(216, 216, wp.float64, row_capacity=9)  # two slots to spare in each row
    sp.bsr_assign(P, A, topology="padded")
    assert P.row_counts is not None and P.nnz == 9 * 216
    b = wp.array(np.linspace(-1.0, 1.0, 216), dtype=wp.float64)
    _same(_solve(P, b, None, True, bicgstab, tol=1e-10), _solve(P, b, None, False, bicgstab, tol=1e-10))
    # one state, solved again with another matrix (the same values): the same solution, fused both times
    x = wp.zeros_like(b)
    state = BiCGSTAB(A, b, x, M=preconditioner(A, "diag"), tol=1e-10)
    state()
    first = x.numpy().copy()
    x.zero_()
    state(A=sp.bsr_copy(A))
    np.testing.assert_array_equal(x.numpy(), first)
    np.testing.assert_allclose(sp.bsr_mv(A, x).numpy(), b.numpy(), atol=1e-8)


def test_a_left_preconditioner_takes_the_general_iteration():
    A = convection(8)
    b = _rhs(512, wp.float64, 3)
    M = preconditioner(A, "diag")
    taken = []
    real = cg_fused.sources

    def spy(*args):
        taken.append(args)
        return real(*args)

    x = wp.zeros_like(b)
    cg_fused.sources = spy
    try:
        iterations, residual, tolerance = bicgstab(A, b, x, M=M, tol=1e-10, is_left_preconditioner=True)
    finally:
        cg_fused.sources = real
    assert taken == [] and residual <= tolerance
    np.testing.assert_allclose(sp.bsr_mv(A, x).numpy(), b.numpy(), atol=1e-8)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**16), jacobi=st.booleans(), shift=st.floats(0.0, 5.0),
       wind=st.floats(0.0, 0.9))
def test_any_right_hand_side_iterates_as_the_general_iteration(n, seed, jacobi, shift, wind):
    A = convection(n, wind=wind, shift=shift)
    b = wp.array(np.random.default_rng(seed).normal(size=n**3), dtype=wp.float64)
    M = preconditioner(A, "diag") if jacobi else None
    general = _solve(A, b, M, False, bicgstab, tol=1e-9, maxiter=60)
    _same(_solve(A, b, M, True, bicgstab, tol=1e-9, maxiter=60), general)


@pytest.mark.parametrize("scalar", [wp.float64, wp.float32])
@pytest.mark.parametrize("ptype", [None, "diag"])
def test_the_fused_start_from_an_initial_guess(scalar, ptype):
    """The fused start (``r = b - A x``, ``p = r0 = r``, ``y = M p``, the tolerance, ``r . r``) from a nonzero ``x``:
    the general start's bits."""
    A = convection(12, scalar, shift=0.5)
    rng = np.random.default_rng(6)
    b = _rhs(1728, scalar, 7)
    x0 = rng.uniform(-2, 2, 1728).astype(NP[scalar])
    M = None if ptype is None else preconditioner(A, ptype)
    real = cg_fused.sources
    got = []
    for fused in (True, False):
        x = wp.array(x0, dtype=scalar)
        calls = []
        cg_fused.sources = real if fused else (lambda *args: None)
        try:
            result = bicgstab(A, b, x, M=M, tol=1e-6, maxiter=40, callback=lambda *a: calls.append(a))
        finally:
            cg_fused.sources = real
        got.append((result, x.numpy().copy(), calls))
    _same(*got)
    r0 = b.numpy().astype(np.float64) - sp.bsr_mv(A, wp.array(x0, dtype=scalar)).numpy()
    assert got[0][2][0][1] == pytest.approx(np.linalg.norm(r0), rel=1e-5)  # the start's residual |b - A x0|
