"""``brickwork.utils`` (Warp's ``warp.utils``): reductions, scans, sorts, run-length encoding, casts, timers."""

import contextlib
import io
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.utils import (
    array_cast,
    array_inner,
    array_scan,
    array_sum,
    radix_sort_pairs,
    runlength_encode,
    segmented_sort_pairs,
)

# -- array_sum / array_inner ------------------------------------------------------------------------------


def test_array_sum_of_scalars_vectors_and_along_an_axis():
    assert wp.utils.array_sum is array_sum
    total = array_sum(wp.array([1.0, 2.0, 3.0], dtype=wp.float64))
    assert total == 6.0 and isinstance(total, np.float64)
    vec = array_sum(wp.array(np.arange(6.0).reshape(2, 3), dtype=wp.vec3))
    np.testing.assert_array_equal(vec, [3.0, 5.0, 7.0])
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1):
        got = array_sum(wp.array(data), axis=axis)
        assert isinstance(got, wp.array)
        np.testing.assert_allclose(got.numpy(), data.sum(axis=axis, keepdims=True))
    np.testing.assert_allclose(array_sum(wp.array(data), axis=1, value_count=2).numpy(),
                               data[:, :2].sum(axis=1, keepdims=True))
    assert array_sum(wp.array(np.arange(10, dtype=np.float32))[::2], value_count=2) == 2.0  # a view's elements
    np.testing.assert_array_equal(array_sum(wp.array([], dtype=wp.vec2)), [0.0, 0.0])


def test_array_sum_writes_out_and_returns_it():
    out = wp.empty(1, dtype=wp.float32)
    assert array_sum(wp.array([1.0, 2.0, 4.0]), out=out) is out
    assert out.numpy().tolist() == [7.0]


@pytest.mark.parametrize(("make", "kwargs", "error", "text"), [
    (lambda: wp.array([1, 2, 3], dtype=wp.int32), {}, RuntimeError, "Unsupported data type: int32"),
    (lambda: wp.ones(3, dtype=wp.float16), {}, RuntimeError, "Unsupported data type: float16"),
    (lambda: wp.ones(3), {"out": wp.empty(1, dtype=wp.float64)}, RuntimeError, "out array should have type float32"),
    (lambda: wp.ones(3), {"out": wp.empty(2)}, RuntimeError, r"out array should have shape \(1,\)"),
    (lambda: wp.ones((2, 3)), {"axis": 2}, IndexError, "array_sum\\(\\) axis 2 is out of bounds for an array "
                                                       "with 2 dimensions"),
    (lambda: wp.ones(3), {"value_count": -1}, ValueError, "value_count must be non-negative"),
])
def test_array_sum_refuses_bad_arguments(make, kwargs, error, text):
    with pytest.raises(error, match=text):
        array_sum(make(), **kwargs)


def test_array_inner_of_scalars_vectors_and_along_an_axis():
    a = wp.array([1.0, 2.0, 3.0], dtype=wp.vec3)
    assert array_inner(a, wp.array([1.0, 2.0, 3.0], dtype=wp.types.vector(3, float))) == 14.0
    x = np.arange(1.0, 25.0, dtype=np.float32).reshape(2, 3, 4)
    y = x[::-1].copy()
    assert array_inner(wp.array(x), wp.array(y)) == pytest.approx(float((x * y).sum()))
    np.testing.assert_allclose(array_inner(wp.array(x), wp.array(y), axis=-2).numpy(),
                               (x * y).sum(axis=1, keepdims=True))
    out = wp.full((2, 3, 1), -1.0)
    assert array_inner(wp.array(x), wp.array(y), out=out, count=2, axis=2) is out
    np.testing.assert_allclose(out.numpy(), (x * y)[:, :, :2].sum(axis=2, keepdims=True))


