"""``wp.div_approx`` and ``wp.inverse_approx``: Warp's fast-math division and inverse, exact here as Warp's CPU
results; the types Warp accepts, their gradients under ``wp.Tape``, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


@wp.kernel
def divisions(a: wp.array(dtype=float), b: wp.array(dtype=float), h: wp.array(dtype=wp.float16),
              d: wp.array(dtype=wp.float64), out: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
              q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat22), hd: wp.array(dtype=wp.float16),
              dd: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.div_approx(a[i], b[i])
    hd[i] = wp.div_approx(h[i], h[i] + wp.float16(1.0))
    dd[i] = wp.div_approx(d[i], wp.float64(3.0))
    v[i] = wp.div_approx(wp.vec3(a[i], 2.0, 3.0), b[i])
    q[i] = wp.div_approx(2.0, wp.quat(1.0, 2.0, 4.0, 8.0))
    m[i] = wp.div_approx(wp.mat22(1.0, 2.0, 3.0, 4.0), b[i])


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_div_approx_is_exact_division(target):
    rng = np.random.default_rng(1)
    n = 8
    a, b = rng.uniform(0.1, 100.0, n).astype(np.float32), rng.uniform(0.1, 100.0, n).astype(np.float32)
    h, d = rng.uniform(0.1, 10.0, n).astype(np.float16), rng.uniform(0.1, 10.0, n)
    out, v, q, m = (wp.zeros(n, dtype=t) for t in (float, wp.vec3, wp.quat, wp.mat22))
    hd, dd = wp.zeros(n, dtype=wp.float16), wp.zeros(n, dtype=wp.float64)
    with config.override(target=target):
        wp.launch(divisions, dim=n, inputs=[a, b, h, d, out, v, q, m, hd, dd])
    np.testing.assert_array_equal(out.numpy(), a / b)
    np.testing.assert_array_equal(hd.numpy(), h / (h + np.float16(1.0)))
    np.testing.assert_array_equal(dd.numpy(), d / 3.0)
    np.testing.assert_allclose(v.numpy(), np.stack([a, np.full(n, 2.0), np.full(n, 3.0)], 1) / b[:, None], rtol=1e-7)
    np.testing.assert_array_equal(q.numpy(), np.tile([2.0, 1.0, 0.5, 0.25], (n, 1)))
    np.testing.assert_allclose(m.numpy(), np.array([[1.0, 2.0], [3.0, 4.0]]) / b[:, None, None], rtol=1e-7)


@wp.kernel
def inverses(m: wp.array(dtype=wp.mat33), md: wp.array(dtype=wp.mat44d), out: wp.array(dtype=wp.mat33),
             outd: wp.array(dtype=wp.mat44d), loss: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.inverse_approx(m[i])
    outd[i] = wp.inverse_approx(md[i])
    inv = wp.inverse_approx(m[i])
    for r in range(3):
        for c in range(3):
            wp.atomic_add(loss, 0, inv[r, c] * wp.div_approx(1.0, m[i][0, 0]))


def test_inverse_approx_and_gradients():
    rng = np.random.default_rng(2)
    m = rng.uniform(1.0, 5.0, (3, 3, 3)).astype(np.float32)
    md = rng.uniform(1.0, 5.0, (3, 4, 4))
    ma = wp.array(m, dtype=wp.mat33, requires_grad=True)
    out, outd = wp.zeros(3, dtype=wp.mat33), wp.zeros(3, dtype=wp.mat44d)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(inverses, dim=3, inputs=[ma, wp.array(md, dtype=wp.mat44d), out, outd, loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(out.numpy(), np.linalg.inv(m), rtol=1e-4)
    np.testing.assert_allclose(outd.numpy(), np.linalg.inv(md), rtol=1e-12)
    # d/dm of sum(inv(m)) / m00: -(inv^T J inv^T) / m00, and -sum(inv) / m00^2 at (0, 0)
    m64 = m.astype(np.float64)
    inv = np.linalg.inv(m64)
    want = np.stack([-(iv.T @ np.ones((3, 3)) @ iv.T) / mm[0, 0] for iv, mm in zip(inv, m64)])
    want[:, 0, 0] -= inv.sum(axis=(1, 2)) / m64[:, 0, 0] ** 2
    np.testing.assert_allclose(ma.grad.numpy(), want, rtol=1e-3, atol=1e-5)


@wp.kernel
def int_division(out: wp.array(dtype=int)):
    out[0] = wp.div_approx(7, 2)


@wp.kernel
def vector_by_vector(out: wp.array(dtype=wp.vec3)):
    out[0] = wp.div_approx(wp.vec3(1.0), wp.vec3(2.0))


@wp.kernel
def big_inverse(out: wp.array(dtype=float)):
    out[0] = wp.inverse_approx(wp.identity(n=5, dtype=float))[0, 0]


@pytest.mark.parametrize("kernel, dtype, message", [
    (int_division, int, "div_approx(): needs two floats of one type, got int32 and int32"),
    (vector_by_vector, wp.vec3, "got vec3f and vec3f"),
    (big_inverse, float, "inverse_approx(): needs a square float matrix of size 2 to 4"),
])
def test_argument_errors(kernel, dtype, message):
    out = wp.zeros(1, dtype=dtype)
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(kernel, dim=1, inputs=[out])
    assert message in str(info.value) and "test_warp_fast_math.py" in str(info.value)
