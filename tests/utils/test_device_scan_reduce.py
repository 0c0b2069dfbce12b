"""``array_scan``, ``array_sum`` and ``array_inner`` as kernels on the arrays' device: against numpy on random
data of every dtype and on sizes around the GPU scan's segments (256 elements) and the reductions' chunks (1024
positions), views, same bits on every run; the GPU algorithms on the cuda-emulation target (compiled for sm_90
too)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.types.arrays import element_layout, type_name
from brickwork.types.composite import vector
from brickwork.types.scalars import is_scalar_type
from brickwork.utils import array_inner, array_scan, array_sum

SCAN_TYPES = [wp.int32, wp.int64, wp.float32, wp.float64, wp.vec3f, wp.vec2d, wp.vec4i,
              vector(length=2, dtype=wp.int64)]
SIZES = [0, 1, 2, 255, 256, 257, 1023, 1025, 65537]


def _random(rng, dtype, n):
    """``n`` random elements of ``dtype`` as the numpy data of an array (elements, then components)."""
    comp, trailing = element_layout(dtype)
    shape = (n,) + trailing
    if comp.kind == "i":
        info = np.iinfo(comp)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=comp)
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(comp)


def reference_scan(data, inclusive):
    """The sequential scan in the wide type, rounded (or wrapped) once per element: numpy's cumsum."""
    wide = np.float64 if data.dtype.kind == "f" else np.int64
    sums = np.cumsum(data.reshape((data.shape[0], int(np.prod(data.shape[1:])))).astype(wide), axis=0) + wide(0)
    if not inclusive:
        sums = np.concatenate([np.zeros_like(sums[:1]), sums[:-1]])
    with np.errstate(over="ignore"):
        return sums.astype(data.dtype).reshape(data.shape)


def assert_close_to_sequential(got, expected, data):
    """A float scan summed in another order (the GPU's segments) is within rounding of the sequential one:
    float32 data accumulate in float64 and round once (2 ulps of the running sum of magnitudes); float64 data
    round at every addition, so both orders stray from the exact sums by about sqrt(n) roundings."""
    n = len(data)
    scale = np.cumsum(np.abs(data.reshape(n, int(np.prod(data.shape[1:]))).astype(np.float64)), axis=0)
    ulps = 2.0 if data.dtype == np.float32 else 4.0 * np.sqrt(n) + 4.0
    assert np.all(np.abs(got - expected) <= ulps * np.finfo(data.dtype).eps * scale.reshape(data.shape))


def _scan(data, dtype, inclusive):
    a = wp.array(data, dtype=dtype)
    out = wp.full(a.shape, 7, dtype=dtype) if is_scalar_type(dtype) else wp.zeros(a.shape, dtype=dtype)
    array_scan(a, out, inclusive=inclusive)
    return out.numpy()


@pytest.mark.parametrize("dtype", SCAN_TYPES, ids=lambda t: type_name(t))
@pytest.mark.parametrize("inclusive", [True, False])
def test_scan_on_the_cpu_is_the_sequential_wide_scan_bit_for_bit(dtype, inclusive):
    rng = np.random.default_rng(1)
    for n in SIZES:
        data = _random(rng, dtype, n)
        got = _scan(data, dtype, inclusive)
        assert got.tobytes() == reference_scan(data, inclusive).tobytes(), n


def test_scan_of_a_million_elements_and_cancellations():
    rng = np.random.default_rng(2)
    data = rng.integers(-100, 100, 1_000_000).astype(np.int32)
    assert np.array_equal(_scan(data, wp.int32, True), np.cumsum(data, dtype=np.int32))
    f = rng.standard_normal(1_000_000).astype(np.float32)
    assert _scan(f, wp.float32, False).tobytes() == reference_scan(f, False).tobytes()
    # float64 accumulation: the cancellation float32 running sums lose, and +0.0 from -0.0 terms
    assert _scan(np.array([1e8, 1, 1, 1, -1e8], np.float32), wp.float32, True)[-1] == 3.0
    zeros = _scan(np.array([-0.0, -0.0], np.float32), wp.float32, True)
    assert not np.signbit(zeros).any()


