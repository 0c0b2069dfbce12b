"""A taped launch keeps the values of its by-value arguments (scalars, vectors, matrices, structs) as they were at
the launch: changing the object in place afterwards (``c[0] = 100.0``, ``s.value = ...``, ``st.k = ...``) changes
neither the forward result nor the gradient. The tape once kept such objects by reference, so the backward kernel
ran with the later value; Warp 1.19 does so too (its gradient of ``c[0] * x^2`` is then ``2 * 100 * x``). The
hydro application sets its coefficient vector's components before each stage, so every stage's backward kernel
ran with the last stage's weights and time step (tests/autodiff/test_hydro_gradient.py changes dt between steps).
"""

from __future__ import annotations

import numpy as np

import brickwork as wp

vec2d = wp.types.vector(2, wp.float64)
mat22d = wp.types.matrix((2, 2), wp.float64)


@wp.struct
class Weights:
    k: wp.float64
    v: vec2d
    x: wp.array(dtype=wp.float64)


@wp.kernel
def weighted_squares(x: wp.array(dtype=wp.float64), s: wp.float64, c: vec2d, m: mat22d, w: Weights,
                     y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = (s + c[0] + m[1, 0] + w.k + w.v[1]) * x[i] * x[i] + w.x[i]


def test_values_changed_in_place_after_a_taped_launch_keep_their_launch_values():
    x = wp.array([1.0, -2.0, 0.5], dtype=wp.float64, requires_grad=True)
    xs = wp.array([4.0, 5.0, 6.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    s, c, m = wp.float64(1.0), vec2d(2.0, 0.0), mat22d(0.0, 0.0, 3.0, 0.0)
    w = Weights()
    w.k, w.v, w.x = wp.float64(4.0), vec2d(0.0, 5.0), xs
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_squares, 3, inputs=[x, s, c, m, w], outputs=[y])
    s.value = 100.0  # every by-value argument changed in place after the launch, as hydro's coefficient vector
    c[0] = 200.0
    m[1, 0] = 300.0
    w.k = wp.float64(400.0)
    w.v[1] = 500.0
    w.x = wp.zeros(3, dtype=wp.float64, requires_grad=True)  # the struct's array too: the launch read xs
    tape.backward(grads={y: np.ones(3)})
    factor = 1.0 + 2.0 + 3.0 + 4.0 + 5.0  # the launch's values
    xn = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(y.numpy(), factor * xn * xn + [4.0, 5.0, 6.0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * factor * xn, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(xs.grad.numpy(), np.ones(3))  # the struct's array at the launch
    np.testing.assert_array_equal(w.x.grad.numpy(), np.zeros(3))
    assert tape.get_adjoint(w).x is xs.grad  # the tape's struct of gradients: the launch's arrays


@wp.kernel
def stage(u: wp.array(dtype=wp.float64), c: vec2d, v: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v[i] = c[0] * u[i] + c[1] * u[i] * u[i]


def test_one_vector_reused_with_new_components_for_each_launch_gives_each_launch_its_gradient():
    """The hydro pattern: one coefficient object, its components set before each launch of a chain."""
    u = wp.array([0.5, 1.5], dtype=wp.float64, requires_grad=True)
    mid = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    c = vec2d(0.0, 0.0)
    tape = wp.Tape()
    with tape:
        c[0], c[1] = 2.0, 0.0  # mid = 2 u
        wp.launch(stage, 2, inputs=[u, c], outputs=[mid])
        c[0], c[1] = 0.0, 3.0  # out = 3 mid^2 = 12 u^2
        wp.launch(stage, 2, inputs=[mid, c], outputs=[out])
    tape.backward(grads={out: np.ones(2)})
    un = np.array([0.5, 1.5])
    np.testing.assert_allclose(out.numpy(), 12.0 * un * un, rtol=1e-15)
    np.testing.assert_allclose(u.grad.numpy(), 24.0 * un, rtol=1e-15)  # the last c for both gave 72 u^2
