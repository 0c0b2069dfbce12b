"""User functions named after an operator (``add``, ``sub``, ...) that a kernel sees replace the operator for
the operand types they take, as in Warp: on plain values, ``+=`` on locals and on array slots (``a[0].x``,
``a[0][1]``); other operand types keep the builtin. An augmented assignment to an array slot moves the slot's
gradient rather than counting it twice."""

import numpy as np
import pytest

import brickwork as wp


@wp.func
def add(x: wp.float32, y: wp.float32) -> wp.float32:  # every float32 `+` of this file's kernels
    return wp.sub(x, y)


@wp.func
def sub(x: wp.float32, y: wp.float32) -> wp.float32:  # every float32 `-` of this file's kernels
    return wp.mul(x, y)


@wp.kernel(enable_backward=False)
def overloaded(out: wp.array(dtype=float), values: wp.array(dtype=wp.vec3), a: float, b: float, d: wp.float64):
    out[0] = a + b
    c = a
    c -= b
    out[1] = c
    out[2] = wp.add(a, b)  # the builtin, named
    out[3] = float(d + d)  # float64: the user function does not take it
    v = wp.vec3(1.0) + wp.vec3(2.0)
    out[4] = v[0]
    values[0].x += b
    values[0][1] += b
    values[0].z -= b


def test_user_operator_functions_replace_the_builtin_for_their_types():
    out = wp.zeros(5, dtype=float)
    values = wp.array([wp.vec3(3.0)], dtype=wp.vec3)
    wp.launch(overloaded, 1, inputs=[out, values, 3.0, 2.0, 4.0])
    assert out.numpy().tolist() == [1.0, 6.0, 5.0, 8.0, 3.0]
    assert values.numpy().tolist() == [[1.0, 1.0, 6.0]]


@wp.kernel
def update_slots(values: wp.array(dtype=wp.vec3d), rhs: wp.array(dtype=wp.float64)):
    values[0].x += rhs[0]
    values[0][1] += rhs[0]
    values[0].z -= rhs[0]


def test_slot_updates_with_builtin_operators_and_their_gradients():
    values = wp.full(1, wp.vec3d(3.0), dtype=wp.vec3d, requires_grad=True)
    rhs = wp.array([2.0], dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(update_slots, 1, inputs=[values, rhs])
    np.testing.assert_array_equal(values.numpy(), [[5.0, 5.0, 1.0]])
    tape.backward(grads={values: wp.full_like(values, wp.vec3d(1.0))})
    # each slot's new value depends on its old one with slope 1: its gradient stays 1 (not 2)
    np.testing.assert_array_equal(values.grad.numpy(), [[1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(rhs.grad.numpy(), [1.0])  # +1 +1 -1


@wp.kernel
def scale_slot(values: wp.array(dtype=wp.vec3), rhs: wp.array(dtype=float)):
    values[0].x *= rhs[0]


@wp.kernel
def user_add_slot(values: wp.array(dtype=wp.vec3), rhs: wp.array(dtype=float)):
    values[0].x += rhs[0]  # the user's add (x - y): needs nothing overwritten, but is not the builtin


@pytest.mark.parametrize("kernel, forward", [(scale_slot, [6.0, 3.0, 3.0]), (user_add_slot, [1.0, 3.0, 3.0])])
def test_slot_updates_that_need_the_overwritten_value_have_no_backward(kernel, forward):
    values = wp.array([wp.vec3(3.0)], dtype=wp.vec3, requires_grad=True)
    rhs = wp.array([2.0], dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(kernel, 1, inputs=[values, rhs])  # the forward kernel runs
    assert values.numpy().tolist() == [forward]
    with pytest.raises(wp.KernelNotDifferentiableError, match="composite slot augmented assignments with this "
                                                              "operator are not supported"):
        tape.backward(grads={values: wp.ones_like(values)})
