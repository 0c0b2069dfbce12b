"""Tile reductions, scans and sorting (tile_sum, tile_min/max, tile_argmin/argmax, tile_reduce, tile_dot,
tile_scan_*, tile_sort) against numpy, Warp 1.19's values on the CPU for ties and NaNs, and their errors."""

import functools
from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import KernelTypeError

pytestmark = pytest.mark.compiles_for_cuda

TM, TN = 3, 5


@wp.func
def larger(a: Any, b: Any):
    return wp.where(b > a, b, a)


@wp.kernel
def reduce_kernel(x: wp.array2d(dtype=Any), total: wp.array(dtype=Any), cols: wp.array(dtype=Any),
                  rows: wp.array(dtype=Any), ext: wp.array(dtype=Any), where: wp.array(dtype=int),
                  prods: wp.array(dtype=Any), folded: wp.array(dtype=Any), dot: wp.array(dtype=Any)):
    t = wp.tile_load(x, shape=(TM, TN))
    wp.tile_store(total, wp.tile_sum(t))
    wp.tile_store(cols, wp.tile_sum(t, axis=0))
    wp.tile_store(rows, wp.tile_sum(t, axis=-1))
    wp.tile_store(ext, wp.tile_min(t), offset=0)
    wp.tile_store(ext, wp.tile_max(t), offset=1)
    wp.tile_store(where, wp.tile_argmin(t), offset=0)
    wp.tile_store(where, wp.tile_argmax(t), offset=1)
    wp.tile_store(prods, wp.tile_reduce(wp.mul, t, axis=1))
    wp.tile_store(folded, wp.tile_reduce(larger, t))
    wp.tile_store(dot, wp.tile_dot(t, t))


def _reduce(x: np.ndarray) -> dict:
    dtype = wp.dtype_from_numpy(x.dtype)
    out = {n: wp.zeros(size, dtype=dtype) for n, size in (("total", 1), ("cols", TN), ("rows", TM), ("ext", 2))}
    out["where"] = wp.zeros(2, dtype=int)
    out.update(prods=wp.zeros(TM, dtype=dtype), folded=wp.zeros(1, dtype=dtype), dot=wp.zeros(1, dtype=dtype))
    wp.launch_tiled(reduce_kernel, dim=1, inputs=[wp.array(x), *out.values()], block_dim=32)
    return {n: a.numpy() for n, a in out.items()}


