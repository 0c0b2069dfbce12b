"""A kernel called as a Python function (``scaled_add(x, y, 2.0)``) says to launch it, as Warp 1.19's
``NotImplementedError`` does: it was Python's ``TypeError: 'Kernel' object is not callable``. The error is
both (and a ``wp.LaunchError``), nothing runs, and the APIs that take a function still refuse a kernel."""

import pytest

import brickwork as wp
from brickwork.runtime.parallel import par_for


@wp.kernel
def scaled_add(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_calling_a_kernel_says_to_launch_it():
    x, y = wp.full(3, 1.0, dtype=float), wp.full(3, 5.0, dtype=float)
    for caught in (NotImplementedError, TypeError, wp.LaunchError, wp.BrickworkError):
        with pytest.raises(caught) as e:
            scaled_add(x, y, 2.0)
        assert str(e.value) == ("kernel 'scaled_add' cannot be called as a function: launch it with "
                                "wp.launch(scaled_add, dim=..., inputs=[x, y, a])")
    assert y.numpy().tolist() == [5.0] * 3


def test_apis_taking_a_function_still_refuse_a_kernel():
    with pytest.raises(TypeError, match="capture_if: on_true must be a function or a captured Graph, got Kernel"):
        wp.capture_if(wp.ones(1, dtype=wp.int32), on_true=scaled_add)
    with pytest.raises(TypeError, match="LinearOperator matvec must be callable, got Kernel"):
        wp.optim.linear.LinearOperator((3, 3), wp.float32, "cpu", scaled_add)
    with pytest.raises(wp.LaunchError, match="a loop body must be a Python function .*, got Kernel"):
        par_for((0, 2), scaled_add)
