"""Builtins at the edges of their domains give Warp 1.19's values, in kernels and called from Python:
asin/acos clamp to [-1, 1] (NaN counts as -1) and pass no gradient where they clamp, lerp is
``a (1 - t) + b t``, a zero quaternion normalizes to the identity, argmin/argmax skip NaN components."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp

NAN, INF = float("nan"), float("inf")
ARGS = [0.5, -0.3, 1.0, -1.0, 1.0000001, -2.0, NAN, INF, -INF, 0.0]


def _arc_expected(f, x):
    return f(np.clip(np.nan_to_num(np.asarray(x, np.float64), nan=-1.0), -1.0, 1.0))


@wp.kernel
def arcs(x: wp.array(dtype=Any), a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    a[i] = wp.asin(x[i])
    b[i] = wp.acos(x[i])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_asin_acos_clamp_their_argument(dtype):
    x = wp.array(np.array(ARGS, dtype=dtype))
    a, b = wp.zeros_like(x), wp.zeros_like(x)
    wp.launch(arcs, dim=len(ARGS), inputs=[x, a, b])
    xs = np.array(ARGS, dtype=dtype)
    tol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(a.numpy(), _arc_expected(np.arcsin, xs), rtol=tol, atol=tol)
    np.testing.assert_allclose(b.numpy(), _arc_expected(np.arccos, xs), rtol=tol, atol=tol)
    assert not np.isnan(a.numpy()).any() and not np.isnan(b.numpy()).any()
    for v in (1.0000001, -2.0, NAN, 0.5):  # from Python too
        assert wp.asin(v) == pytest.approx(_arc_expected(np.arcsin, np.float32(v)), rel=1e-6)
        assert wp.acos(v) == pytest.approx(_arc_expected(np.arccos, np.float32(v)), rel=1e-6)


@wp.kernel
def arc_sum(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.asin(x[i]) + 2.0 * wp.acos(x[i])


def test_asin_acos_gradients_are_zero_where_they_clamp():
    xs = [0.5, -0.3, 1.0, -1.0, 1.0000001, -2.0, NAN, 0.0]
    x = wp.array(xs, dtype=float, requires_grad=True)
    y = wp.zeros(len(xs), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(arc_sum, dim=len(xs), inputs=[x, y])
    tape.backward(grads={y: wp.ones(len(xs), dtype=float)})
    inside = np.array([0.5, -0.3, 0.0])
    np.testing.assert_allclose(x.grad.numpy()[[0, 1, 7]], -1.0 / np.sqrt(1.0 - inside**2), rtol=1e-6)
    np.testing.assert_array_equal(x.grad.numpy()[2:7], 0.0)


@wp.kernel
def lerps(a: wp.array(dtype=float), b: wp.array(dtype=float), t: wp.array(dtype=float), out: wp.array(dtype=float),
          va: wp.array(dtype=wp.vec2), vb: wp.array(dtype=wp.vec2), vout: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = wp.lerp(a[i], b[i], t[i])
    vout[i] = wp.lerp(va[i], vb[i], t[i])


def test_lerp_is_warps_form():
    a = np.array([INF, 1e30, 0.1, 3.0, -2.0], np.float32)
    b = np.array([1.0, -1e30, 0.7, 5.0, INF], np.float32)
    t = np.array([0.25, 0.25, 0.3, 1.0, 0.0], np.float32)
    with np.errstate(invalid="ignore"):
        want = a * (np.float32(1) - t) + b * t  # float32 throughout, as the kernel computes it
    va, vb = np.stack([a, a], 1), np.stack([b, -b], 1)
    out, vout = wp.zeros(5, dtype=float), wp.zeros(5, dtype=wp.vec2)
    wp.launch(lerps, dim=5, inputs=[wp.array(a), wp.array(b), wp.array(t), out, wp.array(va, dtype=wp.vec2),
                                    wp.array(vb, dtype=wp.vec2), vout])
    np.testing.assert_array_equal(out.numpy()[:4], want[:4])  # inf stays inf; the end t = 1 is exact
    assert np.isnan(out.numpy()[4])  # inf * 0 (Warp's form has it too)
    np.testing.assert_array_equal(vout.numpy()[:3, 0], want[:3])
    assert wp.lerp(INF, 1.0, 0.25) == INF
    assert wp.lerp(wp.float64(1.0), wp.float64(3.0), wp.float64(0.1)) == 1.0 * 0.9 + 3.0 * 0.1
    assert wp.lerp(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0), 0.5) == wp.vec2(2.0, 3.0)


@wp.kernel
def quat_and_args(q: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3),
                  idx: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    out[i] = wp.normalize(q[i])
    idx[2 * i] = wp.argmin(v[i])
    idx[2 * i + 1] = wp.argmax(v[i])


def test_zero_quaternion_normalizes_to_identity_and_argmin_skips_nan():
    q = wp.array([[0, 0, 0, 0], [0, 0, 0, 2]], dtype=wp.quat)
    v = wp.array([[NAN, 1.0, 1.0], [NAN, NAN, NAN], [3.0, NAN, -1.0]], dtype=wp.vec3)
    out, idx = wp.zeros(3, dtype=wp.quat), wp.zeros(6, dtype=wp.uint32)
    wp.launch(quat_and_args, dim=2, inputs=[q, out, v, idx])
    np.testing.assert_array_equal(out.numpy()[:2], [[0, 0, 0, 1], [0, 0, 0, 1]])
    wp.launch(quat_and_args, dim=3, inputs=[wp.zeros(3, dtype=wp.quat), out, v, idx])
    assert idx.numpy().tolist() == [1, 1, 0, 0, 2, 0]
    assert wp.normalize(wp.quat(0.0, 0.0, 0.0, 0.0)) == wp.quat(0.0, 0.0, 0.0, 1.0)
    assert wp.normalize(wp.vec3(0.0, 0.0, 0.0)) == wp.vec3(0.0, 0.0, 0.0)
    assert [wp.argmin(wp.vec3(NAN, 1.0, 1.0)), wp.argmax(wp.vec3(NAN, NAN, NAN)), wp.argmax(wp.vec3(3.0, NAN, -1.0))] \
        == [1, 0, 0]


@wp.kernel
def huge_literal(out: wp.array(dtype=float)):
    out[0] = 1e40


def test_a_float_literal_beyond_float32_is_inf_without_a_numpy_warning(recwarn):
    out = wp.zeros(1, dtype=float)
    wp.launch(huge_literal, dim=1, inputs=[out])
    assert out.numpy()[0] == INF
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