def _sample(dtype, rng):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-4, 5, (TM, TN)).astype(dtype)
    return rng.normal(size=(TM, TN)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_whole_tile_and_axis_reductions_match_numpy(dtype):
    x = _sample(dtype, np.random.default_rng(3))
    got = _reduce(x)
    close = functools.partial(np.testing.assert_allclose, rtol=1e-5 if dtype == np.float32 else 1e-12)
    close(got["total"], [x.sum()])
    close(got["cols"], x.sum(axis=0))
    close(got["rows"], x.sum(axis=1))
    close(got["prods"], x.prod(axis=1))
    close(got["dot"], [(x * x).sum()])
    np.testing.assert_array_equal(got["ext"], [x.min(), x.max()])
    np.testing.assert_array_equal(got["folded"], [x.max()])
    np.testing.assert_array_equal(got["where"], [x.argmin(), x.argmax()])  # row-major, first of ties (ints tie)


def test_reductions_on_the_gpu_mapping():
    x = _sample(np.float32, np.random.default_rng(4))
    with config.override(target="cuda-emulation"):
        got = _reduce(x)
    np.testing.assert_allclose(got["cols"], x.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(got["prods"], x.prod(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(got["where"], [x.argmin(), x.argmax()])


N1 = 8


@wp.kernel
def extrema_1d_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float), where: wp.array(dtype=int)):
    t = wp.tile_load(x, shape=N1)
    wp.tile_store(out, wp.tile_min(t), offset=0)
    wp.tile_store(out, wp.tile_max(t), offset=1)
    wp.tile_store(out, wp.tile_sum(t, axis=0), offset=2)
    wp.tile_store(out, wp.tile_reduce(wp.add, t, axis=0), offset=3)
    wp.tile_store(where, wp.tile_argmin(t), offset=0)
    wp.tile_store(where, wp.tile_argmax(t), offset=1)


nan = float("nan")


# (input, (min, max), (argmin, argmax)) as Warp 1.19 gives them on the CPU (block_dim 1, 8 and 64 alike):
# min/max skip NaNs (fmin/fmax); arg* keep the first of ties, and index 0 for a NaN first until a later element
# beats the running min/max of those after it
@pytest.mark.parametrize("values, extrema, where", [
    ([3, 1, 5, 1, 7, 7, 0.5, 0.5], (0.5, 7), (6, 4)),
    ([nan, 1, 5, 1, 7, 7, 2, 2], (1, 7), (0, 4)),
    ([3, 1, 5, nan, 7, 7, 2, 2], (1, 7), (1, 4)),
    ([nan] * 8, (nan, nan), (0, 0)),
    ([nan, 2, 1, 3, 0.5, 9, 9, 1], (0.5, 9), (4, 5)),
    ([2, nan, nan, 1, 5, 0, 9, 9], (0, 9), (5, 6)),
])
def test_ties_and_nans_as_warp(values, extrema, where):
    out, idx = wp.zeros(4, dtype=float), wp.zeros(2, dtype=int)
    wp.launch_tiled(extrema_1d_kernel, dim=1, inputs=[wp.array(np.array(values, dtype=np.float32)), out, idx],
                    block_dim=8)
    got = out.numpy()
    np.testing.assert_array_equal(got[:2], np.array(extrema, dtype=np.float32))
    np.testing.assert_allclose(got[2:], [np.sum(values, dtype=np.float32)] * 2, rtol=1e-6)  # axis=0 of 1-D: (1,)
    np.testing.assert_array_equal(idx.numpy(), where)


@wp.struct
class Scored:
    score: float
    key: int


@wp.func
def best_scored(a: Scored, b: Scored):
    if b.score > a.score:
        return b
    return a


@wp.kernel
def composite_kernel(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), s: wp.array(dtype=Scored),
                     vsum: wp.array(dtype=wp.vec3), dots: wp.array(dtype=float), best: wp.array(dtype=Scored)):
    tv = wp.tile_load(v, shape=4)
    tm = wp.tile_load(m, shape=3)
    wp.tile_store(vsum, wp.tile_sum(tv))
    wp.tile_store(dots, wp.tile_dot(tv, tv + tv), offset=0)
    wp.tile_store(dots, wp.tile_dot(tm, tm), offset=1)
    wp.tile_store(best, wp.tile_reduce(best_scored, wp.tile_load(s, shape=6)))


def test_vectors_matrices_and_structs():
    rng = np.random.default_rng(5)
    v, m = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(3, 2, 2)).astype(np.float32)
    scores = rng.permutation(6).astype(np.float32)
    s = wp.zeros(6, dtype=Scored)
    items = s.numpy()
    items["score"], items["key"] = scores, np.arange(6) * 10
    s = wp.array(items, dtype=Scored)
    vsum, dots, best = wp.zeros(1, dtype=wp.vec3), wp.zeros(2, dtype=float), wp.zeros(1, dtype=Scored)
    wp.launch_tiled(composite_kernel, dim=1, inputs=[wp.array(v, dtype=wp.vec3), wp.array(m, dtype=wp.mat22), s,
                                                     vsum, dots, best], block_dim=16)
    np.testing.assert_allclose(vsum.numpy()[0], v.sum(axis=0), rtol=1e-5)  # componentwise
    np.testing.assert_allclose(dots.numpy(), [(v * 2 * v).sum(), (m * m).sum()], rtol=1e-5)  # dot, Frobenius
    assert best.numpy()[0]["key"] == 10 * scores.argmax()


SR, SC = 2, 6


@wp.kernel
def scan_kernel(x: wp.array2d(dtype=Any), inc: wp.array2d(dtype=Any), exc: wp.array2d(dtype=Any),
                hi: wp.array2d(dtype=Any), lo: wp.array2d(dtype=Any)):
    t = wp.tile_load(x, shape=(SR, SC))
    wp.tile_store(inc, wp.tile_scan_inclusive(t))
    wp.tile_store(exc, wp.tile_scan_exclusive(t))
    wp.tile_store(hi, wp.tile_scan_max_inclusive(t))
    wp.tile_store(lo, wp.tile_scan_min_inclusive(t))


