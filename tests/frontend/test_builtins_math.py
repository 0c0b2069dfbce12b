"""Scalar math builtins against numpy, for float32, float64 and float16, and integer builtins.

One generic kernel evaluates every scalar builtin the kernel language promises (min max abs sign
clamp floor ceil round trunc frac sqrt cbrt exp exp2 log log2 log10 pow sin cos tan asin acos atan
atan2 sinh cosh tanh isnan isinf isfinite; see docs/kernel_language.md) on a set of inputs that
includes zeros, infinities, NaN and subnormals; one instance per float type.
Where Warp and numpy differ, brickwork follows Warp (checked against Warp 1.19 on the CPU):
``sign(0) == 1``, ``sign(nan) == 1``, ``round`` rounds half away from zero, ``frac(x) = x - trunc(x)``,
``min``/``max`` ignore a NaN operand (numpy's ``fmin``/``fmax``), ``%`` on floats is ``fmod``.
"""

import math
from typing import Any

import numpy as np
import pytest

import brickwork as wp

FUNCS = ("sqrt cbrt exp exp2 log log2 log10 pow sin cos tan asin acos atan atan2 sinh cosh tanh floor ceil round "
         "trunc frac sign min max clamp isnan isinf isfinite dtype_ctor mod floordiv mul_add div abs").split()


@wp.kernel
def scalar_math(x: wp.array(dtype=Any), y: wp.array(dtype=Any), out: wp.array2d(dtype=Any)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    T = type(a)
    out[0, i] = wp.sqrt(a)
    out[1, i] = wp.cbrt(a)
    out[2, i] = wp.exp(a)
    out[3, i] = wp.exp2(a)
    out[4, i] = wp.log(a)
    out[5, i] = wp.log2(a)
    out[6, i] = wp.log10(a)
    out[7, i] = wp.pow(a, b)
    out[8, i] = wp.sin(a)
    out[9, i] = wp.cos(a)
    out[10, i] = wp.tan(a)
    out[11, i] = wp.asin(a)
    out[12, i] = wp.acos(a)
    out[13, i] = wp.atan(a)
    out[14, i] = wp.atan2(a, b)
    out[15, i] = wp.sinh(a)
    out[16, i] = wp.cosh(a)
    out[17, i] = wp.tanh(a)
    out[18, i] = wp.floor(a)
    out[19, i] = wp.ceil(a)
    out[20, i] = wp.round(a)
    out[21, i] = wp.trunc(a)
    out[22, i] = wp.frac(a)
    out[23, i] = wp.sign(a)
    out[24, i] = wp.min(a, b)
    out[25, i] = wp.max(a, b)
    out[26, i] = wp.clamp(a, T(-0.5), T(0.5))
    out[27, i] = T(wp.isnan(a))
    out[28, i] = T(wp.isinf(a))
    out[29, i] = T(wp.isfinite(a))
    out[30, i] = x.dtype(2.5) * a
    out[31, i] = a % b
    out[32, i] = a // b
    out[33, i] = a * b + a
    out[34, i] = a / b
    out[35, i] = abs(a)


def _round_half_away(a):
    return np.copysign(np.floor(np.abs(a.astype(np.float64)) + 0.5), a).astype(a.dtype)


def reference(a, b):
    """numpy results in the input's dtype (float16: computed in float32, rounded, like the kernel)."""
    t = a.dtype
    wide = np.float32 if t == np.float16 else t
    aw, bw = a.astype(wide), b.astype(wide)
    unit = np.clip(np.nan_to_num(aw, nan=-1.0), -1, 1)  # asin/acos clamp to [-1, 1], NaN as -1 (as Warp)
    with np.errstate(all="ignore"):
        rows = [
            np.sqrt(aw), np.cbrt(aw), np.exp(aw), np.exp2(aw), np.log(aw), np.log2(aw), np.log10(aw),
            np.power(aw, bw), np.sin(aw), np.cos(aw), np.tan(aw), np.arcsin(unit), np.arccos(unit), np.arctan(aw),
            np.arctan2(aw, bw), np.sinh(aw), np.cosh(aw), np.tanh(aw),
            np.floor(a), np.ceil(a), _round_half_away(a), np.trunc(a), a - np.trunc(a),
            np.where(a < 0, -1, 1), np.fmin(a, b), np.fmax(a, b), np.fmin(np.fmax(a, t.type(-0.5)), t.type(0.5)),
            np.isnan(a), np.isinf(a), np.isfinite(a), t.type(2.5) * a, np.fmod(a, b), np.floor(a / b),
            a * b + a, a / b, np.abs(a),
        ]
    return np.stack([np.asarray(r).astype(t) for r in rows])


EXACT = {"sqrt", "floor", "ceil", "round", "trunc", "frac", "sign", "min", "max", "clamp", "isnan", "isinf",
         "isfinite", "dtype_ctor", "mod", "floordiv", "mul_add", "div", "abs"}


def _inputs(np_t):
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 0.49999997, 1e-3, 65504.0, np.inf, -np.inf, np.nan]
    if np_t != np.float16:
        special += [1e-40 if np_t == np.float32 else 1e-310, 3.0e38, -1.5e-7]
    rng = np.random.default_rng(11)
    x = np.concatenate([special, rng.standard_normal(200) * 4, rng.uniform(-1, 1, 50)]).astype(np_t)
    y = np.concatenate([np.roll(special, 3), rng.standard_normal(200) * 3, rng.uniform(0.1, 3, 50)]).astype(np_t)
    return x, y


