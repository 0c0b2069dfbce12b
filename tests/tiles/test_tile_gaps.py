"""Tiles: the smaller agreements with Warp 1.19 — bfloat16 operands of tile_matmul and the accumulators it
refuses, its precision argument, tile_arange's element count, the errors of tile_broadcast, tile_squeeze, tile
products, tile_stack and tile_atomic_add, Warp's CPU shared-tile arena, ``wp.array[T, Literal[N]]`` and
``wp.static(len(tile))``."""

from typing import Literal

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.scalars import bfloat16_bits, bfloat16_values

pytestmark = pytest.mark.compiles_for_cuda

M, K, N = 4, 8, 2


def _refused(fn, match, cls, arrays):
    """Launching kernel ``fn`` on ``arrays`` raises ``cls`` matching ``match``, naming the kernel's source, and
    changes none of the arrays."""
    before = [a.numpy().copy() for a in arrays]
    with pytest.raises(cls, match=match) as info:
        wp.launch_tiled(wp.kernel(fn, module="unique"), dim=1, inputs=arrays, block_dim=8)
    assert "test_tile_gaps.py" in str(info.value)
    for a, b in zip(arrays, before):
        np.testing.assert_array_equal(a.numpy(), b)


# -- tile_matmul ---------------------------------------------------------------------------------------------


@wp.kernel
def to_bf16(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=wp.bfloat16)):
    i, j = wp.tid()
    dst[i, j] = wp.bfloat16(src[i, j])


@wp.kernel(enable_backward=False)
def bf16_gemm(a: wp.array2d(dtype=wp.bfloat16), b: wp.array2d(dtype=wp.bfloat16), c: wp.array2d(dtype=float)):
    acc = wp.tile_ones(shape=(M, N), dtype=float)
    wp.tile_matmul(wp.tile_load(a, shape=(M, K)), wp.tile_load(b, shape=(K, N)), acc, alpha=2.0, beta=0.5)
    wp.tile_store(c, acc)


def _bf16(x: np.ndarray) -> wp.array:
    out = wp.zeros(x.shape, dtype=wp.bfloat16)
    wp.launch(to_bf16, dim=x.shape, inputs=[wp.array(x), out])
    return out


def test_bfloat16_operands_accumulate_in_out_dtype():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    c = wp.zeros((M, N), dtype=float)
    wp.launch_tiled(bf16_gemm, dim=1, inputs=[_bf16(a), _bf16(b), c], block_dim=8)
    qa, qb = (bfloat16_values(bfloat16_bits(x)).astype(np.float64) for x in (a, b))
    np.testing.assert_allclose(c.numpy(), 2.0 * qa @ qb + 0.5, rtol=1e-5, atol=1e-5)


def test_a_bfloat16_out_tile_is_refused():
    def bf16_out(a: wp.array2d(dtype=wp.bfloat16), c: wp.array2d(dtype=wp.bfloat16)):
        t = wp.tile_load(a, shape=(M, M))
        acc = wp.tile_zeros(shape=(M, M), dtype=wp.bfloat16)
        wp.tile_matmul(t, t, acc)
        wp.tile_store(c, acc)

    def bf16_returned(a: wp.array2d(dtype=wp.bfloat16), c: wp.array2d(dtype=wp.bfloat16)):
        t = wp.tile_load(a, shape=(M, M))
        wp.tile_store(c, wp.tile_matmul(t, t))

    for fn in (bf16_out, bf16_returned):
        _refused(fn, r"tile_matmul\(\): does not support a bfloat16 'out' tile", wp.KernelTypeError,
                 [wp.zeros((M, M), dtype=wp.bfloat16), wp.zeros((M, M), dtype=wp.bfloat16)])


def test_bfloat16_operands_are_refused_when_the_kernel_has_a_backward_pass():
    def bf16_b(a: wp.array2d(dtype=float), b: wp.array2d(dtype=wp.bfloat16), c: wp.array2d(dtype=float)):
        acc = wp.tile_zeros(shape=(M, N), dtype=float)
        wp.tile_matmul(wp.tile_load(a, shape=(M, K)), wp.tile_load(b, shape=(K, N)), acc)
        wp.tile_store(c, acc)

    _refused(bf16_b, r"tile_matmul\(\): does not support bfloat16 'a' or 'b' tiles when the backward pass is "
             r"enabled", wp.KernelTypeError,
             [wp.ones((M, K), dtype=float), wp.zeros((K, N), dtype=wp.bfloat16), wp.full((M, N), 3.0, dtype=float)])


def test_complex_tiles_are_refused():
    def complex_out(a: wp.array2d(dtype=wp.vec2f), c: wp.array2d(dtype=wp.vec2f)):
        t = wp.tile_load(a, shape=(M, M))
        wp.tile_store(c, wp.tile_matmul(t, t, precision="tf32"))

    _refused(complex_out, r"tile_matmul\(\): does not support complex tiles \(vec2h, vec2f, vec2d\)",
             wp.KernelTypeError, [wp.ones((M, M), dtype=wp.vec2f), wp.zeros((M, M), dtype=wp.vec2f)])


