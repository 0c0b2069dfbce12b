"""``print`` in backward kernels, as Warp: the backward launch replays the forward pass (printing the
values again) and prints each printed value's adjoint after ``adj: `` where the reverse sweep reaches the
print. Checked on C's stdout (capfd)."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def print_value(x: typing.Any):
    print(x)


@wp.struct
class Pair:
    x: float
    y: float


def _printed(capfd, *launches):
    capfd.readouterr()
    for run in launches:
        run()
    wp.synchronize()
    return capfd.readouterr().out


@pytest.mark.parametrize("t", [wp.float16, wp.bfloat16, wp.float32, wp.float64, wp.int8, wp.int32, wp.uint8,
                               wp.uint64])
def test_a_scalar_parameter_prints_its_value_then_the_adjoint_passed(capfd, t):
    out = _printed(capfd, lambda: wp.launch(print_value, 1, inputs=[t(17)], adj_inputs=[t(42)], adjoint=True))
    assert out == "17\nadj: 42\n"


def test_bool_and_a_missing_adjoint(capfd):
    out = _printed(capfd, lambda: wp.launch(print_value, 1, inputs=[True], adj_inputs=[False], adjoint=True),
                   lambda: wp.launch(print_value, 1, inputs=[wp.float64(2.5)], adj_inputs=[None], adjoint=True))
    assert out == "True\nadj: False\n2.5\nadj: 0\n"


def test_vectors_and_matrices_print_as_warp_prints_them(capfd):
    """One vector or matrix: each component followed by a space, a matrix row per line; the adjoint after
    ``adj: ``, later rows under the first, without trailing blanks. Several values keep [x, y]."""
    v, adj_v = wp.vec3(0.0, 1.0, 2.5), wp.vec3(2.0, 1.0, 0.0)
    m, adj_m = wp.mat22(0.0, 1.0, 2.0, 3.0), wp.mat22(3.0, 2.0, 1.0, -1.0)
    out = _printed(capfd, lambda: wp.launch(print_value, 1, inputs=[v], adj_inputs=[adj_v], adjoint=True),
                   lambda: wp.launch(print_value, 1, inputs=[m], adj_inputs=[adj_m], adjoint=True))
    assert out == "0 1 2.5 \nadj: 2 1 0\n0 1 \n2 3 \nadj: 3 2\n     1 -1\n"


def test_structs_and_arrays_print_a_placeholder(capfd):
    a = wp.ones(3, dtype=float)
    out = _printed(capfd, lambda: wp.launch(print_value, 1, inputs=[Pair()], adj_inputs=[Pair()], adjoint=True),
                   lambda: wp.launch(print_value, 1, inputs=[a], adj_inputs=[wp.zeros(3, dtype=float)],
                                     adjoint=True),
                   lambda: wp.launch(print_value, 1, inputs=[a]))
    line = "<type without print implementation>"
    assert out == f"{line}\nadj: {line}\n{line}\nadj: {line}\n{line}\n"


@wp.kernel
def squares(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y = a[i] * a[i]
    print("y", y)
    wp.printf("i=%d\n", i)
    b[i] = wp.float64(3.0) * y


def test_under_a_tape_the_adjoint_is_what_the_later_statements_sent(capfd):
    """The adjoint printed is the value's at the print in the reverse sweep: what the statements after the
    print sent back (3 g here); printf replays without an adjoint line; the forward pass prints as usual."""
    a = wp.array([2.0], dtype=wp.float64, requires_grad=True)
    b = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    forward = _printed(capfd, lambda: tape.__enter__(), lambda: wp.launch(squares, 1, inputs=[a, b]),
                       lambda: tape.__exit__(None, None, None))
    backward = _printed(capfd, lambda: tape.backward(grads={b: wp.array([0.5], dtype=wp.float64)}))
    assert forward == "y 4\ni=0\n"
    assert backward == "y 4\ni=0\nadj: y 1.5\n"
    np.testing.assert_allclose(a.grad.numpy(), [6.0])


@wp.kernel
def running_sum(x: wp.float64, n: int, out: wp.array(dtype=wp.float64)):
    s = wp.float64(0.0)
    for k in range(n):
        s = s + x * wp.float64(k + 1)
        print(s)
    out[0] = s


def test_a_print_in_a_loop_replays_once_per_iteration(capfd):
    """The replay prints each iteration once (a reversed iteration's own replay does not print again); the
    adjoint lines come in reverse order, each the adjoint of that iteration's s (1: every later s passes it
    on)."""
    out = wp.zeros(1, dtype=wp.float64)
    printed = _printed(capfd, lambda: wp.launch(running_sum, 1, inputs=[wp.float64(1.0), 3, out],
                                                adj_inputs=[None, None, wp.array([1.0], dtype=wp.float64)],
                                                adjoint=True))
    assert printed == "1\n3\n6\nadj: 1\nadj: 1\nadj: 1\n"


def test_an_adjoint_value_of_the_wrong_kind_is_a_launch_error(capfd):
    """An adjoint for a scalar parameter that is not a number: LaunchError naming the parameter, before
    anything runs (nothing printed)."""
    capfd.readouterr()
    with pytest.raises(wp.LaunchError, match="the adjoint of 'x' must be a float32"):
        wp.launch(print_value, 1, inputs=[wp.float32(1.0)], adj_inputs=["one"], adjoint=True)
    wp.synchronize()
    assert capfd.readouterr().out == ""