def _scans(x: np.ndarray) -> list:
    outs = [wp.zeros(x.shape, dtype=wp.dtype_from_numpy(x.dtype)) for _ in range(4)]
    wp.launch_tiled(scan_kernel, dim=1, inputs=[wp.array(x), *outs], block_dim=32)
    return [o.numpy().ravel() for o in outs]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_scans_run_over_the_row_major_sequence(dtype):
    rng = np.random.default_rng(6)
    x = rng.integers(-9, 10, (SR, SC)).astype(dtype)
    inc, exc, hi, lo = _scans(x)
    flat = x.ravel()
    np.testing.assert_array_equal(inc, np.cumsum(flat))
    np.testing.assert_array_equal(exc, np.concatenate([[0], np.cumsum(flat)[:-1]]))
    np.testing.assert_array_equal(hi, np.maximum.accumulate(flat))
    np.testing.assert_array_equal(lo, np.minimum.accumulate(flat))


def test_scans_of_nans_as_warp():
    x = np.array([[1, 2, nan, 4, -1, 5], [0, 3, nan, nan, -2, 6]], dtype=np.float32)
    inc, _, hi, lo = _scans(x)
    assert np.isnan(inc[2:]).all()  # a sum keeps the NaN
    np.testing.assert_array_equal(hi, np.fmax.accumulate(x.ravel()))  # max and min skip it
    np.testing.assert_array_equal(lo, np.fmin.accumulate(x.ravel()))


SN = 300


@wp.kernel
def sort_kernel(k1: wp.array(dtype=float), v1: wp.array(dtype=int), k2: wp.array2d(dtype=wp.int64),
                v2: wp.array2d(dtype=wp.vec2), k3: wp.array(dtype=wp.uint32)):
    a = wp.tile_load(k1, shape=SN)
    b = wp.tile_load(v1, shape=SN)
    wp.tile_sort(a, b)
    wp.tile_store(k1, a)
    wp.tile_store(v1, b)
    c = wp.tile_load(k2, shape=(3, 4))
    d = wp.tile_load(v2, shape=(3, 4))
    wp.tile_sort(c, d)  # sorted as the row-major sequence
    wp.tile_store(k2, c)
    wp.tile_store(v2, d)
    e = wp.tile_load(k3, shape=7)
    wp.tile_sort(e, e)  # one tile as keys and values
    wp.tile_store(k3, e)


def _sort(k1, k2, k3):
    arrays = [wp.array(k1), wp.array(np.arange(len(k1), dtype=np.int32)), wp.array(k2, dtype=wp.int64),
              wp.array(np.arange(24, dtype=np.float32).reshape(3, 4, 2), dtype=wp.vec2), wp.array(k3, dtype=wp.uint32)]
    wp.launch_tiled(sort_kernel, dim=1, inputs=arrays, block_dim=64)
    return [a.numpy() for a in arrays]


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_sort_moves_values_with_their_keys(target):
    rng = np.random.default_rng(7)
    k1 = rng.permutation(SN).astype(np.float32) - 100.5  # distinct: Warp's order too
    k2 = rng.choice(1 << 40, size=(3, 4), replace=False).astype(np.int64) - (1 << 39)
    k3 = rng.integers(0, 1 << 32, 7, dtype=np.uint64).astype(np.uint32)
    with config.override(target=target):
        s1, v1, s2, v2, s3 = _sort(k1, k2, k3)
    order = np.argsort(k1)
    np.testing.assert_array_equal(s1, k1[order])
    np.testing.assert_array_equal(v1, order)
    order2 = np.argsort(k2.ravel())
    np.testing.assert_array_equal(s2.ravel(), k2.ravel()[order2])
    np.testing.assert_array_equal(v2.reshape(12, 2)[:, 0], 2 * order2)
    np.testing.assert_array_equal(s3, np.sort(k3))


def test_sort_keeps_tied_keys_in_order():
    # Warp leaves the order of equal keys unspecified; here the sort is stable
    k1 = np.random.default_rng(8).integers(0, 5, SN).astype(np.float32)
    s1, v1, *_ = _sort(k1, np.zeros((3, 4), dtype=np.int64), np.zeros(7, dtype=np.uint32))
    np.testing.assert_array_equal(s1, np.sort(k1))
    np.testing.assert_array_equal(v1, np.argsort(k1, kind="stable"))


# -- errors ----------------------------------------------------------------------------------------


@wp.kernel
def bad_axis(x: wp.array2d(dtype=float)):
    r = wp.tile_sum(wp.tile_load(x, shape=(2, 3)), axis=2)  # noqa: F841


@wp.kernel
def bad_negative_axis(x: wp.array2d(dtype=float)):
    r = wp.tile_reduce(wp.add, wp.tile_load(x, shape=(2, 3)), axis=-3)  # noqa: F841