def test_array_inner_refuses_mismatched_arrays():
    a = wp.empty((2, 3))
    with pytest.raises(ValueError, match=re.escape("must have the same shape, got (2, 3) and (6,)")):
        array_inner(a, wp.empty(6))
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (float32 vs float64)")):
        array_inner(wp.ones(3), wp.ones(3, dtype=wp.float64))
    with pytest.raises(RuntimeError, match="out array should have type float32"):
        array_inner(wp.ones(3, dtype=wp.vec3), wp.ones(3, dtype=wp.vec3), out=wp.empty(1, dtype=wp.vec3))
    with pytest.raises(TypeError, match="a must be an array, got ndarray"):
        array_inner(np.ones(3), wp.ones(3))


# -- array_scan -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [wp.int32, wp.int64, wp.float32, wp.float64])
def test_array_scan_inclusive_and_exclusive(dtype):
    values = np.array([3, -1, 4, 1, -5, 9], dtype=dtype._np)
    a = wp.array(values, dtype=dtype)
    inc, exc = wp.zeros_like(a), wp.zeros_like(a)
    array_scan(a, inc)
    array_scan(a, exc, inclusive=False)
    np.testing.assert_array_equal(inc.numpy(), np.cumsum(values))
    np.testing.assert_array_equal(exc.numpy(), np.concatenate([[0], np.cumsum(values)[:-1]]))


def test_array_scan_of_vectors_views_and_other_shapes():
    vecs = np.arange(12, dtype=np.float64).reshape(4, 3)
    out = wp.zeros(4, dtype=wp.vec3d)
    array_scan(wp.array(vecs, dtype=wp.vec3d), out)
    np.testing.assert_array_equal(out.numpy(), np.cumsum(vecs, axis=0))
    base = wp.full(8, -7, dtype=wp.int64)
    array_scan(wp.array(np.arange(8), dtype=wp.int64)[::2], base[1::2])  # writes only the view's elements
    assert base.numpy().tolist() == [-7, 0, -7, 2, -7, 6, -7, 12]
    flat = wp.zeros(6, dtype=wp.int32)
    array_scan(wp.array(np.arange(6).reshape(2, 3), dtype=wp.int32), flat, False)  # row-major order
    assert flat.numpy().tolist() == [0, 0, 1, 3, 6, 10]
    array_scan(wp.array((), dtype=wp.int32), wp.array((), dtype=wp.int32))


def test_array_scan_refuses_bad_arrays():
    with pytest.raises(RuntimeError, match=re.escape("storage sizes do not match (123 vs 234)")):
        array_scan(wp.zeros(123, dtype=int), wp.zeros(234, dtype=int))
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (int32 vs float32)")):
        array_scan(wp.zeros(3, dtype=int), wp.zeros(3, dtype=float))
    for dtype, name in ((wp.vec3h, "vec3h"), (wp.uint32, "uint32"), (wp.mat22, "mat22f")):
        with pytest.raises(RuntimeError, match=f"Unsupported data type: {name}$"):
            array_scan(wp.zeros(3, dtype=dtype), wp.zeros(3, dtype=dtype))


# -- sorts ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key_type", [wp.int32, wp.uint32, wp.float32, wp.int64, wp.uint64, wp.float64])
def test_radix_sort_pairs_is_stable_and_uses_the_first_count_elements(key_type):
    keys = wp.array([7, 2, 8, 2, 1, 6, 5, 3, 9, 9, 9, 9, 9, 9, 9, 9], dtype=key_type)
    values = wp.array([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0], dtype=wp.int32)
    radix_sort_pairs(keys, values, 8)
    assert keys.numpy()[:8].tolist() == [1, 2, 2, 3, 5, 6, 7, 8]
    assert values.numpy()[:8].tolist() == [5, 2, 4, 8, 7, 6, 1, 3]


