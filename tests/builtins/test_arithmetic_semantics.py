"""Integer shifts, float-to-integer conversions and the host's divisions and extrema: defined results,
the same in a scalar and a vectorized loop, folded or not, on the host and in a kernel."""

import math
from typing import Any

import numpy as np
import pytest

import brickwork as wp

BIG = wp.constant(3.0e9)
SHIFT = wp.constant(33)


@wp.kernel
def _shifts(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array2d(dtype=Any)):
    i = wp.tid()
    out[0, i] = a[i] << b[i]
    out[1, i] = a[i] >> b[i]


@wp.kernel
def _to_int(x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = out.dtype(x[i])


@wp.kernel
def _folded(out: wp.array(dtype=wp.int64)):
    out[0] = wp.int64(wp.int32(BIG))
    out[1] = wp.int64(wp.uint8(300.0))
    out[2] = wp.int64(wp.int32(3) << SHIFT)


def _expected_shifts(x: int, s: int, np_type) -> tuple[int, int]:
    """The count modulo the width the operand computes in: 32 bits, or 64 for 64-bit types."""
    bits = 64 if np.dtype(np_type).itemsize == 8 else 32
    s &= bits - 1
    wrap = np.iinfo(np_type).bits
    left = (x << s) & ((1 << wrap) - 1)
    if np.iinfo(np_type).min < 0 and left >= 1 << (wrap - 1):
        left -= 1 << wrap
    return left, x >> s


@pytest.mark.parametrize("np_type", [np.int8, np.uint8, np.int32, np.uint32, np.int64])
def test_shift_counts_past_the_width_wrap_modulo_the_width(np_type):
    info = np.iinfo(np_type)
    pairs = [(x, s) for x in (info.min, -3, 1, 3, info.max) if info.min <= x for s in (-1, 7, 8, 31, 32, 33, 63, 64, 65)
             if info.min <= s]
    xs, ss = (np.array(v, dtype=np_type) for v in zip(*pairs))
    expected = np.array([_expected_shifts(int(x), int(s), np_type) for x, s in pairs], dtype=np_type).T
    for repeat in (1, 4096):  # a few threads run scalar code, many the vectorized loop
        out = wp.zeros((2, len(pairs) * repeat), dtype=wp.dtype_from_numpy(np.dtype(np_type)))
        wp.launch(_shifts, dim=len(pairs) * repeat, inputs=[wp.array(np.tile(xs, repeat)), wp.array(np.tile(ss, repeat)),
                                                            out])
        np.testing.assert_array_equal(out.numpy(), np.tile(expected, repeat))
    t = wp.dtype_from_numpy(np.dtype(np_type))
    assert [int(wp.lshift(t(int(x)), t(int(s)))) for x, s in pairs] == expected[0].tolist()
    assert [int(wp.rshift(t(int(x)), t(int(s)))) for x, s in pairs] == expected[1].tolist()


SPECIALS = [np.nan, np.inf, -np.inf, -1.5, -0.5, 2.7, 300.0, -300.0, 70000.0, 3.0e9, -3.0e9, 1e19, 2e19, -1e19]


@pytest.mark.parametrize("src", [wp.float16, wp.float32, wp.float64])
@pytest.mark.parametrize("dst", [wp.int8, wp.uint8, wp.int16, wp.int32, wp.uint32, wp.int64, wp.uint64])
def test_float_to_int_truncates_and_saturates_nan_to_zero(src, dst):
    with np.errstate(all="ignore"):
        x = np.array(SPECIALS, dtype=np.dtype(src._np)).astype(np.float64)
    info = np.iinfo(np.dtype(dst._np))
    expected = [0 if np.isnan(v) else info.max if v >= info.max + 1 else info.min if v <= info.min - 1 else int(v)
                for v in x]
    for repeat in (1, 1000):
        out = wp.zeros(len(x) * repeat, dtype=dst)
        wp.launch(_to_int, dim=len(x) * repeat, inputs=[wp.array(np.tile(x, repeat), dtype=src), out])
        assert [int(v) for v in out.numpy()] == expected * repeat


def test_folded_conversions_and_shifts_equal_run_time_ones():
    out = wp.zeros(3, dtype=wp.int64)
    wp.launch(_folded, dim=1, inputs=[out])
    assert out.numpy().tolist() == [2**31 - 1, 255, 6]


@pytest.mark.parametrize("op", [wp.div, wp.mod, wp.floordiv])
def test_host_integer_division_by_zero_is_zero_as_in_a_kernel(op):
    assert op(7, 0) == 0
    assert op(wp.uint8(7), wp.uint8(0)) == wp.uint8(0)


def test_host_integer_division_of_the_minimum_by_minus_one_wraps():
    assert wp.div(-2**31, -1) == -2**31
    assert wp.floordiv(-2**31, -1) == -2**31
    assert wp.mod(-2**31, -1) == 0


def test_host_min_max_clamp_of_nan_give_the_other_operand():
    nan = float("nan")
    assert wp.min(nan, 1.0) == 1.0 and wp.min(1.0, nan) == 1.0
    assert wp.max(nan, 1.0) == 1.0 and wp.max(1.0, nan) == 1.0
    assert wp.clamp(nan, 0.0, 1.0) == 0.0
    assert wp.min(wp.vec2(nan, 2.0), wp.vec2(1.0, nan)) == wp.vec2(1.0, 2.0)


@wp.kernel
def clamp_zeros(out: wp.array(dtype=float), vout: wp.array(dtype=wp.vec3)):
    out[0] = wp.clamp(-0.0, 0.0, 0.0)
    out[1] = wp.clamp(-0.0, -0.0, 0.0)
    out[2] = wp.clamp(0.0, -0.0, -0.0)
    out[3] = wp.clamp(wp.nan, 1.0, 2.0)
    vout[0] = wp.clamp(wp.vec3(-0.0, 0.0, wp.nan), wp.vec3(0.0, -0.0, -1.0), wp.vec3(0.0, -0.0, 1.0))


def test_clamp_between_zeros_of_two_signs_is_warps_in_kernels_and_on_the_host():
    """clamp(x, lo, hi) = min(max(lo, x), hi) with IEEE's NaN rule, as Warp 1.19: the sign of a zero result
    follows lo or hi (clamp(-0.0, 0.0, 0.0) is 0.0, clamp(0.0, -0.0, -0.0) is -0.0)."""
    out, vout = wp.zeros(4, dtype=float), wp.zeros(1, dtype=wp.vec3)
    wp.launch(clamp_zeros, 1, inputs=[out, vout])
    signs = np.signbit(out.numpy()[:3]).tolist()
    assert signs == [False, True, True] and out.numpy()[3] == 1.0
    assert np.signbit(vout.numpy()[0]).tolist() == [False, True, True] and vout.numpy()[0, 2] == -1.0
    host = [wp.clamp(-0.0, 0.0, 0.0), wp.clamp(-0.0, -0.0, 0.0), wp.clamp(0.0, -0.0, -0.0)]
    assert [math.copysign(1.0, float(v)) < 0 for v in host] == [False, True, True]
    typed = wp.clamp(wp.float32(-0.0), wp.float32(0.0), wp.float32(0.0))
    assert not math.copysign(1.0, float(typed)) < 0


@wp.kernel
def _abs_of_the_minimum(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    x = wp.abs(a[0])
    out[0] = x
    out[1] = wp.where(x < a.dtype(0), a.dtype(1), a.dtype(0))
    out[2] = x // a.dtype(7)
    out[3] = wp.max(a.dtype(0), x)


@pytest.mark.parametrize("T", [wp.int8, wp.int16, wp.int32, wp.int64])
def test_abs_of_the_most_negative_integer_wraps_and_stays_negative(T):
    """abs(INT_MIN) wraps to itself, as the documented arithmetic does; it was a plain negation (undefined),
    after which g++ took the result for non-negative: x < 0 was false and x // 7 positive."""
    low = int(np.iinfo(T._np).min)
    out = wp.zeros(4, dtype=T)
    wp.launch(_abs_of_the_minimum, dim=1, inputs=[wp.array([low], dtype=T), out])
    assert out.numpy().tolist() == [low, 1, low // 7, 0]
