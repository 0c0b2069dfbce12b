"""Recorded backward launches (``launch(..., adjoint=True, record_cmd=True)``, ``Launch(..., adjoint=True)``)
and parameters set from ``__ctype__()`` values."""

import ctypes

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_recorded_adjoint_launch_accumulates_into_the_arrays_grads():
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.empty_like(x)
    y.grad.fill_(1.0)
    cmd = wp.launch(square, dim=3, inputs=[x, y], adj_inputs=[None, None], adjoint=True, record_cmd=True)
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]  # recording runs nothing
    cmd.launch()
    assert x.grad.numpy().tolist() == [2.0, 4.0, 6.0]
    assert y.grad.numpy().tolist() == [0.0, 0.0, 0.0]  # reversing the store cleared y's own gradient (as Warp)
    y.grad.fill_(1.0)
    cmd.launch()  # adjoints accumulate
    assert x.grad.numpy().tolist() == [4.0, 8.0, 12.0]


def test_adjoint_launch_built_by_hand_takes_adjoints_by_name():
    x = wp.array([4.0, 5.0, 6.0, 7.0], dtype=float)
    y = wp.empty_like(x)
    adj_x, adj_y = wp.zeros_like(x), wp.full_like(y, 1.0)
    cmd = wp.Launch(square, None, adjoint=True)
    cmd.set_param_by_name("x", x)
    cmd.set_param_by_name("y", y)
    cmd.set_param_by_name("x", adj_x, adjoint=True)
    cmd.set_param_at_index(1, adj_y, adjoint=True)
    cmd.set_dim(4)
    cmd.launch()
    np.testing.assert_allclose(adj_x.numpy(), 2.0 * x.numpy())


def test_adjoint_of_a_forward_launch_cannot_be_set():
    cmd = wp.launch(square, dim=1, inputs=[wp.zeros(1), wp.zeros(1)], record_cmd=True)
    with pytest.raises(ValueError, match="not an adjoint launch.*'x'"):
        cmd.set_param_by_name("x", wp.zeros(1), adjoint=True)
    assert cmd.adj_params == [None, None]


@wp.struct
class Params:
    i: int
    f: float


@wp.kernel
def use_params(p: Params, n: int, out: wp.array(dtype=float)):
    out[wp.tid()] = float(p.i) * p.f + float(n)


def test_parameters_set_from_ctype_values():
    out = wp.zeros(2, dtype=float)
    p = Params(i=1, f=1.0)
    cmd = wp.launch(use_params, dim=2, inputs=[p, 0, wp.zeros(2, dtype=float)], record_cmd=True)
    p.i, p.f = 3, 2.5
    mirror = p.__ctype__()
    assert isinstance(mirror, ctypes.Structure) and ctypes.sizeof(mirror) == 8
    p.i = 100  # the mirror is a snapshot
    cmd.set_param_at_index_from_ctype(0, mirror)
    cmd.set_param_at_index_from_ctype(1, 4)
    cmd.set_param_by_name_from_ctype("out", out.__ctype__())
    cmd.launch()
    assert out.numpy().tolist() == [11.5, 11.5]
    assert bytes(out.__ctype__())[:8] == out.ptr.to_bytes(8, "little")
