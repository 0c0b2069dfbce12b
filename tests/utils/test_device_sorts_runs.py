"""``radix_sort_pairs``, ``segmented_sort_pairs``, ``runlength_encode`` and ``array_cast`` as kernels on the arrays'
device: against numpy references on random data of every key dtype and bit range, sizes around the digits' and
scans' boundaries; the GPU algorithms (``device_sort``'s passes) on the cuda-emulation target."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.types.arrays import element_layout
from brickwork.utils import array_cast, radix_sort_pairs, runlength_encode, segmented_sort_pairs

KEY_TYPES = [np.int32, np.uint32, np.float32, np.int64, np.uint64, np.float64]


def order_bits(keys):
    """The unsigned pattern a radix sort orders ``keys`` by (floats: -nan < -inf < ... < -0.0 < 0.0 < ... < nan)."""
    bits = keys.dtype.itemsize * 8
    u = keys.view(np.dtype(f"uint{bits}")).astype(np.uint64)
    sign = np.uint64(1 << (bits - 1))
    if keys.dtype.kind == "i":
        return u ^ sign
    if keys.dtype.kind == "f":
        full = np.uint64((1 << bits) - 1)
        return np.where(u & sign, u ^ full, u ^ sign)
    return u


def reference_sort(keys, values, count, begin=0, end=None):
    end = keys.dtype.itemsize * 8 if end is None else end
    digits = (order_bits(keys[:count]) >> np.uint64(begin)) & np.uint64((1 << (end - begin)) - 1)
    order = np.argsort(digits, kind="stable")
    keys, values = keys.copy(), values.copy()
    keys[:count], values[:count] = keys[:count][order], values[:count][order]
    return keys, values


def _keys(rng, dtype, n):
    if np.dtype(dtype).kind == "f":
        k = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        for step, value in ((7, -0.0), (11, 0.0), (13, np.nan), (17, np.inf), (19, -np.inf)):
            k[::step] = value
        k[5::23] = -np.abs(k[5::23] * np.nan)  # -nan: the sign bit set
        return k
    info = np.iinfo(dtype)
    k = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return k // rng.integers(1, 1 << 20, n).astype(dtype)  # repeated and small keys too


def _same(a, b):
    return a.tobytes() == b.tobytes()


def _check_sorts(rng, sizes):
    for dtype in KEY_TYPES:
        bits = np.dtype(dtype).itemsize * 8
        for n in sizes:
            for begin, end in ((0, None), (0, 8), (3, bits - 5), (bits // 2, bits), (9, 9)):
                keys = _keys(rng, dtype, 2 * n)
                values = rng.integers(0, 1 << 30, 2 * n).astype(np.int64 if bits == 64 else np.int32)
                k, v = wp.array(keys), wp.array(values)
                radix_sort_pairs(k, v, n, begin, end)
                expected = reference_sort(keys, values, n, begin, end)
                assert _same(k.numpy(), expected[0]) and _same(v.numpy(), expected[1]), (dtype, n, begin, end)


def test_radix_sorts_every_key_type_and_bit_range_as_numpy_stably():
    _check_sorts(np.random.default_rng(1), [0, 1, 2, 255, 256, 257, 70000])


def test_radix_sort_of_a_million_keys_and_of_values_of_other_types():
    rng = np.random.default_rng(2)
    keys = rng.integers(-1000, 1000, 2_000_000).astype(np.int32)
    values = rng.standard_normal((2_000_000, 2)).astype(np.float32)
    k, v = wp.array(keys), wp.array(values, dtype=wp.vec2f)  # 8-byte values of any type move as their bits
    radix_sort_pairs(k, v, 1_000_000)
    expected = reference_sort(keys, values, 1_000_000)
    assert _same(k.numpy(), expected[0]) and _same(v.numpy(), expected[1])
    same = wp.array(keys[:20])  # keys and values may be one array
    radix_sort_pairs(same, same, 10)
    assert np.array_equal(same.numpy()[:10], np.sort(keys[:10])) and np.array_equal(same.numpy()[10:], keys[10:20])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True), max_size=300))
def test_radix_sort_property_floats_order_as_their_bits(values):
    keys = np.array(values + values, dtype=np.float32)
    ids = np.arange(len(keys), dtype=np.int32)
    k, v = wp.array(keys), wp.array(ids)
    radix_sort_pairs(k, v, len(values))
    got_keys, got_ids = k.numpy()[:len(values)], v.numpy()[:len(values)]
    assert np.all(np.diff(order_bits(got_keys).astype(np.float64)) >= 0)  # sorted
    assert _same(keys[got_ids], got_keys) and np.array_equal(np.sort(got_ids), ids[:len(values)])  # a permutation
    for key in set(got_keys.view(np.uint32).tolist()):  # stable: equal keys keep their order
        assert np.all(np.diff(got_ids[got_keys.view(np.uint32) == key]) > 0)


def reference_segments(keys, values, count, starts, ends):
    keys, values = keys.copy(), values.copy()
    for s, e in zip(starts, ends):
        order = np.argsort(order_bits(keys[s:e]), kind="stable")
        keys[s:e], values[s:e] = keys[s:e][order], values[s:e][order]
    return keys, values


def _segments(rng, n, mode):
    if mode == "offsets":
        cuts = np.sort(rng.integers(0, n + 1, 6))
        return np.concatenate([[0], cuts, [n]]).astype(np.int32), None
    cuts = np.sort(rng.integers(0, n + 1, 10))
    starts, ends = cuts[0::2], cuts[1::2]
    if mode == "overlapping":
        ends = np.minimum(ends + n // 3, n)
    perm = rng.permutation(len(starts))  # given in any order
    return starts[perm].astype(np.int32), ends[perm].astype(np.int32)


def _check_segmented(rng, sizes):
    for dtype in (np.int32, np.float32):
        for n in sizes:
            for mode in ("offsets", "disjoint", "overlapping"):
                keys = _keys(rng, dtype, 2 * n) if dtype == np.float32 else rng.integers(-9, 9, 2 * n).astype(dtype)
                values = np.arange(2 * n, dtype=np.int32)
                starts, ends = _segments(rng, n, mode)
                k, v = wp.array(keys), wp.array(values)
                segmented_sort_pairs(k, v, n, wp.array(starts), None if ends is None else wp.array(ends))
                if ends is None:
                    starts, ends = starts[:-1], starts[1:]
                expected = reference_segments(keys, values, n, starts, ends)
                assert _same(k.numpy(), expected[0]) and _same(v.numpy(), expected[1]), (dtype, n, mode)


def test_segmented_sorts_sort_each_segment_and_leave_the_rest():
    _check_segmented(np.random.default_rng(3), [0, 1, 2, 300, 5000])


def test_segment_refusals_change_nothing():
    keys, values = wp.array([3, 1, 2, 0], dtype=wp.int32), wp.array([0, 1, 2, 3], dtype=wp.int32)
    for starts, ends, message in (([0, 1], [1, 3], r"index 1: \[1, 3\) for count 2"),
                                  ([0, 2, 1], None, r"index 1: \[2, 1\) for count 2"),
                                  ([-1], [1], r"index 0: \[-1, 1\) for count 2")):
        with pytest.raises(ValueError, match="Invalid segment range at " + message):
            segmented_sort_pairs(keys, values, 2, wp.array(starts, dtype=wp.int32),
                                 None if ends is None else wp.array(ends, dtype=wp.int32))
        assert keys.numpy().tolist() == [3, 1, 2, 0] and values.numpy().tolist() == [0, 1, 2, 3]


def reference_runs(values):
    if not len(values):
        return [], []
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    return values[starts].tolist(), np.diff(np.append(starts, len(values))).tolist()


def _check_runs(rng, sizes):
    for n in sizes:
        data = rng.integers(-2, 2, n).astype(np.int32)
        data[: n // 3] = 5  # a long run
        for value_count in (None, n // 2):
            expected = reference_runs(data[: n if value_count is None else value_count])
            run_values, run_lengths = wp.full(n, -7, dtype=wp.int32), wp.full(n, -7, dtype=wp.int32)
            runs = runlength_encode(wp.array(data), run_values, run_lengths, value_count=value_count)
            assert runs == len(expected[0])
            assert run_values.numpy()[:runs].tolist() == expected[0] and (run_values.numpy()[runs:] == -7).all()
            assert run_lengths.numpy()[:runs].tolist() == expected[1] and (run_lengths.numpy()[runs:] == -7).all()
            count = wp.full(3, -7, dtype=wp.int32)
            assert runlength_encode(wp.array(data), run_values, run_lengths, count, value_count) is count
            assert count.numpy().tolist() == [runs, -7, -7]


def test_runlength_encoding_against_numpy():
    _check_runs(np.random.default_rng(4), [0, 1, 2, 255, 256, 257, 100_000])


def test_runlength_encoding_of_views():
    data = np.repeat(np.array([4, 4, 1, 2, 2, 2], dtype=np.int32), 3).reshape(6, 3)
    run_values = wp.full((4, 6), -1, dtype=wp.int32)
    run_lengths = wp.full(36, -1, dtype=wp.int32)
    runs = runlength_encode(wp.array(data).transpose(), run_values.transpose(), run_lengths[::2])
    expected = reference_runs(data.T.reshape(-1))
    assert runs == len(expected[0])
    assert run_values.numpy().T.reshape(-1)[:runs].tolist() == expected[0]
    assert run_lengths.numpy()[::2][:runs].tolist() == expected[1] and (run_lengths.numpy()[1::2] == -1).all()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=400))
def test_runs_decode_to_the_values(values):
    data = np.array(values, dtype=np.int32)
    run_values, run_lengths = wp.zeros(len(data), dtype=wp.int32), wp.zeros(len(data), dtype=wp.int32)
    runs = runlength_encode(wp.array(data), run_values, run_lengths)
    decoded = np.repeat(run_values.numpy()[:runs], run_lengths.numpy()[:runs])
    assert np.array_equal(decoded, data) and np.all(np.diff(run_values.numpy()[:runs]) != 0)


CASTS = [(wp.float32, wp.int32), (wp.int32, wp.float64), (wp.float64, wp.float16), (wp.uint8, wp.int64),
         (wp.vec3f, wp.vec3d), (wp.mat22f, wp.vec4d), (wp.vec2f, wp.float32), (wp.float64, wp.vec2f)]


def _check_casts(rng, sizes):
    for source, target in CASTS:
        comp_in, shape_in = element_layout(source)
        for n in sizes:
            data = (rng.standard_normal((n,) + shape_in) * 100)
            data = data.astype(comp_in) if comp_in.kind == "f" else np.abs(data).astype(comp_in)
            comp_out, shape_out = element_layout(target)
            per_in, per_out = int(np.prod(shape_in)), int(np.prod(shape_out))
            m = max(1, -(-n * per_in // per_out))
            out = wp.full(m, 5, dtype=target) if not shape_out else wp.array(np.full((m,) + shape_out, 5), dtype=target)
            for count in (None, n // 2):
                k = n if count is None else count
                array_cast(wp.array(data, dtype=source), out, count)
                flat = out.numpy().reshape(-1)
                expected = data.reshape(-1)[: k * per_in]
                if comp_out == np.float16:  # a kernel's float16(x) rounds through float32, as Warp's does
                    expected = expected.astype(np.float32)
                assert np.array_equal(flat[: k * per_in], expected.astype(comp_out)), (source, target, n)


def test_casts_convert_as_c_does():
    _check_casts(np.random.default_rng(5), [0, 1, 300, 100_000])
    src = wp.array(np.array([[1.9, -1.9], [2.5, -0.5]], dtype=np.float32))
    dst = wp.zeros((2, 2), dtype=wp.int32)
    array_cast(src.transpose(), dst)  # a view in: truncated toward zero, row-major over the view
    assert dst.numpy().tolist() == [[1, 2], [-1, 0]]


# -- the GPU algorithms on the emulation target ------------------------------------------------------------------


@pytest.mark.compiles_for_cuda
def test_sorts_on_the_emulation_target():
    rng = np.random.default_rng(6)
    with config.override(target="cuda-emulation"):
        _check_sorts(rng, [1, 257, 3000])
        _check_segmented(rng, [1, 300])


@pytest.mark.compiles_for_cuda
def test_runs_and_casts_on_the_emulation_target():
    rng = np.random.default_rng(7)
    with config.override(target="cuda-emulation"):
        _check_runs(rng, [0, 1, 257, 70000])
        _check_casts(rng, [0, 300])
