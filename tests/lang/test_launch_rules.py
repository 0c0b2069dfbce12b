"""Launch rules: devices, dims against tid(), same-name kernels by argument count, value ranges."""

import typing

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def grid(a: wp.array2d(dtype=int)):
    i, j = wp.tid()
    a[i, j] = i * 10 + j


def test_dims_against_tid_unpacking():
    a = wp.zeros((2, 3), dtype=int)
    wp.launch(grid, dim=(2, 3), inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [[0, 1, 2], [10, 11, 12]])
    a.zero_()
    wp.launch(grid, dim=(1, 2, 3), inputs=[a])  # more extents: the first two, each point repeated, as in Warp
    np.testing.assert_array_equal(a.numpy(), [[0, 1, 0], [0, 0, 0]])
    for fewer in (2, (2,)):  # missing extents are 1 and their indices 0, as in Warp
        a.zero_()
        wp.launch(grid, dim=fewer, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), [[0, 0, 0], [10, 0, 0]])
    with pytest.raises(wp.LaunchError, match="must not be negative"):
        wp.launch(grid, dim=(-1, 2), inputs=[a])


def test_device_is_checked_on_every_launch():
    a = wp.zeros((2, 3), dtype=int)
    wp.launch(grid, dim=(2, 3), inputs=[a], device="cpu")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        wp.launch(grid, dim=(2, 3), inputs=[a], device="cuda:0")
    with pytest.raises(ValueError, match="unknown device"):
        wp.launch(grid, dim=(2, 3), inputs=[a], device="tpu")


def test_value_out_of_range_names_the_argument():
    @wp.kernel
    def put(a: wp.array(dtype=wp.int8), v: wp.int8):
        a[0] = v

    a = wp.zeros(1, dtype=wp.int8)
    wp.launch(put, dim=1, inputs=[a, 100])
    with pytest.raises(wp.LaunchError, match="argument 'v' = 300 does not fit in int8"):
        wp.launch(put, dim=1, inputs=[a, 300])
    assert a.numpy()[0] == 100


def test_floats_beyond_a_narrow_type_round_to_infinity_as_in_numpy_and_warp():
    """A float32 or float16 argument beyond its finite range is +-inf in the kernel (IEEE rounding:
    numpy's conversion, and what Warp 1.19 passes), not an error; in range it is rounded as usual."""
    @wp.kernel
    def put(out: wp.array(dtype=float), f: float, h: wp.float16, d: wp.float64):
        out[0] = f
        out[1] = float(h)
        out[2] = float(d)

    out = wp.zeros(3)
    for f, h, want in ((1e300, 70000.0, [np.inf, np.inf]), (-1e300, -1e10, [-np.inf, -np.inf]),
                       (3.0e38, 65000.0, [np.float32(3.0e38), np.float16(65000.0)]), (0.1, 0.1, [np.float32(0.1),
                                                                                           np.float16(0.1)])):
        for convert in (float, np.float64):  # a numpy scalar rounds alike
            wp.launch(put, dim=1, inputs=[out, convert(f), convert(h), 1e300])
            assert out.numpy()[:2].tolist() == [float(w) for w in want] and out.numpy()[2] == np.inf


def test_same_name_kernels_dispatch_by_argument_count():
    @wp.kernel
    def fill(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    @wp.kernel
    def fill(a: wp.array(dtype=float), v: float):  # noqa: F811
        a[wp.tid()] = v

    x = wp.zeros(2, dtype=float)
    wp.launch(fill, dim=2, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), 1.0)
    wp.launch(fill, dim=2, inputs=[x, 5.0])
    np.testing.assert_array_equal(x.numpy(), 5.0)
    with pytest.raises(wp.LaunchError, match="expected 2 arguments"):
        wp.launch(fill, dim=2, inputs=[x, 1.0, 2.0])


@wp.kernel
def flag(f: wp.bool, out: wp.array(dtype=int)):
    out[0] = wp.where(f, 1, 2)


def test_an_int_for_a_bool_parameter_is_its_truth():
    """As in Warp: 1, 0, numpy integers, any non-zero integer is True."""
    out = wp.zeros(1, dtype=int)
    for value, want in ((1, 1), (0, 2), (np.int32(1), 1), (np.int64(0), 2), (-1, 1), (2**40, 1), (True, 1)):
        wp.launch(flag, dim=1, inputs=[value, out])
        assert out.numpy()[0] == want, value
    with pytest.raises(wp.LaunchError, match="argument 'f' must be bool, got float"):
        wp.launch(flag, dim=1, inputs=[1.0, out])


