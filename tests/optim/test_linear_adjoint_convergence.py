"""The adjoint solve of a tape's backward pass (``A^T l = dL/dx``, optim/linear/adjoint.py) checks its convergence:
one that ends at ``maxiter`` above its tolerance warns ``LinearSolverConvergenceWarning`` (its gradients are inexact),
naming the solver, the backward's solve, the residual it reached and the iterations; one that converges says nothing."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import BrickworkError
from brickwork.optim.linear import LinearSolverConvergenceWarning, LinearSolverError, bicgstab, cg, cr, gmres


@wp.kernel
def weighted_squares(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * x[i] * x[i])


N = 30
SOLVERS = {"CG": cg, "CR": cr, "BiCGSTAB": bicgstab, "GMRES": gmres}


def _system(name):
    """A system whose spectrum spreads over 1..1e4 (symmetric for CG and CR, with a skew part for the others), its
    right-hand side, and the weights of the loss ``sum(w x^2)``."""
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    a = q @ np.diag(np.logspace(0.0, 4.0, N)) @ q.T
    if name in ("BiCGSTAB", "GMRES"):
        skew = rng.standard_normal((N, N))
        a += 0.5 * (skew - skew.T)
    return a, rng.standard_normal(N), rng.uniform(0.5, 2.0, N)


def _solve_and_backward(name, maxiter, **options):
    """The forward solve starts at the solution (it converges at once, whatever ``maxiter``); the adjoint starts
    from zero. Returns the matrix, the seed dL/dx of the adjoint and the gradient of b (the adjoint l)."""
    a, b_np, w = _system(name)
    A = wp.array(a, dtype=wp.float64, requires_grad=True)
    b = wp.array(b_np, dtype=wp.float64, requires_grad=True)
    x_np = np.linalg.solve(a, b_np)
    x = wp.array(x_np, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        iterations, residual, tolerance = SOLVERS[name](A, b, x, tol=1e-10, maxiter=maxiter, **options)
        wp.launch(weighted_squares, N, inputs=[x, wp.array(w, dtype=wp.float64), loss])
    if options.get("check_every", 10):
        assert iterations == 0 and residual <= tolerance  # the forward converged
    tape.backward(loss)
    return a, 2.0 * w * x.numpy(), b.grad.numpy()


@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize("check_every", [10, 0])
def test_an_adjoint_solve_stopped_by_maxiter_warns_with_its_residual(name, check_every):
    with pytest.warns(LinearSolverConvergenceWarning) as caught:
        a, seed, lam = _solve_and_backward(name, 3, check_every=check_every)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"{name}: the adjoint solve of Tape.backward")
    assert "maxiter=3" in message and "after 3 iterations" in message
    assert caught[0].filename == __file__  # reported at the tape.backward call
    # the residual it names is that of the adjoint it gave to b.grad, and is far above the tolerance
    reported, tolerance = (float(v) for v in re.search(r"residual (\S+) above the tolerance (\S+) ", message).groups())
    true_residual = np.linalg.norm(seed - a.T @ lam)
    assert reported == pytest.approx(true_residual, rel=2e-2)
    assert tolerance == pytest.approx(1e-10 * np.linalg.norm(seed), rel=2e-2)
    assert true_residual > 1e3 * tolerance
    assert not np.allclose(lam, np.linalg.solve(a.T, seed), rtol=1e-6)  # indeed inexact


@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize("check_every", [10, 0])
def test_an_adjoint_solve_that_converges_is_silent_and_exact(name, check_every):
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinearSolverConvergenceWarning)
        a, seed, lam = _solve_and_backward(name, 400, check_every=check_every)
    np.testing.assert_allclose(lam, np.linalg.solve(a.T, seed), rtol=1e-6, atol=1e-9)


def test_the_warning_can_be_made_an_error_a_brickwork_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinearSolverConvergenceWarning)
        with pytest.raises(LinearSolverError, match="CG: the adjoint solve of Tape.backward") as raised:
            _solve_and_backward("CG", 2)
    assert isinstance(raised.value, BrickworkError) and isinstance(raised.value, UserWarning)