def test_radix_sort_pairs_orders_signs_zeros_and_nan_and_bit_ranges_as_warp():
    keys = wp.array([-1.5, 7.0, -8.0, 0.0, -0.0, np.nan, np.inf, 2.0] + [0.0] * 8, dtype=wp.float32)
    values = wp.array(np.arange(16), dtype=wp.int32)
    radix_sort_pairs(keys, values, 8)
    assert values.numpy()[:8].tolist() == [2, 0, 4, 3, 7, 1, 6, 5]  # -0.0 before 0.0, NaN last
    signed = wp.array([-1, 7, -8, 0, 4, -3, 2, 10] + [0] * 8, dtype=wp.int32)
    values = wp.array(np.arange(16), dtype=wp.int32)
    radix_sort_pairs(signed, values, 8, end_bit=4)  # the low four bits only
    assert signed.numpy()[:8].tolist() == [0, 2, 4, 7, -8, 10, -3, -1]
    signed = wp.array([-1, 7, -8, 0, 4, -3, 2, 10] + [0] * 8, dtype=wp.int32)
    radix_sort_pairs(signed, wp.zeros(16, dtype=wp.int32), 8, begin_bit=28)  # the sign decides
    assert signed.numpy()[:8].tolist() == [-1, -8, -3, 7, 0, 4, 2, 10]


def test_radix_sort_pairs_refuses_bad_arguments_and_changes_nothing():
    keys = wp.array([3, 1, 2, 0, 0, 0], dtype=wp.int32)
    with pytest.raises(RuntimeError, match=r"bit range \[4, 2\) for 32-bit keys"):
        radix_sort_pairs(keys, wp.zeros(6, dtype=wp.int32), 3, begin_bit=4, end_bit=2)
    with pytest.raises(RuntimeError, match="Unsupported keys and values data types: int32, float16"):
        radix_sort_pairs(keys, wp.zeros(6, dtype=wp.float16), 1)
    with pytest.raises(RuntimeError, match="large enough to contain 2\\*count elements"):
        radix_sort_pairs(keys, wp.zeros(6, dtype=wp.int32), 4)
    with pytest.raises(RuntimeError, match="requires a contiguous keys array, got non-contiguous keys with data "
                                           "types: int32, int32"):
        radix_sort_pairs(wp.zeros(12, dtype=wp.int32)[::2], wp.zeros(6, dtype=wp.int32), 2)
    with pytest.raises(ValueError, match="count must be non-negative, got -1"):
        radix_sort_pairs(keys, wp.zeros(6, dtype=wp.int32), -1)
    assert keys.numpy().tolist() == [3, 1, 2, 0, 0, 0]


def test_segmented_sort_pairs_sorts_each_segment():
    keys = wp.array([7, 2, 8, 4, 1, 6, 5, 3] + [0] * 8, dtype=wp.float32)
    values = wp.array([1, 2, 3, 4, 5, 6, 7, 8] + [0] * 8, dtype=wp.int32)
    segmented_sort_pairs(keys, values, 8, wp.array([0, 4], dtype=wp.int32), wp.array([4, 8], dtype=wp.int32))
    assert keys.numpy()[:8].tolist() == [2, 4, 7, 8, 1, 3, 5, 6]
    assert values.numpy()[:8].tolist() == [2, 4, 1, 3, 5, 8, 7, 6]
    keys = wp.array([4, 3, 2, 1, 0, 0, 0, 0], dtype=wp.int32)
    values = wp.array([1, 2, 3, 4, 0, 0, 0, 0], dtype=wp.int32)
    segmented_sort_pairs(keys, values, 4, wp.array([0, 1, 4], dtype=wp.int32))  # offsets: [0, 1) and [1, 4)
    assert keys.numpy()[:4].tolist() == [4, 1, 2, 3]
    assert values.numpy()[:4].tolist() == [1, 4, 3, 2]


