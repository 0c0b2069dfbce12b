"""Indexed arrays (``wp.indexedarray``): an array seen through per-dimension int32 index arrays, checked
against numpy's fancy indexing (``base[np.ix_(...)]``), in kernels and on the host."""

from typing import Any, Literal

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError, LaunchError
from brickwork.types.indexed_arrays import IndexedArrayType


def _ix(base: np.ndarray, picks: list) -> tuple:
    """numpy's index of ``indexedarray(base, picks)`` (None: the whole dimension)."""
    return np.ix_(*[np.arange(n) if p is None else np.asarray(p) for n, p in zip(base.shape, picks)])


def _indexed(base: np.ndarray, picks: list):
    data = wp.array(base)
    return data, wp.indexedarray(data, [None if p is None else wp.array(p, dtype=wp.int32) for p in picks])


@wp.kernel
def scale_1d(a: wp.indexedarray[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i] + float(len(a))
    a[i] = 2.0 * a[i]
    a[i] += 1.0
    wp.atomic_add(a, i, 0.5)


@wp.kernel
def views_3d(a: wp.indexedarray[float, Literal[3]], out: wp.array3d[float], shape: wp.array[int]):
    i, j, k = wp.tid()
    row = a[i]
    out[i, j, k] = a[i, j, k] + row[j, k] + a[i, j][k]
    shape[0] = a.shape[0]
    shape[1] = row.shape[0]
    shape[2] = a[i, j].shape[0]


@wp.func
def pick(a: wp.indexedarray(dtype=float, ndim=2), i: int, j: int):
    return a[i, j]


@wp.func
def pick_any(a: Any, i: int, j: int):
    return a[i, j]


@wp.kernel
def through_functions(a: wp.indexedarray2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = pick(a, i, j) - pick_any(a, i, j) + pick(a, i, j)


@wp.kernel
def increment(a: Any):
    i, j = wp.tid()
    a[i, j] = a[i, j] + a.dtype(1)


@wp.struct
class Holder:
    values: wp.indexedarray(dtype=float)


@wp.kernel
def through_struct(h: Holder, out: wp.array[float]):
    i = wp.tid()
    out[i] = h.values[i]
    h.values[i] = -h.values[i]


@wp.kernel
def plain_1d(a: wp.array[float]):
    a[wp.tid()] = 1.0


@pytest.fixture(params=["cpu", "cuda-emulation"])
def target(request, monkeypatch):
    monkeypatch.setattr(wp.config, "target", request.param)
    return request.param


def test_reads_stores_atomics_and_len(target):
    base = np.arange(10, dtype=np.float32)
    data, a = _indexed(base, [[1, 3, 9, 3]])
    out = wp.zeros(4, dtype=float)
    wp.launch(scale_1d, dim=2, inputs=[a, out])  # threads 0 and 1 (index 3 appears twice: not raced)
    np.testing.assert_array_equal(out.numpy()[:2], [1 + 4, 3 + 4])
    expected = base.copy()
    expected[[1, 3]] = expected[[1, 3]] * 2 + 1.5
    np.testing.assert_array_equal(data.numpy(), expected)


@pytest.mark.parametrize("picks", [[[2, 0], None, [3, 1, 1]], [None, [4, 0], None], [[1], [0, 4, 2], [0]]])
def test_views_and_shapes_match_numpy(target, picks):
    base = np.arange(3 * 5 * 4, dtype=np.float32).reshape(3, 5, 4)
    _, a = _indexed(base, picks)
    expected = base[_ix(base, picks)]
    assert a.shape == expected.shape and a.ndim == 3 and a.size == expected.size and a.dtype is wp.float32
    out, shape = wp.zeros(a.shape, dtype=float), wp.zeros(3, dtype=int)
    wp.launch(views_3d, dim=a.shape, inputs=[a, out, shape])
    np.testing.assert_array_equal(out.numpy(), 3 * expected)
    assert shape.numpy().tolist() == list(expected.shape)


def test_a_strided_base(target):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    data = wp.array(base)[:, ::2]  # a strided view: the indexed array keeps its strides
    a = data[wp.array([3, 0], dtype=wp.int32), wp.array([2, 1], dtype=wp.int32)]
    out = wp.zeros(a.shape, dtype=float)
    wp.launch(through_functions, dim=a.shape, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), base[:, ::2][np.ix_([3, 0], [2, 1])])
    np.testing.assert_array_equal(a.numpy(), base[np.ix_([3, 0], [4, 2])])


def test_functions_generics_and_structs(target):
    base = np.arange(20, dtype=np.float32).reshape(4, 5)
    data, a = _indexed(base, [[3, 1], [4, 0, 4]])
    out = wp.zeros(a.shape, dtype=float)
    wp.launch(through_functions, dim=a.shape, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), base[np.ix_([3, 1], [4, 0, 4])])

    ints = wp.array(np.zeros((3, 3), dtype=np.int32))
    view = ints[wp.array([0, 2], dtype=wp.int32)]
    wp.launch(increment, dim=view.shape, inputs=[view])  # a generic kernel: one instance per array kind
    wp.launch(increment, dim=ints.shape, inputs=[ints])
    np.testing.assert_array_equal(ints.numpy(), [[2, 2, 2], [1, 1, 1], [2, 2, 2]])

    h = Holder()
    h.values = wp.array(np.arange(6, dtype=np.float32))[wp.array([5, 2], dtype=wp.int32)]
    got = wp.zeros(2, dtype=float)
    wp.launch(through_struct, dim=2, inputs=[h, got])
    np.testing.assert_array_equal(got.numpy(), [5, 2])
    np.testing.assert_array_equal(h.values.data.numpy(), [0, 1, -2, 3, 4, -5])