@wp.kernel
def runtime_axis(x: wp.array2d(dtype=float)):
    i = wp.tid()
    r = wp.tile_sum(wp.tile_load(x, shape=(2, 3)), axis=i)  # noqa: F841


@wp.kernel
def not_a_tile(x: wp.array2d(dtype=float)):
    r = wp.tile_max(x)  # noqa: F841


@wp.kernel
def dot_of_two_shapes(x: wp.array2d(dtype=float)):
    r = wp.tile_dot(wp.tile_load(x, shape=(2, 3)), wp.tile_ones(shape=(3, 2), dtype=float))  # noqa: F841


@wp.kernel
def dot_of_two_dtypes(x: wp.array2d(dtype=float)):
    r = wp.tile_dot(wp.tile_load(x, shape=(2, 3)), wp.tile_ones(shape=(2, 3), dtype=wp.float64))  # noqa: F841


@wp.kernel
def min_of_vectors(x: wp.array2d(dtype=float)):
    r = wp.tile_min(wp.tile_zeros(shape=4, dtype=wp.vec3))  # noqa: F841


@wp.kernel
def scan_of_doubles(x: wp.array2d(dtype=float)):
    r = wp.tile_scan_inclusive(wp.tile_zeros(shape=4, dtype=wp.float64))  # noqa: F841


@wp.kernel
def sort_of_double_keys(x: wp.array2d(dtype=float)):
    wp.tile_sort(wp.tile_zeros(shape=4, dtype=wp.float64), wp.tile_zeros(shape=4, dtype=float))


@wp.kernel
def sort_of_two_shapes(x: wp.array2d(dtype=float)):
    wp.tile_sort(wp.tile_zeros(shape=4, dtype=float), wp.tile_zeros(shape=5, dtype=int))


@wp.func
def to_int(a: float, b: float):
    return int(a + b)


@wp.kernel
def reduce_changing_type(x: wp.array2d(dtype=float)):
    r = wp.tile_reduce(to_int, wp.tile_load(x, shape=(2, 3)))  # noqa: F841


@wp.kernel
def reduce_with_a_number(x: wp.array2d(dtype=float)):
    r = wp.tile_reduce(3, wp.tile_load(x, shape=(2, 3)))  # noqa: F841


@wp.kernel
def reduce_vectors_along_an_axis(x: wp.array2d(dtype=float)):
    r = wp.tile_reduce(wp.add, wp.tile_zeros(shape=(2, 2), dtype=wp.vec3), axis=0)  # noqa: F841


@pytest.mark.parametrize("kernel, message", [
    (bad_axis, r"tile_sum\(\): axis 2 is out of bounds for a tile of 2 dimensions"),
    (bad_negative_axis, r"tile_reduce\(\): axis -3 is out of bounds"),
    (runtime_axis, r"tile_sum\(\): 'axis' must be known at compile time"),
    (not_a_tile, r"tile_max\(\): 'a' must be a tile, got a value of type array\(dtype=float32, ndim=2\)"),
    (dot_of_two_shapes, r"tile_dot\(\): 'a' and 'b' must have the same shape, got \(2, 3\) and \(3, 2\)"),
    (dot_of_two_dtypes, r"tile_dot\(\): 'a' and 'b' must have the same dtype, got float32 and float64"),
    (min_of_vectors, r"tile_min\(\): 'a' must be a tile of a numeric scalar type, got a tile of vec3f"),
    (scan_of_doubles, r"tile_scan_inclusive\(\): 'a' must be a tile of float32, int32 or uint32, got .*float64"),
    (sort_of_double_keys, r"tile_sort\(\): 'keys' must be a tile of float32, .* or uint64, got a tile of float64"),
    (sort_of_two_shapes, r"tile_sort\(\): 'keys' and 'values' must have the same shape, got \(4,\) and \(5,\)"),
    (reduce_changing_type, r"tile_reduce\(\): 'op' must return the tile element type float32, got int32"),
    (reduce_with_a_number, r"tile_reduce\(\): 'op' must be a builtin or a @func, got 3"),
    (reduce_vectors_along_an_axis, r"tile_reduce\(\): with 'axis', 'a' must be a tile of a numeric scalar"),
])
def test_wrong_arguments_are_named(kernel, message):
    with pytest.raises(KernelTypeError, match=message):
        wp.launch_tiled(kernel, dim=1, inputs=[wp.zeros((2, 3), dtype=float)], block_dim=1)
