"""Gradients through tiles: tile_load -> tile operations -> tile_store (or tile_atomic_add) in a Tape, against
exact gradients worked out with numpy (Warp 1.19's tiles give the same on the CPU), on the CPU and on the GPU
mapping run on the CPU (whose instances also compile for CUDA)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

pytestmark = pytest.mark.compiles_for_cuda


@pytest.fixture(autouse=True, params=["cpu", "cuda-emulation"])
def target(request):
    with config.override(target=request.param):
        yield request.param

N = 8  # elements per tile


def _rand(shape, seed, low=0.5, high=1.5):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def _backward(kernel, dim, inputs, outputs, seeds):
    """Launch ``kernel`` over ``dim`` tiles in a Tape, seed each output's gradient and return the inputs'
    gradients (numpy)."""
    ins = [wp.array(a, requires_grad=True) for a in inputs]
    outs = [wp.zeros(s.shape, dtype=float, requires_grad=True) for s in seeds]
    with wp.Tape() as tape:
        wp.launch_tiled(kernel, dim=dim, inputs=[*ins, *outs], block_dim=32)
    for out, seed in zip(outs, seeds):
        out.grad = wp.array(seed)
    tape.backward()
    return [a.grad.numpy() for a in ins], [o.numpy() for o in outs]


@wp.kernel
def copy_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    wp.tile_store(b, t, offset=i * N)


def test_load_store_copy_passes_the_gradient_through():
    a, g = _rand(3 * N, 1), _rand(3 * N, 2)
    (da,), _ = _backward(copy_kernel, [3], [a], [], [g])
    np.testing.assert_allclose(da, g, rtol=1e-6)


@wp.kernel
def map_sin_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    u = wp.tile_map(wp.sin, t) * 2.0
    wp.tile_store(b, u, offset=i * N)


def test_tile_map_of_a_builtin():
    a, g = _rand(2 * N, 3), _rand(2 * N, 4)
    (da,), (b,) = _backward(map_sin_kernel, [2], [a], [], [g])
    np.testing.assert_allclose(b, 2 * np.sin(a), rtol=1e-6)
    np.testing.assert_allclose(da, 2 * np.cos(a) * g, rtol=1e-5)


@wp.kernel
def arithmetic_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    x = wp.tile_load(a, shape=N, offset=i * N)
    y = wp.tile_load(b, shape=N, offset=i * N)
    u = x * 2.0 + y
    v = x * y - x / y
    wp.tile_store(c, u + v + (-x), offset=i * N)


def test_elementwise_arithmetic_of_two_tiles():
    a, b, g = _rand(2 * N, 5), _rand(2 * N, 6), _rand(2 * N, 7)
    (da, db), (c,) = _backward(arithmetic_kernel, [2], [a, b], [], [g])
    np.testing.assert_allclose(c, a * 2 + b + a * b - a / b - a, rtol=1e-5)
    np.testing.assert_allclose(da, g * (2 + b - 1 / b - 1), rtol=1e-5)
    np.testing.assert_allclose(db, g * (1 + a + a / b**2), rtol=1e-5)


@wp.kernel
def grid_2d_kernel(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(2, 4), offset=(i * 2, j * 4))
    u = t * t + wp.tile_ones(shape=(2, 4), dtype=float)
    wp.tile_store(b, -u / 4.0, offset=(i * 2, j * 4))


def test_two_dimensional_tiles_over_a_grid():
    a, g = _rand((4, 8), 8), _rand((4, 8), 9)
    (da,), _ = _backward(grid_2d_kernel, [2, 2], [a], [], [g])
    np.testing.assert_allclose(da, -a / 2 * g, rtol=1e-5)


@wp.kernel
def atomic_add_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    wp.tile_atomic_add(b, t * t * 3.0, offset=0)  # every tile adds into the same elements


def test_tile_atomic_add():
    a, g = _rand(3 * N, 10), _rand(N, 11)
    (da,), (b,) = _backward(atomic_add_kernel, [3], [a], [], [g])
    np.testing.assert_allclose(b, 3 * (a.reshape(3, N) ** 2).sum(0), rtol=1e-5)
    np.testing.assert_allclose(da, 6 * a * np.tile(g, 3), rtol=1e-5)


@wp.func
def square_tile(t: wp.tile[float, N]):
    return t * t


@wp.kernel
def copies_and_func_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    u = t
    v = u
    w = square_tile(v)
    wp.tile_store(b, w + u, offset=i * N)


def test_whole_tile_copies_and_a_tile_passed_to_a_func():
    a, g = _rand(2 * N, 12), _rand(2 * N, 13)
    (da,), _ = _backward(copies_and_func_kernel, [2], [a], [], [g])
    np.testing.assert_allclose(da, (2 * a + 1) * g, rtol=1e-5)


@wp.kernel
def branch_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    if i % 2 == 0:
        u = t * 2.0
    else:
        u = t * t
    wp.tile_store(b, u, offset=i * N)


def test_a_tile_assigned_in_both_branches():
    a, g = _rand(2 * N, 14), _rand(2 * N, 15)
    (da,), _ = _backward(branch_kernel, [2], [a], [], [g])
    expected = np.concatenate([2 * g[:N], 2 * a[N:] * g[N:]])
    np.testing.assert_allclose(da, expected, rtol=1e-5)


K = 4


@wp.kernel
def loop_sum_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    acc = wp.tile_zeros(shape=N, dtype=float)
    for k in range(K):
        acc = acc + wp.tile_load(a, shape=N, offset=(i * K + k) * N) * float(k + 1)
    wp.tile_store(b, acc, offset=i * N)


def test_a_tile_accumulated_in_a_loop():
    a, g = _rand(2 * K * N, 16), _rand(2 * N, 17)
    (da,), (b,) = _backward(loop_sum_kernel, [2], [a], [], [g])
    weights = np.arange(1, K + 1, dtype=np.float32)[None, :, None]
    np.testing.assert_allclose(b, (a.reshape(2, K, N) * weights).sum(1).ravel(), rtol=1e-5)
    np.testing.assert_allclose(da, (weights * g.reshape(2, 1, N)).ravel(), rtol=1e-5)


@wp.kernel
def loop_product_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    acc = wp.tile_ones(shape=N, dtype=float)
    for k in range(K):
        acc = acc * wp.tile_load(a, shape=N, offset=(i * K + k) * N)
    wp.tile_store(b, acc, offset=i * N)


def test_a_tile_multiplied_in_a_loop_keeps_each_iterations_value():
    a, g = _rand(2 * K * N, 18), _rand(2 * N, 19)
    (da,), _ = _backward(loop_product_kernel, [2], [a], [], [g])
    x = a.reshape(2, K, N)
    expected = x.prod(1, keepdims=True) / x * g.reshape(2, 1, N)
    np.testing.assert_allclose(da, expected.ravel(), rtol=1e-5)


@wp.kernel
def element_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    s = t[3]
    t[0] = s * s  # overwrites element 0: its input gets no gradient from here on
    wp.tile_store(b, t, offset=i * N)


def test_element_reads_and_writes():
    a, g = _rand(2 * N, 20), _rand(2 * N, 21)
    (da,), _ = _backward(element_kernel, [2], [a], [], [g])
    x, gg = a.reshape(2, N), g.reshape(2, N)
    expected = gg.copy()
    expected[:, 0] = 0
    expected[:, 3] += 2 * x[:, 3] * gg[:, 0]
    np.testing.assert_allclose(da, expected.ravel(), rtol=1e-5)


@wp.kernel
def write_after_read_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    u = t * t  # reads every element of t before the next line changes one
    t[1] = 5.0
    wp.tile_store(b, u, offset=i * N)
    wp.tile_store(c, t * t, offset=i * N)


def test_a_tile_written_after_an_operation_read_it():
    a, g1, g2 = _rand(2 * N, 22), _rand(2 * N, 23), _rand(2 * N, 24)
    (da,), _ = _backward(write_after_read_kernel, [2], [a], [], [g1, g2])
    second = 2 * a * g2
    second[1::N] = 0
    np.testing.assert_allclose(da, 2 * a * g1 + second, rtol=1e-5)


@wp.kernel
def running_product_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    for k in range(1, N):
        t[k] = t[k - 1] * t[k]  # each iteration reads what the one before wrote
    wp.tile_store(b, t, offset=i * N)


def test_elements_written_in_a_loop_from_earlier_elements():
    a, g = _rand(2 * N, 25), _rand(2 * N, 26)
    (da,), (b,) = _backward(running_product_kernel, [2], [a], [], [g])
    x, gg = a.reshape(2, N).astype(np.float64), g.reshape(2, N)
    prefix = np.cumprod(x, axis=1)
    np.testing.assert_allclose(b, prefix.ravel(), rtol=1e-5)
    # b[j] = prod(x[:j+1]): d b[j] / d x[m] = b[j] / x[m] for m <= j
    expected = np.array([[sum(gg[r, j] * prefix[r, j] / x[r, m] for j in range(m, N)) for m in range(N)]
                         for r in range(2)])
    np.testing.assert_allclose(da, expected.ravel(), rtol=1e-5)


@wp.kernel
def partial_tile_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    wp.tile_store(b, wp.tile_map(wp.exp, t), offset=i * N)


def test_elements_outside_the_array_pass_no_gradient():
    a, g = _rand(N + 3, 27), _rand(N + 3, 28)
    (da,), _ = _backward(partial_tile_kernel, [2], [a], [], [g])
    np.testing.assert_allclose(da, np.exp(a) * g, rtol=1e-5)


@wp.kernel
def fixed_array_beside_tiles_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    local = wp.zeros(shape=N, dtype=float)
    for k in range(N):
        local[k] = t[k] * 2.0  # a fixed-size local array: the gradient flows through it too
    for k in range(N):
        b[i * N + k] = local[k] + t[k]


def test_fixed_size_local_arrays_pass_gradients_beside_tiles():
    a, g = _rand(2 * N, 29), _rand(2 * N, 30)
    (da,), (b,) = _backward(fixed_array_beside_tiles_kernel, [2], [a], [], [g])
    np.testing.assert_allclose(b, 3 * a, rtol=1e-6)
    np.testing.assert_allclose(da, 3 * g, rtol=1e-6)


@wp.kernel
def in_place_loop_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    u = t * 3.0
    for k in range(N):
        t[k] = t[k] * t[k] + 1.0  # each iteration updates its own element in place
    wp.tile_store(b, u, offset=i * N)
    wp.tile_store(c, t, offset=i * N)


def test_elements_updated_in_place_by_a_loop():
    a, g1, g2 = _rand(2 * N, 31), _rand(2 * N, 32), _rand(2 * N, 33)
    (da,), (b, c) = _backward(in_place_loop_kernel, [2], [a], [], [g1, g2])
    np.testing.assert_allclose(c, a * a + 1, rtol=1e-5)
    np.testing.assert_allclose(da, 3 * g1 + 2 * a * g2, rtol=1e-5)


@wp.kernel
def axpy_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    x = wp.tile_load(a, shape=N, offset=i * N)
    y = wp.tile_load(b, shape=N, offset=i * N)
    wp.tile_axpy(2.0, x * x, y)  # y += 2 x^2, in place
    wp.tile_store(c, y * y, offset=i * N)


def test_tile_axpy_updates_in_place():
    a, b, g = _rand(2 * N, 34), _rand(2 * N, 35), _rand(2 * N, 36)
    (da, db), (c,) = _backward(axpy_kernel, [2], [a, b], [], [g])
    y = b + 2 * a * a
    np.testing.assert_allclose(c, y * y, rtol=1e-5)
    np.testing.assert_allclose(da, 2 * y * g * 4 * a, rtol=1e-5)
    np.testing.assert_allclose(db, 2 * y * g, rtol=1e-5)


@wp.func
def scaled_and_product(a: wp.tile[float, N], b: wp.tile[float, N]):
    return a * 2.0, b * a


@wp.func
def grow(a: wp.tile[float, N], b: wp.tile[float, N]):
    a += b * b  # reaches the caller's tile
    return a * 3.0


@wp.kernel
def tile_tuple_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float),
                      d: wp.array(dtype=float)):
    i = wp.tid()
    x = wp.tile_load(a, shape=N, offset=i * N)
    y = wp.tile_load(b, shape=N, offset=i * N)
    s, p = scaled_and_product(x, y)
    r = grow(x, y)  # x becomes x + y^2, r is 3 (x + y^2)
    wp.tile_store(c, s * p + r, offset=i * N)
    wp.tile_store(d, x, offset=i * N)


def test_tuples_of_tiles_and_a_funcs_in_place_change_carry_gradients():
    a, b, g, h = _rand(2 * N, 37), _rand(2 * N, 38), _rand(2 * N, 39), _rand(2 * N, 40)
    (da, db), (c, d) = _backward(tile_tuple_kernel, [2], [a, b], [], [g, h])
    np.testing.assert_allclose(c, 2 * a * a * b + 3 * (a + b * b), rtol=1e-5)
    np.testing.assert_allclose(d, a + b * b, rtol=1e-6)
    np.testing.assert_allclose(da, g * (4 * a * b + 3) + h, rtol=1e-5)
    np.testing.assert_allclose(db, g * (2 * a * a + 6 * b) + h * 2 * b, rtol=1e-5)


@wp.func
def pick_pair(a: wp.tile[float, N], b: wp.tile[float, N], flag: int):
    if flag > 0:
        return a * 2.0, b
    return b, a * a


@wp.kernel
def tile_tuple_branch_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), flag: int):
    i = wp.tid()
    x = wp.tile_load(a, shape=N, offset=i * N)
    y = wp.tile_load(b, shape=N, offset=i * N)
    for k in range(2):  # the second pass takes the first one's pair
        x, y = pick_pair(x, y, flag - k)
    wp.tile_store(c, x * y, offset=i * N)


@pytest.mark.parametrize("flag", [0, 1])
def test_tuples_of_tiles_returned_from_branches_in_a_loop(flag):
    a, b, g = _rand(2 * N, 41), _rand(2 * N, 42), _rand(2 * N, 43)
    ins = [wp.array(v, requires_grad=True) for v in (a, b)]
    out = wp.zeros(2 * N, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(tile_tuple_branch_kernel, dim=[2], inputs=[*ins, out, flag], block_dim=32)
    out.grad = wp.array(g)
    tape.backward()
    (da, db), c = (v.grad.numpy() for v in ins), out.numpy()
    if flag:  # (2a, b) then (b, 4a^2): c = 4 a^2 b
        np.testing.assert_allclose(c, 4 * a * a * b, rtol=1e-5)
        np.testing.assert_allclose(da, 8 * a * b * g, rtol=1e-5)
        np.testing.assert_allclose(db, 4 * a * a * g, rtol=1e-5)
    else:  # (b, a^2) then (a^2, b^2): c = a^2 b^2
        np.testing.assert_allclose(c, a * a * b * b, rtol=1e-5)
        np.testing.assert_allclose(da, 2 * a * b * b * g, rtol=1e-5)
        np.testing.assert_allclose(db, 2 * a * a * b * g, rtol=1e-5)


@wp.func
def doubled_pair(a: wp.tile[float, N]):
    return a * 2.0, a


@wp.kernel
def tile_tuple_after_loop_kernel(a: wp.array(dtype=float), c: wp.array(dtype=float)):
    x = wp.tile_load(a, shape=N)
    p = doubled_pair(x)
    for _k in range(2):
        p = doubled_pair(x)
    s, q = p  # the tuple the loop assigned, read after it
    wp.tile_store(c, s * q)


def test_a_tuple_of_tiles_read_after_the_loop_that_assigned_it_is_refused(target):
    a = wp.array(np.ones(N, dtype=np.float32), requires_grad=True)
    c = wp.zeros(N, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(tile_tuple_after_loop_kernel, dim=1, inputs=[a, c], block_dim=1)
    np.testing.assert_array_equal(c.numpy(), 2.0)
    c.grad = wp.ones_like(c)
    with pytest.raises(wp.KernelNotDifferentiableError, match=r"tile_tuple_after_loop_kernel \(adjoint\).*a tile "
                                                             r"taken, after a loop, from a tuple of tiles"):
        tape.backward()
    np.testing.assert_array_equal(a.grad.numpy(), 0)