def test_host_side_matches_numpy():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    data, a = _indexed(base, [None, [5, 1]])
    np.testing.assert_array_equal(a.numpy(), base[:, [5, 1]])
    assert a.list() == base[:, [5, 1]].ravel().tolist()
    assert str(a) == str(base[:, [5, 1]]) and len(a) == 4 and not a.is_contiguous
    assert not a.requires_grad and a.grad is None

    a.fill_(7.0)
    base[:, [5, 1]] = 7.0
    np.testing.assert_array_equal(data.numpy(), base)
    a.zero_()
    base[:, [5, 1]] = 0.0
    np.testing.assert_array_equal(data.numpy(), base)
    a.assign(np.arange(8, dtype=np.float32).reshape(4, 2))
    base[:, [5, 1]] = np.arange(8).reshape(4, 2)
    np.testing.assert_array_equal(data.numpy(), base)

    c = wp.clone(a)
    assert type(c) is wp.array and c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), base[:, [5, 1]])
    dest = wp.zeros((4, 2), dtype=float)
    wp.copy(dest, a)
    np.testing.assert_array_equal(dest.numpy(), base[:, [5, 1]])
    wp.copy(a, wp.full((4, 2), 3.0, dtype=float))
    base[:, [5, 1]] = 3.0
    np.testing.assert_array_equal(data.numpy(), base)
    assert wp.zeros_like(a).shape == (4, 2)

    vecs = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    picked = vecs[wp.array([3, 0], dtype=wp.int32)]
    assert picked.list() == [wp.vec3(9, 10, 11), wp.vec3(0, 1, 2)]
    picked.fill_(wp.vec3(1, 2, 3))
    np.testing.assert_array_equal(vecs.numpy()[[3, 0]], [[1, 2, 3], [1, 2, 3]])

    mats = wp.zeros(3, dtype=wp.mat22)
    mats[wp.array([2], dtype=wp.int32)].fill_([1, 2, 3, 4])  # a matrix as a flat list, as Warp takes it
    np.testing.assert_array_equal(mats.numpy(), [np.zeros((2, 2)), np.zeros((2, 2)), [[1, 2], [3, 4]]])
    mats.fill_(np.arange(4))
    np.testing.assert_array_equal(mats.numpy(), np.tile(np.arange(4.0).reshape(2, 2), (3, 1, 1)))


def test_indexing_an_array_with_index_arrays():
    base = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    data = wp.array(base)
    i = wp.array([2, 0], dtype=wp.int32)
    k = wp.array([4, 1, 1], dtype=wp.int32)
    assert type(data[i]) is wp.indexedarray
    np.testing.assert_array_equal(data[i].numpy(), base[[2, 0]])
    np.testing.assert_array_equal(data[i, :, k].numpy(), base[np.ix_([2, 0], range(4), [4, 1, 1])])
    np.testing.assert_array_equal(data[1:3, :, k].numpy(), base[1:3][:, :, [4, 1, 1]])
    assert type(data[0:2]) is wp.array
    empty = data[wp.empty(0, dtype=wp.int32)]
    assert empty.shape == (0, 4, 5) and empty.numpy().shape == (0, 4, 5) and empty.list() == []


def test_map_and_operators():
    data = wp.array(np.arange(6, dtype=np.float32))
    a = data[wp.array([1, 4], dtype=wp.int32)]
    np.testing.assert_array_equal(wp.map(lambda x: x * 10.0, a).numpy(), [10, 40])
    np.testing.assert_array_equal((2.0 * a).numpy(), [2, 8])
    a += 1.0
    assert type(a) is wp.indexedarray
    np.testing.assert_array_equal(data.numpy(), [0, 2, 2, 3, 5, 5])


