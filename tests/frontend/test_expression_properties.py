"""Property tests of expression semantics: random inputs through already-compiled kernels, bit for bit
against numpy (with Warp's rules where numpy differs: C truncation for integer '/', C remainder for
integer '%', floor for '//', fmod for float '%', floor(a / b) for float '//', NaN-ignoring min/max).
"""

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp

FLOAT_OPS = "add sub mul div neg abs min max clamp floor ceil trunc mod floordiv lt le gt ge eq ne select".split()
INT_OPS = ("add sub mul div floordiv mod neg abs sign min max clamp lt le gt ge eq ne and or xor invert "
           "lshift rshift logic").split()


@wp.kernel
def float_ops(x: wp.array(dtype=Any), y: wp.array(dtype=Any), z: wp.array(dtype=Any), out: wp.array2d(dtype=Any)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    c = z[i]
    T = type(a)
    out[0, i] = a + b
    out[1, i] = a - b
    out[2, i] = a * b
    out[3, i] = a / b
    out[4, i] = -a
    out[5, i] = wp.abs(a)
    out[6, i] = wp.min(a, b)
    out[7, i] = wp.max(a, b)
    out[8, i] = wp.clamp(a, b, c)
    out[9, i] = wp.floor(a)
    out[10, i] = wp.ceil(a)
    out[11, i] = wp.trunc(a)
    out[12, i] = a % b
    out[13, i] = a // b
    out[14, i] = T(a < b)
    out[15, i] = T(a <= b)
    out[16, i] = T(a > b)
    out[17, i] = T(a >= b)
    out[18, i] = T(a == b)
    out[19, i] = T(a != b)
    out[20, i] = c if a < b < c else T(-1.0)


def float_reference(a, b, c):
    t = a.dtype.type
    with np.errstate(all="ignore"):
        rows = [a + b, a - b, a * b, a / b, -a, np.abs(a), np.fmin(a, b), np.fmax(a, b), np.fmin(np.fmax(a, b), c),
                np.floor(a), np.ceil(a), np.trunc(a), np.fmod(a, b), np.floor(a / b),
                a < b, a <= b, a > b, a >= b, a == b, a != b, np.where((a < b) & (b < c), c, t(-1.0))]
    return np.stack([np.asarray(r).astype(a.dtype) for r in rows])


def run_float(a, b, c, dtype):
    out = wp.zeros((len(FLOAT_OPS), len(a)), dtype=dtype)
    wp.launch(float_ops, dim=len(a), inputs=[wp.array(a, dtype=dtype), wp.array(b, dtype=dtype),
                                             wp.array(c, dtype=dtype), out])
    return out.numpy()


def assert_same_floats(got, expected, names):
    for row, name in enumerate(names):
        g, e = got[row], expected[row]
        same = (g == e) | (np.isnan(g) & np.isnan(e))
        assert same.all(), f"{name}: got {g[~same]}, expected {e[~same]}"
        zero = e == 0  # the sign of a zero result is part of the semantics too
        assert (np.signbit(g[zero]) == np.signbit(e[zero])).all() or name in ("min", "max", "clamp"), name


triples32 = st.lists(st.tuples(*[st.floats(width=32)] * 3), min_size=1, max_size=32)
triples64 = st.lists(st.tuples(*[st.floats()] * 3), min_size=1, max_size=32)


@settings(max_examples=150, deadline=None)
@given(triples32)
def test_float32_expressions(values):
    a, b, c = (np.array(v, dtype=np.float32) for v in zip(*values))
    assert_same_floats(run_float(a, b, c, wp.float32), float_reference(a, b, c), FLOAT_OPS)


@settings(max_examples=100, deadline=None)
@given(triples64)
def test_float64_expressions(values):
    a, b, c = (np.array(v, dtype=np.float64) for v in zip(*values))
    assert_same_floats(run_float(a, b, c, wp.float64), float_reference(a, b, c), FLOAT_OPS)


# -- int32 ---------------------------------------------------------------------------------------


@wp.kernel
def int_ops(x: wp.array(dtype=wp.int32), y: wp.array(dtype=wp.int32), z: wp.array(dtype=wp.int32),
            out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    c = z[i]
    s = c & 31
    out[0, i] = a + b
    out[1, i] = a - b
    out[2, i] = a * b
    out[3, i] = a / b
    out[4, i] = a // b
    out[5, i] = a % b
    out[6, i] = -a
    out[7, i] = wp.abs(a)
    out[8, i] = wp.sign(a)
    out[9, i] = wp.min(a, b)
    out[10, i] = wp.max(a, b)
    out[11, i] = wp.clamp(a, b, c)
    out[12, i] = int(a < b)
    out[13, i] = int(a <= b)
    out[14, i] = int(a > b)
    out[15, i] = int(a >= b)
    out[16, i] = int(a == b)
    out[17, i] = int(a != b)
    out[18, i] = a & b
    out[19, i] = a | b
    out[20, i] = a ^ b
    out[21, i] = ~a
    out[22, i] = a << s
    out[23, i] = a >> s
    out[24, i] = int((a > 0 and b > 0) or not c)


def int_reference(a, b, c):
    a64, b64, c64 = (v.astype(np.int64) for v in (a, b, c))
    safe_b = np.where(b64 == 0, 1, b64)
    trunc = np.where(b64 == 0, 0, np.sign(a64) * np.sign(safe_b) * (np.abs(a64) // np.abs(safe_b)))
    floor = np.where(b64 == 0, 0, a64 // safe_b)
    rem = np.where(b64 == 0, 0, a64 - safe_b * trunc)
    s = c64 & 31
    rows = [a64 + b64, a64 - b64, a64 * b64, trunc, floor, rem, -a64, np.abs(a64), np.where(a64 < 0, -1, 1),
            np.minimum(a64, b64), np.maximum(a64, b64), np.minimum(np.maximum(a64, b64), c64),
            a64 < b64, a64 <= b64, a64 > b64, a64 >= b64, a64 == b64, a64 != b64, a64 & b64, a64 | b64, a64 ^ b64,
            ~a64, (a64 << s) & 0xFFFFFFFF, a >> s.astype(np.int32), ((a64 > 0) & (b64 > 0)) | (c64 == 0)]
    return np.stack([(np.asarray(r).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32) for r in rows])


int32s = st.integers(-2**31, 2**31 - 1)
small = st.integers(-20, 20)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.one_of(int32s, small), st.one_of(int32s, small, st.sampled_from([0, -1])),
                          st.one_of(int32s, small)), min_size=1, max_size=32))
def test_int32_expressions(values):
    a, b, c = (np.array(v, dtype=np.int32) for v in zip(*values))
    out = wp.zeros((len(INT_OPS), len(a)), dtype=wp.int32)
    wp.launch(int_ops, dim=len(a), inputs=[wp.array(a), wp.array(b), wp.array(c), out])
    expected = int_reference(a, b, c)
    for row, name in enumerate(INT_OPS):
        assert np.array_equal(out.numpy()[row], expected[row]), (name, a, b, c, out.numpy()[row], expected[row])


# -- conversions ---------------------------------------------------------------------------------


@wp.kernel
def conversions(f: wp.array(dtype=wp.float32), n: wp.array(dtype=wp.int32), d: wp.array(dtype=wp.float64),
                to_int: wp.array(dtype=wp.int32), to_float: wp.array(dtype=wp.float32),
                narrowed: wp.array(dtype=wp.float32), widened: wp.array(dtype=wp.float64),
                to_half: wp.array(dtype=wp.float16)):
    i = wp.tid()
    to_int[i] = int(f[i])
    to_float[i] = float(n[i])
    narrowed[i] = wp.float32(d[i])
    widened[i] = wp.float64(f[i])
    to_half[i] = wp.float16(f[i])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-2.0**31 + 128, 2.0**31 - 128, width=32), int32s, st.floats()),
                min_size=1, max_size=32))
def test_conversions(values):
    f, n, d = zip(*values)
    f, n, d = np.array(f, np.float32), np.array(n, np.int32), np.array(d, np.float64)
    outs = [wp.zeros(len(f), dtype=t) for t in (wp.int32, wp.float32, wp.float32, wp.float64, wp.float16)]
    wp.launch(conversions, dim=len(f), inputs=[wp.array(f), wp.array(n), wp.array(d), *outs])
    with np.errstate(all="ignore"):
        expected = [np.trunc(f).astype(np.int32), n.astype(np.float32), d.astype(np.float32), f.astype(np.float64),
                    f.astype(np.float16)]
    for got, exp in zip(outs, expected):
        np.testing.assert_array_equal(got.numpy(), exp)
