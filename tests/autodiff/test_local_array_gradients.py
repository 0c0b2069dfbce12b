"""Gradients through the elements of local fixed-size arrays (``wp.zeros`` in a kernel or @func), checked
against central differences: constant and loop indices, overwritten elements, vectors, views, a @func's
local array and one passed to a @func, atomics; and the atomics refused with a message naming the array."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.autograd import gradcheck
from brickwork.errors import KernelNotDifferentiableError


@wp.kernel
def overwritten(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.zeros(shape=(4,), dtype=wp.float64)
    a[0] = x[i]
    a[1] = x[i] * x[i]
    a[1] = a[1] + a[0] * w[0]  # overwritten elements: the first stores pass only what the later ones read
    a[0] = w[1]
    y[i] = a[0] * a[1] + a[2]


@wp.kernel
def loop_indices(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.zeros(shape=(2, 3), dtype=wp.float64)
    for k in range(3):
        a[0, k] = x[(i + k) % 3]
    row = a[1]  # a view, written in a loop
    s = wp.float64(0.0)
    for k in range(3):
        row[k] = a[0, k] * w[k]
        a[0, k] += a[0, (k + 1) % 3] * s  # an update reading an element a later iteration writes
        s = s + wp.sin(a[0, k])
    y[i] = s + a[1, 0] * a[1, 2]


@wp.kernel
def vectors(x: wp.array(dtype=wp.vec3d), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.zeros(shape=(2,), dtype=wp.vec3d)
    a[0] = x[i]
    a[1] = wp.cross(a[0], x[0])
    a[0][1] = a[1][2] * wp.float64(2.0)  # a component overwritten
    y[i] = wp.dot(a[0], a[1]) + a[1].x


@wp.func
def horner(c: wp.array(dtype=wp.float64), t: wp.float64):
    p = wp.zeros(shape=(3,), dtype=wp.float64)
    for k in range(3):
        p[k] = c[k]
    r = wp.float64(0.0)
    for k in range(3):
        r = r * t + p[2 - k]
    return r


@wp.func
def scale_into(a: wp.array(dtype=wp.float64), k: int, s: wp.float64):
    a[k] = a[k] * s


@wp.kernel
def functions_and_atomics(c: wp.array(dtype=wp.float64), x: wp.array(dtype=wp.float64),
                          y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.zeros(shape=(3,), dtype=wp.float64)
    a[1] = horner(c, x[i])
    scale_into(a, 1, x[i])  # the @func writes the caller's array
    wp.atomic_add(a, 2, c[0] * x[i])
    old = wp.atomic_sub(a, 1, c[1])
    a[0] = wp.atomic_exch(a, 2, c[2] * old) * x[i]
    y[i] = a[0] * a[1] + wp.sin(a[2])


@wp.kernel
def local_min(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.zeros(shape=(2,), dtype=wp.float64)
    a[0] = x[i]
    wp.atomic_min(a, 0, x[0])
    y[i] = a[0]


_RNG = np.random.default_rng(7)


def _inputs(*shapes):
    return [wp.array(_RNG.uniform(0.3, 1.0, s), dtype=wp.vec3d if len(s) == 2 else wp.float64, requires_grad=True)
            for s in shapes]


@pytest.mark.parametrize("kernel, shapes", [(overwritten, [(3,), (2,)]), (loop_indices, [(3,), (3,)]),
                                            (vectors, [(3, 3)]), (functions_and_atomics, [(3,), (3,)])],
                         ids=["overwritten", "loop_indices", "vectors", "functions_and_atomics"])
def test_gradients_flow_through_local_array_elements(kernel, shapes):
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    assert gradcheck(kernel, dim=3, inputs=_inputs(*shapes), outputs=[y], eps=1e-6, atol=1e-7, rtol=1e-6,
                     show_summary=False)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_gives_the_gradients_through_local_arrays():
    """The emulation target runs the GPU-mapped backward kernels (their CUDA source compiles for sm_90)."""
    with config.override(target="cuda-emulation"):
        for kernel in (loop_indices, functions_and_atomics):
            y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
            assert gradcheck(kernel, dim=3, inputs=_inputs((3,), (3,)), outputs=[y], eps=1e-6, atol=1e-7, rtol=1e-6,
                             show_summary=False)


def test_exact_gradient_of_a_stored_then_read_element():
    x, w = _inputs((3,), (2,))
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(overwritten, 3, inputs=[x, w], outputs=[y])
    tape.backward(grads={y: wp.ones(3, dtype=wp.float64)})
    xn, wn = x.numpy(), w.numpy()
    np.testing.assert_allclose(x.grad.numpy(), wn[1] * (2 * xn + wn[0]), rtol=1e-14)  # y = w1 (x^2 + x w0)
    np.testing.assert_allclose(w.grad.numpy(), [wn[1] * xn.sum(), (xn * xn + xn * wn[0]).sum()], rtol=1e-14)


def test_atomic_min_into_a_local_array_is_refused_naming_it():
    x, = _inputs((3,))
    y = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(local_min, 3, inputs=[x], outputs=[y])
    before = x.grad.numpy().copy()
    with pytest.raises(KernelNotDifferentiableError, match=r"atomic_min into the local array 'a' at .*"
                       r"test_local_array_gradients\.py:\d+"):
        tape.backward(grads={y: wp.ones(3, dtype=wp.float64)})
    np.testing.assert_array_equal(x.grad.numpy(), before)
