"""Bitwise operators of integer tiles, as in Warp 1.19: ``a & b``, ``a | b``, ``a ^ b`` of two tiles (and,
beyond Warp, of a tile and an integer), the in-place ``t &= u`` and an element's ``t[i] |= s``; floats and
tiles of structs are refused with the kernel's file and line."""

import numpy as np
import pytest

import brickwork as wp

pytestmark = pytest.mark.compiles_for_cuda

N = 8


@wp.kernel
def bitwise(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    t = wp.tile_load(a, shape=N)
    u = wp.tile_load(b, shape=N)
    wp.tile_store(out[0], t & u)
    wp.tile_store(out[1], t | u)
    wp.tile_store(out[2], t ^ u)
    wp.tile_store(out[3], (t & 12) | (3 ^ u))
    v = t
    v &= u
    v |= wp.tile_full(N, 64, dtype=wp.int32)
    v ^= t
    v[1] &= 5
    v[2] |= t[3]
    v[3] ^= 255
    wp.tile_store(out[4], v)


@wp.kernel
def bitwise_u64(a: wp.array(dtype=wp.uint64), out: wp.array(dtype=wp.uint64)):
    t = wp.tile_load(a, shape=N)
    t ^= wp.tile_full(N, wp.uint64(0xFFFFFFFF00000000), dtype=wp.uint64)
    wp.tile_store(out, t)


def test_bitwise_operators_of_int_tiles_match_numpy():
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-1000, 1000, N).astype(np.int32) for _ in range(2))
    out = wp.zeros((5, N), dtype=wp.int32)
    wp.launch_tiled(bitwise, dim=1, inputs=[wp.array(a), wp.array(b), out], block_dim=1)
    v = ((a & b) | 64) ^ a
    v[1] &= 5
    v[2] |= a[3]
    v[3] ^= 255
    np.testing.assert_array_equal(out.numpy(), [a & b, a | b, a ^ b, (a & 12) | (3 ^ b), v])


def test_bitwise_xor_of_uint64_tiles():
    a = np.array([1, 2**63 + 5, 2**40, 0, 7, 2**64 - 1, 12345, 2**33], dtype=np.uint64)
    out = wp.zeros(N, dtype=wp.uint64)
    wp.launch_tiled(bitwise_u64, dim=1, inputs=[wp.array(a), out], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), a ^ np.uint64(0xFFFFFFFF00000000))


def _refused(fn, match, arrays):
    before = [x.numpy().copy() for x in arrays]
    with pytest.raises(wp.KernelTypeError, match=match) as info:
        wp.launch_tiled(wp.kernel(fn, module="unique"), dim=1, inputs=arrays, block_dim=1)
    assert "test_tile_bitwise.py" in str(info.value)
    for x, b in zip(arrays, before):
        np.testing.assert_array_equal(x.numpy(), b)


def test_bitwise_operators_of_float_tiles_are_refused():
    def floats(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=N)
        wp.tile_store(out, t & t)

    _refused(floats, r"'&' \(bit_and\): needs integer operands", [wp.ones(N, dtype=float), wp.zeros(N, dtype=float)])


@wp.struct
class Pair:
    n: int
    m: int


def test_bitwise_operators_of_struct_tiles_are_refused():
    def in_place(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
        t = wp.tile_load(a, shape=N)
        t |= t
        wp.tile_store(out, t)

    def binary(a: wp.array(dtype=Pair), out: wp.array(dtype=Pair)):
        t = wp.tile_load(a, shape=N)
        wp.tile_store(out, t ^ t)

    arrays = [wp.zeros(N, dtype=Pair), wp.zeros(N, dtype=Pair)]
    _refused(in_place, r"'\|=' of a tile of Pair: bitwise inplace operators do not support Warp struct tile", arrays)
    _refused(binary, r"'\^' of a tile of Pair: bitwise operators do not support Warp struct tile elements", arrays)
