"""The backward steps of ``array_sum`` and ``array_inner`` run on the arrays' device (``device_reduce.spread``): the
CPU's forms of its kernel (large inner products and vector sums) give numpy's bits; on the cuda-emulation target
(the GPU-mapped kernel, run on the CPU) they give numpy's gradients, the CPU's bits; on a
CUDA device (the fake driver: kernels compiled with NVRTC, launches recorded) they launch one kernel per input and
copy nothing between the host and the device."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.runtime import reduction_gradients
from brickwork.utils import array_inner, array_sum

from .test_device_utils_cuda import copies  # noqa: F401 (the fake driver, a fixture)


def _gradients(data, other, axis, count):
    """The gradients of ``array_sum(values, axis, count)`` and ``array_inner(a, b, axis, count)`` for an output
    gradient ``g`` (given), on the current target."""
    values = wp.array(data, dtype=wp.vec3d, requires_grad=True)
    a = wp.array(data, dtype=wp.vec3d, requires_grad=True)
    b = wp.array(other, dtype=wp.vec3d, requires_grad=True)
    shape = (1,) if axis is None else data.shape[:axis] + (1,) + data.shape[axis + 1:-1]
    total = wp.zeros(shape, dtype=wp.vec3d, requires_grad=True)
    inner = wp.zeros(shape, dtype=wp.float64, requires_grad=True)
    g_total = np.arange(1.0, 1.0 + 3 * int(np.prod(shape))).reshape(*shape, 3)
    g_inner = np.arange(2.0, 2.0 + int(np.prod(shape))).reshape(shape)
    with wp.Tape() as tape:
        array_sum(values, out=total, value_count=count, axis=axis)
        array_inner(a, b, out=inner, count=count, axis=axis)
    tape.backward(grads={total: wp.array(g_total, dtype=wp.vec3d), inner: wp.array(g_inner, dtype=wp.float64)})
    return values.grad.numpy(), a.grad.numpy(), b.grad.numpy(), g_total, g_inner


def _expected(data, other, axis, count, g_total, g_inner):
    """numpy's: each summed element (the first ``count``, None: all) gets the output's gradient (times the other
    factor for the inner product)."""
    mask = np.zeros(data.shape[:-1], dtype=bool)
    if axis is None:
        mask.reshape(-1)[:count] = True
        g_total = np.broadcast_to(g_total.reshape(3), data.shape)
        g_inner = np.broadcast_to(g_inner.reshape(()), data.shape[:-1])
    else:
        index = [slice(None)] * mask.ndim
        index[axis] = slice(0, count)
        mask[tuple(index)] = True
    sums = np.where(mask[..., None], g_total, 0.0)
    spread = np.where(mask, g_inner, 0.0)[..., None]
    return sums, spread * other, spread * data


LAYOUTS = [(None, None), (None, 7), (1, None), (1, 2), (0, 3)]


def _cpu_gradients(data, other, dtype, axis, count, kernel):
    """The gradients of ``array_sum`` and ``array_inner`` of ``data`` (and ``other``) as arrays of ``dtype``, the CPU
    adding them with its kernel (``kernel``) or numpy, with the output gradients 1, 2, ... of ``_gradients``."""
    vector = dtype in (wp.vec3f, wp.vec3d)
    scalar = {wp.vec3f: wp.float32, wp.vec3d: wp.float64}.get(dtype, dtype)
    elements = data.shape[:-1] if vector else data.shape
    values, a, b = (wp.array(x, dtype=dtype, requires_grad=True) for x in (data, data, other))
    shape = (1,) if axis is None else elements[:axis] + (1,) + elements[axis + 1:]
    total = wp.zeros(shape, dtype=dtype, requires_grad=True)
    inner = wp.zeros(shape, dtype=scalar, requires_grad=True)
    per = 3 if vector else 1
    g_total = np.arange(1.0, 1.0 + per * int(np.prod(shape))).reshape(shape + ((3,) if vector else ()))
    g_inner = np.arange(2.0, 2.0 + int(np.prod(shape))).reshape(shape)
    with wp.Tape() as tape:
        array_sum(values, out=total, value_count=count, axis=axis)
        array_inner(a, b, out=inner, count=count, axis=axis)
    original = reduction_gradients._kernel_on_cpu
    reduction_gradients._kernel_on_cpu = lambda inputs, layout: kernel
    try:
        tape.backward(grads={total: wp.array(g_total, dtype=dtype), inner: wp.array(g_inner, dtype=scalar)})
    finally:
        reduction_gradients._kernel_on_cpu = original
    return values.grad.numpy(), a.grad.numpy(), b.grad.numpy()


@pytest.mark.parametrize("dtype", [wp.vec3f, wp.vec3d, wp.float32, wp.float64])
@pytest.mark.parametrize(("axis", "count"), LAYOUTS)
def test_the_cpus_kernel_gives_numpys_bits(dtype, axis, count):
    # every form of device_reduce.spread the CPU takes (rows, runs, and the 4-D one for inner products of vectors)
    rng = np.random.default_rng(4)
    shape = (4, 5, 3) if dtype in (wp.vec3f, wp.vec3d) else (4, 5)
    data, other = rng.standard_normal(shape), rng.standard_normal(shape)
    by_kernel = _cpu_gradients(data, other, dtype, axis, count, True)
    by_numpy = _cpu_gradients(data, other, dtype, axis, count, False)
    assert [x.tobytes() for x in by_kernel] == [x.tobytes() for x in by_numpy]
    if dtype is wp.vec3d:  # and they are the gradients
        g = _gradients(data, other, axis, count)
        for got, want in zip(by_kernel, _expected(data, other, axis, count, *g[3:])):
            np.testing.assert_allclose(got, want, rtol=1e-15, atol=0.0)


def test_the_cpu_takes_the_kernel_for_large_inner_products_and_vector_sums():
    n = reduction_gradients.KERNEL_MIN_SCALARS
    scalars, vectors = wp.zeros(n, dtype=wp.float32), wp.zeros(n // 3 + 1, dtype=wp.vec3f)
    layout = {a: (1, a.shape[0], a.shape[0], 3 if a is vectors else 1, 1) for a in (scalars, vectors)}
    assert reduction_gradients._kernel_on_cpu([scalars, scalars], layout[scalars])
    assert reduction_gradients._kernel_on_cpu([vectors], layout[vectors])
    assert not reduction_gradients._kernel_on_cpu([scalars], layout[scalars])  # numpy's broadcast is as fast
    small = wp.zeros(n - 1, dtype=wp.float32)
    assert not reduction_gradients._kernel_on_cpu([small, small], (1, n - 1, n - 1, 1, 1))


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize(("axis", "count"), LAYOUTS)
def test_gradients_on_the_emulation_target_are_numpys_and_the_cpus(axis, count):
    rng = np.random.default_rng(3)
    data, other = rng.standard_normal((4, 5, 3)), rng.standard_normal((4, 5, 3))
    cpu = _gradients(data, other, axis, count)
    with config.override(target="cuda-emulation"):
        emulated = _gradients(data, other, axis, count)
    expected = _expected(data, other, axis, count, *cpu[3:])
    for got, want in zip(emulated[:3], expected):
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0.0)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(cpu[:3], emulated[:3]))


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_on_a_cuda_device_the_gradients_stay_there(copies):
    drv = copies  # the fake driver, recording its copies between host and device
    a = wp.array(np.ones((1000, 3)), dtype=wp.vec3f, device="cuda:0", requires_grad=True)
    b = wp.array(np.ones((1000, 3)), dtype=wp.vec3f, device="cuda:0", requires_grad=True)
    total = wp.zeros(1, dtype=wp.vec3f, device="cuda:0", requires_grad=True)
    inner = wp.zeros(1, dtype=wp.float32, device="cuda:0", requires_grad=True)
    seeds = {total: wp.ones(1, dtype=wp.vec3f, device="cuda:0"), inner: wp.ones(1, dtype=wp.float32, device="cuda:0")}
    with wp.Tape() as tape:
        array_sum(a, out=total)
        array_inner(a, b, out=inner)
    drv.copies.clear()
    launched = len(drv.launches)
    tape.backward(grads=seeds)
    assert drv.copies == []  # before: each gradient went to the host and back
    assert len(drv.launches) - launched == 3  # one kernel for a's sum, then a's and b's of the inner product
