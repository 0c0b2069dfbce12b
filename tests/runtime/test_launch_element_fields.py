"""The launch tests the array fields a kernel reads at every launch point through the elements of an array of
structs (``ss[i].values[j]``, or ``s.values[j]`` after ``s = ss[i]``: ``runtime/element_fields.py``): an element
of ``wp.zeros``/``wp.empty`` holds a null array there, which the kernel read at the null address and crashed the
process. The launch is refused, naming the element, the field and the kernel's line, and nothing is written.
Elements the launch does not reach, guarded accesses, and kernels that store elements are not refused."""

import numpy as np
import pytest

import brickwork as wp

from .test_launch_bounds_fields import Samples

HERE = __file__.rsplit("/", 1)[-1]


def _line(text: str) -> str:
    """``file:line`` of the first line of this file holding ``text``."""
    with open(__file__) as f:
        return f"{HERE}:{next(n for n, line in enumerate(f, 1) if text in line)}"


@wp.struct
class Holder:
    inner: Samples
    grid: wp.array2d(dtype=float)


@wp.kernel
def first_values(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ss[i].scale * ss[i].values[0]


@wp.kernel
def through_a_local(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    s = ss[i + 1]
    out[i] = s.values[i]


@wp.kernel
def nested(hs: wp.array2d(dtype=Holder), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = hs[i, j].inner.values[2] + hs[0, j].grid[i, 1]


@wp.kernel
def guarded(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    if ss[i].values.shape[0] > 0:
        out[i] = ss[i].values[0]


@wp.kernel
def stores_then_reads(ss: wp.array(dtype=Samples), fill: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = Samples()
    s.values = fill
    ss[i] = s
    out[i] = ss[i].values[i]


@wp.struct
class Picked:
    values: wp.indexedarray(dtype=float)


@wp.kernel
def picked_first(ps: wp.array(dtype=Picked), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ps[i].values[0]


def _samples(values, scale=1.0):
    s = Samples()
    s.scale = scale
    if values is not None:
        s.values = wp.array(np.asarray(values, dtype=np.float32))
    return s


def _set(ss, n, length=3):
    """Elements 0..n-1 of ``ss`` hold ``[10 k, 10 k + 1, ...]`` (``length`` values) with scale k + 1."""
    for k in range(n):
        ss[k] = _samples(10.0 * k + np.arange(length), scale=k + 1.0)


def test_set_fields_launch_with_the_right_values():
    ss = wp.zeros(4, dtype=Samples)
    _set(ss, 4)
    out = wp.zeros(4, dtype=float)
    wp.launch(first_values, dim=4, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 20.0, 60.0, 120.0])


def test_an_element_of_zeros_is_refused_and_nothing_is_written():
    ss = wp.zeros(4, dtype=Samples)
    _set(ss, 2)
    out = wp.full(4, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(first_values, dim=4, inputs=[ss, out])
    message = str(e.value)
    assert "'first_values'" in message and "'ss[...].values'" in message and _line("out[i] = ss[i].scale") in message
    assert "'ss[2].values' is None (the field was never set" in message
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_elements_the_launch_does_not_reach_may_be_unset():
    ss = wp.empty(6, dtype=Samples)
    ss.zero_()
    _set(ss, 3)
    out = wp.zeros(3, dtype=float)
    wp.launch(first_values, dim=3, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 20.0, 60.0])


def test_a_struct_value_with_the_field_left_unset_is_refused():
    ss = wp.array([_samples([1.0]), _samples(None)], dtype=Samples)
    out = wp.full(2, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'ss\[1\]\.values' is None"):
        wp.launch(first_values, dim=2, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_a_local_element_offset_and_a_short_field():
    ss = wp.zeros(5, dtype=Samples)
    _set(ss, 5, length=4)
    out = wp.zeros(4, dtype=float)
    wp.launch(through_a_local, dim=4, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [10.0, 21.0, 32.0, 43.0])
    ss[3] = _samples([1.0, 2.0])  # element 3 serves launch point 2, which reads its values[2]
    out.fill_(-1.0)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(through_a_local, dim=4, inputs=[ss, out])
    message = str(e.value)
    assert _line("out[i] = s.values[i]") in message and "index 3 on its axis 0" in message
    assert "'ss[3].values' has shape (2,)" in message
    np.testing.assert_array_equal(out.numpy(), -1.0)
    ss[0] = _samples(None)  # element 0 is no launch point's (s = ss[i + 1])
    ss[3] = _samples(np.zeros(4))
    wp.launch(through_a_local, dim=4, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [10.0, 21.0, 0.0, 43.0])


def test_nested_fields_of_a_2d_array_of_structs():
    hs = wp.zeros((2, 3), dtype=Holder)
    out = wp.full((2, 3), -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'hs\[0, 0\]\.inner\.values' is None"):
        wp.launch(nested, dim=(2, 3), inputs=[hs, out])
    for i in range(2):
        for j in range(3):
            h = Holder()
            h.inner = _samples([0.0, 0.0, 100.0 * i + j])
            h.grid = wp.array(np.full((2, 2), float(j), np.float32))
            hs[i, j] = h
    wp.launch(nested, dim=(2, 3), inputs=[hs, out])
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 4], [100, 102, 104]])
    h = Holder()
    h.inner = _samples([0.0, 0.0, 5.0])
    h.grid = wp.array(np.zeros((2, 1), np.float32))  # hs[0, 2].grid[i, 1]: one column short
    hs[0, 2] = h
    out.fill_(-1.0)
    with pytest.raises(wp.LaunchError, match=r"index 1 on its axis 1, but 'hs\[0, 2\]\.grid' has shape \(2, 1\)"):
        wp.launch(nested, dim=(2, 3), inputs=[hs, out])
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_a_guarded_access_and_a_kernel_storing_elements_are_not_refused():
    ss = wp.zeros(3, dtype=Samples)
    ss[1] = _samples([7.0])
    out = wp.zeros(3, dtype=float)
    wp.launch(guarded, dim=3, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 7.0, 0.0])
    ss = wp.zeros(3, dtype=Samples)
    fill = wp.array(np.array([1.0, 2.0, 3.0], np.float32))
    wp.launch(stores_then_reads, dim=3, inputs=[ss, fill, out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("strides", [None, (64,)])
def test_empty_arrays_of_structs_holding_arrays_are_zeroed(strides):
    junk = wp.full(80, -1.0, dtype=float)  # memory just freed, full of set bytes, is what empty gets next
    del junk
    ss = wp.empty(8, dtype=Samples, strides=strides)
    items = ss.numpy()
    # field by field: a copy of the whole structured array would compare its padding, which numpy leaves
    # uninitialized in the copy (the test failed now and then)
    assert not any(np.ascontiguousarray(items[name]).view(np.uint8).any() for name in items.dtype.names)
    out = wp.full(8, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'ss\[0\]\.values' is None"):
        wp.launch(first_values, dim=8, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_indexed_array_fields():
    ps = wp.zeros(2, dtype=Picked)
    out = wp.full(2, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'ps\[0\]\.values' is None"):
        wp.launch(picked_first, dim=2, inputs=[ps, out])
    data = wp.array(np.array([5.0, 6.0, 7.0], np.float32))
    for k in range(2):
        p = Picked()
        p.values = wp.indexedarray(data, [wp.array([2 - k], dtype=int)])
        ps[k] = p
    wp.launch(picked_first, dim=2, inputs=[ps, out])
    np.testing.assert_array_equal(out.numpy(), [7.0, 6.0])
    p = Picked()
    p.values = wp.indexedarray(data, [wp.array([], dtype=int)])  # selects nothing: values[0] is past it
    ps[1] = p
    out.fill_(-1.0)
    with pytest.raises(wp.LaunchError, match=r"'ps\[1\]\.values' has shape \(0,\)"):
        wp.launch(picked_first, dim=2, inputs=[ps, out])
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_a_long_array_with_one_unset_element():
    ss = wp.zeros(100, dtype=Samples)
    ss.fill_(_samples([3.0]))
    ss[77] = _samples(None)
    out = wp.full(100, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'ss\[77\]\.values' is None"):
        wp.launch(first_values, dim=100, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), -1.0)
    wp.launch(first_values, dim=77, inputs=[ss, out])  # the elements before it
    np.testing.assert_array_equal(out.numpy()[:77], 3.0)
