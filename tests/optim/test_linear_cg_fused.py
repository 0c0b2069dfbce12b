"""CG's and CR's fused CPU iterations (optim/linear/cg_fused.py) against the general ones they stand for: the same
iterates bit for bit (solution, iteration count, residual, callbacks), with and without a Jacobi preconditioner, restarts,
the device-side loop, padded matrices, several inner-product parts and threads; and which solves take it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.optim.linear import CG, CR, LinearOperator, aslinearoperator, cg, cg_fused, cr, preconditioner

NP = {wp.float32: np.float32, wp.float64: np.float64}


def laplacian(n: int, scalar=wp.float64, shift: float = 0.0):
    """The 7-point Laplacian of an n^3 grid (Dirichlet), plus ``shift`` on the diagonal, as a CSR matrix."""
    idx = np.arange(n**3).reshape(n, n, n)
    rows, cols = [idx.ravel()], [idx.ravel()]
    for axis in range(3):
        lo, hi = [slice(None)] * 3, [slice(None)] * 3
        lo[axis], hi[axis] = slice(None, -1), slice(1, None)
        rows += [idx[tuple(lo)].ravel(), idx[tuple(hi)].ravel()]
        cols += [idx[tuple(hi)].ravel(), idx[tuple(lo)].ravel()]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    vals = np.where(rows == cols, 6.0 + shift, -1.0).astype(NP[scalar])
    return sp.bsr_from_triplets(n**3, n**3, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                wp.array(vals, dtype=scalar))


def _solve(A, b, M, fused: bool, solver=cg, **kwargs):
    """``solver``'s result, solution bits and callbacks, through the fused iteration (asserted taken) or the
    general one."""
    taken = []
    real = cg_fused.sources

    def spy(*args):
        found = real(*args) if fused else None
        taken.append(found is not None)
        return found

    calls = []
    x = wp.zeros_like(b)
    cg_fused.sources = spy
    try:
        result = solver(A, b, x, M=M, callback=lambda *a: calls.append(a), **kwargs)
    finally:
        cg_fused.sources = real
    assert taken == [fused]
    return result, x.numpy().copy(), calls


def _same(fused, general):
    (r1, x1, c1), (r2, x2, c2) = fused, general
    assert r1 == r2 and c1 == c2
    np.testing.assert_array_equal(x1.view(np.uint8), x2.view(np.uint8))


@pytest.mark.parametrize("solver", [cg, cr])
@pytest.mark.parametrize("scalar", [wp.float64, wp.float32])
@pytest.mark.parametrize("ptype", [None, "diag", "diag_abs"])
@pytest.mark.parametrize("kwargs", [{"tol": 1e-30, "atol": 1e-30, "maxiter": 25}, {"tol": 1e-5},
                                    {"tol": 1e-6, "restart": 6, "check_every": 4}])
def test_the_fused_iteration_gives_the_general_ones_bits(solver, scalar, ptype, kwargs):
    A = laplacian(20, scalar)  # 8000 rows: two parts per inner product
    b = wp.array(np.random.default_rng(1).uniform(-1, 1, 8000).astype(NP[scalar]), dtype=scalar)
    M = None if ptype is None else preconditioner(A, ptype)
    fused = _solve(A, b, M, True, solver, **kwargs)
    _same(fused, _solve(A, b, M, False, solver, **kwargs))
    result, x, _ = fused
    assert result[0] > 0 and result[1] > 0
    if "maxiter" not in kwargs:  # converged: |b - A x| near the tolerance (the recursive residual's)
        ax = sp.bsr_mv(A, wp.array(x, dtype=scalar)).numpy()
        assert np.linalg.norm(b.numpy().astype(np.float64) - ax) <= 10 * result[2]


@pytest.mark.parametrize("solver", [cg, cr])
@pytest.mark.parametrize("threads", [1, 2])
def test_many_parts_on_any_thread_count_and_the_device_loop(solver, threads):
    A = laplacian(26)  # 17576 rows: four parts, launched in parallel
    b = wp.array(np.random.default_rng(2).uniform(-1, 1, 17576), dtype=wp.float64)
    M = preconditioner(A, "diag")
    with config.override(num_threads=threads):
        fused = _solve(A, b, M, True, solver, tol=1e-8, maxiter=150)
        general = _solve(A, b, M, False, solver, tol=1e-8, maxiter=150)
        on_device = _solve(A, b, M, True, solver, tol=1e-8, maxiter=150, check_every=0)
    _same(fused, general)
    assert fused[0][0] < 150 and fused[0][1] <= fused[0][2]
    iterations, residual_sq, tolerance_sq = on_device[0]
    # the device loop runs maxiter iterations with zero steps once converged: where the host loop stopped
    np.testing.assert_array_equal(on_device[1].view(np.uint8), fused[1].view(np.uint8))
    assert np.sqrt(residual_sq.numpy()[0]) == fused[0][1]
    assert iterations.numpy()[0] >= fused[0][0] and tolerance_sq.numpy()[0] == pytest.approx(fused[0][2] ** 2)


def test_padded_matrices_and_replaced_operands():
    A = laplacian(6, shift=1.0)
    P = sp.bsr_zeros(216, 216, wp.float64, row_capacity=9)  # two slots to spare in each row
    sp.bsr_assign(P, A, topology="padded")
    assert P.row_counts is not None and P.nnz == 9 * 216
    b = wp.array(np.linspace(-1.0, 1.0, 216), dtype=wp.float64)
    for solver in (cg, cr):
        _same(_solve(P, b, None, True, solver, tol=1e-10), _solve(P, b, None, False, solver, tol=1e-10))
    # one state, solved again with another matrix and without its preconditioner: both fused
    for State in (CG, CR):
        x = wp.zeros_like(b)
        state = State(A, b, x, M=preconditioner(A, "diag"), tol=1e-10)
        state()
        first = x.numpy().copy()
        x.zero_()
        state(A=sp.bsr_copy(A), M=None)
        np.testing.assert_allclose(x.numpy(), first, rtol=1e-8)


@pytest.mark.parametrize("case", ["blocks", "batches", "block_jacobi", "dense", "custom", "emulation"])
def test_what_takes_the_general_iteration(case):
    A = laplacian(4)
    b = wp.array(np.ones(64), dtype=wp.float64)
    M = None
    if case == "blocks":
        A = sp.bsr_copy(laplacian(4), block_shape=(2, 2))
    elif case == "batches":
        A = aslinearoperator(A, batch_offsets=wp.array([0, 64], dtype=wp.int32))
    elif case == "block_jacobi":
        A = sp.bsr_copy(laplacian(4), block_shape=(2, 2))
        M = preconditioner(A, "block_jacobi_direct")
    elif case == "dense":
        A = wp.array(np.diag(np.arange(1.0, 65.0)), dtype=wp.float64)
    elif case == "custom":
        inner = aslinearoperator(A)
        A = LinearOperator(inner.shape, inner.dtype, inner.device, inner.matvec)
    A_op, M_op = aslinearoperator(A), aslinearoperator(M)
    if case == "emulation":
        with config.override(target="cuda-emulation"):
            assert cg_fused.sources(A_op, M_op) is None
        assert cg_fused.sources(A_op, M_op) is not None
        return
    assert cg_fused.sources(A_op, M_op) is None
    x = wp.zeros_like(b)
    iterations, residual, tolerance = cg(A, b, x, M=M, tol=1e-10)
    assert residual <= tolerance and iterations <= 64


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**16), jacobi=st.booleans(), shift=st.floats(0.0, 5.0),
       solver=st.sampled_from([cg, cr]))
def test_any_right_hand_side_iterates_as_the_general_iteration(n, seed, jacobi, shift, solver):
    A = laplacian(n, shift=shift)
    b = wp.array(np.random.default_rng(seed).normal(size=n**3), dtype=wp.float64)
    M = preconditioner(A, "diag") if jacobi else None
    _same(_solve(A, b, M, True, solver, tol=1e-9, maxiter=60), _solve(A, b, M, False, solver, tol=1e-9, maxiter=60))


@pytest.mark.parametrize("scalar", [wp.float64, wp.float32])
@pytest.mark.parametrize("ptype", [None, "diag"])
def test_the_fused_start_from_an_initial_guess(scalar, ptype):
    """The fused start (``r = b - A x``, ``z``, ``p``, the tolerance and the first inner products) from a nonzero
    ``x``: the general start's bits."""
    A = laplacian(12, scalar, shift=0.5)
    rng = np.random.default_rng(5)
    b = wp.array(rng.uniform(-1, 1, 1728).astype(NP[scalar]), dtype=scalar)
    x0 = rng.uniform(-2, 2, 1728).astype(NP[scalar])
    M = None if ptype is None else preconditioner(A, ptype)
    real = cg_fused.sources
    got = []
    for fused in (True, False):
        x = wp.array(x0, dtype=scalar)
        calls = []
        cg_fused.sources = real if fused else (lambda *args: None)
        try:
            result = cg(A, b, x, M=M, tol=1e-6, maxiter=40, callback=lambda *a: calls.append(a))
        finally:
            cg_fused.sources = real
        got.append((result, x.numpy().copy(), calls))
    _same(*got)
    assert got[0][2][0][1] > got[0][2][0][2]  # the start's residual |b - A x0|, above the tolerance
    r0 = b.numpy().astype(np.float64) - sp.bsr_mv(A, wp.array(x0, dtype=scalar)).numpy()
    assert got[0][2][0][1] == pytest.approx(np.linalg.norm(r0), rel=1e-5)
