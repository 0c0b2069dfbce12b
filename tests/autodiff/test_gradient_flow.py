"""``Tape.backward`` warns once when an intermediate array without ``requires_grad`` cuts the gradient flow between
two recorded launches (runtime/gradient_flow.py), names the writing kernel and argument, and stays quiet in the
normal cases; ``wp.config.verify_gradient_flow = False`` turns it off."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.runtime import gradient_flow


@wp.kernel
def square_into(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def sum_into(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])


@wp.kernel
def count_positive(x: wp.array(dtype=float), flags: wp.array(dtype=int)):
    i = wp.tid()
    flags[i] = wp.where(x[i] > 0.0, 1, 0)


@wp.kernel
def masked_sum(x: wp.array(dtype=float), flags: wp.array(dtype=int), loss: wp.array(dtype=float)):
    i = wp.tid()
    if flags[i] != 0:
        wp.atomic_add(loss, 0, x[i])


@wp.kernel
def fill_constant(y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0


@pytest.fixture(autouse=True)
def fresh_reports():
    """Each test starts with nothing reported (the warning is once per process and pair of arguments)."""
    saved = set(gradient_flow.reported)
    gradient_flow.reported.clear()
    yield
    gradient_flow.reported.clear()
    gradient_flow.reported.update(saved)


def _record(intermediate_grad: bool):
    x = wp.array([1.0, -2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=intermediate_grad)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_into, 3, inputs=[x, y])
        wp.launch(sum_into, 3, inputs=[y, loss])
    return tape, x, loss


def _backward(tape, loss):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.backward(loss)
    return [w for w in caught if "gradient flow is cut" in str(w.message)]


def test_an_intermediate_without_gradient_warns_naming_kernel_and_argument():
    tape, x, loss = _record(intermediate_grad=False)
    caught = _backward(tape, loss)
    assert len(caught) == 1 and caught[0].category is UserWarning
    assert caught[0].filename == __file__  # points at the caller's tape.backward
    message = str(caught[0].message)
    assert "array 'y' of kernel 'square_into'" in message and f"{__file__}:" in message
    assert "read as 'y' by kernel 'sum_into'" in message
    assert "requires_grad=True" in message and "wp.config.verify_gradient_flow = False" in message
    assert not x.grad.numpy().any()  # the zero the warning is about


def test_warned_once_per_pair_and_backward():
    tape, _, loss = _record(intermediate_grad=False)
    assert len(_backward(tape, loss)) == 1
    tape.zero()
    assert _backward(tape, loss) == []  # the same launches again: checked once
    tape2, _, loss2 = _record(intermediate_grad=False)
    assert _backward(tape2, loss2) == []  # the same pair of arguments: reported already


def test_no_warning_when_the_intermediate_has_a_gradient():
    tape, x, loss = _record(intermediate_grad=True)
    assert _backward(tape, loss) == []
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])


def test_no_warning_for_integer_arrays_and_constants():
    """Flags (integers carry no gradient) and an array of constants (its writer reads nothing requiring one)."""
    x = wp.array([1.0, -2.0, 3.0], dtype=float, requires_grad=True)
    flags = wp.zeros(3, dtype=int)
    constant = wp.zeros(3, dtype=float)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(count_positive, 3, inputs=[x, flags])
        wp.launch(masked_sum, 3, inputs=[x, flags, loss])
        wp.launch(fill_constant, 3, inputs=[constant])
        wp.launch(sum_into, 3, inputs=[constant, loss])
    assert _backward(tape, loss) == []
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.0, 1.0])


def test_no_warning_when_the_reader_writes_nothing_requiring_gradients():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float)
    total = wp.zeros(1, dtype=float)  # a diagnostic: no gradient asked for
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square_into, 2, inputs=[x, y])
        wp.launch(sum_into, 2, inputs=[y, total])
        wp.launch(sum_into, 2, inputs=[x, loss])
    assert _backward(tape, loss) == []
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_turned_off_by_config():
    tape, _, loss = _record(intermediate_grad=False)
    saved = wp.config.verify_gradient_flow
    wp.config.verify_gradient_flow = False
    try:
        assert _backward(tape, loss) == []
    finally:
        wp.config.verify_gradient_flow = saved
    assert gradient_flow.reported == set()


def test_a_reset_tape_checks_its_new_launches():
    tape, _, loss = _record(intermediate_grad=False)
    wp.config.verify_gradient_flow, saved = False, wp.config.verify_gradient_flow
    try:
        tape.backward(loss)  # not checked
    finally:
        wp.config.verify_gradient_flow = saved
    tape.reset()
    x = wp.array([1.0], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float)
    with tape:
        wp.launch(square_into, 1, inputs=[x, y])
        wp.launch(sum_into, 1, inputs=[y, loss])
    assert len(_backward(tape, loss)) == 1
