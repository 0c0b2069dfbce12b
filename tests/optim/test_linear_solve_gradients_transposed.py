"""Gradients through ``bicgstab`` and ``gmres`` solves of non-symmetric systems recorded by a ``wp.Tape``: the
adjoint system ``A^T l = dL/dx`` is solved with the transposes of ``A`` and ``M`` (optim/linear/transpose.py),
checked against numpy and against finite differences; operators whose transpose is unknown are refused."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork.optim.linear import (
    LinearOperator,
    LinearSolverValueError,
    aslinearoperator,
    bicgstab,
    gmres,
    preconditioner,
)
from brickwork.optim.linear.transpose import transposed


@wp.kernel
def weighted_squares(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * x[i] * x[i])


@wp.kernel
def assemble(k: wp.array(dtype=wp.float64), base: wp.array2d(dtype=wp.float64), A: wp.array2d(dtype=wp.float64)):
    """``A = base + k[0] * upwind``: a convection-diffusion matrix whose upwind part is not symmetric."""
    i, j = wp.tid()
    upwind = wp.where(i == j, wp.float64(1.0), wp.where(j == i - 1, wp.float64(-1.0), wp.float64(0.0)))
    A[i, j] = base[i, j] + k[0] * upwind


N = 8
SOLVERS = [bicgstab, gmres]


def _f64(values, grad=False):
    return wp.array(values, dtype=wp.float64, requires_grad=grad)


def _system(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((N, N)) + N * np.eye(N)  # non-symmetric, well conditioned
    return a, rng.standard_normal(N), rng.uniform(0.5, 2.0, N)


def _expected(a, b, w):
    x = np.linalg.solve(a, b)
    return x, np.linalg.solve(a.T, 2.0 * w * x)


def _csr(a):
    rows, cols = np.nonzero(a)
    return sp.bsr_from_triplets(N, N, wp.array(rows, dtype=int), wp.array(cols, dtype=int), _f64(a[rows, cols], True))


def _solve_and_backward(solver, A, b, w, **options):
    x = wp.zeros(N, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        solver(A, b, x, tol=1e-13, maxiter=400, **options)
        wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
    tape.backward(loss)
    return x


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("ptype", [None, "diag"])
@pytest.mark.parametrize("left", [False, True])
def test_dense_matrix_and_right_hand_side(solver, ptype, left):
    a, b_np, w = _system()
    A, b = _f64(a, True), _f64(b_np, True)
    M = preconditioner(A, ptype) if ptype else None
    x = _solve_and_backward(solver, A, b, w, M=M, is_left_preconditioner=left)
    x_np, lam = _expected(a, b_np, w)
    np.testing.assert_allclose(x.numpy(), x_np, atol=1e-11)
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)
    np.testing.assert_allclose(A.grad.numpy(), -np.outer(lam, x_np), atol=1e-10)
    assert not x.grad.numpy().any()


@pytest.mark.parametrize("solver", SOLVERS)
def test_csr_values_get_their_stored_entries_gradient(solver):
    a, b_np, w = _system(1)
    a[np.abs(a) < 0.5] = 0.0  # a non-symmetric pattern too
    A, b = _csr(a), _f64(b_np, True)
    _solve_and_backward(solver, A, b, w, M=preconditioner(A, "diag"))
    x_np, lam = _expected(a, b_np, w)
    rows, cols = np.nonzero(a)
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)
    np.testing.assert_allclose(A.values.grad.numpy(), -(lam[rows] * x_np[cols]), atol=1e-10)


@wp.kernel
def squares2(x: wp.array(dtype=wp.vec2d), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(x[i], x[i]))


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("ptype", [None, "diag", "block_jacobi_direct"])
def test_block_matrix_with_vector_entries(solver, ptype):
    """A BSR matrix of non-symmetric 2x2 blocks and vec2d vectors: bsr_mv's transpose and the transposed inverses."""
    rng = np.random.default_rng(8)
    nb = 3
    a = rng.standard_normal((2 * nb, 2 * nb)) + 6.0 * np.eye(2 * nb)
    blocks = a.reshape(nb, 2, nb, 2).transpose(0, 2, 1, 3).reshape(-1, 2, 2)
    rows, cols = np.meshgrid(np.arange(nb), np.arange(nb), indexing="ij")
    A = sp.bsr_from_triplets(nb, nb, wp.array(rows.ravel(), dtype=int), wp.array(cols.ravel(), dtype=int),
                             wp.array(blocks, dtype=wp.mat22d, requires_grad=True))
    b_np = rng.standard_normal(2 * nb)
    b = wp.array(b_np.reshape(nb, 2), dtype=wp.vec2d, requires_grad=True)
    x = wp.zeros(nb, dtype=wp.vec2d, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        solver(A, b, x, tol=1e-13, maxiter=100, M=preconditioner(A, ptype) if ptype else None)
        wp.launch(squares2, nb, inputs=[x, loss])
    tape.backward(loss)
    x_np = np.linalg.solve(a, b_np)
    lam = np.linalg.solve(a.T, 2.0 * x_np)
    expected = -np.outer(lam, x_np).reshape(nb, 2, nb, 2).transpose(0, 2, 1, 3).reshape(-1, 2, 2)
    np.testing.assert_allclose(b.grad.numpy().reshape(-1), lam, atol=1e-12)
    np.testing.assert_allclose(A.values.grad.numpy(), expected, atol=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
def test_finite_differences_of_a_nonsymmetric_parameter(solver):
    """dL/dk of L = sum(w x^2), A(k) x = b assembled by a recorded kernel, against central differences."""
    rng = np.random.default_rng(3)
    base = 4.0 * np.eye(N) - np.eye(N, k=1) - np.eye(N, k=-1) + 0.1 * rng.standard_normal((N, N))
    b_np, w = rng.standard_normal(N), rng.uniform(0.5, 2.0, N)

    def loss_of(k_value, tape=None):
        k = _f64([k_value], tape is not None)
        A = wp.zeros((N, N), dtype=wp.float64, requires_grad=True)
        x = wp.zeros(N, dtype=wp.float64, requires_grad=True)
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        if tape is None:
            wp.launch(assemble, (N, N), inputs=[k, _f64(base), A])
            solver(A, _f64(b_np), x, tol=1e-14, maxiter=400)
            wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
            return loss.numpy()[0]
        with tape:
            wp.launch(assemble, (N, N), inputs=[k, _f64(base), A])
            solver(A, _f64(b_np), x, tol=1e-14, maxiter=400)
            wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
        tape.backward(loss)
        return k.grad.numpy()[0]

    k0, h = 0.8, 1e-5
    gradient = loss_of(k0, wp.Tape())
    finite = (loss_of(k0 + h) - loss_of(k0 - h)) / (2.0 * h)
    assert abs(gradient) > 1e-3
    assert gradient == pytest.approx(finite, rel=1e-6)


def test_transposes_of_the_operators_apply_the_transposed_matrix():
    a, _, _ = _system(4)
    v = np.random.default_rng(5).standard_normal(N)
    y_np = np.linspace(-1.0, 1.0, N)
    for source in (_f64(a), _csr(a)):
        op = transposed(aslinearoperator(source))
        z = wp.zeros(N, dtype=wp.float64)
        op.matvec(_f64(v), _f64(y_np), z, alpha=2.0, beta=-0.5)
        np.testing.assert_allclose(z.numpy(), 2.0 * a.T @ v - 0.5 * y_np, atol=1e-12)
    d = aslinearoperator(_f64(np.arange(1.0, N + 1.0)))
    assert transposed(d) is d and transposed(None) is None


@pytest.mark.parametrize("ptype", ["block_jacobi_direct", "block_jacobi_sequential"])
def test_block_jacobi_transpose(ptype):
    """The direct inverse of non-symmetric blocks is transposed; L D L^T factors (or the identity) are their own."""
    blocks = np.array([[[3.0, 1.0], [-0.5, 2.0]], [[4.0, 0.3], [0.3, 5.0]]])
    rows, cols = np.array([0, 1]), np.array([0, 1])
    A = sp.bsr_from_triplets(2, 2, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                             wp.array(blocks, dtype=wp.mat22d))
    M = preconditioner(A, ptype)
    MT = transposed(M)
    v = np.array([1.0, -2.0, 0.5, 3.0])
    applied = {}
    for name, op in (("M", M), ("MT", MT)):
        z = wp.zeros(4, dtype=wp.float64)
        op.matvec(_f64(v), z, z, alpha=1.0, beta=0.0)
        applied[name] = z.numpy()
    inverse = np.zeros((4, 4))
    inverse[:2, :2] = np.linalg.inv(blocks[0]) if ptype == "block_jacobi_direct" else np.eye(2)  # not symmetric
    inverse[2:, 2:] = np.linalg.inv(blocks[1])
    np.testing.assert_allclose(applied["M"], inverse @ v, atol=1e-12)
    np.testing.assert_allclose(applied["MT"], inverse.T @ v, atol=1e-12)
    assert (MT is M) == (ptype == "block_jacobi_sequential")


def _own_operator(a):
    def matvec(x, y, z, alpha, beta):
        z.assign(_f64(alpha * (a @ x.numpy()) + beta * y.numpy()))

    return LinearOperator((N, N), wp.float64, "cpu", matvec)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("which", ["A", "M"])
def test_operators_of_your_own_function_are_refused_before_the_solve(solver, which):
    a, b_np, _ = _system(6)
    A = _own_operator(a) if which == "A" else _f64(a)
    M = _own_operator(np.diag(1.0 / np.diag(a))) if which == "M" else None
    b = _f64(b_np, True)
    x = _f64(np.full(N, 0.25), True)
    with wp.Tape() as tape, pytest.raises(LinearSolverValueError) as caught:
        solver(A, b, x, tol=1e-12, M=M)
    message = str(caught.value)
    name = "BiCGSTAB" if solver is bicgstab else "GMRES"
    assert message.startswith(f"{name}: a solve under a wp.Tape with b requiring gradients needs the transpose of "
                              f"{which}")
    assert "LinearOperator of your own function" in message and "tape.record_func" in message
    assert np.all(x.numpy() == 0.25) and np.all(b.numpy() == b_np)  # nothing ran
    assert tape.launches == []
    solver(A, b, x, tol=1e-12, M=M)  # without a tape the same solve runs
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b_np), atol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_own_operator_without_gradients_solves_under_a_tape(solver):
    a, b_np, _ = _system(7)
    x = wp.zeros(N, dtype=wp.float64)
    with wp.Tape() as tape:
        solver(_own_operator(a), _f64(b_np), x, tol=1e-12)
    assert tape.launches == []
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b_np), atol=1e-10)
