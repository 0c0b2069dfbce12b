"""``wp.cast(a, dtype)``: the bits of a value read as another type of the same size, as in Warp."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Pun:
    f: wp.float16
    i: wp.int16


@wp.kernel
def casts(ints: wp.array(dtype=wp.int32), floats: wp.array(dtype=wp.float32), i8: wp.array(dtype=wp.int8),
          vecs: wp.array(dtype=wp.vec2i), halves: wp.array(dtype=wp.float16)):
    floats[0] = wp.cast(wp.int32(0x3FA00000), wp.float32)
    ints[0] = wp.cast(1.25, wp.int32)  # a float literal is a float32
    ints[1] = wp.cast(a=wp.vec2h(wp.float16(1.0), wp.float16(2.0)), dtype=wp.int32)
    p = Pun()
    p.f = wp.float16(2.0)
    p.i = wp.int16(123)
    ints[2] = wp.cast(p, wp.int32)
    i8[0] = wp.cast(wp.uint8(255), wp.int8)
    vecs[0] = wp.cast(wp.vec2(1.0, 2.0), wp.vec2i)
    halves[0] = wp.cast(wp.int16(15360), wp.float16)
    ints[3] = wp.cast(ints[3], wp.int32)  # the same type: the value itself


def test_cast_reinterprets_bits():
    ints = wp.array([0, 0, 0, 42], dtype=wp.int32)
    floats = wp.zeros(1, dtype=wp.float32)
    i8 = wp.zeros(1, dtype=wp.int8)
    vecs = wp.zeros(1, dtype=wp.vec2i)
    halves = wp.zeros(1, dtype=wp.float16)
    wp.launch(casts, 1, inputs=[ints, floats, i8, vecs, halves])
    expected_vec2h = int(np.array([1.0, 2.0], dtype=np.float16).view(np.int32)[0])
    assert ints.numpy().tolist() == [int(np.float32(1.25).view(np.int32)), expected_vec2h, 0x007B4000, 42]
    assert floats.numpy().tolist() == [1.25]
    assert i8.numpy().tolist() == [-1]
    assert vecs.numpy().tolist() == [np.array([1.0, 2.0], dtype=np.float32).view(np.int32).tolist()]
    assert halves.numpy().tolist() == [1.0]


@pytest.mark.parametrize("body, message", [
    ("out[0] = wp.cast(wp.float64(1.0), wp.int32)", "same size: float64 has 8 bytes, int32 has 4"),
    ("out[0] = wp.cast(1, 3)", "dtype must be a scalar, vector, matrix"),
    ("out[0] = wp.cast(out, wp.int32)", "got array"),
    ("out[0] = wp.cast(1)", "takes two arguments"),
    ("out[0] = wp.cast(1, wp.int32, dtype=wp.int32)", "unexpected or repeated argument 'dtype'"),
])
def test_cast_errors(tmp_path, monkeypatch, body, message):
    module = tmp_path / f"cast_error_{abs(hash(body))}.py"
    module.write_text(f"import brickwork as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=wp.int32)):\n    {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = __import__(module.stem)
    with pytest.raises(wp.KernelTypeError, match=message):
        wp.launch(mod.k, 1, inputs=[wp.zeros(1, dtype=wp.int32)])


def test_cast_is_kernel_only():
    with pytest.raises(RuntimeError, match="only be called inside"):
        wp.cast(wp.int32(1), wp.float32)
