"""``%`` on vectors and the bitwise operators on integer vectors and matrices (componentwise, as in
Warp), and ``&=``/``|=``/``^=`` on array elements (atomic for 32- and 64-bit integers and their
vectors and matrices)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp

mat22ui = wp.types.matrix(shape=(2, 2), dtype=wp.uint32)


@wp.kernel
def vector_ops(fa: wp.array(dtype=wp.vec3), fb: wp.array(dtype=wp.vec3), ia: wp.array(dtype=wp.vec3i),
               ib: wp.array(dtype=wp.vec3i), f_out: wp.array(dtype=wp.vec3), i_out: wp.array(dtype=wp.vec3i)):
    f_out[0] = fa[0] % fb[0]
    i_out[0] = ia[0] % ib[0]
    i_out[1] = ia[0] & ib[0]
    i_out[2] = ia[0] | ib[0]
    i_out[3] = ia[0] ^ ib[0]
    i_out[4] = ia[0] << wp.vec3i(1, 2, 3)
    i_out[5] = ia[0] >> wp.vec3i(1, 1, 1)
    i_out[6] = ~ia[0]


def test_vector_mod_and_bitwise_operators_work_per_component():
    fa, fb = np.array([[5.5, -5.5, 7.0]], np.float32), np.array([[2.0, 2.0, -3.0]], np.float32)
    ia, ib = np.array([[7, -7, 12]], np.int32), np.array([[3, 0, -5]], np.int32)
    f_out, i_out = wp.zeros(1, dtype=wp.vec3), wp.zeros(7, dtype=wp.vec3i)
    wp.launch(vector_ops, dim=1, inputs=[wp.array(fa, dtype=wp.vec3), wp.array(fb, dtype=wp.vec3),
                                         wp.array(ia, dtype=wp.vec3i), wp.array(ib, dtype=wp.vec3i), f_out, i_out])
    np.testing.assert_array_equal(f_out.numpy()[0], np.fmod(fa[0], fb[0]))
    got = i_out.numpy()
    np.testing.assert_array_equal(got[0], [1, 0, 2])  # C's remainder; modulo by zero gives 0
    np.testing.assert_array_equal(got[1], ia[0] & ib[0])
    np.testing.assert_array_equal(got[2], ia[0] | ib[0])
    np.testing.assert_array_equal(got[3], ia[0] ^ ib[0])
    np.testing.assert_array_equal(got[4], ia[0] << np.array([1, 2, 3]))
    np.testing.assert_array_equal(got[5], ia[0] >> 1)
    np.testing.assert_array_equal(got[6], ~ia[0])


@wp.kernel
def atomic_bits(v: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=mat22ui), s: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    bit = wp.uint32(1) << wp.uint32(i % 32)
    v[0] |= wp.vec3ui(bit, bit & wp.uint32(0x5555), wp.uint32(0))
    m[0] ^= mat22ui(bit, wp.uint32(0), wp.uint32(0), bit)
    wp.atomic_and(s, 0, ~bit)


def test_augmented_bitwise_assignment_on_array_elements_is_atomic():
    v, m = wp.zeros(1, dtype=wp.vec3ui), wp.zeros(1, dtype=mat22ui)
    s = wp.array(np.array([0xFFFFFFFF], np.uint32), dtype=wp.uint32)
    wp.launch(atomic_bits, dim=64, inputs=[v, m, s])  # each bit set (or flipped) twice
    np.testing.assert_array_equal(v.numpy()[0], [0xFFFFFFFF, 0x5555, 0])
    np.testing.assert_array_equal(m.numpy()[0], np.zeros((2, 2)))
    assert s.numpy()[0] == 0


@pytest.mark.parametrize("expr, message", [
    ("wp.vec3(1.0, 2.0, 3.0) % 2.0", r"operand types must match, got vec3f and float32"),
    ("wp.mat22() % wp.mat22()", r"needs scalar or vector operands, got mat22f and mat22f"),
    ("wp.vec3() & wp.vec3()", r"needs integer operands, got vec3f and vec3f"),
    ("wp.vec3i() << 1", r"operand types must match, got vec3i and int32"),
    ("wp.vec3d() * wp.vec3d()", r"no vector \* vector product, got vec3d and vec3d: use wp.dot\(a, b\)"),
    ("wp.vec2() / wp.vec2()", r"no vector / vector quotient, got vec2f and vec2f: use the componentwise wp.cw_div"),
])
def test_vector_operators_refuse_other_operands(tmp_path, expr, message):
    import importlib.util

    path = tmp_path / "vector_operator_errors.py"
    path.write_text(f"import brickwork as wp\n\n\n@wp.kernel\ndef k():\n    x = {expr}\n")
    spec = importlib.util.spec_from_file_location("vector_operator_errors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(wp.KernelTypeError, match=message) as e:
        wp.launch(module.k, dim=1, inputs=[])
    assert "vector_operator_errors.py" in str(e.value)


def test_atomic_bitwise_on_float_vectors_is_refused():
    @wp.kernel
    def k(a: wp.array(dtype=wp.vec3)):
        wp.atomic_or(a, 0, wp.vec3())

    with pytest.raises(wp.KernelTypeError, match="needs an array of integers or of integer vectors or matrices"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])
