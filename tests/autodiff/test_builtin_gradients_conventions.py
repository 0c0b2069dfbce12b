"""Gradients where Warp fixes a convention the finite differences cannot check (mod's divisor, the
order of operations of a vector divided by a scalar in half precision), and where the textbook formula
fails (the determinant's, det(A) inverse(A)^T, at singular matrices)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


@wp.kernel
def mod_loss(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(2.0) * wp.mod(a[0], b[0])


def test_mod_passes_its_whole_gradient_to_the_dividend():
    a = wp.array([7.5], dtype=wp.float64, requires_grad=True)  # |a| > |b|: the true d/db is -trunc(a / b) = -3
    b = wp.array([2.0], dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(mod_loss, 1, inputs=[a, b, out])
    tape.backward(out)
    assert out.numpy()[0] == 3.0 and a.grad.numpy()[0] == 2.0 and b.grad.numpy()[0] == 0.0


@wp.kernel
def vec_over_scalar(v: wp.array(dtype=wp.vec4h), s: wp.array(dtype=wp.float16), out: wp.array(dtype=wp.float16)):
    w = v[0] / s[0]
    out[0] = w[0] + w[1] + w[2] + w[3]


def test_vector_over_scalar_gradient_uses_the_dividend_in_half_precision():
    v = np.array([[1.7, -0.3, 2.9, 0.45]], dtype=np.float16)
    s = np.array([0.7], dtype=np.float16)
    va = wp.array(v, dtype=wp.vec4h, requires_grad=True)
    sa = wp.array(s, dtype=wp.float16, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(vec_over_scalar, 1, inputs=[va, sa, out])
    tape.backward(out)
    expected = -(v.astype(np.float32).sum()) / (np.float32(s[0]) * np.float32(s[0]))
    assert abs(float(sa.grad.numpy()[0]) - expected) <= 2e-3 * abs(expected)
    np.testing.assert_allclose(va.grad.numpy()[0].astype(np.float32), 1.0 / np.float32(s[0]), rtol=1e-3)


@wp.kernel
def eigenvalue_sum(a: wp.array(dtype=wp.mat33h), out: wp.array(dtype=wp.float16)):
    Q, d = wp.eig3(a[wp.tid()])
    out[wp.tid()] = d[0] + d[1] + d[2]


def test_eigenvalue_gradients_stay_finite_at_tiny_and_zero_gaps_in_half_precision():
    # an eigenvalue-only loss: the trace's gradient, the identity, even where 1 / gap overflows a half
    mats = np.array([np.diag([0.0, 1e-5, 1.0]), np.diag([2.0, 2.0, 3.0]), np.eye(3)], dtype=np.float16)
    a = wp.array(mats, dtype=wp.mat33h, requires_grad=True)
    out = wp.zeros(3, dtype=wp.float16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(eigenvalue_sum, 3, inputs=[a, out])
    tape.backward(grads={out: wp.ones_like(out)})
    np.testing.assert_allclose(a.grad.numpy().astype(np.float32), np.broadcast_to(np.eye(3), (3, 3, 3)), atol=1e-2)


@wp.kernel
def determinant2(a: wp.array(dtype=wp.mat22d), out: wp.array(dtype=wp.float64)):
    out[wp.tid()] = wp.determinant(a[wp.tid()])


@wp.kernel
def determinant3(a: wp.array(dtype=wp.mat33d), out: wp.array(dtype=wp.float64)):
    out[wp.tid()] = wp.determinant(a[wp.tid()])


@wp.kernel
def determinant4(a: wp.array(dtype=wp.mat44d), out: wp.array(dtype=wp.float64)):
    out[wp.tid()] = wp.determinant(a[wp.tid()])


def _cofactors(m):
    n = m.shape[0]
    return np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) for j in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize("n, kernel", [(2, determinant2), (3, determinant3), (4, determinant4)])
def test_determinant_gradient_is_the_cofactor_matrix_at_singular_matrices_too(n, kernel, target):
    rng = np.random.default_rng(n)
    singular = np.diag([0.0] + [1.0] * (n - 1))  # det 0, cofactor of entry (0, 0) is 1
    rank_deficient = np.outer(rng.normal(size=n), rng.normal(size=n))  # rank 1: cofactors 0 from n = 3
    mats = np.stack([singular, rank_deficient, rng.normal(size=(n, n)), np.zeros((n, n))])
    with config.override(target=target):
        a = wp.array(mats, dtype=kernel.concrete_types()[0].dtype, requires_grad=True)
        out = wp.zeros(len(mats), dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, len(mats), inputs=[a, out])
        tape.backward(grads={out: wp.array([1.0, 2.0, -1.0, 3.0], dtype=wp.float64)})
        grads = a.grad.numpy()
    weights = [1.0, 2.0, -1.0, 3.0]
    for m, w, grad in zip(mats, weights, grads):
        np.testing.assert_allclose(grad, w * _cofactors(m), rtol=1e-12, atol=1e-12)