@pytest.mark.parametrize("dtype, np_t, rtol", [(wp.float32, np.float32, 2e-6), (wp.float64, np.float64, 1e-14),
                                               (wp.float16, np.float16, 1e-3)])
def test_scalar_math_matches_numpy(dtype, np_t, rtol):
    x, y = _inputs(np_t)
    out = wp.zeros((len(FUNCS), len(x)), dtype=dtype)
    wp.launch(scalar_math, dim=len(x), inputs=[wp.array(x, dtype=dtype), wp.array(y, dtype=dtype), out])
    got, expected = out.numpy(), reference(x, y)
    for k, name in enumerate(FUNCS):
        if name in EXACT:
            np.testing.assert_array_equal(got[k], expected[k], err_msg=f"{name} ({dtype.__name__})")
        else:
            tiny = np.finfo(np_t).tiny
            np.testing.assert_allclose(got[k], expected[k], rtol=rtol, atol=tiny, equal_nan=True,
                                       err_msg=f"{name} ({dtype.__name__})")


def test_warp_specific_values():
    """The few places where Warp (and so brickwork) differs from numpy, spelled out."""
    x = np.array([0.0, -0.0, np.nan, 2.5, -2.5, -2.25, 3.5], dtype=np.float32)
    y = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0], dtype=np.float32)
    out = wp.zeros((len(FUNCS), len(x)), dtype=wp.float32)
    wp.launch(scalar_math, dim=len(x), inputs=[wp.array(x), wp.array(y), out])
    got = dict(zip(FUNCS, out.numpy()))
    assert got["sign"].tolist() == [1, 1, 1, 1, -1, -1, 1]
    assert got["round"].tolist() == [0, 0, pytest.approx(np.nan, nan_ok=True), 3, -3, -2, 4]
    assert got["frac"][5] == -0.25
    assert got["min"][2] == 1.0 and got["max"][2] == 1.0  # a NaN operand is ignored
    assert got["clamp"][2] == -0.5
    assert got["mod"][4] == -0.5 and got["floordiv"][4] == -2.0  # fmod, floor(a / b)


# -- integers ---------------------------------------------------------------------------------------