@wp.kernel
def tf32_gemm(a: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(M, M))
    wp.tile_store(c, wp.tile_matmul(t, t, precision="tf32"))


def test_tf32_precision_computes_in_float32_on_the_cpu():
    a = np.arange(M * M, dtype=np.float32).reshape(M, M) / 7
    c = wp.zeros((M, M), dtype=float)
    wp.launch_tiled(tf32_gemm, dim=1, inputs=[wp.array(a), c], block_dim=8)
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ a, rtol=1e-6)


def test_precision_must_be_a_known_literal_for_float32_tiles():
    def unknown(a: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        t = wp.tile_load(a, shape=(M, M))
        wp.tile_store(c, wp.tile_matmul(t, t, precision="fp8"))

    def runtime(a: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        t = wp.tile_load(a, shape=(M, M))
        mode = wp.tid()
        wp.tile_store(c, wp.tile_matmul(t, t, precision=mode))

    def tf32_half(a: wp.array2d(dtype=wp.float16), c: wp.array2d(dtype=wp.float16)):
        t = wp.tile_load(a, shape=(M, M))
        wp.tile_store(c, wp.tile_matmul(t, t, precision="tf32"))

    arrays = [wp.ones((M, M), dtype=float), wp.full((M, M), 5.0, dtype=float)]
    _refused(unknown, r"precision must be the string literal 'default' or 'tf32', got 'fp8'", wp.KernelValueError,
             arrays)
    _refused(runtime, r"precision must be the string literal 'default' or 'tf32', got a non-literal argument",
             wp.KernelValueError, arrays)
    _refused(tf32_half, r"precision='tf32' requires float32 tiles for a, b, and out, got float16, float16",
             wp.KernelTypeError, [wp.ones((M, M), dtype=wp.float16), wp.zeros((M, M), dtype=wp.float16)])


# -- tile_arange ---------------------------------------------------------------------------------------------

I64_START = wp.constant(wp.int64(2**54))
I64_STOP = wp.constant(wp.int64(2**54 + 3 * 2**30 - 1))
I64_STEP = wp.constant(wp.int64(2**31))


@wp.kernel(enable_backward=False)
def aranges(f: wp.array2d(dtype=float), h: wp.array(dtype=wp.float16)):
    wp.tile_store(f[0], wp.tile_arange(0.0, 0.3, 0.1, dtype=float))
    wp.tile_store(f[1], wp.tile_arange(0.0, 2.0, 0.3, dtype=float))
    wp.tile_store(f[2], wp.tile_arange(0.3, dtype=float))
    wp.tile_store(f[3], wp.tile_arange(I64_START, I64_STOP, I64_STEP, dtype=float))
    wp.tile_store(h, wp.tile_arange(1.0, 1.5, 0.1, dtype=wp.float16))


def test_arange_counts_with_the_quotient_the_output_type_holds():
    f = wp.full((4, 9), -1.0, dtype=float)
    h = wp.full(8, -1.0, dtype=wp.float16)
    wp.launch_tiled(aranges, dim=1, inputs=[f, h], block_dim=8)
    got = f.numpy()
    # float32: 0.3f / 0.1f is a hair above 3, and rounds to 3 (a 4th element would sit at the stop)
    np.testing.assert_allclose(got[0, :4], [0.0, 0.1, 0.2, -1.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], np.concatenate([np.arange(0.0, 2.0, 0.3), [-1.0, -1.0]]), rtol=1e-6)
    np.testing.assert_array_equal(got[2, :2], [0.0, -1.0])  # a span under the step holds its start
    # 2**54 + 3 * 2**30 - 1 rounds once to float32's 2**54 + 2**31 (through a double: 2**54 + 2**32), one step
    np.testing.assert_array_equal(got[3, :2], [np.float32(2.0**54), -1.0])
    # float16: 0.5 / 0.1 rounds to 5.0 in float16 (5.000000000000001 in a double), so 5 elements
    want = np.float16(1.0) + np.arange(5, dtype=np.float16) * np.float16(0.1)
    np.testing.assert_array_equal(h.numpy(), np.concatenate([want, [-1.0] * 3]).astype(np.float16))


# -- errors of shapes and products ---------------------------------------------------------------------------


def test_broadcast_to_more_than_four_dimensions_is_refused():
    def five(a: wp.array(dtype=float)):
        wp.tile_store(a, wp.tile_broadcast(wp.tile_load(a, shape=1), shape=(1, 1, 1, 1, 1))[0, 0, 0, 0])

    _refused(five, r"tile_broadcast\(\) output must have between one and four dimensions, got 5",
             wp.KernelValueError, [wp.full(1, 2.0, dtype=float)])


@pytest.mark.parametrize("axis", [-4, 3])
def test_squeezing_an_axis_out_of_bounds_is_refused(axis):
    def squeeze(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=(1, 2, 1), dtype=float)
        wp.tile_store(a, wp.tile_squeeze(t, axis=(axis,)))

    _refused(squeeze, rf"tile_squeeze\(\) axis {axis} is out of bounds for tile with 3 dimensions \(valid axes "
             r"are -3 to 2\)", wp.KernelValueError, [wp.full(2, 2.0, dtype=float)])


def test_a_product_of_two_vector_tiles_is_refused():
    def vec_product(a: wp.array(dtype=wp.vec3)):
        t = wp.tile_load(a, shape=4)
        wp.tile_store(a, t * t)

    def vec_quotient(a: wp.array(dtype=wp.vec3)):
        t = wp.tile_load(a, shape=4)
        wp.tile_store(a, t / t)

    for fn, verb in ((vec_product, "multiply"), (vec_quotient, "divide")):
        _refused(fn, rf"Cannot {verb} tile<vec3f, \(4,\)> by tile<vec3f, \(4,\)>: at least one element type must "
                 r"be scalar", wp.KernelTypeError, [wp.full(4, wp.vec3(1.0, 2.0, 3.0), dtype=wp.vec3)])


# -- tile stacks, atomic adds, the shared arena --------------------------------------------------------------


def test_a_bool_capacity_is_refused_as_a_type():
    def bool_capacity(a: wp.array(dtype=float)):
        s = wp.tile_stack(capacity=True, dtype=int)
        a[0] = float(wp.tile_stack_count(s))

    _refused(bool_capacity, r"tile_stack\(\): capacity must be a positive integer, got True of type bool",
             wp.KernelUnsupportedTypeError, [wp.full(1, 2.0, dtype=float)])
    assert issubclass(wp.KernelUnsupportedTypeError, RuntimeError)


@pytest.mark.parametrize("dtype", [wp.int8, wp.bool])
def test_atomic_adds_of_narrow_types_are_refused(dtype):
    def narrow(src: wp.array(dtype=dtype), dst: wp.array(dtype=dtype)):
        wp.tile_atomic_add(dst, wp.tile_load(src, shape=4))

    name = "int8" if dtype is wp.int8 else "bool"
    _refused(narrow, rf"tile_atomic_add\(\): only supports tiles with \[u\]int32, \[u\]int64, float16, bfloat16, "
             rf"float32, or float64 as the underlying scalar type, but got {name}", wp.KernelUnsupportedTypeError,
             [wp.ones(4, dtype=dtype), wp.ones(4, dtype=dtype)])


ARENA = 256 * 1024 // 4  # float32 elements in Warp's CPU shared arena
OVER = ARENA + 1


@wp.kernel
def full_arena(out: wp.array(dtype=float)):
    t = wp.tile_full(shape=ARENA, value=1.5, dtype=float, storage="shared")
    out[0] = wp.tile_sum(t)[0]


def test_a_shared_tile_fits_warps_cpu_arena():
    out = wp.zeros(1, dtype=float)
    wp.launch_tiled(full_arena, dim=1, inputs=[out], block_dim=8)
    assert out.numpy()[0] == 1.5 * ARENA


def test_a_shared_tile_larger_than_warps_cpu_arena_is_refused():
    def oversized(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=OVER, dtype=float, storage="shared")
        a[0] = t[0]

    def loaded(a: wp.array2d(dtype=float)):
        t = wp.tile_load(a, shape=(2, ARENA), storage="shared")
        a[0, 0] = t[0, 0]

    def gathered(a: wp.array2d(dtype=float), idx: wp.array(dtype=int)):
        i = wp.tile_load(idx, shape=2)
        t = wp.tile_load_indexed(a, indices=i, shape=(2, ARENA), axis=0, storage="shared")
        a[0, 0] = t[0, 0]

    for fn, shape, a in ((oversized, rf"\({OVER},\)", [wp.full(1, 2.0, dtype=float)]),
                         (loaded, rf"\(2, {ARENA}\)", [wp.full((1, 1), 2.0, dtype=float)]),
                         (gathered, rf"\(2, {ARENA}\)", [wp.full((1, 1), 2.0, dtype=float), wp.zeros(2, dtype=int)])):
        _refused(fn, rf"a shared tile of shape {shape} and dtype float32 takes \d+ bytes, which exceeds the 256 KiB "
                 r"arena", wp.KernelValueError, a)


# -- annotations and wp.static -------------------------------------------------------------------------------


@wp.kernel
def tile_len(a: wp.array[float, Literal[2]], out: wp.array[int, 1]):
    t = wp.tile_load(a, shape=(3, 5))
    u = wp.tile_transpose(t)
    out[0] = wp.static(len(t))
    out[1] = wp.static(len(u))


def test_array_subscripts_take_an_ndim_and_static_len_reads_a_tiles_first_extent():
    assert wp.array[float, Literal[2]] is wp.array2d(dtype=float)
    assert wp.array[wp.vec3, 3] is wp.array3d(dtype=wp.vec3)
    with pytest.raises(TypeError, match="ndim must be 1 to 4, got 5"):
        wp.array[float, Literal[5]]
    out = wp.zeros(2, dtype=int)
    wp.launch_tiled(tile_len, dim=1, inputs=[wp.zeros((3, 5), dtype=float), out], block_dim=8)
    np.testing.assert_array_equal(out.numpy(), [3, 5])