def test_annotation_spellings():
    t = wp.indexedarray[float]
    assert isinstance(t, IndexedArrayType) and t.dtype is wp.float32 and t.ndim == 1
    assert wp.indexedarray[float, Literal[2]] is wp.indexedarray(dtype=float, ndim=2) is wp.indexedarray2d(dtype=float)
    assert wp.indexedarray3d[wp.float64] is wp.indexedarray(dtype=wp.float64, ndim=3)
    assert wp.indexedarray(dtype=float) is not wp.array(dtype=float)
    assert repr(t) == "indexedarray(dtype=float32, ndim=1)"


def test_construction_errors():
    data = wp.zeros((4, 3), dtype=float)
    good = wp.array([0, 1], dtype=wp.int32)
    with pytest.raises(ValueError, match="Index array must use int32, got dtype int64"):
        wp.indexedarray(data, [wp.array([0], dtype=wp.int64)])
    with pytest.raises(ValueError, match="Index array must be one-dimensional, got 2"):
        wp.indexedarray(data, [wp.zeros((1, 1), dtype=wp.int32)])
    with pytest.raises(ValueError, match=r"Number of indices provided \(3\) exceeds number of dimensions \(2\)"):
        wp.indexedarray(data, [good, good, good])
    with pytest.raises(ValueError, match=r"Requested dimensionality \(1\) does not match .* \(2\)"):
        wp.indexedarray1d(data, [good])
    with pytest.raises(IndexError, match="index array 1 holds 3, outside dimension 1 of the data array"):
        wp.indexedarray(data, [None, wp.array([0, 3], dtype=wp.int32)])
    with pytest.raises(TypeError, match="data must be a brickwork array"):
        wp.indexedarray(np.zeros(3), [good])
    with pytest.raises(TypeError, match="index 0 must be a 1-D int32 array or None"):
        wp.indexedarray(data, [[0, 1]])


def test_copy_and_assign_errors():
    data = wp.array(np.arange(6, dtype=np.int32))
    a = data[wp.array([0, 2, 4], dtype=wp.int32)]
    with pytest.raises(RuntimeError, match="not supported for indexed or Fabric arrays"):
        wp.copy(wp.zeros(3, dtype=wp.int32), a, src_offset=1, count=1)
    with pytest.raises(RuntimeError, match="Incompatible array shapes"):
        wp.copy(wp.zeros(4, dtype=wp.int32), a)
    with pytest.raises(ValueError, match=r"cannot assign data of shape \(2,\) to an indexed array of shape \(3,\)"):
        a.assign(np.zeros(2, dtype=np.int32))
    np.testing.assert_array_equal(data.numpy(), np.arange(6))  # nothing changed


def test_kernel_errors():
    data = wp.zeros(4, dtype=float)
    a = data[wp.array([1], dtype=wp.int32)]
    with pytest.raises(LaunchError, match=r"must be array\(dtype=float32, ndim=1\), got indexedarray"):
        wp.launch(plain_1d, dim=1, inputs=[a])
    with pytest.raises(LaunchError, match=r"must be indexedarray\(dtype=float32, ndim=1\), got array"):
        wp.launch(scale_1d, dim=1, inputs=[data, data])

    @wp.kernel
    def sliced(a: wp.indexedarray2d(dtype=float)):
        a[0, 1:2][0] = 1.0

    with pytest.raises(KernelTypeError, match="cannot be sliced in a kernel"):
        wp.launch(sliced, dim=1, inputs=[wp.zeros((2, 2), dtype=float)[wp.array([0], dtype=wp.int32)]])


def test_bounds_are_checked_in_debug_mode(monkeypatch):
    from brickwork.errors import BoundsError

    monkeypatch.setattr(wp.config, "mode", "debug")
    a = wp.zeros(10, dtype=float)[wp.array([1, 2], dtype=wp.int32)]
    with pytest.raises(BoundsError, match=r"index \(2\) is out of bounds for shape \(2\)"):
        wp.launch(scale_1d, dim=3, inputs=[a, wp.zeros(3, dtype=float)])


def test_gradients_do_not_flow_through_indexed_arrays():
    @wp.kernel
    def weighted_square(w: wp.indexedarray[float], x: wp.array[float], y: wp.array[float]):
        i = wp.tid()
        y[i] = w[i] * x[i] * x[i]

    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    base = wp.array(np.arange(10, dtype=np.float32), requires_grad=True)
    w = base[wp.array([2, 4, 6], dtype=wp.int32)]
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_square, dim=3, inputs=[w, x, y])
    tape.backward(grads={y: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), [2 * 2 * 1, 2 * 4 * 2, 2 * 6 * 3])
    np.testing.assert_array_equal(base.grad.numpy(), np.zeros(10))  # as Warp: indexed arrays have no gradient
