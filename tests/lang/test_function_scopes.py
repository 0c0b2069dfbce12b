"""Which function a name means (a factory's functions are its own; overloads are tried in the order they were
defined), operators in their own user function, explicit instances that are not types, same-name kernels
named by ``wp.overload``, compile-time conditional expressions and composite launch arguments of another type."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


def _scaling_kernel(c, generic: bool):
    if generic:
        @wp.func
        def mul(x: Any):
            return x * type(x)(c)
    else:
        @wp.func
        def mul(x: float):
            return x * float(c)

    @wp.kernel
    def k(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = mul(a[i])

    return k, mul


@pytest.mark.parametrize("generic", [True, False], ids=["generic", "concrete"])
def test_each_call_of_a_factory_makes_functions_of_its_own(generic):
    made = [_scaling_kernel(c, generic) for c in (2, 3, 5)]  # all made before any launch
    assert made[0][1] is not made[1][1]
    results = []
    for k, _ in made:
        a = wp.array([1.0, 2.0], dtype=float)
        wp.launch(k, dim=2, inputs=[a])
        results.append(a.numpy().tolist())
    assert results == [[2.0, 4.0], [3.0, 6.0], [5.0, 10.0]]

    m2, m3 = made[0][1], made[1][1]

    @wp.kernel
    def both(a: wp.array(dtype=float)):  # two functions of one text in one kernel: two functions
        i = wp.tid()
        a[i] = m2(a[i]) + m3(a[i]) + wp.static(m3)(a[i])

    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(both, dim=2, inputs=[a])
    assert a.numpy().tolist() == [8.0, 16.0]


def test_definitions_of_one_name_in_one_scope_are_overloads_tried_in_order():
    @wp.func
    def h(x: Any, y: float):
        return 1.0

    @wp.func
    def h(x: float, y: Any):  # noqa: F811 - an overload
        return 2.0

    @wp.func
    def q(x: Any):
        return 10.0

    @wp.func
    def q(x: wp.Float):  # noqa: F811
        return 20.0

    @wp.func
    def q(x: Any):  # noqa: F811 - a redefinition replaces the first, in its place
        return 30.0

    @wp.func
    def q(x: wp.int32):  # noqa: F811 - a concrete overload beats the generic ones
        return 40.0

    @wp.kernel
    def k(out: wp.array(dtype=float)):
        out[0] = h(1.0, 1.0)
        out[1] = q(1.0)
        out[2] = float(q(wp.float64(1.0)))
        out[3] = q(1)

    out = wp.zeros(4, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1.0, 30.0, 30.0, 40.0]  # Warp's choices
    assert h(1.0, 1.0) == 1.0 and q(1.0) == 30.0  # called from Python: the same choice


def test_an_operator_in_its_own_user_function_is_the_builtin():
    """``def neg(x): return -x`` negates (it is not a call of itself); outside it, ``-`` and ``+`` are the
    user functions of those names, as before."""
    @wp.func
    def neg(x: Any):
        return -x

    @wp.func
    def add(a: Any, b: Any):
        return a + b + type(a)(1)

    @wp.kernel
    def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        out[0] = neg(a[0])
        out[1] = -a[1]
        out[2] = a[0] + a[1]  # the kernel sees ``add`` (it calls it below): '+' is that function
        out[3] = add(a[0], a[1]) * 10.0

    a, out = wp.array([1.0, 2.0], dtype=float), wp.zeros(4, dtype=float)
    wp.launch(k, dim=1, inputs=[a, out])
    assert out.numpy().tolist() == [-1.0, -2.0, 4.0, 40.0]


@wp.kernel
def fill(x: wp.array(dtype=Any), value: Any):
    x[wp.tid()] = x.dtype(value)


@wp.kernel
def twice(x: wp.array(dtype=float)):
    x[wp.tid()] = 2.0


@pytest.mark.parametrize("bad", [3.0, "float32", np.float32, type, None], ids=repr)
def test_an_explicit_instance_of_something_that_is_not_a_type_is_refused_and_breaks_nothing(bad):
    with pytest.raises(wp.KernelTypeError, match="parameter 'value' of kernel 'fill' needs a kernel type"):
        wp.overload(fill, [wp.array(dtype=wp.float64), bad])
    x = wp.zeros(3, dtype=float)
    wp.launch(twice, dim=3, inputs=[x])  # compiles: nothing bad was left pending
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]


@wp.kernel
def axpy(y: wp.array(dtype=Any), x: wp.array(dtype=Any)):
    i = wp.tid()
    y[i] = y[i] + x[i]


@wp.kernel
def axpy(y: wp.array(dtype=Any), x: wp.array(dtype=Any), a: Any):  # noqa: F811 - another argument count
    i = wp.tid()
    y[i] = y[i] + a * x[i]


def test_overload_names_the_same_name_kernel_whose_parameters_fit():
    two = wp.overload(axpy, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64)])
    by_name = wp.overload(axpy, {"y": wp.array(dtype=wp.float16), "x": wp.array(dtype=wp.float16)})
    three = wp.overload(axpy, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64), wp.float64])
    y, x = wp.array([1.0, 2.0], dtype=wp.float64), wp.array([10.0, 20.0], dtype=wp.float64)
    wp.launch(two, dim=2, inputs=[y, x])
    wp.launch(three, dim=2, inputs=[y, x, 0.5])
    assert y.numpy().tolist() == [16.0, 32.0]
    yh = wp.array([1.0], dtype=wp.float16)
    wp.launch(by_name, dim=1, inputs=[yh, wp.array([2.0], dtype=wp.float16)])
    assert yh.numpy().tolist() == [3.0]
    with pytest.raises(wp.KernelTypeError, match="has 3 parameters, got 4 types"):
        wp.overload(axpy, [wp.array(dtype=float)] * 4)


def test_a_conditional_expression_with_a_constant_condition_types_only_its_branch():
    @wp.kernel
    def k(out: wp.array(dtype=float)):
        out[0] = 1.0 if True else wp.float64(2.0) / 3
        out[1] = wp.float64(2.0) if 0 else 3.0

    out = wp.zeros(2, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1.0, 3.0]


@wp.kernel
def store_vectors(h: wp.array(dtype=wp.vec3h), vh: wp.vec3h, d: wp.array(dtype=wp.vec3d), vd: wp.vec3d,
                  i: wp.array(dtype=wp.vec3i), vi: wp.vec3i, m: wp.array(dtype=wp.mat22f), vm: wp.mat22f):
    h[0] = vh
    d[0] = vd
    i[0] = vi
    m[0] = vm


def test_a_composite_of_another_scalar_type_converts_at_launch_as_in_warp():
    h, d = wp.zeros(1, dtype=wp.vec3h), wp.zeros(1, dtype=wp.vec3d)
    i, m = wp.zeros(1, dtype=wp.vec3i), wp.zeros(1, dtype=wp.mat22f)
    args = [h, wp.vec3f(1.5, 2.0, 3.0), d, wp.vec3f(0.5, 2.0, 3.0), i, wp.vec3l(1, -2, 3), m, wp.mat22d(1, 2, 3, 4)]
    wp.launch(store_vectors, dim=1, inputs=args)
    assert h.numpy().tolist() == [[1.5, 2.0, 3.0]] and d.numpy().tolist() == [[0.5, 2.0, 3.0]]
    assert i.numpy().tolist() == [[1, -2, 3]] and m.numpy().tolist() == [[[1.0, 2.0], [3.0, 4.0]]]
    wp.launch(store_vectors, dim=1, inputs=[*args[:4], i, wp.vec3i(4, 5, 6), *args[6:]])  # ints to ints
    assert i.numpy().tolist() == [[4, 5, 6]]

    for position, value, message in ((5, wp.vec3f(1.0, 2.0, 3.0), "argument 'vi' must be vec3i, got vec3f"),
                                     (7, wp.vec4f(1, 2, 3, 4), "argument 'vm' must be mat22f, got vec4f"),
                                     (1, wp.vec4f(1, 2, 3, 4), "argument 'vh' must be vec3h, got vec4f"),
                                     (5, wp.vec3l(2**40, 0, 0), "argument 'vi' = .* does not fit in vec3i")):
        bad = list(args)
        bad[position] = value
        with pytest.raises(wp.LaunchError, match=message):
            wp.launch(store_vectors, dim=1, inputs=bad)
        assert i.numpy().tolist() == [[4, 5, 6]]  # nothing ran
