"""bsr_mv (plain, transposed, scaled, aliased) and the diagonal constructors against numpy, and their errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config

from .util import SHAPES, TOL, block_type, dense, random_bsr, vec_type


def _vec(rng, n, length, scalar):
    data = rng.uniform(-1, 1, (n, length) if length > 1 else n)
    return wp.array(data, dtype=vec_type(length, scalar)), data.reshape(-1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scalar", [wp.float16, wp.float32, wp.float64])
def test_mv_against_numpy(shape, scalar):
    rng = np.random.default_rng(5)
    A, ref = random_bsr(rng, 6, 4, shape, scalar)
    x, xd = _vec(rng, 4, shape[1], scalar)
    y, yd = _vec(rng, 6, shape[0], scalar)
    tol = TOL[scalar] * 20
    out = sp.bsr_mv(A, x)
    assert out.dtype is vec_type(shape[0], scalar) and out.shape == (6,)
    np.testing.assert_allclose(out.numpy().reshape(-1), ref @ xd, atol=tol)
    got = sp.bsr_mv(A, x, y, alpha=2.0, beta=-0.5)
    assert got is y
    np.testing.assert_allclose(y.numpy().reshape(-1), 2.0 * ref @ xd - 0.5 * yd, atol=tol)
    xt, xtd = _vec(rng, 6, shape[0], scalar)
    yt, ytd = _vec(rng, 4, shape[1], scalar)
    sp.bsr_mv(A, xt, yt, alpha=0.5, beta=2.0, transpose=True)
    np.testing.assert_allclose(yt.numpy().reshape(-1), 0.5 * ref.T @ xtd + 2.0 * ytd, atol=tol)
    np.testing.assert_allclose((A @ x).numpy().reshape(-1), ref @ xd, atol=tol)
    np.testing.assert_allclose((xt @ A).numpy().reshape(-1), ref.T @ xtd, atol=tol)
    np.testing.assert_allclose(sp.bsr_mv(3.0 * A, x).numpy().reshape(-1), 3.0 * ref @ xd, atol=3 * tol)


def test_mv_scalar_views_aliasing_and_zero_factors():
    rng = np.random.default_rng(8)
    A, ref = random_bsr(rng, 4, 4, (3, 3), wp.float64)
    flat = rng.uniform(-1, 1, 12)
    x = wp.array(flat, dtype=wp.float64)  # scalars for vec3 blocks: seen as 4 vec3
    np.testing.assert_allclose(sp.bsr_mv(A, x).numpy().reshape(-1), ref @ flat, atol=1e-12)
    sp.bsr_mv(A, x, x, beta=1.0)  # x and y are one array: the product reads the old values
    np.testing.assert_allclose(x.numpy(), ref @ flat + flat, atol=1e-12)
    y = wp.array(np.full(12, np.nan), dtype=wp.float64)
    sp.bsr_mv(A, wp.array(flat, dtype=wp.float64), y, beta=0.0)  # beta 0: y is not read (NaN gone)
    np.testing.assert_allclose(y.numpy(), ref @ flat, atol=1e-12)
    sp.bsr_mv(A, wp.array(np.full(12, np.nan), dtype=wp.float64), y, alpha=0.0, beta=2.0)  # alpha 0: no x
    np.testing.assert_allclose(y.numpy(), 2 * (ref @ flat), atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.randoms(use_true_random=False))
def test_mv_is_linear(nrow, ncol, seed_shape, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    shape = SHAPES[seed_shape % len(SHAPES)]
    A, ref = random_bsr(rng, nrow, ncol, shape, wp.float64)
    x1, d1 = _vec(rng, ncol, shape[1], wp.float64)
    x2, d2 = _vec(rng, ncol, shape[1], wp.float64)
    both = wp.array((d1 + 2 * d2).reshape(x1.numpy().shape), dtype=x1.dtype)
    lhs = sp.bsr_mv(A, both).numpy().reshape(-1)
    rhs = sp.bsr_mv(A, x1).numpy().reshape(-1) + 2 * sp.bsr_mv(A, x2).numpy().reshape(-1)
    np.testing.assert_allclose(lhs, rhs, atol=1e-12)
    np.testing.assert_allclose(lhs, ref @ (d1 + 2 * d2), atol=1e-12)


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("shape", [(1, 1), (3, 2)])
def test_mv_on_the_emulation_target(shape):
    rng = np.random.default_rng(2)
    with config.override(target="cuda-emulation"):
        A, ref = random_bsr(rng, 7, 5, shape, wp.float32)
        x, xd = _vec(rng, 5, shape[1], wp.float32)
        np.testing.assert_allclose(sp.bsr_mv(A, x).numpy().reshape(-1), ref @ xd, atol=1e-5)
        xt, xtd = _vec(rng, 7, shape[0], wp.float32)
        np.testing.assert_allclose(sp.bsr_mv(A, xt, transpose=True).numpy().reshape(-1), ref.T @ xtd, atol=1e-5)
        I = sp.bsr_identity(4, block_type((2, 2)))
        assert dense(I).tolist() == np.eye(8).tolist()
        assert sp.bsr_get_diag(A).shape == (5,)


def test_mv_errors_change_nothing():
    rng = np.random.default_rng(1)
    A, _ = random_bsr(rng, 3, 2, (1, 3))
    y = wp.zeros(3, dtype=float)
    with pytest.raises(ValueError, match="'x' vector"):
        sp.bsr_mv(A, wp.zeros(5, dtype=float), y)
    with pytest.raises(ValueError, match="'x' vector.*float64"):
        sp.bsr_mv(A, wp.zeros(6, dtype=wp.float64), y)
    with pytest.raises(ValueError, match="'y' vector"):
        sp.bsr_mv(A, wp.zeros(6, dtype=float), wp.zeros(4, dtype=float))
    with pytest.raises(TypeError, match="'x' must be an array"):
        sp.bsr_mv(A, [1.0] * 6)
    with pytest.raises(ValueError, match="'A' cannot be interpreted"):
        sp.bsr_mv(np.eye(3), wp.zeros(3, dtype=float))
    assert y.numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 2)])
def test_diag_and_get_diag(shape):
    rng = np.random.default_rng(4)
    dtype = block_type(shape, wp.float64)
    blocks = rng.uniform(-1, 1, (4, *shape)) if shape != (1, 1) else rng.uniform(-1, 1, 4)
    D = sp.bsr_diag(wp.array(blocks, dtype=dtype))
    ref = np.zeros(D.shape)
    for i in range(4):
        ref[i * shape[0]:(i + 1) * shape[0], i * shape[1]:(i + 1) * shape[1]] = blocks[i]
    np.testing.assert_allclose(dense(D), ref)
    np.testing.assert_allclose(sp.bsr_get_diag(2.0 * D).numpy(), 2 * blocks)
    R = sp.bsr_diag(wp.array(blocks, dtype=dtype), rows_of_blocks=4, cols_of_blocks=2)
    assert (R.nrow, R.ncol, R.nnz) == (4, 2, 2)
    A, full = random_bsr(rng, 5, 3, shape, wp.float64, density=0.6)
    diag = sp.bsr_get_diag(A).numpy().reshape(3, *shape)
    for i in range(3):
        np.testing.assert_allclose(diag[i], full[i * shape[0]:(i + 1) * shape[0], i * shape[1]:(i + 1) * shape[1]])


def test_identity_set_diag_and_errors():
    I = sp.bsr_identity(3, wp.mat33d)
    assert dense(I).tolist() == np.eye(9).tolist() and I.nnz == 3
    S = sp.bsr_identity(2, float)
    assert dense(S).tolist() == np.eye(2).tolist()
    sp.bsr_set_identity(S, 4)
    assert dense(S).tolist() == np.eye(4).tolist()
    C = sp.bsr_diag(2.5, rows_of_blocks=3)
    assert dense(C).tolist() == (2.5 * np.eye(3)).tolist()
    sp.bsr_set_diag(C, wp.array([1.0, 2.0], dtype=float))
    assert dense(C).tolist() == np.diag([1.0, 2.0]).tolist()
    with pytest.raises(ValueError, match="'block_type' must be a square"):
        sp.bsr_identity(2, wp.types.matrix(shape=(2, 3), dtype=float))
    with pytest.raises(ValueError, match="'diag' has dtype float64"):
        sp.bsr_set_diag(C, wp.array([1.0, 2.0], dtype=wp.float64))
    with pytest.raises(ValueError, match="'out' must hold at least 2"):
        sp.bsr_get_diag(C, wp.zeros(1, dtype=float))
    with pytest.raises(ValueError, match="rows_of_blocks"):
        sp.bsr_diag(1.0)
    assert dense(C).tolist() == np.diag([1.0, 2.0]).tolist()


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("scalar", [wp.float16, wp.float64])
def test_other_scalars_on_the_emulation_target(scalar):
    rng = np.random.default_rng(14)
    with config.override(target="cuda-emulation"):
        A, ref = random_bsr(rng, 5, 4, (3, 3), scalar)
        x, xd = _vec(rng, 5, 3, scalar)
        y, yd = _vec(rng, 4, 3, scalar)
        sp.bsr_mv(A, x, y, alpha=2.0, beta=0.5, transpose=True)
        np.testing.assert_allclose(y.numpy().reshape(-1), 2 * ref.T @ xd + 0.5 * yd, atol=TOL[scalar] * 50)
        np.testing.assert_allclose(dense(A @ sp.bsr_transposed(A)), ref @ ref.T, atol=TOL[scalar] * 100)


def test_gradients_flow_through_triplets_and_mv():
    vals = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        A = sp.bsr_from_triplets(2, 2, wp.array([0, 1, 1], dtype=int), wp.array([1, 0, 1], dtype=int), vals)
        y = sp.bsr_mv(A, x)
    assert y.numpy().tolist() == [2.0, 8.0]
    y.grad.fill_(1.0)
    tape.backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0]        # the column sums of [[0, 1], [2, 3]]
    assert vals.grad.numpy().tolist() == [2.0, 1.0, 2.0]  # the x entry each value multiplies


@wp.kernel
def _weighted_sum(y: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * y[i])


def test_a_product_with_a_constant_vector_carries_the_matrix_gradient():
    """``A @ x`` (and ``bsr_mm``'s result times x) with only the matrix requiring gradients: the new ``y`` has a
    gradient, so the loss reaches the values (the result had none, and every value's gradient stayed 0)."""
    rng = np.random.default_rng(3)
    n = 5
    a = rng.standard_normal((n, n)) * (rng.uniform(size=(n, n)) < 0.5) + np.eye(n)
    b = rng.standard_normal((n, n)) * (rng.uniform(size=(n, n)) < 0.5) + np.eye(n)
    w, xn = rng.standard_normal(n), rng.standard_normal(n)

    def matrix(m):
        r, c = np.nonzero(m)
        return sp.bsr_from_triplets(n, n, wp.array(r, dtype=int), wp.array(c, dtype=int),
                                    wp.array(m[r, c], dtype=wp.float64, requires_grad=True))

    def entries(A, g):
        return g[A.uncompress_rows().numpy(), A.columns.numpy()]

    A, B = matrix(a), matrix(b)
    x = wp.array(xn, dtype=wp.float64)  # a constant
    loss = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        y = A @ x
        wp.launch(_weighted_sum, n, inputs=[y, wp.array(w, dtype=wp.float64), loss[0:1]])
    assert y.requires_grad and not x.requires_grad
    tape.backward(loss[0:1])
    np.testing.assert_allclose(A.values.grad.numpy(), entries(A, np.outer(w, xn)), atol=1e-12)  # d(w.Ax)/dA

    A, B = matrix(a), matrix(b)
    with wp.Tape() as tape:
        z = sp.bsr_mv(sp.bsr_mm(A, B), x)
        wp.launch(_weighted_sum, n, inputs=[z, wp.array(w, dtype=wp.float64), loss[1:2]])
    tape.backward(loss[1:2])
    np.testing.assert_allclose(A.values.grad.numpy(), entries(A, np.outer(w, b @ xn)), atol=1e-12)
    np.testing.assert_allclose(B.values.grad.numpy(), entries(B, np.outer(a.T @ w, xn)), atol=1e-12)


def _csr_of(m, grad):
    r, c = np.nonzero(m)
    return sp.bsr_from_triplets(m.shape[0], m.shape[1], wp.array(r, dtype=int), wp.array(c, dtype=int),
                                wp.array(m[r, c], dtype=wp.float64, requires_grad=grad))


_A = np.eye(3) * 2.0 + np.eye(3, k=1)
_B = np.eye(3) * 3.0 + np.eye(3, k=-1)


@pytest.mark.parametrize("how", ["axpy", "radd", "assign", "mm_left", "mm_into", "set_transpose"])
def test_a_destination_without_gradient_takes_one_from_its_sources(how):
    """Writing into an existing matrix without gradients (``B + A``, ``bsr_axpy(A, B)``, ``bsr_mm(.., z=C)``,
    ``bsr_assign``, ``bsr_set_transpose``) from ``A`` with gradients: the result gets a gradient and the tape
    reaches ``A`` (it stopped at the destination, and ``A + B`` and ``B + A`` differed)."""
    A = _csr_of(_A, True)
    x, w = np.array([1.0, 2.0, 3.0]), np.array([1.0, 10.0, 100.0])
    with wp.Tape() as tape:
        if how == "axpy":
            M = sp.bsr_axpy(A, _csr_of(_B, False))
        elif how == "radd":
            M = _csr_of(_B, False) + A
        elif how == "assign":
            M = _csr_of(_B, False)
            sp.bsr_assign(M, A)
        elif how == "mm_left":
            M = sp.bsr_mm(_csr_of(_B, False), A)
        elif how == "mm_into":
            M = _csr_of(_B, False)
            sp.bsr_mm(A, _csr_of(_B, False), z=M)
        else:
            M = _csr_of(_B, False)
            sp.bsr_set_transpose(M, A)
        y = M @ wp.array(x, dtype=wp.float64)
    assert M.requires_grad and y.requires_grad
    tape.backward(grads={y: wp.array(w, dtype=wp.float64)})
    outer = np.outer(w, x)  # d(w . M x)/dM
    dA = {"mm_left": _B.T @ outer, "mm_into": outer @ _B.T, "set_transpose": outer.T}.get(how, outer)
    rows, cols = np.nonzero(_A)
    np.testing.assert_allclose(A.values.grad.numpy(), dA[rows, cols], atol=1e-12)
