"""brickwork.optim.linear: the errors a user can cause (shapes, dtypes and devices of A, b, x and M that do not
agree, non-square A, bad counts and tolerances, replacement operands of a solver state) raise before anything
runs, name the argument, and change nothing."""

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork.optim import OptimizerError
from brickwork.optim.linear import (
    CG,
    LinearOperator,
    LinearSolverError,
    LinearSolverState,
    LinearSolverTypeError,
    LinearSolverValueError,
    aslinearoperator,
    bicgstab,
    cg,
    cr,
    gmres,
    preconditioner,
)

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

SOLVERS = [cg, cr, bicgstab, gmres]
N = 4


def system(dtype=wp.float64, n=N):
    A = wp.array(np.diag(np.arange(1.0, n + 1)), dtype=dtype)
    b = wp.array(np.ones(n), dtype=dtype)
    return A, b, wp.array(np.full(n, 0.5), dtype=dtype)


def raises_unchanged(call, error, text, arrays):
    before = [a.numpy().copy() for a in arrays]
    with pytest.raises(error, match=text) as info:
        call()
    assert isinstance(info.value, LinearSolverError) and isinstance(info.value, OptimizerError)
    for a, old in zip(arrays, before):
        np.testing.assert_array_equal(a.numpy(), old)


@pytest.mark.parametrize("solve", SOLVERS)
def test_operands_that_do_not_agree(solve):
    A, b, x = system()
    name = {"cg": "CG", "cr": "CR", "bicgstab": "BiCGSTAB", "gmres": "GMRES"}[solve.__name__]
    cases = [
        (lambda: solve(A, wp.zeros(N + 1, dtype=wp.float64), x), LinearSolverValueError,
         f"{name}: b must have A's 4 rows"),
        (lambda: solve(A, b, wp.zeros(N - 1, dtype=wp.float64)), LinearSolverValueError, "x must have A's 4 rows"),
        (lambda: solve(wp.zeros((N, N + 1), dtype=wp.float64), b, x), LinearSolverValueError,
         r"A must be square, got shape \(4, 5\)"),
        (lambda: solve(A, b, wp.zeros(N, dtype=wp.float32)), LinearSolverTypeError,
         "x must have b's dtype float64, got float32"),
        (lambda: solve(A, wp.zeros(N, dtype=wp.float32), wp.zeros(N, dtype=wp.float32)), LinearSolverTypeError,
         "b's scalar type must be A's float64"),
        (lambda: solve(A, b.numpy(), x), LinearSolverTypeError, "b must be a 1-D wp.array, got ndarray"),
        (lambda: solve(A, b, wp.zeros((2, 2), dtype=wp.float64)), LinearSolverValueError, "x must be a 1-D array"),
        (lambda: solve(A, wp.zeros(N, dtype=wp.int32), x), LinearSolverTypeError, "b must hold float16"),
        (lambda: solve(A, b, x, M=wp.ones(N + 1, dtype=wp.float64)), LinearSolverValueError,
         r"M must have A's shape \(4, 4\), got \(5,\)"),
        (lambda: solve(A, b, x, M=wp.ones(N, dtype=wp.float32)), LinearSolverTypeError,
         "M's scalar type must be A's float64"),
        (lambda: solve(A, b, x, maxiter=-1), LinearSolverValueError, r"maxiter must be >= 0 .*got -1"),
        (lambda: solve(A, b, x, maxiter=float("inf")), LinearSolverValueError, "maxiter must be >= 0"),
        (lambda: solve(A, b, x, maxiter="10"), LinearSolverTypeError, "maxiter must be a number or None, got str"),
        (lambda: solve(A, b, x, check_every=-1), LinearSolverValueError, "check_every must be >= 0"),
        (lambda: solve(A, b, x, tol=-1e-3), LinearSolverValueError, "tol must be None or a finite number >= 0"),
        (lambda: solve(A, b, x, atol=float("nan")), LinearSolverValueError, "atol must be None or a finite number"),
        (lambda: solve(A, b, x, callback=3), LinearSolverTypeError, "callback must be callable"),
        (lambda: solve(np.eye(N), b, x), LinearSolverValueError,
         rf"Unable to create LinearOperator from a numpy.ndarray of shape \({N}, {N}\): aslinearoperator takes a 1-D "
         r"\(a diagonal\) or 2-D \(a dense matrix\) brickwork array, a BsrMatrix or a LinearOperator \(convert it: "
         r"wp.array\(A, dtype=wp.float64\)\)"),
        (lambda: solve("A", b, x), LinearSolverValueError, r"from a builtins.str: .* or a LinearOperator$"),
        (lambda: solve(A, b, b), LinearSolverValueError, "x must not be b's memory"),
        (lambda: solve(A, b, b[:]), LinearSolverValueError, "x must not be b's memory"),
    ]
    for call, error, text in cases:
        raises_unchanged(call, error, text, [A, b, x])


