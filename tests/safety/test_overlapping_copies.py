"""A copy whose source and destination share memory reads the source as it was (attacker round 19, lead 4):
``a[::2].assign(a[:5])``, ``wp.copy(a[::2], a[:5])`` and ``a[::2] = a[:5]`` left [0, 1, 1, 3, 1, 5, 3, 7, 1, 9]
for ``a = arange(10)``, not [0, 1, 1, 3, 2, 5, 3, 7, 4, 9]: numpy's own ``x[::2] = x[:5]`` (one dimension,
strides of one direction, different steps) copies element by element and reads elements it has already
written. Shifts (``a[1:] = a[:-1]``), reversals and 2-D overlaps were already right (numpy copies those)."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import brickwork as wp

EXPECTED = [0, 1, 1, 3, 2, 5, 3, 7, 4, 9]  # arange(10) with [::2] set from a copy of [:5]


def _arange():
    return wp.array(np.arange(10, dtype=np.float32))


def test_assign_from_an_overlapping_view_reads_it_as_it_was():
    a = _arange()
    a[::2].assign(a[:5])
    assert a.numpy().tolist() == EXPECTED


def test_copy_from_an_overlapping_view_reads_it_as_it_was():
    a = _arange()
    wp.copy(a[::2], a[:5])
    assert a.numpy().tolist() == EXPECTED
    a = _arange()
    wp.copy(a[::2], a, dest_offset=1, count=4)  # the counted form: a[2], a[4], a[6], a[8] = a[0..3]
    assert a.numpy().tolist() == [0, 1, 0, 3, 1, 5, 2, 7, 3, 9]


def test_setting_items_from_an_overlapping_view_reads_it_as_it_was():
    a = _arange()
    a[::2] = a[:5]
    assert a.numpy().tolist() == EXPECTED


def test_numpy_data_over_the_same_memory_is_read_as_it_was():
    x = np.arange(10, dtype=np.float32)
    a = wp.array(x, copy=False)
    a[::2].assign(x[:5])
    assert x.tolist() == EXPECTED
    x[:] = np.arange(10)
    a[::2] = x[:5]
    assert x.tolist() == EXPECTED


def test_vectors_overlapping_by_whole_elements():
    data = np.arange(30, dtype=np.float32).reshape(10, 3)
    a = wp.array(data, dtype=wp.vec3)
    a[::2].assign(a[:5])
    want = data.copy()
    want[::2] = data[:5].copy()
    np.testing.assert_array_equal(a.numpy(), want)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 9), st.integers(1, 4), st.integers(0, 9), st.integers(1, 4), st.booleans())
@example(0, 2, 0, 1, False)  # the case above
@example(1, 3, 0, 2, False)
def test_any_slice_assigned_from_any_other_reads_the_source_as_it_was(start, step, src_start, src_step, reverse):
    n = 12
    before = np.arange(n, dtype=np.int32)
    dest = slice(start, None, step)
    count = len(range(*dest.indices(n)))
    src = slice(src_start, src_start + src_step * count, src_step)
    if len(range(*src.indices(n))) != count:
        return  # the source slice runs past the end: not the same length
    if reverse:
        src = slice(src.stop - src_step, src.start - 1 if src.start else None, -src_step)
    want = before.copy()
    want[dest] = before[src].copy()
    a = wp.array(before)
    a[dest].assign(a[src])
    np.testing.assert_array_equal(a.numpy(), want)
    b = wp.array(before)
    b[dest] = b[src]
    np.testing.assert_array_equal(b.numpy(), want)


@pytest.mark.parametrize("make", [lambda: wp.zeros(10, dtype=float), lambda: np.arange(10, dtype=np.float32)[::-1]])
def test_unrelated_sources_are_copied_as_before(make):
    a = _arange()
    source = make()
    a.assign(source)
    assert a.numpy().tolist() == (np.asarray(source.numpy() if hasattr(source, "numpy") else source)).tolist()
