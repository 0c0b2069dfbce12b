"""brickwork.optim.linear: LinearOperator, aslinearoperator (dense, diagonal, custom) and preconditioner
against numpy, and their errors."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.optim.linear import (
    LinearOperator,
    LinearSolverError,
    LinearSolverTypeError,
    LinearSolverValueError,
    aslinearoperator,
    preconditioner,
)

RNG = np.random.default_rng(7)


def _matvec(op, x, y, alpha, beta, z=None):
    z = wp.zeros_like(y) if z is None else z
    op.matvec(x, y, z, alpha=alpha, beta=beta)
    return z.numpy()


@pytest.mark.parametrize("dtype, np_dtype, rtol", [(wp.float32, np.float32, 1e-5), (wp.float64, np.float64, 1e-13)])
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (7, 3)])
def test_dense_matvec_is_alpha_A_x_plus_beta_y(dtype, np_dtype, rtol, shape):
    A = RNG.standard_normal(shape).astype(np_dtype)
    x, y = RNG.standard_normal(shape[1]).astype(np_dtype), RNG.standard_normal(shape[0]).astype(np_dtype)
    op = aslinearoperator(wp.array(A, dtype=dtype))
    assert op.shape == shape and op.dtype is dtype and op.scalar_type is dtype and op.device == wp.get_device("cpu")
    assert op.batch_offsets is None and op.batch_count == 1 and op.max_batch_length is None
    xw, yw = wp.array(x, dtype=dtype), wp.array(y, dtype=dtype)
    for alpha, beta in ((1.0, 0.0), (-1.0, 1.0), (2.5, -0.5), (0.0, 3.0)):
        np.testing.assert_allclose(_matvec(op, xw, yw, alpha, beta), alpha * (A @ x) + beta * y, rtol=rtol, atol=rtol)
    # beta == 0 does not read y (a NaN there stays out), alpha == 0 does not read A x
    nan = wp.array(np.full(shape[0], np.nan, np_dtype), dtype=dtype)
    np.testing.assert_allclose(_matvec(op, xw, nan, 1.0, 0.0), A @ x, rtol=rtol, atol=rtol)
    # z may be y (the solvers' r = b - A x writes over a copy of b)
    z = wp.array(y, dtype=dtype)
    np.testing.assert_allclose(_matvec(op, xw, z, -1.0, 1.0, z=z), y - A @ x, rtol=rtol, atol=rtol)


def test_diagonal_operators_of_scalars_and_vectors():
    d = np.array([2.0, -3.0, 0.5])
    op = aslinearoperator(wp.array(d, dtype=wp.float64))
    assert op.shape == (3,) and op.dtype is wp.float64  # Warp keeps the 1-D shape of a diagonal
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25, -1.0])
    got = _matvec(op, wp.array(x, dtype=wp.float64), wp.array(y, dtype=wp.float64), 2.0, -1.0)
    np.testing.assert_array_equal(got, 2.0 * d * x - y)
    dv = np.array([[2.0, 4.0], [-1.0, 0.5]], np.float32)
    opv = aslinearoperator(wp.array(dv, dtype=wp.vec2))
    assert opv.dtype is wp.vec2 and opv.scalar_type is wp.float32
    xv, yv = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), np.ones((2, 2), np.float32)
    got = _matvec(opv, wp.array(xv, dtype=wp.vec2), wp.array(yv, dtype=wp.vec2), 1.0, 1.0)
    np.testing.assert_array_equal(got, dv * xv + yv)


def test_custom_operator_and_passthrough():
    calls = []

    def matvec(x, y, z, alpha, beta):
        calls.append((alpha, beta))
        z.assign(wp.array(alpha * 3.0 * x.numpy() + beta * y.numpy(), dtype=wp.float64))

    op = LinearOperator((4, 4), wp.float64, "cpu", matvec)
    assert aslinearoperator(op) is op and aslinearoperator(None) is None
    assert op.device == wp.get_device("cpu") and op.matvec is matvec
    z = _matvec(op, wp.ones(4, dtype=wp.float64), wp.ones(4, dtype=wp.float64), 2.0, 1.0)
    assert z.tolist() == [7.0] * 4 and calls == [(2.0, 1.0)]
    offsets = wp.array([0, 2, 4], dtype=wp.int32)
    batched = aslinearoperator(wp.zeros((4, 4), dtype=wp.float32), batch_offsets=offsets, max_batch_length=2)
    assert batched.batch_offsets is offsets and batched.batch_count == 2 and batched.max_batch_length == 2


@pytest.mark.parametrize("dtype, np_dtype", [(wp.float32, np.float32), (wp.float64, np.float64)])
def test_jacobi_preconditioners(dtype, np_dtype):
    A = np.array([[4.0, 1.0, 0.0], [1.0, -2.0, 0.0], [0.0, 0.0, 0.0]], np_dtype)  # a zero diagonal gives 1
    x = np.array([1.0, 2.0, 3.0], np_dtype)
    Aw, xw, zero = wp.array(A, dtype=dtype), wp.array(x, dtype=dtype), wp.zeros(3, dtype=dtype)
    M = preconditioner(Aw, "diag")
    assert isinstance(M, LinearOperator) and M.shape == (3,) and M.dtype is dtype
    np.testing.assert_array_equal(_matvec(M, xw, zero, 1.0, 0.0), x * np.array([0.25, -0.5, 1.0], np_dtype))
    Mabs = preconditioner(Aw, ptype="diag_abs")
    np.testing.assert_array_equal(_matvec(Mabs, xw, zero, 1.0, 0.0), x * np.array([0.25, 0.5, 1.0], np_dtype))
    assert preconditioner(Aw, "id") is None
    assert preconditioner(Aw) is not None  # "diag" by default


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_computes_the_cpu_products():
    A = RNG.standard_normal((6, 6))
    x, y = RNG.standard_normal(6), RNG.standard_normal(6)
    with config.override(target="cuda-emulation"):
        op = aslinearoperator(wp.array(A, dtype=wp.float64))
        got = _matvec(op, wp.array(x, dtype=wp.float64), wp.array(y, dtype=wp.float64), 2.0, -1.0)
        inv = _matvec(preconditioner(wp.array(A, dtype=wp.float64), "diag_abs"), wp.array(x, dtype=wp.float64),
                      wp.zeros(6, dtype=wp.float64), 1.0, 0.0)
    np.testing.assert_allclose(got, 2.0 * A @ x - y, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(inv, x / np.abs(np.diag(A)), rtol=1e-15)


# -- errors -------------------------------------------------------------------------------------------------------
def test_operator_errors_name_the_argument():
    mv = lambda x, y, z, alpha, beta: None  # noqa: E731
    offsets = wp.array([0, 2], dtype=wp.int32)
    cases = [
        (lambda: LinearOperator((2, 2), wp.float32, "cpu", mv, max_batch_length=2), LinearSolverValueError,
         "max_batch_length requires batch_offsets"),
        (lambda: LinearOperator((2, 2), wp.float32, "cpu", mv, offsets, max_batch_length=-1), LinearSolverValueError,
         "max_batch_length must be non-negative"),
        (lambda: LinearOperator((2, 2), wp.float32, "cpu", None), LinearSolverTypeError, "matvec must be callable"),
        (lambda: LinearOperator((2, -1), wp.float32, "cpu", mv), LinearSolverValueError, "shape"),
        (lambda: LinearOperator((2, 2), wp.float32, "cpu", mv, wp.array([0, 2], dtype=wp.float32)),
         LinearSolverTypeError, "batch_offsets must be a 1-D int32 array"),
        (lambda: LinearOperator((2, 2), wp.float32, "cpu", mv, wp.array([0], dtype=wp.int32)),
         LinearSolverValueError, "at least 2 offsets"),
        (lambda: aslinearoperator(np.eye(2)), LinearSolverValueError, "Unable to create LinearOperator"),
        (lambda: aslinearoperator(wp.zeros((2, 2, 2))), LinearSolverValueError, "Unable to create LinearOperator"),
        (lambda: aslinearoperator(wp.zeros((2, 2), dtype=wp.int32)), LinearSolverTypeError, "dense matrix"),
        (lambda: aslinearoperator(wp.zeros(2, dtype=wp.int32)), LinearSolverTypeError, "diagonal"),
    ]
    for make, error, text in cases:
        with pytest.raises(error, match=text) as info:
            make()
        assert isinstance(info.value, LinearSolverError)


def test_preconditioner_errors():
    A = wp.array(np.eye(3) * 2.0, dtype=wp.float64)
    before = A.numpy().copy()
    with pytest.raises(ValueError, match="Unsupported preconditioner type 'jacobi'"):
        preconditioner(A, "jacobi")
    with pytest.raises(LinearSolverValueError, match="FSAI requires a square BSR matrix with square blocks, got array"):
        preconditioner(A, "fsai")  # FSAI takes BSR matrices only (tests/optim/test_linear_fsai.py)
    with pytest.raises(LinearSolverValueError, match="ptype must be a string"):
        preconditioner(A, None)
    with pytest.raises(LinearSolverValueError, match="must be square"):
        preconditioner(wp.zeros((2, 3), dtype=wp.float64))
    with pytest.raises(ValueError, match="Unsupported source matrix type"):
        preconditioner(aslinearoperator(A))
    with pytest.raises(ValueError, match="Unsupported source matrix type"):
        preconditioner(wp.ones(3, dtype=wp.float64))
    np.testing.assert_array_equal(A.numpy(), before)
