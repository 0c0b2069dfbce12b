"""Componentwise ``pow`` (``**``) and ``mod`` of float vectors differentiate per component (their
gradients were silently zero), and a builtin whose adjoint rule has nothing for the given types is
refused rather than passing no gradient."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.builtins import adjoints


@wp.kernel
def powers(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), loss: wp.array(dtype=wp.float64)):
    c = wp.pow(a[0], b[0]) + a[1] ** b[1]
    m = wp.mod(a[2], b[2])
    wp.atomic_add(loss, 0, c[0] + c[1] + c[2] + m[0] + wp.float64(2) * m[1] + wp.float64(3) * m[2])


def test_vector_pow_and_mod_gradients_match_the_analytic_ones():
    av = np.array([[1.5, 2.0, 0.7], [0.3, 4.0, 1.1], [5.5, -2.5, 7.25]])
    bv = np.array([[2.0, 0.5, 3.0], [1.5, -1.0, 2.5], [2.0, 2.0, 3.0]])
    a = wp.array(av, dtype=wp.vec3d, requires_grad=True)
    b = wp.array(bv, dtype=wp.vec3d, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(powers, dim=1, inputs=[a, b, loss])
    tape.backward(loss)
    p = av[:2] ** bv[:2]
    np.testing.assert_allclose(loss.numpy()[0], p.sum() + np.fmod(av[2], bv[2]) @ [1, 2, 3], rtol=1e-14)
    np.testing.assert_allclose(a.grad.numpy()[:2], bv[:2] * av[:2] ** (bv[:2] - 1), rtol=1e-14)
    np.testing.assert_allclose(b.grad.numpy()[:2], p * np.log(av[:2]), rtol=1e-14)
    # mod passes its whole gradient to the dividend (Warp's convention), per component
    np.testing.assert_array_equal(a.grad.numpy()[2], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(b.grad.numpy()[2], [0.0, 0.0, 0.0])


@wp.kernel
def sines(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    y[0] = wp.sin(x[0])


def test_a_rule_with_nothing_for_the_types_is_refused(monkeypatch):
    monkeypatch.setitem(adjoints.ADJOINTS, "sin", lambda E, args, r, g: (None,))
    x = wp.array([0.5], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with pytest.raises(wp.KernelNotDifferentiableError, match="the builtin 'sin' has no adjoint rule for \\(float32\\)"):
        with tape:
            wp.launch(sines, dim=1, inputs=[x, y], adjoint=False)
        tape.backward(grads={y: wp.ones(1, dtype=float)})
    assert x.grad.numpy()[0] == 0.0
