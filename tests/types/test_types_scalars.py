"""Scalar types: host values round like numpy, and every scalar type computes in kernels like numpy.

(This folder has no ``__init__.py`` on purpose: a package named ``types`` would shadow the
standard library's. Its test files carry a ``test_types_`` prefix to keep module names unique.)
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp

SCALARS = [
    (wp.bool, np.bool_), (wp.int8, np.int8), (wp.int16, np.int16), (wp.int32, np.int32), (wp.int64, np.int64),
    (wp.uint8, np.uint8), (wp.uint16, np.uint16), (wp.uint32, np.uint32), (wp.uint64, np.uint64),
    (wp.float16, np.float16), (wp.float32, np.float32), (wp.float64, np.float64),
]


@pytest.mark.parametrize("t, np_t", SCALARS, ids=[t.__name__ for t, _ in SCALARS])
def test_scalar_type_names_and_numpy_dtypes(t, np_t):
    assert t.__name__ == np.dtype(np_t).name
    a = wp.zeros(3, dtype=t)
    assert a.dtype is t
    assert a.numpy().dtype == np.dtype(np_t)
    assert wp.array(np.zeros(2, dtype=np_t)).dtype is t  # dtype inferred from numpy data


def test_aliases():
    assert wp.half is wp.float16
    assert wp.bool.__name__ == "bool"
    # Python types in annotations: int is int32, float is float32, bool is bool
    assert wp.array(dtype=int).dtype is wp.int32
    assert wp.array(dtype=float).dtype is wp.float32
    assert wp.array(dtype=bool).dtype is wp.bool


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("t, np_t", [(wp.float16, np.float16), (wp.float32, np.float32), (wp.float64, np.float64)])
@pytest.mark.parametrize("x", [0.1, -1.0 / 3.0, 65504.0, 70000.0, 1e-8, -0.0, float("inf")])
def test_float_host_values_round_like_numpy(t, np_t, x):
    value = t(x).value
    assert isinstance(value, float)
    assert np.array(value, dtype=np_t).tobytes() == np.array(x, dtype=np_t).tobytes()
    assert float(t(x)) == value


def test_float_host_value_nan():
    assert np.isnan(wp.float16(float("nan")).value)


@pytest.mark.parametrize("t", [wp.int8, wp.int16, wp.int32, wp.int64, wp.uint8, wp.uint16, wp.uint32, wp.uint64])
def test_integer_host_values_and_range(t):
    info = np.iinfo(t._np)
    assert t(info.max).value == info.max
    assert t(info.min).value == info.min
    with pytest.raises(TypeError, match=rf"{t.__name__}\(\) takes an integer, got float 7.9"):
        t(7.9)  # refused, as Warp: a float is not truncated (int(7.9) is)
    # Out of range wraps around (two's complement), as in Warp and C: uint8(-1) == 255.
    assert t(int(info.max) + 1).value == info.min
    assert t(int(info.min) - 1).value == info.max
    assert t(int(info.max) + 1 + 5 * (int(info.max) - int(info.min) + 1)).value == info.min
    assert [10, 20, 30][t(1)] == 20  # usable as an index
    assert t(True).value == 1 and t(np.int64(5)).value == 5 and t(wp.int64(6)).value == 6
    for not_an_int in (-7.0, np.float32(2.0), wp.float32(2.0), "5", None):
        with pytest.raises(TypeError, match="takes an integer"):
            t(not_an_int)


def test_scalar_repr_equality_and_conversions():
    assert repr(wp.float32(1.5)) == "float32(1.5)"
    assert repr(wp.int8(-3)) == "int8(-3)"
    assert wp.float32(2.5) == 2.5
    assert wp.float32(2.5) == wp.float64(2.5)
    assert hash(wp.float32(2.5)) == hash(wp.float64(2.5)) == hash(2.5)  # equal values hash alike
    assert int(wp.float64(3.9)) == 3
    assert bool(wp.int32(0)) is False and bool(wp.bool(True)) is True
    assert wp.float32(wp.float64(0.1)).value == float(np.float32(0.1))
    with pytest.raises(TypeError, match="cannot be used as an index"):
        [1, 2][wp.float32(1.0)]
    # numpy sees the types' dtypes, not the values' (as Warp): an explicit dtype converts
    assert np.asarray(wp.float16(1.5)).dtype == object
    assert np.array([wp.float16(1.5)], dtype=wp.float16).dtype == np.float16


# -- every scalar type in one kernel ---------------------------------------------------------------


@wp.kernel
def every_scalar(b: wp.array(dtype=wp.bool), i8: wp.array(dtype=wp.int8), i16: wp.array(dtype=wp.int16),
                 i32: wp.array(dtype=wp.int32), i64: wp.array(dtype=wp.int64), u8: wp.array(dtype=wp.uint8),
                 u16: wp.array(dtype=wp.uint16), u32: wp.array(dtype=wp.uint32), u64: wp.array(dtype=wp.uint64),
                 f16: wp.array(dtype=wp.float16), f32: wp.array(dtype=wp.float32),
                 f64: wp.array(dtype=wp.float64), casts: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    b[i] = not b[i]
    i8[i] = i8[i] * wp.int8(3) + wp.int8(1)
    i16[i] = i16[i] * wp.int16(3) + wp.int16(1)
    i32[i] = i32[i] * 3 + 1
    i64[i] = i64[i] * wp.int64(3) + wp.int64(1)
    u8[i] = u8[i] * wp.uint8(3) + wp.uint8(1)
    u16[i] = u16[i] * wp.uint16(3) + wp.uint16(1)
    u32[i] = u32[i] * wp.uint32(3) + wp.uint32(1)
    u64[i] = u64[i] * wp.uint64(3) + wp.uint64(1)
    f16[i] = f16[i] * wp.float16(3.0) + wp.float16(1.0)
    f32[i] = f32[i] * 3.0 + 1.0
    f64[i] = f64[i] * wp.float64(3.0) + wp.float64(1.0)
    # casts by constructor, read back through float64
    casts[i, 0] = wp.float64(wp.int32(f32[i]))  # float -> int truncates
    casts[i, 1] = wp.float64(wp.uint8(i32[i]))  # int -> narrower unsigned wraps
    casts[i, 2] = wp.float64(wp.float16(f64[i]))  # rounds to half
    casts[i, 3] = wp.float64(wp.bool(i32[i]))
    casts[i, 4] = wp.float64(wp.float32(i64[i]))
    casts[i, 5] = wp.float64(wp.int8(i16[i]))


def test_every_scalar_type_computes_like_numpy():
    rng = np.random.default_rng(1)
    n = 64
    data = {}
    for t, np_t in SCALARS:
        if np_t is np.bool_:
            data[t] = rng.integers(0, 2, n).astype(np.bool_)
        elif np.issubdtype(np_t, np.integer):
            info = np.iinfo(np_t)
            data[t] = rng.integers(info.min, info.max, n, dtype=np_t, endpoint=True)
        else:
            data[t] = (rng.standard_normal(n) * 100).astype(np_t)
    arrays = [wp.array(data[t].copy(), dtype=t) for t, _ in SCALARS]
    casts = wp.zeros((n, 6), dtype=wp.float64)
    wp.launch(every_scalar, dim=n, inputs=[*arrays, casts])

    with np.errstate(over="ignore"):
        for (t, np_t), arr in zip(SCALARS, arrays):
            x = data[t]
            expected = ~x if np_t is np.bool_ else x * np_t(3) + np_t(1)  # float16: rounded at each step
            np.testing.assert_array_equal(arr.numpy(), expected, err_msg=t.__name__)
            assert arr.numpy().dtype == np.dtype(np_t)

        f32, i32, f64, i64, i16 = (data[t] for t in (wp.float32, wp.int32, wp.float64, wp.int64, wp.int16))
        f32n = f32 * np.float32(3) + np.float32(1)
        i32n = i32 * np.int32(3) + np.int32(1)
        f64n = f64 * 3.0 + 1.0
        i64n = i64 * np.int64(3) + np.int64(1)
        i16n = i16 * np.int16(3) + np.int16(1)
        expected = np.stack([
            np.trunc(f32n).astype(np.float64), i32n.astype(np.uint8).astype(np.float64),
            f64n.astype(np.float16).astype(np.float64), (i32n != 0).astype(np.float64),
            i64n.astype(np.float32).astype(np.float64), i16n.astype(np.int8).astype(np.float64),
        ], axis=1)
    np.testing.assert_array_equal(casts.numpy(), expected)


# -- float16: every operation rounds to half, as numpy does ----------------------------------------


@wp.kernel
def half_fma(a: wp.array(dtype=wp.float16), b: wp.array(dtype=wp.float16), c: wp.array(dtype=wp.float16),
             out: wp.array2d(dtype=wp.float16)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    z = c[i]
    out[0, i] = x * y + z
    out[1, i] = x - y / z
    out[2, i] = -x
    out[3, i] = wp.sqrt(wp.abs(x))
    out[4, i] = wp.min(x, y)
    out[5, i] = wp.float16(wp.float32(x) * wp.float32(y))  # float32 product, rounded once


def _half_reference(a, b, c):
    with np.errstate(all="ignore"):
        return np.stack([
            np.float16(a * b) + c,  # numpy float16 rounds each step
            a - b / c,
            -a,
            np.sqrt(np.abs(a)),
            np.fmin(a, b),
            (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16),
        ])


def _run_half(a, b, c):
    out = wp.zeros((6, len(a)), dtype=wp.float16)
    wp.launch(half_fma, dim=len(a), inputs=[wp.array(a, dtype=wp.float16), wp.array(b, dtype=wp.float16),
                                            wp.array(c, dtype=wp.float16), out])
    return out.numpy()


def test_float16_rounds_every_operation_like_numpy():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**16, size=(3, 20000), dtype=np.uint16)
    a, b, c = bits.view(np.float16)  # every kind of half: subnormals, inf, nan, large
    got = _run_half(a, b, c)
    expected = _half_reference(a, b, c)
    np.testing.assert_array_equal(got, expected)  # NaN == NaN here; values bit for bit otherwise
    finite = np.isfinite(expected)
    assert np.array_equal(got.view(np.uint16)[finite], expected.view(np.uint16)[finite])  # signs of zeros


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 2**16 - 1)] * 3), min_size=1, max_size=16))
def test_float16_property(values):
    a, b, c = (np.array(v, dtype=np.uint16).view(np.float16) for v in zip(*values))
    np.testing.assert_array_equal(_run_half(a, b, c), _half_reference(a, b, c))


def _conversion_kernel():
    """A fresh kernel object per call, so that each compiler setting builds its own instance."""

    @wp.kernel
    def convert(h: wp.array(dtype=wp.float16), f: wp.array(dtype=wp.float32), to_float: wp.array(dtype=wp.float32),
                to_half: wp.array(dtype=wp.float16), fma: wp.array(dtype=wp.float16)):
        i = wp.tid()
        to_float[i] = wp.float32(h[i])
        to_half[i] = wp.float16(f[i])
        fma[i] = h[i] * h[(i + 1) % 65536] + h[(i + 7) % 65536]

    return convert


@pytest.mark.parametrize("flags", ["", "-DBW_SOFT_HALF"], ids=["native", "software"])
def test_half_conversions_exhaustive(flags):
    """Every half value to float and back, and float32 values at and next to every rounding tie, on
    both the compiler's _Float16 path and the portable software path (used where _Float16 is missing)."""
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    wide = halves.astype(np.float32)
    finite = np.isfinite(halves[:-1]) & np.isfinite(halves[1:])
    with np.errstate(invalid="ignore"):
        ties = ((wide[:-1].astype(np.float64) + wide[1:]) / 2)[finite].astype(np.float32)  # exact midpoints
    noise = np.random.default_rng(3).integers(0, 2**32, 65536, dtype=np.uint32).view(np.float32)
    floats = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)), noise])
    n = len(floats)
    tiled = np.resize(halves, n)
    outs = [wp.zeros(n), wp.zeros(n, dtype=wp.float16), wp.zeros(n, dtype=wp.float16)]
    with wp.config.override(extra_cflags=flags):
        wp.launch(_conversion_kernel(), dim=n, inputs=[wp.array(tiled), wp.array(floats), *outs])
    i = np.arange(n)
    with np.errstate(all="ignore"):
        fma = np.float16(tiled * halves[(i + 1) % 65536]) + halves[(i + 7) % 65536]
        expected = [tiled.astype(np.float32), floats.astype(np.float16), fma]
    for got, exp in zip((o.numpy() for o in outs), expected):
        nan = np.isnan(exp)
        assert np.array_equal(np.isnan(got), nan)
        assert got[~nan].tobytes() == exp[~nan].tobytes()  # bit for bit, signed zeros and subnormals included


def test_scalars_compare_by_value_without_truncation():
    one, two = wp.int8(1), wp.int8(2)
    assert one != 1.5 and one == 1.0 and one == wp.float32(1.0) and one != wp.float32(1.5)
    assert one < 1.5 <= two and one <= 1.0 and two >= 2.0 and one < float("inf") and one < np.float16(1.5)
    assert wp.float32(0.5) < wp.int32(1) and not (wp.uint8(3) > 3)


def test_equal_scalars_hash_alike():
    assert hash(wp.int8(1)) == hash(1.0) and len({wp.int8(1), 1.0}) == 1 and len({wp.int8(1), 1.5}) == 2


def test_a_float_compared_with_an_integer_past_its_range_overflows():
    for t in (wp.float16, wp.float32, wp.float64):
        with pytest.raises(OverflowError):
            t(1.0) < 2**1024  # noqa: B015 - the comparison is what raises
        with pytest.raises(OverflowError):
            t(1.0) == 2**1024  # noqa: B015
