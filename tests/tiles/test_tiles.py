"""Tiles: construction, loads and stores (bounds included), arithmetic, tile_map, gathers and scatters,
random tiles and launch_tiled, against numpy and Warp 1.19's values on the CPU."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp

pytestmark = pytest.mark.compiles_for_cuda

TM, TN = 4, 8


@wp.kernel
def copy_scale_kernel(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(TM, TN), offset=(i * TM, j * TN))
    u = t * 2.0 + wp.tile_ones(shape=(TM, TN), dtype=float)
    wp.tile_store(b, -u / 4.0, offset=(i * TM, j * TN))


def test_load_arithmetic_store_over_a_grid_of_tiles():
    rng = np.random.default_rng(1)
    a = rng.random((3 * TM, 2 * TN), dtype=np.float32)
    b = wp.zeros(a.shape, dtype=float)
    wp.launch_tiled(copy_scale_kernel, dim=[3, 2], inputs=[wp.array(a), b], block_dim=64)
    np.testing.assert_allclose(b.numpy(), -(a * 2 + 1) / 4, rtol=1e-6)


@wp.kernel
def bounds_kernel(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), off: wp.vec2i):
    t = wp.tile_load(a, shape=(3, 5), offset=(off[0], off[1]))
    wp.tile_store(b, t + wp.tile_full(shape=(3, 5), value=100.0, dtype=float), offset=(off[0], off[1]))


@settings(max_examples=30, deadline=None)
@given(oi=st.integers(-4, 7), oj=st.integers(-6, 9))
def test_elements_outside_the_array_read_zero_and_are_not_written(oi, oj):
    a = np.arange(6 * 7, dtype=np.float32).reshape(6, 7) + 1
    b = np.full((6, 7), -1.0, dtype=np.float32)
    out = wp.array(b)
    wp.launch_tiled(bounds_kernel, dim=1, inputs=[wp.array(a), out, wp.vec2i(oi, oj)], block_dim=32)
    expect = b.copy()
    for r in range(3):
        for c in range(5):
            gi, gj = oi + r, oj + c
            if 0 <= gi < 6 and 0 <= gj < 7:
                expect[gi, gj] = a[gi, gj] + 100  # a read inside is a's element, a write inside lands
    np.testing.assert_array_equal(out.numpy(), expect)


@wp.kernel
def construct_kernel(out: wp.array2d(dtype=float), ints: wp.array(dtype=int)):
    z = wp.tile_zeros(shape=4, dtype=float)
    o = wp.tile_ones(shape=4, dtype=float)
    f = wp.tile_full(shape=4, value=2.5, dtype=float)
    r = wp.tile_arange(1.0, 3.0, 0.5, dtype=float)
    e = wp.tile_empty(shape=4, dtype=float)
    wp.tile_store(out[0], z)
    wp.tile_store(out[1], o)
    wp.tile_store(out[2], f)
    wp.tile_store(out[3], r)
    wp.tile_store(out[4], e)
    wp.tile_store(ints, wp.tile_arange(1, 10, 2, dtype=int))


def test_construction():
    out = wp.full((5, 4), 7.0, dtype=float)
    ints = wp.zeros(5, dtype=int)
    wp.launch_tiled(construct_kernel, dim=1, inputs=[out, ints], block_dim=16)
    np.testing.assert_array_equal(out.numpy(), [[0] * 4, [1] * 4, [2.5] * 4, [1, 1.5, 2, 2.5], [0] * 4])
    np.testing.assert_array_equal(ints.numpy(), [1, 3, 5, 7, 9])


@wp.func
def shifted(x: float, s: float):
    return x + s


@wp.kernel
def map_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    ta = wp.tile_load(a, shape=6)
    tb = wp.tile_load(b, shape=6)
    wp.tile_store(out[0], wp.tile_map(wp.sin, ta))
    wp.tile_store(out[1], wp.tile_map(shifted, ta, tb))
    wp.tile_store(out[2], wp.tile_map(wp.max, ta, tb))
    wp.tile_store(out[3], ta * tb - tb / ta)
    wp.tile_store(out[4], wp.tile_map(shifted, ta, 10.0))


def test_tile_map_and_elementwise_operators():
    rng = np.random.default_rng(2)
    a, b = rng.random(6, dtype=np.float32) + 0.5, rng.random(6, dtype=np.float32)
    out = wp.zeros((5, 6), dtype=float)
    wp.launch_tiled(map_kernel, dim=1, inputs=[wp.array(a), wp.array(b), out], block_dim=8)
    got = out.numpy()
    np.testing.assert_allclose(got[0], np.sin(a), rtol=1e-6)
    np.testing.assert_allclose(got[1], a + b, rtol=1e-6)
    np.testing.assert_array_equal(got[2], np.maximum(a, b))
    np.testing.assert_allclose(got[3], a * b - b / a, rtol=1e-6)
    np.testing.assert_allclose(got[4], a + 10, rtol=1e-6)


@wp.kernel
def elements_kernel(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float),
                    vo: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=4)
    t[1] = 7.0
    t[2] += 0.5
    x = wp.tile_extract(t, 3) + t[0]
    s = wp.tile(x)
    wp.tile_store(out, s, offset=4)
    wp.tile_store(out, t)
    tv = wp.tile(v[i])
    vo[i] = wp.untile(tv) * 2.0
    d = wp.tile_astype(t, int)
    n[0] = d[1] + wp.block_dim() * 100 + len(t) * 1000


def test_element_access_tile_untile_astype_and_block_dim():
    a = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    out = wp.zeros(5, dtype=float)
    vo = wp.zeros(1, dtype=wp.vec3)
    n = wp.zeros(1, dtype=int)
    wp.launch_tiled(elements_kernel, dim=1, inputs=[wp.array(a), wp.array([[1, 2, 3]], dtype=wp.vec3), out, vo, n],
                    block_dim=8)
    np.testing.assert_array_equal(out.numpy(), [1, 7, 3.5, 4, 5])
    np.testing.assert_array_equal(vo.numpy(), [[2, 4, 6]])
    assert n.numpy()[0] == 7 + 100 + 4000  # block_dim() is 1: a block is one thread


@wp.kernel
def atomic_kernel(a: wp.array(dtype=float), old: wp.array2d(dtype=float)):
    i = wp.tid()
    prev = wp.tile_atomic_add(a, wp.tile_full(shape=3, value=1.0, dtype=float), offset=2)
    wp.tile_store(old[i], prev)


def test_tile_atomic_add_returns_the_values_it_replaced():
    a = wp.zeros(4, dtype=float)
    old = wp.zeros((5, 3), dtype=float)
    wp.launch_tiled(atomic_kernel, dim=5, inputs=[a, old], block_dim=8)
    np.testing.assert_array_equal(a.numpy(), [0, 0, 5, 5])  # the third element lies past the end
    got = np.sort(old.numpy()[:, 0])
    np.testing.assert_array_equal(got, [0, 1, 2, 3, 4])  # each launch point saw one of the counts
    np.testing.assert_array_equal(old.numpy()[:, 2], 0)


@wp.kernel
def gather_kernel(a: wp.array2d(dtype=float), rows: wp.array(dtype=int), out: wp.array2d(dtype=float),
                  acc: wp.array2d(dtype=float)):
    idx = wp.tile_load(rows, shape=3)
    t = wp.tile_load_indexed(a, indices=idx, shape=(3, 2), offset=(0, 1), axis=0)
    wp.tile_store_indexed(out, idx, t, offset=(0, 0), axis=0)
    wp.tile_atomic_add_indexed(acc, idx, t)


def test_gathers_and_scatters_along_an_axis():
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    rows = np.array([3, -1, 1], dtype=np.int32)  # -1: a padding row, read as zeros and not written
    out = wp.full((4, 2), -5.0, dtype=float)
    acc = wp.ones((4, 2), dtype=float)
    wp.launch_tiled(gather_kernel, dim=1, inputs=[wp.array(a), wp.array(rows), out, acc], block_dim=8)
    expect = np.full((4, 2), -5.0, dtype=np.float32)
    expect[3], expect[1] = a[3, 1:], a[1, 1:]
    np.testing.assert_array_equal(out.numpy(), expect)
    expect_acc = np.ones((4, 2), dtype=np.float32)
    expect_acc[3] += a[3, 1:]
    expect_acc[1] += a[1, 1:]
    np.testing.assert_array_equal(acc.numpy(), expect_acc)


@wp.kernel
def random_kernel(ints: wp.array(dtype=int), floats: wp.array(dtype=float), small: wp.array2d(dtype=int)):
    rng = wp.rand_init(42, 0)
    wp.tile_store(ints, wp.tile_randi(shape=4, rng=rng))
    wp.tile_store(floats, wp.tile_randf(shape=4, rng=rng, min=2.0, max=3.0))
    wp.tile_store(small, wp.tile_randi(shape=(2, 2), rng=rng, min=0, max=10))


def test_random_tiles_have_warps_cpu_values():
    ints, floats, small = wp.zeros(4, dtype=int), wp.zeros(4, dtype=float), wp.zeros((2, 2), dtype=int)
    wp.launch_tiled(random_kernel, dim=1, inputs=[ints, floats, small], block_dim=8)
    # Warp 1.19 on the CPU, same kernel and seed
    np.testing.assert_array_equal(ints.numpy(), [798497746, -1161279442, -169969590, -744808085])
    np.testing.assert_allclose(floats.numpy(), [2.1859148, 2.7296185, 2.9604259, 2.8265858], rtol=1e-7)
    np.testing.assert_array_equal(small.numpy(), [[6, 4], [6, 1]])


@wp.func
def doubled(t: wp.tile[float, 2, 3]):
    return t * 2.0


@wp.kernel
def func_kernel(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(2, 3))
    wp.tile_store(out, doubled(t))


def test_tiles_pass_to_and_return_from_functions():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = wp.zeros((2, 3), dtype=float)
    wp.launch_tiled(func_kernel, dim=1, inputs=[wp.array(a), out], block_dim=8)
    np.testing.assert_array_equal(out.numpy(), a * 2)
    assert repr(wp.tile[float, 2, 3]) == "tile(dtype=float32, shape=(2, 3))"


@wp.kernel
def fft_kernel(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d)):
    t = wp.tile_load(x, shape=(3, 12))
    wp.tile_fft(t)
    wp.tile_store(x, t)
    wp.tile_ifft(t)
    wp.tile_store(y, t)


def test_fft_along_the_last_dimension_is_numpys_unnormalized():
    rng = np.random.default_rng(3)
    z = rng.standard_normal((3, 12)) + 1j * rng.standard_normal((3, 12))  # 12: not a power of two
    x = wp.array(np.stack([z.real, z.imag], -1), dtype=wp.vec2d)
    y = wp.zeros((3, 12), dtype=wp.vec2d)
    wp.launch_tiled(fft_kernel, dim=1, inputs=[x, y], block_dim=8)
    f, g = x.numpy(), y.numpy()
    np.testing.assert_allclose(f[..., 0] + 1j * f[..., 1], np.fft.fft(z, axis=-1), atol=1e-12)
    np.testing.assert_allclose(g[..., 0] + 1j * g[..., 1], 12 * z, atol=1e-12)  # no 1/N either way


@wp.kernel
def stack_kernel(out: wp.array(dtype=int), top: wp.array(dtype=wp.vec2)):
    s = wp.tile_stack(capacity=4, dtype=int)
    for q in range(6):
        out[q] = wp.tile_stack_push(s, q * 10, q != 2)  # q = 2 offers nothing; q = 5 finds the stack full
    out[6] = wp.tile_stack_count(s)
    v, slot = wp.tile_stack_pop(s)
    out[7] = v
    out[8] = slot
    wp.tile_stack_clear(s)
    empty, none = wp.tile_stack_pop(s)
    out[9] = none + empty
    vs = wp.tile_stack(capacity=2, dtype=wp.vec2)
    wp.tile_stack_push(vs, wp.vec2(1.0, 2.0), True)
    t, t_slot = wp.tile_stack_pop(vs)
    top[t_slot] = t


def test_tile_stacks_push_pop_count_and_clear():
    out, top = wp.zeros(10, dtype=int), wp.zeros(1, dtype=wp.vec2)
    wp.launch_tiled(stack_kernel, dim=1, inputs=[out, top], block_dim=8)
    np.testing.assert_array_equal(out.numpy(), [0, 1, -1, 2, 3, -1, 4, 40, 3, -1])
    np.testing.assert_array_equal(top.numpy(), [[1, 2]])


@wp.func
def bump_in_place(t: wp.tile[float, 2, 3]):
    t += wp.tile_ones(shape=(2, 3), dtype=float) * 5.0


@wp.func
def add_into(a: wp.tile[float, 2, 3], b: wp.tile[float, 2, 3]):
    a += b
    return a


@wp.kernel
def in_place_kernel(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), z: wp.array2d(dtype=float)):
    t = wp.tile_load(x, shape=(2, 3))
    bump_in_place(t)
    wp.tile_store(y, t)
    u = wp.tile_load(x, shape=(2, 3))
    r = add_into(u, t)
    wp.tile_store(z, u + r)


def test_a_funcs_changes_to_a_tile_argument_reach_the_caller():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = wp.array(a, requires_grad=True)
    y, z = wp.zeros((2, 3), dtype=float, requires_grad=True), wp.zeros((2, 3), dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(in_place_kernel, dim=1, inputs=[x, y, z], block_dim=8)
    np.testing.assert_array_equal(y.numpy(), a + 5)
    np.testing.assert_array_equal(z.numpy(), 2 * (a + (a + 5)))  # u became u + t, and r is u
    z.grad = wp.ones_like(z)
    tape.backward()  # z = 2 (u + t) with u = x, t = x + 5: the gradient flows through both in-place changes
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 4.0))


@wp.kernel
def parts_kernel(x: wp.array2d(dtype=float), row: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=(4, 6))
    wp.tile_store(row, t[i + 1])  # a runtime row index
    b = t[1:3, ::2]
    t[0:2, 3:6] = b
    t[3] = wp.tile_full(shape=6, value=9.0, dtype=float)  # a part takes a tile (as in Warp)
    t[2, -1] = -1.0
    wp.tile_store(out, t)


def test_rows_and_blocks_of_a_tile_by_subscript():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    row, out = wp.zeros(6, dtype=float), wp.zeros((4, 6), dtype=float)
    wp.launch_tiled(parts_kernel, dim=1, inputs=[wp.array(a), row, out], block_dim=8)
    expect = a.copy()
    expect[0:2, 3:6] = a[1:3, ::2]
    expect[3] = 9
    expect[2, -1] = -1
    np.testing.assert_array_equal(row.numpy(), a[1])
    np.testing.assert_array_equal(out.numpy(), expect)


@wp.func
def push_two(s: wp.tile_stack(capacity=4, dtype=int), v: int):
    wp.tile_stack_push(s, v, True)
    wp.tile_stack_push(s, v + 1, True)


@wp.kernel
def stack_func_kernel(out: wp.array(dtype=int)):
    s = wp.tile_stack(capacity=4, dtype=int)
    push_two(s, 7)
    out[0] = wp.tile_stack_count(s)
    v, slot = wp.tile_stack_pop(s)
    out[1] = v


def test_a_stack_passed_to_a_func_keeps_what_it_pushes():
    out = wp.zeros(2, dtype=int)
    wp.launch_tiled(stack_func_kernel, dim=1, inputs=[out], block_dim=8)
    np.testing.assert_array_equal(out.numpy(), [2, 8])
    assert repr(wp.tile_stack(capacity=4, dtype=int)) == "tile_stack(dtype=int32, capacity=4)"
    with pytest.raises(ValueError, match="capacity must be a positive integer"):
        wp.tile_stack(capacity=0, dtype=int)


# -- errors ----------------------------------------------------------------------------------------


def _kernel_error(fn, match, cls=wp.KernelTypeError):
    k = wp.kernel(fn)
    with pytest.raises(cls, match=match) as info:
        wp.launch_tiled(k, dim=1, inputs=[wp.zeros(8, dtype=float)], block_dim=8)
    assert fn.__name__ in str(info.value) or "test_tiles.py" in str(info.value)


def test_a_runtime_shape_is_refused():
    def runtime_shape(a: wp.array(dtype=float)):
        n = wp.tid() + 2
        wp.tile_load(a, shape=n)

    _kernel_error(runtime_shape, "'shape' must be known at compile time")


def test_tiles_of_different_shapes_do_not_add():
    def mismatched(a: wp.array(dtype=float)):
        x = wp.tile_load(a, shape=4) + wp.tile_load(a, shape=3)
        wp.tile_store(a, x)

    _kernel_error(mismatched, r"tiles of shapes \(4,\) and \(3,\)")


def test_products_of_vectors_or_matrices_need_a_scalar_side():
    def vec_by_vec(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=4, dtype=wp.vec3)
        u = t * wp.vec3(1.0, 2.0, 3.0)

    _kernel_error(vec_by_vec, r"Cannot multiply tile<vec3f, \(4,\)> by vec3f: at least one operand must be a scalar")


def test_store_needs_the_arrays_dtype_and_rank():
    def wrong_dtype(a: wp.array(dtype=float)):
        wp.tile_store(a, wp.tile_zeros(shape=4, dtype=int))

    _kernel_error(wrong_dtype, r"tile_store\(\): the tile's dtype int32 must be the array's float32")

    def wrong_rank(a: wp.array(dtype=float)):
        wp.tile_load(a, shape=(2, 2))

    _kernel_error(wrong_rank, r"a tile of 2 dimensions from an array of 1")


def test_unknown_keywords_and_storage_are_refused():
    def bad_keyword(a: wp.array(dtype=float)):
        wp.tile_zeros(shape=4, dtyp=float)

    _kernel_error(bad_keyword, r"unexpected keyword argument 'dtyp'")

    def bad_storage(a: wp.array(dtype=float)):
        wp.tile_zeros(shape=4, dtype=float, storage="global")

    _kernel_error(bad_storage, r"storage must be 'register' or 'shared'")


def test_a_tile_operation_in_a_conditional_expression_is_refused():
    def conditional(a: wp.array(dtype=float)):
        i = wp.tid()
        x = wp.tile_load(a, shape=2)[0] if i > 0 else 1.0
        a[0] = x

    _kernel_error(conditional, "a branch of a conditional expression")


def test_block_dim_must_be_an_int_and_nothing_runs():
    a = wp.zeros((TM, TN), dtype=float)
    b = wp.full((TM, TN), 3.0, dtype=float)
    for bad in (2.5, True, "64"):
        with pytest.raises(wp.LaunchError, match=r"block_dim must be an int \(or None for the default\)"):
            wp.launch_tiled(copy_scale_kernel, dim=[1, 1], inputs=[a, b], block_dim=bad)
    np.testing.assert_array_equal(b.numpy(), 3.0)


@pytest.mark.parametrize("default", [None, 0, -4])
def test_block_dim_none_zero_or_negative_is_the_default_as_in_warp(default):
    a = wp.full((TM, TN), 2.0, dtype=float)
    b = wp.zeros((TM, TN), dtype=float)
    wp.launch_tiled(copy_scale_kernel, dim=[1, 1], inputs=[a, b], block_dim=default)
    np.testing.assert_array_equal(b.numpy(), -(2.0 * 2.0 + 1.0) / 4.0)


def test_fft_needs_complex_tiles_of_two_dimensions():
    def real_tile(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=(2, 4), dtype=float)
        wp.tile_fft(t)

    _kernel_error(real_tile, r"tile_fft\(\): needs a tile of vec2f or vec2d")

    def one_dimension(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=4, dtype=wp.vec2f)
        wp.tile_fft(t)

    _kernel_error(one_dimension, r"at least 2 dimensions")


def test_tile_stack_errors_name_the_problem():
    def zero_capacity(a: wp.array(dtype=float)):
        wp.tile_stack(capacity=0, dtype=int)

    _kernel_error(zero_capacity, r"tile_stack\(\): capacity must be a positive integer, got 0", wp.KernelValueError)

    def wrong_value(a: wp.array(dtype=float)):
        s = wp.tile_stack(capacity=2, dtype=int)
        wp.tile_stack_push(s, 1.0, True)

    _kernel_error(wrong_value, r"the value's type float32 does not match the stack's dtype int32")


def test_a_part_assignment_needs_the_parts_shape_and_dtype():
    def wrong_shape(a: wp.array(dtype=float)):
        t = wp.tile_zeros(shape=(4, 6), dtype=float)
        t[0:2, :] = wp.tile_zeros(shape=(3, 6), dtype=float)

    _kernel_error(wrong_shape, r"shape mismatch: cannot assign a tile\(dtype=float32, shape=\(3, 6\)\) to "
                               r"'t\[0:2, :\]', a part of shape \(2, 6\)", wp.KernelValueError)

    def runtime_slice(a: wp.array(dtype=float)):
        n = wp.tid()
        t = wp.tile_zeros(shape=(4, 6), dtype=float)
        wp.tile_store(a, t[0:n, 0])

    _kernel_error(runtime_slice, "a tile slice's stop must be a compile-time constant int", wp.KernelValueError)


def test_a_per_thread_write_needs_a_tile():
    def not_a_tile(a: wp.array(dtype=float)):
        wp.tile_scatter_add(a, 1, 2.0, True)

    _kernel_error(not_a_tile, r"tile_scatter_add\(\): 'a' must be a variable holding a tile \(the element is "
                              r"written in place\), got a value of type array\(dtype=float32, ndim=1\)")


def test_tile_functions_belong_in_kernels():
    with pytest.raises(RuntimeError, match=r"tile_load\(\) can only be called inside a @kernel"):
        wp.tile_load(wp.zeros(4), shape=4)
    with pytest.raises(TypeError, match="tile shape must have 1 to 4 dimensions"):
        wp.tile[float, 1, 2, 3, 4, 5]


def test_cpu_blocks_of_several_lanes_are_refused():
    a = wp.zeros((TM, TN), dtype=float)
    b = wp.full((TM, TN), 3.0, dtype=float)
    with wp.config.override(enable_cpu_blocks=True):
        with pytest.raises(wp.LaunchError, match="enable_cpu_blocks is True, but a block runs as one thread"):
            wp.launch_tiled(copy_scale_kernel, dim=[1, 1], inputs=[a, b], block_dim=8)
    np.testing.assert_array_equal(b.numpy(), 3.0)


@wp.kernel
def lane_of_a_tile_kernel(out: wp.array(dtype=int)):
    block, lane = wp.tid()
    values = wp.tile(wp.int32(42))
    out[block * 8 + lane] = values[lane]


@wp.kernel
def no_tile_kernel(out: wp.array(dtype=int)):
    out[wp.tid()] = 7


def test_cpu_blocks_are_refused_for_a_plain_launch_of_a_tile_kernel():
    out = wp.zeros(16, dtype=int)
    with wp.config.override(enable_cpu_blocks=True):
        with pytest.raises(wp.LaunchError, match=r"launch of 'lane_of_a_tile_kernel': wp.config.enable_cpu_blocks "
                                                 r"is True, but a block runs as one thread"):
            wp.launch(lane_of_a_tile_kernel, dim=(2, 8), inputs=[out], block_dim=8)
        wp.launch(no_tile_kernel, dim=16, inputs=[out])  # a kernel without tiles runs as ever
    np.testing.assert_array_equal(out.numpy(), 7)
