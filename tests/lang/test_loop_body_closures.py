"""Loop bodies defined inside a function, a new closure (function object) at each call: later closures of the same
code share the first one's parse and compiled instances, each reading its own captured values; closures whose
compile-time values differ get kernels of their own; the table of body kernels stays bounded."""

import gc
import weakref

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError
from brickwork.jit import compile as jit
from brickwork.lang import body as bodies
from brickwork.lang.body import body_kernel


def _axpy(x, y, scale):
    """y += x * scale over x's length, with a body made at each call; returns the body."""

    def body(i):
        y[i] = y[i] + x[i] * scale

    wp.par_for(x.shape[0], body)
    return body


def _made(x, y, scale, ops=wp):
    def body(i):
        y[i] = ops.abs(x[i]) * scale

    return body


_OFFSET = 1.0


def _shifted(x, y):
    def body(i):
        y[i] = x[i] + _OFFSET

    return body


_EVALUATIONS = []


def _weight(value):
    _EVALUATIONS.append(value)  # a side effect: the declaration of each closure evaluates it once
    return value


def _static_scaled(x, y, scale):
    def body(i):
        y[i] = x[i] * wp.static(_weight(scale))

    return body


def _static_of_a_loop_variable(x, y, n):
    def body(i):
        for k in range(2):
            y[i] = x[i] * wp.static(float(n - k))  # needs the unrolled loop: left for typing

    return body


def _arrays(n=5, start=0.0):
    return wp.array(np.arange(n, dtype=np.float32) + start, dtype=wp.float32), wp.zeros(n, dtype=wp.float32)