def test_scan_of_views_and_of_arrays_of_more_dimensions():
    rng = np.random.default_rng(3)
    base = wp.array(rng.integers(0, 50, (40, 30)).astype(np.int64))
    out = wp.zeros((30, 40), dtype=wp.int64)
    array_scan(base.transpose(), out.transpose())  # non-contiguous in and out: row-major over the views
    assert np.array_equal(out.numpy().T.reshape(-1), np.cumsum(base.numpy().T.reshape(-1)))
    strided = wp.array(rng.standard_normal((300, 3)).astype(np.float32), dtype=wp.vec3f)[::3]
    target = wp.zeros(300, dtype=wp.vec3f)
    array_scan(strided, target[1::3], inclusive=False)  # a strided output: the other elements stay
    got = target.numpy()
    assert got[1::3].tobytes() == reference_scan(strided.numpy(), False).tobytes()
    assert not got[0::3].any() and not got[2::3].any()
    grid = wp.array(rng.standard_normal((4, 5, 6)))
    flat_out = wp.zeros(120, dtype=wp.float64)
    array_scan(grid, flat_out)  # sizes match, shapes need not
    assert flat_out.numpy().tobytes() == reference_scan(grid.numpy().reshape(-1), True).tobytes()


def test_scan_in_place():
    data = np.arange(1, 600, dtype=np.int32)
    a = wp.array(data)
    array_scan(a, a)
    assert np.array_equal(a.numpy(), np.cumsum(data))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**31, 2**31 - 1), max_size=700), st.booleans())
def test_scan_properties(values, inclusive):
    data = np.array(values, dtype=np.int32)
    got = _scan(data, wp.int32, inclusive)
    with np.errstate(over="ignore"):
        steps = np.diff(np.concatenate([[0], got]).astype(np.int32)) if inclusive else np.diff(got)
    # the differences of a scan are the terms (wrapping as int32 does)
    assert np.array_equal(steps, data if inclusive else data[:-1])


# -- reductions -----------------------------------------------------------------------------------------------

SUM_TYPES = [wp.float32, wp.float64, wp.vec3f, wp.vec2d, wp.mat22f, wp.mat33d]


def _tol(dtype):
    return 1e-5 if element_layout(dtype)[0] == np.float32 else 1e-12


@pytest.mark.parametrize("dtype", SUM_TYPES, ids=lambda t: type_name(t))
def test_sums_and_inner_products_against_numpy(dtype):
    rng = np.random.default_rng(4)
    ncomp = len(element_layout(dtype)[1])
    for n in [0, 1, 1023, 1024, 1025, 5000]:
        data, other = _random(rng, dtype, n), _random(rng, dtype, n)
        a, b = wp.array(data, dtype=dtype), wp.array(other, dtype=dtype)
        wide = data.astype(np.float64)
        total = np.asarray(array_sum(a))
        np.testing.assert_allclose(total, wide.sum(axis=0), rtol=_tol(dtype), atol=_tol(dtype) * np.abs(wide).sum())
        product = (wide * other).sum(axis=tuple(range(1, 1 + ncomp))) if ncomp else wide * other
        inner = array_inner(a, b)
        np.testing.assert_allclose(inner, product.sum(), rtol=_tol(dtype), atol=_tol(dtype) * np.abs(product).sum())
        assert np.asarray(array_sum(a)).tobytes() == total.tobytes()  # the same bits every run


