"""``wp.atomic_cas(a, *indices, compare, value)``: Warp's compare-and-swap, on the CPU and on the
emulation of the GPU mapping (the CUDA source is compiled by NVRTC in the NVRTC tests)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

TARGETS = ["cpu", "cuda-emulation"]


@wp.kernel
def claim(owner: wp.array(dtype=wp.int32), won: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if wp.atomic_cas(owner, 0, 0, i + 1) == 0:  # only the first thread finds it free
        won[i] = 1


@wp.kernel
def double_it(a: wp.array(dtype=float)):
    """An atomic multiply built from compare-and-swap: every thread doubles a[0] once."""
    wp.tid()
    done = 0
    while done == 0:
        old = a[0]
        if wp.atomic_cas(a, 0, old, old * 2.0) == old:
            done = 1


@wp.kernel
def cas_types(i64: wp.array2d(dtype=wp.int64), u32: wp.array(dtype=wp.uint32), f64: wp.array(dtype=wp.float64),
              out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(wp.atomic_cas(i64, 1, 2, wp.int64(-5), wp.int64(1) << wp.int64(40)))  # matches: swapped
    out[1] = wp.float64(wp.atomic_cas(u32, 0, wp.uint32(9), wp.uint32(1)))  # no match: unchanged
    out[2] = wp.atomic_cas(f64, 0, wp.float64(-0.0), wp.float64(3.0))  # values: -0.0 matches 0.0 (Warp's CPU)
    out[3] = wp.atomic_cas(f64, 1, wp.float64(1.0) / wp.float64(0.0) * wp.float64(0.0), wp.float64(3.0))  # NaN


@pytest.mark.parametrize("target", TARGETS)
def test_exactly_one_thread_claims_the_slot(target):
    n = 1000
    owner, won = wp.zeros(1, dtype=wp.int32), wp.zeros(n, dtype=wp.int32)
    with config.override(target=target):
        wp.launch(claim, dim=n, inputs=[owner, won])
    winners = np.flatnonzero(won.numpy())
    assert len(winners) == 1 and owner.numpy()[0] == winners[0] + 1


@pytest.mark.parametrize("target", TARGETS)
def test_a_cas_loop_applies_every_update_once(target):
    a = wp.array(np.array([1.0], dtype=np.float32))
    with config.override(target=target):
        wp.launch(double_it, dim=20, inputs=[a])
    assert a.numpy()[0] == 2.0 ** 20


@pytest.mark.parametrize("target", TARGETS)
def test_types_the_old_value_and_comparison_by_value(target):
    i64 = wp.array(np.full((2, 3), -5, dtype=np.int64))
    u32 = wp.array(np.array([7], dtype=np.uint32))
    f64 = wp.array(np.array([0.0, np.nan]))
    out = wp.zeros(4, dtype=wp.float64)
    with config.override(target=target):
        wp.launch(cas_types, dim=1, inputs=[i64, u32, f64, out])
    assert out.numpy()[:3].tolist() == [-5.0, 7.0, 0.0] and np.isnan(out.numpy()[3])
    want = np.full((2, 3), -5, dtype=np.int64)
    want[1, 2] = 2 ** 40
    np.testing.assert_array_equal(i64.numpy(), want)
    assert u32.numpy()[0] == 7 and f64.numpy()[0] == 3.0 and np.isnan(f64.numpy()[1])  # a NaN matches nothing


@wp.kernel
def cas_vec(a: wp.array(dtype=wp.vec3)):
    wp.atomic_cas(a, 0, wp.vec3(0.0), wp.vec3(1.0))


@wp.kernel
def cas_int8(a: wp.array(dtype=wp.int8)):
    wp.atomic_cas(a, 0, wp.int8(0), wp.int8(1))


@wp.kernel
def cas_mixed(a: wp.array(dtype=float)):
    wp.atomic_cas(a, 0, 0, 1.0)


@wp.kernel
def cas_arity(a: wp.array(dtype=float)):
    wp.atomic_cas(a, 0, 1.0)


@pytest.mark.parametrize(("kernel", "words"), [
    (cas_vec, ["atomic_cas() only works on arrays of [u]int32, [u]int64, float32 or float64", "vec3"]),
    (cas_int8, ["atomic_cas() only works on arrays of", "int8"]),
    (cas_mixed, ["compare and value must match the array dtype", "int32", "float32"]),
    (cas_arity, ["needs 1 indices, a compare value and a value", "got 2 arguments"]),
])
def test_bad_calls_name_the_problem_and_the_line(kernel, words):
    a = wp.zeros(1, dtype=kernel.params[0][1].dtype)
    before = a.numpy().copy()
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(kernel, dim=1, inputs=[a])
    text = str(info.value)
    assert "test_atomic_cas.py" in text and "wp.atomic_cas(a, 0," in text
    assert all(w in text for w in words), text
    np.testing.assert_array_equal(a.numpy(), before)


@wp.kernel
def scale_and_flag(x: wp.array(dtype=float), flag: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    old = wp.atomic_cas(flag, 0, 0.0, 1.0)
    y[i] = x[i] * 2.0 + old * 0.0


def test_a_kernel_with_a_compare_and_swap_differentiates_through_its_other_values():
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    flag = wp.zeros(1, dtype=float, requires_grad=True)
    y = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_and_flag, dim=4, inputs=[x, flag, y])
    tape.backward(grads={y: wp.array(np.ones(4, dtype=np.float32))})
    assert x.grad.numpy().tolist() == [2.0] * 4
    assert flag.numpy()[0] == 1.0 and flag.grad.numpy()[0] == 0.0