def _segments_one_by_one(keys, values, starts, ends):
    """The reference: each segment sorted in turn, in the order given (stable, floats by their bits'
    order: -0.0 before 0.0, NaN last as radix_sort_pairs orders them)."""
    from brickwork.utils.sorts import _stable_order

    keys, values = keys.copy(), values.copy()
    for s, e in zip(starts, ends):
        order = _stable_order(keys[s:e])
        keys[s:e], values[s:e] = keys[s:e][order], values[s:e][order]
    return keys, values


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_segmented_sort_pairs_equals_sorting_segment_by_segment(data):
    """Disjoint segments in any order (gaps and empty ones too) take one sort; overlapping ones are sorted
    one after the other: both equal sorting each segment in turn."""
    count = data.draw(st.integers(1, 60))
    dtype = data.draw(st.sampled_from([np.int32, np.float32]))
    if dtype is np.int32:
        k = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=count, max_size=count)), dtype=np.int32)
    else:
        k = np.array(data.draw(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 2.0, 3.25, np.nan, np.inf, -np.inf]),
                                        min_size=count, max_size=count)), dtype=np.float32)
    v = np.arange(count, dtype=np.int32)
    cuts = sorted(data.draw(st.lists(st.integers(0, count), min_size=1, max_size=8)))
    starts, ends = cuts[:-1], cuts[1:]
    if data.draw(st.booleans()):  # gaps: drop some segments
        keep = data.draw(st.lists(st.booleans(), min_size=len(starts), max_size=len(starts)))
        starts, ends = [s for s, g in zip(starts, keep) if g], [e for e, g in zip(ends, keep) if g]
    pairs = data.draw(st.permutations(list(zip(starts, ends))))
    if data.draw(st.booleans()):  # overlapping: one more segment across the others
        a = data.draw(st.integers(0, count))
        pairs.append((a, data.draw(st.integers(a, count))))
    if not pairs:
        return
    starts = np.array([p[0] for p in pairs], dtype=np.int32)
    ends = np.array([p[1] for p in pairs], dtype=np.int32)
    want_k, want_v = _segments_one_by_one(k, v, starts, ends)
    keys = wp.array(np.concatenate([k, np.zeros(count, dtype)]))
    values = wp.array(np.concatenate([v, np.zeros(count, np.int32)]))
    segmented_sort_pairs(keys, values, count, wp.array(starts), wp.array(ends))
    np.testing.assert_array_equal(keys.numpy()[:count].view(np.int32), want_k.view(np.int32))  # bits: -0.0, NaN
    np.testing.assert_array_equal(values.numpy()[:count], want_v)


def test_segmented_sort_pairs_checks_everything_before_sorting():
    keys = wp.array([2, 1, 4, 3, 0, 0, 0, 0], dtype=wp.int32)
    values = wp.array([20, 10, 40, 30, 0, 0, 0, 0], dtype=wp.int32)
    starts, ends = wp.array([0, 2], dtype=wp.int32), wp.array([2, 5], dtype=wp.int32)
    with pytest.raises(ValueError, match=re.escape("Invalid segment range at index 1: [2, 5) for count 4")):
        segmented_sort_pairs(keys, values, 4, starts, ends)
    assert keys.numpy().tolist() == [2, 1, 4, 3, 0, 0, 0, 0]  # the valid first segment was not sorted either
    for count, error, text in ((1.5, TypeError, "count must be an integer"),
                               (True, TypeError, "count must be an integer"),
                               (-1, ValueError, "count must be non-negative, got -1"),
                               (1 << 31, ValueError, "count must not exceed 2147483647, got 2147483648"),
                               (5, RuntimeError, "large enough to contain 2\\*count elements")):
        with pytest.raises(error, match=text):
            segmented_sort_pairs(keys, values, count, starts, ends)
    with pytest.raises(RuntimeError, match="Unsupported data type: float64"):
        segmented_sort_pairs(wp.zeros(8, dtype=wp.float64), values, 4, starts, ends)
    with pytest.raises(RuntimeError, match=re.escape("must have the same size (2 vs 1)")):
        segmented_sort_pairs(keys, values, 4, starts, wp.array([2], dtype=wp.int32))
    with pytest.raises(RuntimeError, match="segment_start_indices must be one-dimensional"):
        segmented_sort_pairs(keys, values, 4, wp.zeros((2, 2), dtype=wp.int32))
    with pytest.raises(RuntimeError, match="requires a contiguous segment_start_indices array"):
        segmented_sort_pairs(keys, values, 4, wp.array([0, 1], dtype=wp.int32)[::2], wp.array([1], dtype=wp.int32))