def test_sum_options_out_value_count_and_axis():
    rng = np.random.default_rng(5)
    data = rng.integers(-50, 50, (6, 2000, 3)).astype(np.float32)  # integers: every order sums exactly
    a = wp.array(data)
    assert array_sum(a) == data.sum(dtype=np.float64)
    assert array_sum(a, value_count=7) == data.reshape(-1)[:7].sum()
    assert array_sum(a, value_count=10**9) == data.sum()  # more than there is: all
    for axis in (0, 1, 2, -1):
        expected = data.sum(axis=axis, keepdims=True)
        assert np.array_equal(array_sum(a, axis=axis).numpy(), expected)
        out = wp.full(expected.shape, 5.0, dtype=wp.float32)
        assert array_sum(a, out=out, axis=axis) is out and np.array_equal(out.numpy(), expected)
        assert np.array_equal(array_sum(a, axis=axis, value_count=3).numpy(),
                              np.take(data, range(3), axis=axis).sum(axis=axis, keepdims=True))
    out = wp.zeros(1, dtype=wp.float32)
    array_sum(a, out=out)
    assert out.numpy()[0] == data.sum()
    vectors = wp.array(data.reshape(6, 2000, 3), dtype=wp.vec3f)
    assert np.array_equal(array_sum(vectors), data.reshape(-1, 3).sum(axis=0))
    assert np.array_equal(array_sum(vectors, axis=1).numpy(), data.sum(axis=1, keepdims=True))
    assert np.array_equal(array_inner(vectors, vectors, axis=0).numpy(),
                          (data * data).sum(axis=2).sum(axis=0, keepdims=True))
    assert array_inner(vectors, vectors, count=5) == (data.reshape(-1, 3)[:5] ** 2).sum()


def test_sums_of_views_write_views():
    rng = np.random.default_rng(6)
    data = rng.integers(-9, 9, (50, 40)).astype(np.float64)
    a = wp.array(data)
    out = wp.full((3, 40), 1.0, dtype=wp.float64)
    array_sum(a.transpose(), axis=1, out=out[1:2].transpose())  # both non-contiguous
    assert np.array_equal(out.numpy()[1], data.sum(axis=0)) and (out.numpy()[[0, 2]] == 1.0).all()
    assert array_inner(a[::2, 1::3], a[1::2, 2::3]) == (data[::2, 1::3] * data[1::2, 2::3]).sum()


@pytest.mark.parametrize("shape", [(0,), (0, 3), (4, 0)])
def test_sums_of_empty_arrays_are_zero(shape):
    a = wp.zeros(shape, dtype=wp.float32)
    assert array_sum(a) == 0.0 and array_inner(a, a) == 0.0
    assert array_sum(a, axis=0).numpy().shape == (1,) + shape[1:]
    assert not array_sum(a, axis=0).numpy().any()


# -- the GPU algorithms on the emulation target ------------------------------------------------------------------


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("dtype", [wp.int32, wp.int64, wp.float32, wp.float64, wp.vec3f, wp.vec2i],
                         ids=lambda t: type_name(t))
def test_segmented_scan_on_the_emulation_target(dtype):
    rng = np.random.default_rng(7)
    with config.override(target="cuda-emulation"):
        for n in [1, 255, 256, 257, 256 * 256 + 3]:
            data = _random(rng, dtype, n)
            for inclusive in (True, False):
                got = _scan(data, dtype, inclusive)
                expected = reference_scan(data, inclusive)
                if data.dtype.kind == "i":
                    assert np.array_equal(got, expected)
                else:
                    assert_close_to_sequential(got, expected, data)
                assert got.tobytes() == _scan(data, dtype, inclusive).tobytes()  # the same bits every run


@pytest.mark.compiles_for_cuda
def test_sums_on_the_emulation_target_match_the_cpu_bits():
    rng = np.random.default_rng(8)
    data = rng.standard_normal((3, 3000)).astype(np.float32)
    cpu = [np.asarray(array_sum(wp.array(data))), array_sum(wp.array(data), axis=1).numpy(),
           np.asarray(array_inner(wp.array(data), wp.array(data)))]
    with config.override(target="cuda-emulation"):
        a = wp.array(data)
        emulated = [np.asarray(array_sum(a)), array_sum(a, axis=1).numpy(), np.asarray(array_inner(a, a))]
    # one fixed order of summation on every device
    assert all(x.tobytes() == y.tobytes() for x, y in zip(cpu, emulated))
    np.testing.assert_allclose(cpu[1][:, 0], data.astype(np.float64).sum(axis=1), rtol=1e-6)
