"""The vectors a solver hands a ``LinearOperator``'s matvec as ``y`` are initialized, as Warp's (zeros): a
matvec of the documented form ``z = alpha * A x + beta * y`` computed with numpy reads ``y`` even when
``beta`` is 0, and the buffers CG, CR, BiCGSTAB and GMRES pass there first (``Ap``, ``Az``, ``v``, ``t``, ``w``)
were uninitialized memory: ``0 * NaN`` made the solve NaN when the memory held one (now and then; every time
under pytest for a Poisson solve). The test fills every uninitialized allocation of the solvers with NaN."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.optim.linear import LinearOperator, bicgstab, cg, cr, gmres

SOLVER_MODULES = ("conjugate", "bicgstab", "gmres", "state", "dots")
N = 40
LAPLACIAN = 2.0 * np.eye(N) - np.eye(N, k=1) - np.eye(N, k=-1)


def _nan_filled(make):
    def allocate(*args, **kwargs):
        a = make(*args, **kwargs)
        if np.issubdtype(a.numpy().dtype, np.floating):
            a.numpy()[...] = np.nan
        return a

    return allocate


@pytest.fixture
def nan_allocations(monkeypatch):
    import importlib

    for name in SOLVER_MODULES:
        module = importlib.import_module(f"brickwork.optim.linear.{name}")
        for constructor in ("empty", "empty_like"):
            if hasattr(module, constructor):
                monkeypatch.setattr(module, constructor, _nan_filled(getattr(module, constructor)))


def _numpy_operator(seen_beta_zero):
    def matvec(x, y, z, alpha, beta):
        if beta == 0.0:
            seen_beta_zero.append(bool(np.isfinite(y.numpy()).all()))
        z.assign(wp.array(alpha * (LAPLACIAN @ x.numpy()) + beta * y.numpy(), dtype=wp.float64))

    return LinearOperator((N, N), wp.float64, "cpu", matvec)


@pytest.mark.parametrize("solve", [cg, cr, bicgstab, gmres], ids=["cg", "cr", "bicgstab", "gmres"])
def test_a_numpy_matvec_solves_from_nan_filled_memory(nan_allocations, solve):
    rhs = np.sin(np.arange(N) * 0.7) + 1.0
    seen = []
    x = wp.zeros(N, dtype=wp.float64)
    iterations, residual, tolerance = solve(_numpy_operator(seen), wp.array(rhs), x, tol=1e-10, maxiter=200)
    assert residual <= tolerance and np.isfinite(residual)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(LAPLACIAN, rhs), rtol=1e-8)
    assert seen and all(seen)  # every y handed over with beta = 0 held numbers