@wp.kernel
def int_math(x: wp.array(dtype=Any), y: wp.array(dtype=Any), out: wp.array2d(dtype=Any)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    T = type(a)
    out[0, i] = wp.abs(a)
    out[1, i] = wp.sign(a)
    out[2, i] = wp.min(a, b)
    out[3, i] = wp.max(a, b)
    out[4, i] = wp.clamp(a, T(-5), T(5))
    out[5, i] = a / b
    out[6, i] = a // b
    out[7, i] = a % b
    out[8, i] = T(wp.select(a < b, a, b))  # select(cond, if_false, if_true)
    out[9, i] = wp.where(a < b, a, b)
    out[10, i] = T(wp.isfinite(a)) + T(wp.isnan(a)) + T(wp.isinf(a))


@pytest.mark.parametrize("dtype, np_t", [(wp.int32, np.int32), (wp.int64, np.int64), (wp.int8, np.int8)])
def test_integer_builtins(dtype, np_t):
    rng = np.random.default_rng(5)
    info = np.iinfo(np_t)
    x = np.concatenate([[0, -7, 7, -7, 7, info.min, info.max, 3, -1], rng.integers(-50, 50, 40)]).astype(np_t)
    y = np.concatenate([[3, 2, 2, -2, -2, -1, 1, 0, 0], rng.integers(-9, 9, 40)]).astype(np_t)
    out = wp.zeros((11, len(x)), dtype=dtype)
    wp.launch(int_math, dim=len(x), inputs=[wp.array(x, dtype=dtype), wp.array(y, dtype=dtype), out])
    got = out.numpy()
    xs, ys = x.astype(object), y.astype(object)  # Python ints: exact
    trunc_div = [0 if b == 0 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) for a, b in zip(xs, ys)]
    expected = [
        np.abs(x),  # abs(INT_MIN) wraps to INT_MIN, as numpy
        np.where(x < 0, -1, 1),
        np.minimum(x, y), np.maximum(x, y), np.clip(x, -5, 5),
        trunc_div,  # C: truncation towards zero; x / 0 == 0
        [0 if b == 0 else a // b for a, b in zip(xs, ys)],  # floor; x // 0 == 0
        [0 if b == 0 else a - b * t for a, b, t in zip(xs, ys, trunc_div)],  # C remainder; x % 0 == 0
        np.where(x < y, y, x), np.where(x < y, x, y), np.ones_like(x),
    ]
    span = 1 << info.bits  # wrap Python ints into the type's range, as two's complement does
    expected = np.array([[(int(v) - int(info.min)) % span + int(info.min) for v in e] for e in expected], np_t)
    np.testing.assert_array_equal(got, expected)
    assert got[5, 5] == info.min and got[6, 5] == info.min and got[7, 5] == 0  # INT_MIN / -1 wraps, no trap


def test_integer_division_semantics_of_warp():
    x = np.array([-7, 7, -7, 7], dtype=np.int32)
    y = np.array([2, 2, -2, -2], dtype=np.int32)
    out = wp.zeros((11, 4), dtype=wp.int32)
    wp.launch(int_math, dim=4, inputs=[wp.array(x), wp.array(y), out])
    assert out.numpy()[5].tolist() == [-3, 3, 3, -3]  # '/': C truncation
    assert out.numpy()[6].tolist() == [-4, 3, 3, -4]  # '//': floor
    assert out.numpy()[7].tolist() == [-1, 1, -1, 1]  # '%': C remainder


@wp.kernel
def python_builtins(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    a = x[0]
    out[0] = abs(a)
    out[1] = min(a, 1.0)
    out[2] = max(a, 1.0)
    out[3] = round(a)  # the kernel builtin: half away from zero
    out[4] = pow(abs(a), 2.0)
    out[5] = float(int(a))
    out[6] = float(bool(a))
    out[7] = float(len(x))
    out[8] = math.sqrt(abs(a))
    out[9] = math.floor(a)
    out[10] = math.ceil(a)
    out[11] = math.sin(a) + math.cos(a)
    out[12] = math.exp(a) + math.log(abs(a))
    out[13] = math.pi
    out[14] = a ** 2.0


def test_python_builtins_and_math_module_in_kernels():
    out = wp.zeros(15)
    wp.launch(python_builtins, dim=1, inputs=[wp.array([-2.5]), out])
    a = np.float32(-2.5)
    expected = [2.5, -2.5, 1.0, -3.0, 6.25, -2.0, 1.0, 1.0, np.sqrt(np.float32(2.5)), -3.0, -2.0,
                np.sin(a) + np.cos(a), np.exp(a) + np.log(np.float32(2.5)), np.float32(math.pi), 6.25]
    np.testing.assert_allclose(out.numpy(), np.array(expected, np.float32), rtol=1e-6)