# -- runlength_encode -------------------------------------------------------------------------------------


def test_runlength_encode_returns_runs_and_the_count():
    values = wp.array([1, 1, 2, 2, 2, 5, 1], dtype=wp.int32)
    run_values, run_lengths = wp.zeros(7, dtype=wp.int32), wp.zeros(7, dtype=wp.int32)
    assert runlength_encode(values, run_values, run_lengths) == 4
    assert run_values.numpy()[:4].tolist() == [1, 2, 5, 1]
    assert run_lengths.numpy()[:4].tolist() == [2, 3, 1, 1]
    run_count = wp.zeros(1, dtype=wp.int32)
    assert runlength_encode(values, run_values, run_lengths, run_count=run_count, value_count=3) is run_count
    assert run_count.numpy().tolist() == [2]
    assert runlength_encode(wp.array((), dtype=wp.int32), wp.array((), dtype=wp.int32),
                            wp.array((), dtype=wp.int32)) == 0


def test_runlength_encode_refuses_bad_arguments():
    values, ints = wp.zeros(5, dtype=wp.int32), wp.zeros(5, dtype=wp.int32)
    with pytest.raises(RuntimeError, match=re.escape("at least equal to value_count (5)")):
        runlength_encode(values, wp.zeros(1, dtype=wp.int32), ints)
    with pytest.raises(RuntimeError, match=re.escape("data types do not match (int32 vs float32)")):
        runlength_encode(values, wp.zeros(5), ints)
    with pytest.raises(RuntimeError, match="run_lengths array must be of type int32"):
        runlength_encode(values, ints, wp.zeros(5))
    with pytest.raises(RuntimeError, match="run_count array must be of type int32"):
        runlength_encode(values, ints, wp.zeros(5, dtype=wp.int32), run_count=wp.zeros(1))
    with pytest.raises(RuntimeError, match="value_count must be non-negative, got -2"):
        runlength_encode(values, ints, wp.zeros(5, dtype=wp.int32), value_count=-2)
    with pytest.raises(RuntimeError, match="Unsupported data type: float32"):
        runlength_encode(wp.zeros(5), wp.zeros(5), ints)


# -- array_cast -------------------------------------------------------------------------------------------


def test_array_cast_converts_elements_and_components():
    out = wp.zeros((2, 2), dtype=wp.float32)
    array_cast(wp.array([1, 2, 3, 4], dtype=wp.int32), out)  # different ndim: row-major order
    assert out.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    ints = wp.zeros(3, dtype=wp.int32)
    array_cast(wp.array([-1.7, 2.5, 9.9], dtype=wp.float32), ints)  # C conversion: toward zero
    assert ints.numpy().tolist() == [-1, 2, 9]
    vecs = wp.zeros(2, dtype=wp.vec3d)
    array_cast(wp.array(np.arange(6.0), dtype=wp.vec3), vecs)
    assert vecs.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    flat = wp.zeros(4)
    array_cast(wp.array([[1, 2], [3, 4]], dtype=wp.vec2), flat, count=1)  # one vec2: two components
    assert flat.numpy().tolist() == [1.0, 2.0, 0.0, 0.0]
    strided = wp.zeros(6, dtype=wp.float64)
    array_cast(wp.array(np.arange(6), dtype=wp.int32)[::2], strided[::2])
    assert strided.numpy().tolist() == [0, 0, 2, 0, 4, 0]