def test_a_closure_made_again_shares_the_parse_and_instances_and_reads_its_own_arrays():
    x1, y1 = _arrays()
    first = body_kernel(_axpy(x1, y1, 2.0), "for", 1)
    runs = jit.compiler_calls
    x2, y2 = _arrays(start=10.0)
    again = _axpy(x2, y2, 2.0)
    second = body_kernel(again, "for", 1)
    assert second is not first and second.func is again
    assert second.source.tree is first.source.tree and second.instances is first.instances
    assert jit.compiler_calls == runs  # nothing compiled for the second closure
    np.testing.assert_array_equal(y1.numpy(), 2.0 * np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(y2.numpy(), 2.0 * (np.arange(5, dtype=np.float32) + 10.0))
    assert [v is w for v, w in zip(first.captured(), (x1, y1))] == [True, True]
    assert [v is w for v, w in zip(second.captured(), (x2, y2))] == [True, True]
    assert all(inst.kernel is second for inst in second.instances.values())


def test_closures_whose_compile_time_values_differ_get_kernels_of_their_own():
    x, y = _arrays()
    two = body_kernel(_made(x, y, 2.0), "for", 1)
    three = body_kernel(_made(x, y, 3.0), "for", 1)
    typed = body_kernel(_made(x, y, wp.float32(2.0)), "for", 1)  # a runtime value where the others have a constant
    numpy_ops = body_kernel(_made(x, y, 2.0, ops=np), "for", 1)  # another module under the same name
    kernels = [two, three, typed, numpy_ops]
    assert len({id(k.instances) for k in kernels}) == 4
    assert (two._statics, three._statics) == ((2.0,), (3.0,))
    assert typed.capture_names == ["scale", "x", "y"] and two.capture_names == ["x", "y"]
    again = body_kernel(_made(*_arrays(), 2.0), "for", 1)
    assert again.instances is two.instances and again.source.tree is two.source.tree


def test_a_twin_made_after_a_global_constant_changed_rebuilds_its_instances(monkeypatch):
    x, y = _arrays()
    first = body_kernel(_shifted(x, y), "for", 1)
    shared = first.instances
    monkeypatch.setattr(f"{__name__}._OFFSET", 2.0)
    twin = body_kernel(_shifted(x, y), "for", 1)
    assert twin.instances is first.instances  # the snapshot it was built for: checked at its launch
    twin._check_statics()
    assert twin.instances is not shared and twin._statics == (2.0,) and twin.rebuilds == 1
    assert first.instances is shared and first._statics == (1.0,)


def test_earlier_closures_and_their_arrays_are_not_kept_alive():
    held = []
    for start in range(6):
        x, y = _arrays(start=float(start))
        _axpy(x, y, 2.0)
        np.testing.assert_array_equal(y.numpy(), 2.0 * x.numpy())
        held.append(weakref.ref(x))
        del x, y
    gc.collect()
    assert [r() is not None for r in held] == [False] * 5 + [True]  # the newest closure's arrays only


_LAMBDAS = [
    lambda i: i + 1,
    lambda i: i + 2,
    lambda i: i + 3,
]


def test_the_table_keeps_a_bounded_number_of_codes_and_variants(monkeypatch):
    monkeypatch.setattr(bodies, "_BODIES", {})
    monkeypatch.setattr(bodies, "_MAX_CODES", 2)
    monkeypatch.setattr(bodies, "_VARIANTS", 2)
    for fn in _LAMBDAS:
        body_kernel(fn, "for", 1)
    assert [key[0] for key in bodies._BODIES] == [fn.__code__ for fn in _LAMBDAS[1:]]
    x, y = _arrays()
    made = [body_kernel(_made(x, y, float(s)), "for", 1) for s in (1, 2, 3)]
    assert bodies._BODIES[(made[0].func.__code__, "for", 1, ())] == [made[2], made[1]]
    assert list(bodies._BODIES)[0][0] is _LAMBDAS[2].__code__  # the oldest code was dropped
    assert len(bodies._BODIES) == 2


def test_a_body_that_is_no_python_function_is_refused():
    with pytest.raises(LaunchError, match="a loop body must be a Python function.*builtin_function_or_method"):
        wp.par_for(3, print)


def test_a_live_function_keeps_its_kernel_when_the_table_drops_it(monkeypatch):
    monkeypatch.setattr(bodies, "_BODIES", {})
    monkeypatch.setattr(bodies, "_VARIANTS", 1)
    x, y = _arrays()
    two, three = _made(x, y, 2.0), _made(x, y, 3.0)
    first = body_kernel(two, "for", 1)
    assert body_kernel(three, "for", 1) is not first  # the table now holds three's only
    assert body_kernel(two, "for", 1) is first


def test_closures_with_wp_static_share_instances_when_the_results_are_equal_and_get_variants_when_not():
    x, y = _arrays()
    before = len(_EVALUATIONS)
    two = body_kernel(_static_scaled(x, y, 2.0), "for", 1)
    x2, y2 = _arrays(start=10.0)
    again = _static_scaled(x2, y2, 2.0)
    twin = body_kernel(again, "for", 1)
    assert twin.func is again and twin.instances is two.instances and twin.source.tree is two.source.tree
    three = body_kernel(_static_scaled(x, y, 3.0), "for", 1)  # a variant: the parse shared, instances its own
    assert three.source.tree is two.source.tree and three.instances is not two.instances
    negative_zero = body_kernel(_static_scaled(x, y, -0.0), "for", 1)
    assert negative_zero.instances is not body_kernel(_static_scaled(x, y, 0.0), "for", 1).instances
    assert body_kernel(_static_scaled(x, y, 3.0), "for", 1).instances is three.instances
    assert _EVALUATIONS[before:] == [2.0, 2.0, 3.0, -0.0, 0.0, 3.0]  # once per closure, as at a declaration
    wp.par_for(5, again)
    wp.par_for(5, _static_scaled(x, y, 3.0))
    np.testing.assert_array_equal(y2.numpy(), 2.0 * (np.arange(5, dtype=np.float32) + 10.0))
    np.testing.assert_array_equal(y.numpy(), 3.0 * np.arange(5, dtype=np.float32))


def test_closures_with_a_wp_static_left_for_typing_share_instances_when_its_names_hold_equal_values():
    x, y = _arrays()
    first = _static_of_a_loop_variable(x, y, 5)
    wp.par_for(5, first)
    x2, y2 = _arrays(start=10.0)
    second = _static_of_a_loop_variable(x2, y2, 5)
    wp.par_for(5, second)
    x3, y3 = _arrays(3)
    other = _static_of_a_loop_variable(x3, y3, 3)  # another value of the name it reads: another kernel
    wp.par_for(3, other)
    kernels = [body_kernel(f, "for", 1) for f in (first, second, other)]
    assert kernels[1].instances is kernels[0].instances and kernels[2].instances is not kernels[0].instances
    np.testing.assert_array_equal(y.numpy(), 4.0 * np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(y2.numpy(), 4.0 * (np.arange(5, dtype=np.float32) + 10.0))
    np.testing.assert_array_equal(y3.numpy(), 2.0 * np.arange(3, dtype=np.float32))
