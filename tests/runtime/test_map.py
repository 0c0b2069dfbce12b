"""``wp.map`` (a function applied element by element to arrays) and the arithmetic operators of arrays."""

import re

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Pair:
    a: float
    b: float


@wp.func
def make_pair(x: float, y: float):
    p = Pair()
    p.a = x
    p.b = y
    return p


@wp.func
def two_results(x: float):
    return x + 2.0, wp.vec3(x, x, x)


def test_map_builtins_funcs_and_lambdas_with_values_broadcast():
    x = wp.array(np.array([-2.0, 0.25, 3.0], dtype=np.float32))
    clamped = wp.map(wp.clamp, x, -0.5, 0.5)  # numbers go to every call
    assert isinstance(clamped, wp.array) and clamped.dtype is wp.float32
    np.testing.assert_array_equal(clamped.numpy(), [-0.5, 0.25, 0.5])
    offset = 3.0
    np.testing.assert_array_equal(wp.map(lambda v: v * 2.0 + offset, x).numpy(), [-1.0, 3.5, 9.0])
    pairs = wp.map(make_pair, x, x).list()
    assert [(p.a, p.b) for p in pairs] == [(-2.0, -2.0), (0.25, 0.25), (3.0, 3.0)]
    conds = wp.array([True, False, True], dtype=wp.bool)
    np.testing.assert_array_equal(wp.map(wp.where, conds, 1.0, 0.0).numpy(), [1.0, 0.0, 1.0])


def test_map_broadcasts_shapes_as_numpy():
    a = wp.array(np.arange(3, dtype=np.float32).reshape(1, 3, 1))
    b = wp.array(np.arange(4, dtype=np.float32) * 10)
    out = wp.map(wp.add, a, b)
    assert out.shape == (1, 3, 4)
    np.testing.assert_array_equal(out.numpy(), np.arange(3).reshape(1, 3, 1) + np.arange(4) * 10)


def test_map_of_several_results_fills_a_list_of_arrays():
    x = wp.array(np.arange(3, dtype=np.float32))
    first, second = wp.map(two_results, x)
    np.testing.assert_array_equal(first.numpy(), [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(second.numpy(), [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    outs = [wp.zeros(3), wp.zeros(3, dtype=wp.vec3)]
    assert wp.map(two_results, x, out=outs) is outs
    np.testing.assert_array_equal(outs[0].numpy(), [2.0, 3.0, 4.0])


def test_map_returns_its_kernel_and_differentiates_under_a_tape():
    made = wp.map(lambda v: v + 2.0, wp.zeros(4), return_kernel=True)
    assert isinstance(made, wp.Kernel)
    src, dst = wp.array(np.arange(6, dtype=np.float32)), wp.zeros(6)
    wp.launch(made, dim=6, inputs=[src], outputs=[dst])
    np.testing.assert_array_equal(dst.numpy(), np.arange(6) + 2.0)
    a = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    with wp.Tape() as tape:
        out = wp.map(lambda v: 3.0 * v - 1.0, a)
    assert out.grad is not None
    out.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0] * 4)


def test_map_refuses_bad_inputs_with_warps_messages():
    x = wp.zeros(3)

    @wp.func
    def nothing(f: float):
        pass

    @wp.func
    def of_int(i: int):
        return float(i)

    cases = [
        ((nothing, x), {}, TypeError, "The provided function must return a value"),
        ((of_int, x, x), {}, TypeError, "Number of input arguments (2) does not match expected number of function "
                                         "arguments (1)"),
        ((of_int, x), {}, TypeError, "does not support the provided argument types float32"),
        ((wp.add, wp.zeros((3, 2)), wp.zeros((3, 3))), {}, ValueError, "Shapes (3, 2) and (3, 3) are not "
                                                                        "broadcastable"),
        ((wp.add, 1.0, 2.0), {}, ValueError, "map requires at least one warp.array input"),
        ((wp.sub, x, x), {"out": wp.empty(2)}, TypeError, "Output array shape (2,) does not match expected shape (3,)"),
        ((wp.sub, x, x), {"out": wp.empty(3, dtype=wp.int32)}, TypeError,
         "Output array dtype int32 does not match expected dtype float32"),
        ((two_results, x), {"out": wp.empty(3)}, TypeError,
         "Invalid output provided, expected 2 Warp arrays with shape (3,) and dtypes (float32, vec3f)"),
        ((two_results, x), {"out": [wp.empty(3)]}, TypeError,
         "Number of provided output arrays (1) does not match expected number of function outputs (2)"),
    ]
    for args, kwargs, error, text in cases:
        with pytest.raises(error, match=re.escape(text)):
            wp.map(*args, **kwargs)


def test_array_arithmetic_operators_run_elementwise():
    a = wp.array(np.arange(4, dtype=np.float32))
    b = wp.array(np.arange(1, 5, dtype=np.float32))
    x, y = a.numpy().copy(), b.numpy().copy()
    np.testing.assert_array_equal((a + b).numpy(), x + y)
    np.testing.assert_array_equal((2.0 - a).numpy(), 2.0 - x)
    np.testing.assert_array_equal((-a).numpy(), -x)
    np.testing.assert_array_equal((+a).numpy(), x)
    np.testing.assert_array_equal((a * 2.0).numpy(), x * 2.0)
    np.testing.assert_allclose((2.0 / b).numpy(), 2.0 / y)
    np.testing.assert_array_equal((a // b).numpy(), x // y)
    np.testing.assert_allclose((a ** 2.0).numpy(), x ** 2)
    ints = wp.array([7, 8, 9], dtype=wp.int32) / wp.array([2, 3, 4], dtype=wp.int32)
    assert ints.dtype is wp.int32 and ints.numpy().tolist() == [3, 2, 2]  # integer division, as Warp
    vecs = wp.array(np.ones((2, 3)), dtype=wp.vec3d) * 2.0  # the number becomes the array's scalar type
    np.testing.assert_array_equal(vecs.numpy(), np.full((2, 3), 2.0))
    before = a
    a *= 3.0  # in place
    assert a is before
    np.testing.assert_array_equal(a.numpy(), x * 3.0)


def test_array_operators_leave_other_operands_to_their_own_operators():
    a = wp.array(np.arange(3, dtype=np.float32))
    mixed = a + np.ones(3, dtype=np.float32)  # numpy's operator runs: a numpy array, as before
    assert isinstance(mixed, np.ndarray) and mixed.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match="unsupported operand"):
        a + "x"