def test_array_cast_refuses_what_does_not_fit_and_writes_nothing():
    out = wp.zeros(10, dtype=wp.int32)
    with pytest.raises(RuntimeError, match=re.escape("Cast count (10) exceeds the input size (10) or output size (3)")):
        array_cast(wp.array(np.arange(10, dtype=np.float32)), out[:3])
    with pytest.raises(RuntimeError, match=re.escape("Array shapes do not match ((2, 3) vs (3, 2))")):
        array_cast(wp.zeros((2, 3)), wp.zeros((3, 2), dtype=wp.float64))
    with pytest.raises(RuntimeError, match="Partial cast is not supported for arrays with more than one dimension"):
        array_cast(wp.zeros((2, 2)), wp.zeros((2, 2), dtype=wp.int32), count=1)
    with pytest.raises(ValueError, match="count must be non-negative"):
        array_cast(wp.zeros(2), out, count=-1)
    with pytest.raises(RuntimeError, match=re.escape("Cast count (3) exceeds the input size (3) or output size (3): "
                                                     "3 vec3f elements are 9 components, the output's 3 int32 "
                                                     "elements hold 3")):
        array_cast(wp.ones(3, dtype=wp.vec3), out[:3])  # the counts alone read as if they fit
    assert not out.numpy().any()


# -- ScopedTimer / transform_expand -----------------------------------------------------------------------


def test_scoped_timer_prints_records_and_nests():
    times: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as f:
        with wp.ScopedTimer("outer", dict=times) as outer:
            with wp.ScopedTimer("inner", dict=times):
                pass
            with wp.ScopedTimer("quiet", print=False) as quiet:
                pass
            with wp.ScopedTimer("off", active=False) as off:
                pass
    lines = f.getvalue().splitlines()
    assert re.fullmatch(r"    inner took \d+\.\d\d ms", lines[0])
    assert re.fullmatch(r"outer took \d+\.\d\d ms", lines[1]) and len(lines) == 2
    assert set(times) == {"outer", "inner"} and times["outer"] == [outer.elapsed] and outer.elapsed > 0
    assert quiet.elapsed >= 0 and off.elapsed == 0.0 and outer.timing_results == []
    with contextlib.redirect_stdout(io.StringIO()) as f:
        with wp.ScopedTimer("profiled", detailed=True):
            sum(range(10))
    assert re.match(r"^\s+\d+ function calls in \d+\.\d+ seconds", f.getvalue())
    with pytest.raises(ValueError, match=r"ScopedTimer: cuda_filter must be a combination of TIMING_\* flags"):
        wp.ScopedTimer("t", cuda_filter=-1)  # cuda_filter=wp.TIMING_*: tests/runtime/test_timing.py


def test_transform_expand_builds_a_transform_from_seven_numbers():
    t = wp.transform_expand((1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0))
    assert t == wp.transformf(p=(1.0, 2.0, 3.0), q=(4.0, 3.0, 2.0, 1.0))
    with pytest.raises(ValueError, match="needs 7 numbers"):
        wp.transform_expand((1.0, 2.0))


@pytest.mark.parametrize("key_type", [wp.int32, wp.float32])
def test_sorts_of_nothing_are_accepted(key_type):
    radix_sort_pairs(wp.array((), dtype=key_type), wp.array((), dtype=wp.int32), 0)
    empty = wp.array((), dtype=wp.int32)
    segmented_sort_pairs(wp.array((), dtype=key_type), empty, 0, empty, empty)
    keys, values = wp.array([2, 1], dtype=wp.int32), wp.array([20, 10], dtype=wp.int32)
    segmented_sort_pairs(keys, values, 1, wp.array([0], dtype=wp.int32))  # one offset: no segment
    assert keys.numpy().tolist() == [2, 1] and values.numpy().tolist() == [20, 10]
