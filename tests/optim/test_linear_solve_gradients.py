"""Gradients through linear solves recorded by a ``wp.Tape`` (``optim/linear/adjoint.py``): ``cg`` and ``cr``
give ``dL/db = l`` and ``dL/dA = -outer(l, x)`` with ``A^T l = dL/dx``, checked against numpy; ``bicgstab`` and
``gmres`` (non-symmetric systems, the adjoint solved with the transposes) in test_linear_solve_gradients_transposed.py."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork.optim.linear import aslinearoperator, bicgstab, cg, cr, gmres, preconditioner


@wp.kernel
def weighted_squares(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * x[i] * x[i])


@wp.kernel
def weighted_squares2(x: wp.array(dtype=wp.vec2d), w: wp.array(dtype=wp.vec2d), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(w[i], wp.cw_mul(x[i], x[i])))


N = 8


def _system(seed=0):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    a = q @ np.diag(rng.uniform(1.0, 5.0, N)) @ q.T  # symmetric positive definite
    return a, rng.standard_normal(N), rng.uniform(0.5, 2.0, N)


def _expected(a, b, w):
    """The solution, and the adjoint l = A^-T dL/dx for L = sum(w x^2)."""
    x = np.linalg.solve(a, b)
    return x, np.linalg.solve(a.T, 2.0 * w * x)


def _f64(values, grad=False):
    return wp.array(values, dtype=wp.float64, requires_grad=grad)


def _csr(a, grad=True):
    rows, cols = np.nonzero(a)
    return sp.bsr_from_triplets(N, N, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                _f64(a[rows, cols], grad))


@pytest.mark.parametrize("solver", [cg, cr])
@pytest.mark.parametrize("precondition", [False, True])
def test_dense_matrix_and_right_hand_side(solver, precondition):
    a, b_np, w = _system()
    A, b, x = _f64(a, True), _f64(b_np, True), wp.zeros(N, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        solver(A, b, x, tol=1e-13, M=preconditioner(A, "diag") if precondition else None)
        wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
    tape.backward(loss)
    x_np, lam = _expected(a, b_np, w)
    np.testing.assert_allclose(x.numpy(), x_np, atol=1e-11)
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)
    np.testing.assert_allclose(A.grad.numpy(), -np.outer(lam, x_np), atol=1e-10)
    assert not x.grad.numpy().any()  # the solve overwrote x: the guess gets no gradient


def test_csr_matrix_values_get_their_stored_entries_gradient():
    a, b_np, w = _system(1)
    a[np.abs(a) < 0.3] = 0.0  # some entries not stored (the matrix stays symmetric)
    a += np.diag(np.abs(a).sum(axis=1))  # and positive definite
    A, b, x = _csr(a), _f64(b_np, True), wp.zeros(N, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        cg(A, b, x, tol=1e-13)
        wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
    tape.backward(loss)
    x_np, lam = _expected(a, b_np, w)
    rows, cols = A.uncompress_rows().numpy(), A.columns.numpy()
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)
    np.testing.assert_allclose(A.values.grad.numpy(), -lam[rows] * x_np[cols], atol=1e-10)


def test_block_matrix_with_vector_entries():
    a, b_np, w = _system(2)
    blocks = a.reshape(N // 2, 2, N // 2, 2).transpose(0, 2, 1, 3)
    brow, bcol = np.nonzero(np.abs(blocks).sum(axis=(2, 3)))
    A = sp.bsr_from_triplets(N // 2, N // 2, wp.array(brow, dtype=int), wp.array(bcol, dtype=int),
                             wp.array(blocks[brow, bcol], dtype=wp.mat22d, requires_grad=True))
    b = wp.array(b_np.reshape(-1, 2), dtype=wp.vec2d, requires_grad=True)
    x = wp.zeros(N // 2, dtype=wp.vec2d, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        cr(A, b, x, tol=1e-13)
        wp.launch(weighted_squares2, N // 2, inputs=[x, wp.array(w.reshape(-1, 2), dtype=wp.vec2d), loss])
    tape.backward(loss)
    x_np, lam = _expected(a, b_np, w)
    rows, cols = A.uncompress_rows().numpy(), A.columns.numpy()
    np.testing.assert_allclose(b.grad.numpy().reshape(-1), lam, atol=1e-10)
    expected = -np.einsum("ki,kj->kij", lam.reshape(-1, 2)[rows], x_np.reshape(-1, 2)[cols])
    np.testing.assert_allclose(A.values.grad.numpy(), expected, atol=1e-10)


def test_implicit_time_steps_reuse_one_solver_state():
    """Two backward-Euler steps u1 = A^-1 u0, u2 = A^-1 u1 with one CG state: each step's adjoint uses its own
    solution, also for A's gradient (the state's buffers are shared)."""
    a, u0_np, w = _system(3)
    A, u0 = _f64(a, True), _f64(u0_np, True)
    u1, u2 = (wp.zeros(N, dtype=wp.float64, requires_grad=True) for _ in range(2))
    seen = []
    state = cg(A, u0, u1, tol=1e-13, run=False, callback=lambda *args: seen.append(args))
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        state()
        state(b=u1, x=u2)
        wp.launch(weighted_squares, N, inputs=[u2, _f64(w), loss])
    calls = len(seen)
    tape.backward(loss)
    assert len(seen) == calls  # the adjoint solves do not call the caller's callback
    x1 = np.linalg.solve(a, u0_np)
    x2, lam2 = _expected(a, x1, w)
    lam1 = np.linalg.solve(a.T, lam2)
    np.testing.assert_allclose(u0.grad.numpy(), lam1, atol=1e-10)
    np.testing.assert_allclose(A.grad.numpy(), -np.outer(lam2, x2) - np.outer(lam1, x1), atol=1e-10)


def test_finite_differences_of_a_poisson_solve():
    """d/dk of the misfit of -k u'' = f (Dirichlet, 1-D) by the tape equals the central difference."""
    n, f = 12, np.sin(np.linspace(0.0, 3.0, 12))
    lap = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)

    @wp.kernel
    def assemble(k: wp.array(dtype=wp.float64), lap: wp.array2d(dtype=wp.float64), A: wp.array2d(dtype=wp.float64)):
        i, j = wp.tid()
        A[i, j] = k[0] * lap[i, j]

    def loss_of(k_value):
        k = _f64([k_value], True)
        A = wp.zeros((n, n), dtype=wp.float64, requires_grad=True)
        u = wp.zeros(n, dtype=wp.float64, requires_grad=True)
        loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(assemble, (n, n), inputs=[k, _f64(lap), A])
            cg(A, _f64(f), u, tol=1e-14)
            wp.launch(weighted_squares, n, inputs=[u, _f64(np.ones(n)), loss])
        tape.backward(loss)
        return loss.numpy()[0], k.grad.numpy()[0]

    _, gradient = loss_of(1.3)
    eps = 1e-6
    fd = (loss_of(1.3 + eps)[0] - loss_of(1.3 - eps)[0]) / (2.0 * eps)
    assert gradient == pytest.approx(fd, rel=1e-6)
    u = np.linalg.solve(1.3 * lap, f)
    assert gradient == pytest.approx(-2.0 * u @ u / 1.3, rel=1e-9)  # u = f / (k L): d(u.u)/dk = -2 u.u / k


def test_retained_solution_gradient_is_kept():
    a, b_np, w = _system(4)
    b, x = _f64(b_np, True), wp.zeros(N, dtype=wp.float64, requires_grad=True, retain_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        cg(_f64(a), b, x, tol=1e-13)
        wp.launch(weighted_squares, N, inputs=[x, _f64(w), loss])
    tape.backward(loss)
    x_np, lam = _expected(a, b_np, w)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * w * x_np, atol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)


def test_nothing_recorded_without_gradients_or_tape():
    a, b_np, _ = _system(5)
    b, x = _f64(b_np), wp.zeros(N, dtype=wp.float64)
    with wp.Tape() as tape:
        cg(_f64(a), b, x, tol=1e-13)
    assert tape.launches == []
    b, x = _f64(b_np, True), wp.zeros(N, dtype=wp.float64, requires_grad=True)
    cg(_f64(a), b, x, tol=1e-13)  # no tape: nothing to record, nothing warned
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b_np), atol=1e-11)


@pytest.mark.parametrize("solver", [cg, bicgstab, gmres])
def test_operators_made_from_arrays_pass_the_gradient_to_them_with_batches(solver):
    """aslinearoperator(A, batch_offsets=...) of a dense matrix: both batches' adjoints, A's gradient in the array
    (non-symmetric blocks for bicgstab and gmres, which solve the adjoint system with A's transpose)."""
    blocks = [np.array([[2.0, 0.5], [0.5, 3.0]]), np.array([[4.0, 1.0, 0.0], [1.0, 5.0, 1.0], [0.0, 1.0, 6.0]])]
    if solver is not cg:
        blocks[0][1, 0], blocks[1][1, 2] = -0.7, 2.0
    a = np.zeros((5, 5))
    a[:2, :2], a[2:, 2:] = blocks
    A = _f64(a, True)
    op = aslinearoperator(A, batch_offsets=wp.array([0, 2, 5], dtype=wp.int32), max_batch_length=3)
    b_np, w = np.array([2.0, 3.0, 4.0, 5.0, 6.0]), np.array([1.0, -1.0, 2.0, 0.5, 1.0])
    b, x = _f64(b_np, True), wp.zeros(5, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        solver(op, b, x, tol=1e-13, maxiter=30)
        wp.launch(weighted_squares, 5, inputs=[x, _f64(w), loss])
    tape.backward(loss)
    x_np = np.linalg.solve(a, b_np)
    lam = np.linalg.solve(a.T, 2.0 * w * x_np)
    np.testing.assert_allclose(b.grad.numpy(), lam, atol=1e-10)
    np.testing.assert_allclose(A.grad.numpy(), -np.outer(lam, x_np), atol=1e-10)


@pytest.mark.parametrize("vector", [False, True])
def test_a_diagonal_gets_the_product_of_adjoint_and_solution(vector):
    d_np = np.array([2.0, 4.0, 5.0, 8.0])
    b_np, w = np.array([1.0, -2.0, 3.0, 0.5]), np.array([1.0, 2.0, 0.5, 1.5])
    x_np = b_np / d_np
    lam = 2.0 * w * x_np / d_np
    if vector:
        d = wp.array(d_np.reshape(2, 2), dtype=wp.vec2d, requires_grad=True)
        b = wp.array(b_np.reshape(2, 2), dtype=wp.vec2d, requires_grad=True)
        x = wp.zeros(2, dtype=wp.vec2d, requires_grad=True)
        loss_kernel, weights, n = weighted_squares2, wp.array(w.reshape(2, 2), dtype=wp.vec2d), 2
    else:
        d, b = _f64(d_np, True), _f64(b_np, True)
        x = wp.zeros(4, dtype=wp.float64, requires_grad=True)
        loss_kernel, weights, n = weighted_squares, _f64(w), 4
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        cr(d, b, x, tol=1e-13)
        wp.launch(loss_kernel, n, inputs=[x, weights, loss])
    tape.backward(loss)
    np.testing.assert_allclose(b.grad.numpy().reshape(-1), lam, atol=1e-12)
    np.testing.assert_allclose(d.grad.numpy().reshape(-1), -lam * x_np, atol=1e-12)
