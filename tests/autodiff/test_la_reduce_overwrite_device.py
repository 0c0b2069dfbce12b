"""The step ``la.outer_reduce(..., out=a)`` records for the overwrite of ``a[0]`` (la/outer.py ``_record_overwrite``):
in the backward pass it clears ``a.grad[0]`` where the gradient lives, on a CUDA device (the fake driver) by a memset
of that element's bytes, with nothing copied between the host and the device, and the other elements kept.
(test_la_gradients.py checks what the clearing means for the gradients of a reduction on the CPU.)"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork.la.outer import _record_overwrite
from brickwork.la.reducers import MinLoc

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from utils.test_device_utils_cuda import copies  # noqa: E402, F401 (the fake driver recording copies, a fixture)


def _gradient_values(dtype, n):
    """``n`` nonzero gradient values of ``dtype`` as a numpy array (a struct's fields all set)."""
    template = wp.zeros(n, dtype=dtype).numpy()
    if template.dtype.names is None:
        return np.arange(1.0, 1.0 + n).astype(template.dtype)
    for k, name in enumerate(template.dtype.names):
        template[name] = np.arange(1, 1 + n) * (k + 2)
    return template


def _overwrite_backward(out):
    tape = wp.Tape()
    with tape:
        _record_overwrite(out)
    tape.backward()
    return tape


@pytest.mark.parametrize("dtype", [wp.float64, wp.float32, MinLoc(wp.float64).value_type])
def test_the_overwritten_gradient_is_cleared_on_the_device(copies, dtype):  # noqa: F811
    drv = copies
    out = wp.zeros(3, dtype=dtype, device="cuda:0", requires_grad=True)
    values = _gradient_values(dtype, 3)
    out.grad.assign(values)
    drv.copies.clear()
    drv.memory_ops.clear()
    _overwrite_backward(out)
    assert drv.copies == []  # before: the whole gradient down to the host and back up
    [(kind, dst, value, count, width)] = drv.memory_ops
    assert (kind, dst, value, count * width) == ("memset", out.grad.ptr, 0, values.itemsize)
    expected = values.copy()
    expected[0] = np.zeros((), values.dtype)
    assert out.grad.numpy().tobytes() == expected.tobytes()


def test_on_the_cpu_only_the_first_element_is_cleared():
    out = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    out.grad.assign([4.0, 5.0, 6.0])
    _overwrite_backward(out)
    np.testing.assert_array_equal(out.grad.numpy(), [0.0, 5.0, 6.0])