def test_devices_that_do_not_agree():
    A, b, x = system()
    with installed(FakeDriver()):
        on_gpu = wp.zeros(N, dtype=wp.float64, device="cuda:0")
        for solve in SOLVERS:
            raises_unchanged(lambda: solve(A, on_gpu, x), LinearSolverValueError,
                             "b must be on A's device cpu, got cuda:0", [A, b, x])
            raises_unchanged(lambda: solve(A, b, on_gpu), LinearSolverValueError,
                             "x must be on A's device cpu, got cuda:0", [A, b, x])
            M = LinearOperator((N, N), wp.float64, "cuda:0", lambda *a, **k: None)
            raises_unchanged(lambda: solve(A, b, x, M=M), LinearSolverValueError,
                             "M must be on A's device cpu, got cuda:0", [A, b, x])
        offsets = wp.array([0, N], dtype=wp.int32, device="cuda:0")
        with pytest.raises(LinearSolverValueError, match="batch_offsets must be on the operator's device cpu"):
            LinearOperator((N, N), wp.float64, "cpu", lambda *a, **k: None, offsets)


def test_restart_arguments():
    A, b, x = system()
    for solve in (cg, cr, gmres):
        raises_unchanged(lambda: solve(A, b, x, restart=0), LinearSolverValueError, "restart must be positive",
                         [x])
        raises_unchanged(lambda: solve(A, b, x, restart=2.0), LinearSolverTypeError,
                         "restart must be an integer or None", [x])
        raises_unchanged(lambda: solve(A, b, x, restart=True), LinearSolverTypeError,
                         "restart must be an integer or None", [x])
    with pytest.raises(TypeError):  # cg's restart is keyword-only, as Warp's
        cg(A, b, x, None, None, 0, None, None, 10, True, True, 3)


def test_replacement_operands_of_a_state():
    A, b, x = system()
    state = cg(A, b, x, maxiter=100, run=False)
    assert isinstance(state, CG) and isinstance(state, LinearSolverState)
    cases = [
        (lambda: state(b=wp.zeros(2 * N, dtype=wp.float64)), r"Incompatible b.shape: expected \(4,\), got \(8,\)"),
        (lambda: state(A=wp.zeros((2 * N, 2 * N), dtype=wp.float64)), "Incompatible A.shape"),
        (lambda: state(A=system(wp.float32)[0], b=system(wp.float32)[1], x=system(wp.float32)[2]),
         "Incompatible A.dtype"),
        (lambda: state(x=wp.zeros(N, dtype=wp.float32)), "Incompatible x.dtype"),
        (lambda: state(A=aslinearoperator(A, batch_offsets=wp.array([0, N], dtype=wp.int32))),
         "A.batch_offsets must be the same array"),
    ]
    for call, text in cases:
        raises_unchanged(call, ValueError, text, [A, b, x])
    offsets = wp.array([0, 2, N], dtype=wp.int32)
    batched = cg(aslinearoperator(A, batch_offsets=offsets, max_batch_length=2), b, x, run=False)
    raises_unchanged(lambda: batched(A=aslinearoperator(A, batch_offsets=offsets, max_batch_length=4)),
                     LinearSolverValueError, "max_batch_length must match", [x])
    # BiCGSTAB's preconditioner is there at every call, or never
    plain = bicgstab(A, b, x, run=False)
    raises_unchanged(lambda: plain(M=preconditioner(A)), LinearSolverValueError,
                     "BiCGSTAB requires M to be consistently provided", [x])
    with pytest.raises(LinearSolverTypeError, match="not constructible"):
        LinearSolverState(A, b, x)


def test_a_float16_system_solves():
    # float16 is accepted, as in Warp (its default tolerance is 1e-3 relative)
    A, b, x = system(wp.float16)
    niter, err, atol = cg(A, b, x)
    assert err <= atol
    np.testing.assert_allclose(x.numpy().astype(np.float64), 1.0 / np.arange(1.0, N + 1), rtol=2e-3)
