"""Every code block of the seed generics.rst, run as written with ``import brickwork as wp``."""

from typing import Any

import numpy as np

import brickwork as wp

data = [1, 2, 3, 4, 5, 6, 7, 8, 9]
n = len(data)


def test_generic_kernel_three_types(capfd):
    @wp.kernel
    def scale(x: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        x[i] = s * x[i]

    x16 = wp.array(data, dtype=wp.float16)
    x32 = wp.array(data, dtype=wp.float32)
    x64 = wp.array(data, dtype=wp.float64)

    wp.launch(scale, dim=n, inputs=[x16, wp.float16(3)])
    wp.launch(scale, dim=n, inputs=[x32, wp.float32(3)])
    wp.launch(scale, dim=n, inputs=[x64, wp.float64(3)])

    print(x16)
    print(x32)
    print(x64)
    expected = np.array(data) * 3
    for arr, dt in ((x16, np.float16), (x32, np.float32), (x64, np.float64)):
        assert arr.numpy().dtype == dt
        np.testing.assert_array_equal(arr.numpy(), expected.astype(dt))
    out = capfd.readouterr().out.splitlines()
    assert out == [str(expected.astype(np.float16))] * 3
    assert len(scale.instances) == 3


def test_overload_decorator_and_functions():
    @wp.kernel
    def scale(x: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        x[i] = s * x[i]

    @wp.overload
    def scale(x: wp.array(dtype=wp.float16), s: wp.float16):
        ...

    @wp.overload
    def scale(x: wp.array(dtype=wp.float32), s: wp.float32):
        ...

    @wp.overload
    def scale(x: wp.array(dtype=wp.float64), s: wp.float64):
        ...

    assert len(scale.instances) == 3
    x16 = wp.array(data, dtype=wp.float16)
    x32 = wp.array(data, dtype=wp.float32)
    x64 = wp.array(data, dtype=wp.float64)
    wp.launch(scale, dim=n, inputs=[x16, wp.float16(3)])
    wp.launch(scale, dim=n, inputs=[x32, wp.float32(3)])
    wp.launch(scale, dim=n, inputs=[x64, wp.float64(3)])
    assert len(scale.instances) == 3  # the declared instances were used, none added
    for arr in (x16, x32, x64):
        np.testing.assert_array_equal(arr.numpy(), np.array(data) * 3)

    wp.overload(scale, [wp.array(dtype=wp.float16), wp.float16])
    wp.overload(scale, [wp.array(dtype=wp.float32), wp.float32])
    wp.overload(scale, [wp.array(dtype=wp.float64), wp.float64])

    wp.overload(scale, {"x": wp.array(dtype=wp.float16), "s": wp.float16})
    wp.overload(scale, {"x": wp.array(dtype=wp.float32), "s": wp.float32})
    wp.overload(scale, {"x": wp.array(dtype=wp.float64), "s": wp.float64})

    for T in [wp.float16, wp.float32, wp.float64]:
        wp.overload(scale, [wp.array(dtype=T), T])
    assert len(scale.instances) == 3

    scale_f16 = wp.overload(scale, [wp.array(dtype=wp.float16), wp.float16])
    scale_f32 = wp.overload(scale, [wp.array(dtype=wp.float32), wp.float32])
    scale_f64 = wp.overload(scale, [wp.array(dtype=wp.float64), wp.float64])

    # launch concrete kernel instances
    wp.launch(scale_f16, dim=n, inputs=[x16, 3])
    wp.launch(scale_f32, dim=n, inputs=[x32, 3])
    wp.launch(scale_f64, dim=n, inputs=[x64, 3])
    for arr in (x16, x32, x64):
        np.testing.assert_array_equal(arr.numpy(), np.array(data) * 9)


def test_generic_functions():
    # generic function
    @wp.func
    def f(x: Any):
        return x * x

    # use generic function in a regular kernel
    @wp.kernel
    def square_float(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = f(a[i])

    # use generic function in a generic kernel
    @wp.kernel
    def square_any(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = f(a[i])

    af = wp.array(data, dtype=float)
    ai = wp.array(data, dtype=int)

    # launch regular kernel
    wp.launch(square_float, dim=n, inputs=[af])

    # launch generic kernel
    wp.launch(square_any, dim=n, inputs=[af])
    wp.launch(square_any, dim=n, inputs=[ai])

    np.testing.assert_array_equal(af.numpy(), np.array(data, dtype=np.float32) ** 4)
    np.testing.assert_array_equal(ai.numpy(), np.array(data, dtype=np.int32) ** 2)
    assert ai.numpy().dtype == np.int32


def test_type_operator_and_dtype():
    @wp.func
    def triple(x: Any):
        return type(x)(3) * x

    @wp.kernel
    def apply_triple(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = triple(a[i])

    for dt, npdt in ((wp.float16, np.float16), (wp.float64, np.float64), (wp.int64, np.int64), (wp.int8, np.int8)):
        a = wp.array(data, dtype=dt)
        wp.launch(apply_triple, dim=n, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), (np.array(data) * 3).astype(npdt))

    @wp.kernel
    def arange(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = type(a[0])(i)

    n10 = 10
    ai = wp.empty(n10, dtype=wp.int32)
    af = wp.empty(n10, dtype=wp.float32)

    wp.launch(arange, dim=n10, inputs=[ai])
    wp.launch(arange, dim=n10, inputs=[af])
    np.testing.assert_array_equal(ai.numpy(), np.arange(10))
    np.testing.assert_array_equal(af.numpy(), np.arange(10, dtype=np.float32))

    @wp.kernel
    def arange2(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = a.dtype(i)

    ad = wp.empty(n10, dtype=wp.float64)
    wp.launch(arange2, dim=n10, inputs=[ad])
    np.testing.assert_array_equal(ad.numpy(), np.arange(10, dtype=np.float64))


def test_interleaved_definitions_and_launches(capfd):
    @wp.kernel
    def foo(x: float):
        wp.print(x)

    wp.launch(foo, dim=1, inputs=[17])

    @wp.kernel
    def bar(x: float):
        wp.print(x)

    wp.launch(bar, dim=1, inputs=[42])
    assert capfd.readouterr().out == "17\n42\n"


def test_type_variables():
    @wp.func
    def triple(x: Any):
        T = type(x)
        return T(3) * x

    @wp.kernel
    def k(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = triple(a[i])

    for dt in (wp.float32, wp.float64, wp.int16):
        a = wp.array(data, dtype=dt)
        wp.launch(k, dim=n, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), np.array(data) * 3)