def test_wrong_argument_types_change_nothing():
    @wp.kernel
    def inc(a: wp.array(dtype=float), n: int):
        a[wp.tid()] = a[wp.tid()] + float(n)

    a = wp.array([1.0, 2.0], dtype=float)
    cases = [([a, 1.5], "argument 'n' must be int32, got float"),
             ([a, wp.float64(1.0)], "argument 'n' must be int32, got float64"),
             ([a, wp.int64(2**40)], "argument 'n' = int64\\(1099511627776\\) does not fit in int32"),
             ([wp.zeros(2, dtype=wp.float64), 1], "argument 'a' must be array\\(dtype=float32, ndim=1\\), got "
                                                  "array\\(dtype=float64, ndim=1\\)"),
             ([np.zeros(2), 1], "got array\\(dtype=float64, ndim=1\\) \\(its elements are float64, the kernel's "
                                "float32: convert the data, e.g. numpy_array.astype\\(numpy.float32\\) or "
                                "wp.array\\(numpy_array, dtype=wp.float32\\)\\)$"),
             ([wp.zeros((2, 2), dtype=float), 1], "got array\\(dtype=float32, ndim=2\\) \\(its shape is \\(2, 2\\), and "
                                                  "the parameter has 1 dimension: annotate it wp.array\\(dtype=wp.float32, "
                                                  "ndim=2\\), or pass a.flatten\\(\\)\\)$"),
             ([[1.0, 2.0], 1], "argument 'a' must be array\\(dtype=float32, ndim=1\\), got list \\(a list is not an "
                               "array: make one, wp.array\\(values, dtype=wp.float32\\)\\)$"),
             ([a, a], "argument 'n' must be int32, got array\\(dtype=float32, ndim=1\\) \\(an int32 parameter takes "
                      "one number"),
             ([a], "expected 2 arguments \\(a, n\\), got 1")]
    for inputs, message in cases:
        with pytest.raises(wp.LaunchError, match=message):
            wp.launch(inc, dim=2, inputs=inputs)
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])


def test_inputs_that_are_not_a_list_or_tuple_are_refused_cold_and_warm():
    @wp.kernel
    def add(a: wp.array(dtype=float), n: int):
        a[wp.tid()] = a[wp.tid()] + float(n)

    a = wp.array([1.0, 2.0], dtype=float)
    # before: "TypeError: 'generator' object is not subscriptable" (the signature had consumed it)
    message = "launch of '.*add': inputs must be a list or tuple of arguments, got generator"
    with pytest.raises(wp.LaunchError, match=message):  # first launch: no instance yet
        wp.launch(add, dim=2, inputs=(v for v in [a, 1]))
    with pytest.raises(wp.LaunchError, match="inputs must be a list or tuple of arguments, got dict_values"):
        wp.launch(add, dim=2, inputs={"a": a, "n": 1}.values())
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    wp.launch(add, dim=2, inputs=(a, 1))
    with pytest.raises(wp.LaunchError, match=message):  # its signature is in the launch table now
        wp.launch(add, dim=2, inputs=(v for v in [a, 1]))
    np.testing.assert_array_equal(a.numpy(), [2.0, 3.0])


def test_a_typed_scalar_of_the_same_kind_converts_as_in_warp():
    """wp.int64(5) for an int parameter, wp.float64(0.5) for a float one: converted (Warp accepts them too);
    integers must fit, and a float for an integer or an integer for a float is refused."""

    @wp.kernel
    def combine(o: wp.array(dtype=float), n: int, x: float, b: wp.int8):
        o[0] = float(n) + x + float(b)

    o = wp.zeros(1)
    wp.launch(combine, dim=1, inputs=[o, wp.int64(5), wp.float64(1.5), wp.int32(-2)])
    assert o.numpy()[0] == 4.5
    wp.launch(combine, dim=1, inputs=[o, wp.uint8(7), wp.float16(0.25), wp.uint64(1)])
    assert o.numpy()[0] == 8.25
    with pytest.raises(wp.LaunchError, match="argument 'b' = uint8\\(200\\) does not fit in int8"):
        wp.launch(combine, dim=1, inputs=[o, 1, 1.0, wp.uint8(200)])
    with pytest.raises(wp.LaunchError, match="argument 'x' must be float32, got int32"):
        wp.launch(combine, dim=1, inputs=[o, 1, wp.int32(1), 1])
    assert o.numpy()[0] == 8.25
    wp.launch(combine, dim=1, inputs=[o, 0, wp.float64(1e300), 0])  # beyond float32: +inf, as a Python float
    assert o.numpy()[0] == np.inf


@wp.kernel
def _generic_with_concrete(grid: wp.uint64, s: wp.float64, v: typing.Any, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(grid) + s + wp.float64(v)


def test_a_generic_kernel_converts_python_numbers_for_its_concrete_parameters():
    """As a kernel without generic parameters does: a Python int for a uint64 id (``grid.id``), a float for a
    float64. Before, the generic path inferred int32 and float32 from the values and refused them."""
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(_generic_with_concrete, 1, inputs=[2**40, 0.5, 1, out])
    assert out.numpy()[0] == 2**40 + 1.5
    with pytest.raises(wp.LaunchError, match="argument 'grid' = 1.5 does not fit in uint64"):
        wp.launch(_generic_with_concrete, 1, inputs=[1.5, 0.5, 1, out])
    assert out.numpy()[0] == 2**40 + 1.5
