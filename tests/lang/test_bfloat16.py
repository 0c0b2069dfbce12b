"""wp.bfloat16: bit patterns, rounding, in-kernel arithmetic through float32 and atomics.

Expected bits are those Warp 1.19 gives for the same kernels (checked on its CPU device)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.types.scalars import bfloat16_bits, bfloat16_values


@pytest.mark.parametrize("value, bits", [
    (1.0, 0x3F80), (-2.0, 0xC000), (3.14159, 0x4049), (0.0, 0x0000), (-0.0, 0x8000),
    (1.0 + 2.0**-8, 0x3F80),        # halfway: ties to the even pattern (down)
    (1.0 + 3 * 2.0**-8, 0x3F82),    # halfway: ties to the even pattern (up)
    (math.inf, 0x7F80), (-math.inf, 0xFF80), (3.4e38, 0x7F80),  # past the largest bfloat16: inf
])
def test_bits_of_numbers(value, bits):
    assert int(bfloat16_bits(value)) == bits
    assert wp.bfloat16(value).value == float(bfloat16_values(bits))


def test_nan_stays_nan():
    assert math.isnan(float(bfloat16_values(bfloat16_bits(math.nan))))


@settings(max_examples=200, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_rounding_is_nearest(x):
    """The rounded value is no farther from x than either neighbouring bfloat16 value."""
    b = int(bfloat16_bits(x))
    r = float(bfloat16_values(b))
    if math.isinf(r):
        return
    neighbours = [float(bfloat16_values((b + d) & 0xFFFF)) for d in (-1, 1)]
    assert all(abs(r - x) <= abs(n - x) or math.isnan(n) for n in neighbours)


def test_arrays_store_bits_and_uint16_data_is_taken_as_bits():
    a = wp.array([1.0, -2.0, 3.14159], dtype=wp.bfloat16)
    # numpy() gives the bits as uint16, or as ml_dtypes.bfloat16 where that is installed (test_bfloat16_numpy.py)
    np.testing.assert_array_equal(a.numpy().view(np.uint16), [0x3F80, 0xC000, 0x4049])
    b = wp.array(np.array([0x3F80], dtype=np.uint16), dtype=wp.bfloat16)
    np.testing.assert_array_equal(b.numpy().view(np.uint16), [0x3F80])
    assert wp.array(np.array([7], dtype=np.uint16)).dtype is wp.uint16  # plain uint16 data stays uint16


@wp.kernel
def _mul_add_sqrt(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    x = a[i] * wp.bfloat16(3.0) + wp.bfloat16(b[i])
    out[i] = wp.sqrt(x)
    wp.atomic_add(out, 0, wp.bfloat16(1.0))


def test_kernel_arithmetic_matches_warp():
    a = wp.array([1.0, 2.0, 3.0], dtype=wp.bfloat16)
    b = wp.array([0.1, 0.2, 0.3], dtype=wp.float32)
    out = wp.zeros(3, dtype=wp.bfloat16)
    wp.launch(_mul_add_sqrt, dim=3, inputs=[a, b, out])
    np.testing.assert_array_equal(out.numpy().view(np.uint16), [16536, 16415, 16451])  # Warp 1.19's bits


@wp.kernel
def _sum(out: wp.array(dtype=wp.bfloat16)):
    wp.atomic_add(out, 0, wp.bfloat16(1.0))
    wp.atomic_max(out, 1, wp.bfloat16(float(wp.tid())))
    wp.atomic_min(out, 2, wp.bfloat16(-float(wp.tid())))


def test_atomics():
    out = wp.zeros(3, dtype=wp.bfloat16)
    wp.launch(_sum, dim=64, inputs=[out])
    np.testing.assert_array_equal(bfloat16_values(out.numpy()), [64.0, 63.0, -63.0])


@wp.kernel
def _convert(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32), flags: wp.array(dtype=wp.int32)):
    i = wp.tid()
    h = wp.bfloat16(x[i])
    out[i] = wp.float32(h)
    flags[i] = wp.where(wp.isnan(h), 1, 0) + wp.where(wp.isinf(h), 2, 0)


def test_conversions_in_kernels_match_host():
    xs = np.array([1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -7.3, 1e-30, 3.4e38, np.inf, np.nan], dtype=np.float32)
    out, flags = wp.zeros(len(xs), dtype=wp.float32), wp.zeros(len(xs), dtype=wp.int32)
    wp.launch(_convert, dim=len(xs), inputs=[wp.array(xs), out, flags])
    np.testing.assert_array_equal(out.numpy(), bfloat16_values(bfloat16_bits(xs)))
    np.testing.assert_array_equal(flags.numpy(), [0, 0, 0, 0, 2, 2, 1])


@wp.kernel
def _double_vec(a: wp.array(dtype=wp.vector(3, wp.bfloat16))):
    a[0] = a[0] + a[0]


def test_vectors_of_bfloat16():
    x = wp.array([[1.0, 2.0, 3.0]], dtype=wp.vector(3, wp.bfloat16))
    wp.launch(_double_vec, dim=1, inputs=[x])
    np.testing.assert_array_equal(x.numpy().view(np.uint16), [[0x4000, 0x4080, 0x40C0]])  # 2, 4, 6


@wp.struct
class HalfAndFloat:
    h: wp.bfloat16
    f: wp.float32


@wp.kernel
def read_struct_and_constants(s: HalfAndFloat, out: wp.array(dtype=float)):
    out[0] = float(s.h)
    out[1] = s.f
    out[2] = float(wp.bfloat16(-1.0))  # literals converted at compile time, negative ones too
    out[3] = float(wp.bfloat16(1.01171875))  # 1 + 3 * 2**-8: rounded to the nearest bfloat16 (ties to even)


def test_struct_fields_and_typed_literals_of_bfloat16():
    s = HalfAndFloat()
    s.h = wp.bfloat16(3.5)
    s.f = 7.25
    out = wp.zeros(4, dtype=float)
    wp.launch(read_struct_and_constants, dim=1, inputs=[s, out])
    assert out.numpy().tolist() == [3.5, 7.25, -1.0, 1.0 + 4 * 2.0**-8]


@wp.kernel
def read_bf16_vector(v: wp.vector(3, wp.bfloat16), out: wp.array(dtype=float)):
    for i in range(3):
        out[i] = float(v[i])


def test_host_vectors_of_bfloat16_round_and_pass_to_kernels_as_bits():
    v = wp.vector(3, wp.bfloat16)(1.5, 2.25, -1.01171875)  # the last rounds (ties to even) to -1.015625
    assert v.flat_values() == [0x3FC0, 0x4010, 0xBF82]
    assert bytes(v) == np.array([0x3FC0, 0x4010, 0xBF82], dtype=np.uint16).tobytes()
    out = wp.zeros(3, dtype=float)
    wp.launch(read_bf16_vector, dim=1, inputs=[v, out])
    assert out.numpy().tolist() == [1.5, 2.25, -1.015625]
