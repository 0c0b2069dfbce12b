"""The step ``la.outer_reduce(..., out=a)`` records for the overwrite of ``a[0]`` (la/outer.py ``_record_overwrite``):
in the backward pass it clears ``a.grad[0]`` where the gradient lives, on a CUDA device (the fake driver) by a memset
of that element's bytes, with nothing copied between the host and the device, and the other elements kept.
(test_la_gradients.py checks what the clearing means for the gradients of a reduction on the CPU.) A reduction
recorded on a CUDA device runs its backward launch there, wherever ``backward`` is called."""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.jit import nvrtc
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



def _reduction_on_the_device(reducer):
    """A reduction of x^2 over a 4^3 box into ``out``, recorded on cuda:0 inside a ``wp.ScopedDevice``."""
    x = wp.array(np.arange(64.0).reshape(1, 4, 4, 4), dtype=wp.float64, device="cuda:0", requires_grad=True)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 4, 4, 4, 0, backend=la.team).with_reducer(reducer)
    out = wp.zeros(1, dtype=reducer.value_type, device="cuda:0", requires_grad=True)

    def body(rng_, b):
        def value(k, j, i):
            return x[b, k, j, i] * x[b, k, j, i]
        la.inner_reduce(rng_, value)

    tape = wp.Tape()
    with wp.ScopedDevice("cuda:0"), tape:
        la.outer_reduce(space, body, out=out)
    return tape, out


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
@pytest.mark.parametrize("reducer", [la.Sum(wp.float64), la.Min(wp.float64)])
def test_a_reduction_on_a_device_runs_its_backward_there_from_any_scope(copies, reducer):  # noqa: F811
    # the backward launch took the current device (the CPU outside the scope: a LaunchError on x's device), and a
    # Min's one-cell adjoint was set in a host copy of the device array (so it stayed zero)
    drv = copies
    tape, out = _reduction_on_the_device(reducer)
    uploads = []
    upload = drv.copy_to_device

    def recording(ordinal, dst, src, nbytes, stream=None):
        uploads.append(ctypes.string_at(src, nbytes))
        return upload(ordinal, dst, src, nbytes, stream)

    drv.copy_to_device = recording
    launched = len(drv.launches)
    tape.backward(grads={out: wp.full(1, 3.0, dtype=wp.float64, device="cuda:0")})  # outside the scope
    assert len(drv.launches) > launched and all(launch[0] == 0 for launch in drv.launches[launched:])
    if reducer.join == "min":  # the one cell's partial gets 3 (the fake driver computes nothing: the cell is slot 0)
        cells = [np.frombuffer(data, dtype=np.float64) for data in uploads if len(data) % 8 == 0]
        assert any(np.count_nonzero(c) == 1 and c[0] == 3.0 for c in cells)
