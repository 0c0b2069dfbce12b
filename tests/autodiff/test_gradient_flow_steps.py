"""The gradient flow check of ``Tape.backward`` (runtime/gradient_flow.py) through the steps that are no kernel launch:
copies (``wp.copy``, ``assign``), ``record_func`` functions, linear solves and reductions. An array without
``requires_grad`` between a step that reads a gradient and a later one that writes one is reported, naming the step
(the user's file:line); a flow that is not cut, or a constant, is not."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.optim.linear import cg
from brickwork.utils import array_sum

from .test_gradient_flow import fill_constant, fresh_reports, square_into, sum_into  # noqa: F401 (an autouse fixture)


@wp.kernel
def square_into64(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def sum_into64(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])


def _cuts(tape, loss) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.backward(loss)
    found = [w for w in caught if "gradient flow is cut" in str(w.message)]
    assert all(w.filename == __file__ for w in found)  # at the caller's tape.backward
    return [str(w.message) for w in found]


def _arrays(*grads):
    x = wp.array([1.0, -2.0, 3.0], dtype=float, requires_grad=True)
    return x, *(wp.zeros(3, dtype=float, requires_grad=g) for g in grads), wp.zeros(1, dtype=float,
                                                                                      requires_grad=True)


def _copy(how, dest, src):
    if how == "wp.copy":
        wp.copy(dest, src)
    else:
        dest.assign(src)


@pytest.mark.parametrize("how", ["wp.copy", "assign"])
def test_a_copy_into_an_array_with_gradient_from_one_without_is_a_cut(how):
    x, y, z, loss = _arrays(False, True)
    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        _copy(how, z, y)
        wp.launch(sum_into, 3, inputs=[z, loss])
    (message,) = _cuts(tape, loss)
    assert "array 'y' of kernel 'square_into'" in message
    assert f"read as 'src' by the copy at {__file__}:" in message
    assert not x.grad.numpy().any()  # the zero the warning is about


@pytest.mark.parametrize("how", ["wp.copy", "assign"])
def test_a_copy_without_gradient_of_an_array_with_one_is_a_cut(how):
    x, y, z, loss = _arrays(True, False)
    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        _copy(how, z, y)
        wp.launch(sum_into, 3, inputs=[z, loss])
    (message,) = _cuts(tape, loss)
    assert f"array 'dest' of the copy at {__file__}:" in message and "read as 'y' by kernel 'sum_into'" in message
    assert not x.grad.numpy().any()


def test_copies_with_gradients_and_copies_of_constants_are_no_cuts():
    x, y, z, c, w, loss = _arrays(True, True, False, True)
    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        wp.copy(z, y)
        wp.launch(sum_into, 3, inputs=[z, loss])
        wp.launch(fill_constant, 3, inputs=[c])
        wp.copy(w, c)  # constants into an array with a gradient
        wp.launch(sum_into, 3, inputs=[w, loss])
    assert _cuts(tape, loss) == []
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])


def test_a_record_func_step_reading_an_array_without_gradient_is_a_cut():
    x, y, z, loss = _arrays(False, True)

    def double_backward():  # z = 2 y, written outside the kernels: dL/dy = 2 dL/dz, where y has a gradient
        if y.grad is not None:
            y.grad.assign(y.grad.numpy() + 2.0 * z.grad.numpy())

    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        z.assign(2.0 * y.numpy())  # host data: not a copy of y
        tape.record_func(double_backward, [y, z])
        wp.launch(sum_into, 3, inputs=[z, loss])
    (message,) = _cuts(tape, loss)
    assert "array 'y' of kernel 'square_into'" in message
    assert f"read as 'arrays[0]' by record_func function '{double_backward.__qualname__}' ({__file__}:" in message
    assert not x.grad.numpy().any()


def test_record_func_steps_with_gradients_and_listed_constants_are_no_cuts():
    x, y, z, c, loss = _arrays(True, True, False)

    def double_backward():
        y.grad.assign(y.grad.numpy() + 2.0 * z.grad.numpy())

    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        z.assign(2.0 * y.numpy())
        wp.launch(fill_constant, 3, inputs=[c])
        tape.record_func(double_backward, [y, z, c])  # c: a constant it lists, not taken as written by it
        wp.launch(sum_into, 3, inputs=[z, loss])
        wp.launch(sum_into, 3, inputs=[c, loss])
    assert _cuts(tape, loss) == []
    np.testing.assert_allclose(x.grad.numpy(), [4.0, -8.0, 12.0])


def _spd():
    return np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])


@pytest.mark.parametrize("b_grad", [False, True])
def test_a_solve_whose_right_hand_side_has_no_gradient_is_a_cut(b_grad):
    k = wp.array([1.0, 2.0, 3.0], dtype=wp.float64, requires_grad=True)
    A = wp.array(_spd(), dtype=wp.float64)
    b = wp.zeros(3, dtype=wp.float64, requires_grad=b_grad)
    x = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square_into64, 3, inputs=[k, b])
        cg(A, b, x, tol=1e-14)
        wp.launch(sum_into64, 3, inputs=[x, loss])
    found = _cuts(tape, loss)
    # dL/dk = 2 k * A^-1 1 (A symmetric) where b carries the gradient, zero where the solve cuts it
    expected = 2.0 * k.numpy() * np.linalg.solve(_spd(), np.ones(3)) if b_grad else np.zeros(3)
    np.testing.assert_allclose(k.grad.numpy(), expected, atol=1e-10)
    if b_grad:
        assert found == []
    else:
        (message,) = found
        assert "array 'y' of kernel 'square_into64'" in message  # b, as the kernel names it
        assert f"read as 'b' by the CG solve at {__file__}:" in message


@pytest.mark.parametrize("y_grad", [False, True])
def test_a_reduction_of_an_array_without_gradient_is_a_cut(y_grad):
    x, y, loss = _arrays(y_grad)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square_into, 3, inputs=[x, y])
        array_sum(y, out=total)
        wp.launch(sum_into, 1, inputs=[total, loss])
    found = _cuts(tape, loss)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0] if y_grad else [0.0, 0.0, 0.0])
    if y_grad:
        assert found == []
    else:
        (message,) = found
        assert "array 'y' of kernel 'square_into'" in message and f"read as 'values' by array_sum at {__file__}:" \
            in message


def test_steps_are_not_noted_with_the_check_off():
    x, y, z, loss = _arrays(False, True)
    saved = wp.config.verify_gradient_flow
    wp.config.verify_gradient_flow = False
    try:
        with wp.Tape() as tape:
            wp.launch(square_into, 3, inputs=[x, y])
            wp.copy(z, y)
            wp.launch(sum_into, 3, inputs=[z, loss])
        assert tape._flow_steps == []
        assert _cuts(tape, loss) == []
    finally:
        wp.config.verify_gradient_flow = saved
