"""Arrays: construction, numpy interop without copies, DLPack, strided views read and written by
kernels, printing, and the annotation types."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i] + y[i]


@wp.kernel
def mark2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] * 10.0 + float(i * a.shape[1] + j)


@wp.kernel
def vec_norms(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(v[i])
    v[i] = v[i] * 2.0


# -- construction --------------------------------------------------------------------------------


def test_from_lists_infers_dtype_and_shape():
    a = wp.array([1.0, 2.0, 3.0])
    assert a.dtype is wp.float32 and a.shape == (3,) and a.ndim == 1
    b = wp.array([[1, 2, 3], [4, 5, 6]])
    assert b.dtype is wp.int32 and b.shape == (2, 3) and b.ndim == 2 and len(b) == 2 and b.size == 6
    c = wp.array([True, False])
    assert c.dtype is wp.bool
    d = wp.array([1, 2], dtype=wp.float64)
    assert d.numpy().dtype == np.float64 and d.numpy().tolist() == [1.0, 2.0]
    v = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3)
    assert v.shape == (2,) and v.dtype is wp.vec3 and v.numpy().shape == (2, 3)
    assert v[1] == wp.vec3(4.0, 5.0, 6.0) and type(v[1]) is wp.vec3
    vs = wp.array([wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)])  # typed values give the dtype
    assert vs.dtype is wp.vec3 and vs.shape == (2,)
    assert wp.array([[wp.vec2d(1, 2)] * 3] * 2).shape == (2, 3)
    ds = wp.array([wp.float64(0.1), wp.float64(2.0)])
    assert ds.dtype is wp.float64 and ds.numpy()[0] == 0.1
    m = wp.array(np.arange(8.0), dtype=wp.mat22d)  # flat data is split into elements
    assert m.shape == (2,) and m.numpy().shape == (2, 2, 2)
    with pytest.raises(ValueError, match="vec3f"):
        wp.array(np.zeros((4, 2), np.float32), dtype=wp.vec3)


def test_data_exporting_typed_memory_keeps_its_type():
    """A memoryview, an array.array or an object with numpy's array interface is typed data, as a numpy
    array: its int64 or float64 values are kept (the float32/int32 rule would wrap 2**40 + 1 to 1)."""
    import array as pyarray

    class Exported:  # any object exporting its memory through numpy's interface
        def __init__(self, a):
            self.keep, self.__array_interface__ = a, a.__array_interface__

    big = np.array([2**40 + 1, 7], dtype=np.int64)
    for data in (memoryview(big), Exported(big), pyarray.array("q", big.tolist())):
        a = wp.array(data)
        assert a.dtype is wp.int64 and a.numpy().tolist() == [2**40 + 1, 7]
    f = wp.array(memoryview(np.array([1 + 1e-12])))
    assert f.dtype is wp.float64 and f.numpy()[0] == 1 + 1e-12
    assert wp.array(pyarray.array("f", [0.5])).dtype is wp.float32
    assert wp.array(range(3)).dtype is wp.int32  # Python ints, as a list


def test_allocation_functions():
    assert wp.zeros(5).numpy().tolist() == [0.0] * 5
    assert wp.zeros((2, 3), dtype=wp.int64).numpy().shape == (2, 3)
    assert wp.ones(3, dtype=wp.int8).numpy().tolist() == [1, 1, 1]
    assert wp.full((2, 2), 7, dtype=wp.uint16).numpy().tolist() == [[7, 7], [7, 7]]
    f = wp.full(2, wp.vec3(1.0, 2.0, 3.0))
    assert f.dtype is wp.vec3 and f.numpy().tolist() == [[1.0, 2.0, 3.0]] * 2
    assert wp.full(3, 2.5).dtype is wp.float32
    e = wp.empty((4, 4), dtype=wp.float64)
    assert e.shape == (4, 4) and e.dtype is wp.float64
    z = wp.zeros_like(f)
    assert z.dtype is wp.vec3 and z.numpy().tolist() == [[0.0] * 3] * 2
    assert wp.ones_like(e).numpy().sum() == 16
    a = wp.array(np.arange(10.0, dtype=np.float32))
    view = a[::2]
    c = wp.clone(view)
    assert c.is_contiguous and c.numpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert not np.shares_memory(c.numpy(), a.numpy())
    dest = wp.zeros(5)
    wp.copy(dest, view)
    assert dest.numpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    dest.fill_(3.0)
    assert dest.numpy().tolist() == [3.0] * 5
    dest.zero_()
    assert dest.numpy().tolist() == [0.0] * 5
    dest.assign([1, 2, 3, 4, 5])
    assert dest.numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="cannot assign"):
        dest.assign([1, 2])


def test_properties():
    a = wp.zeros((3, 4), dtype=wp.float64)
    assert a.strides == (32, 8)
    assert a.device == "cpu" and str(a.device) == "cpu"
    assert a.is_contiguous
    v = wp.zeros((2, 5), dtype=wp.vec3)
    assert v.strides == (60, 12) and v.shape == (2, 5) and v.ndim == 2


# -- numpy interop without copies ---------------------------------------------------------------


def test_numpy_wrap_is_zero_copy_and_kernels_write_through():
    x_np = np.arange(6, dtype=np.float32)
    y_np = np.ones(6, dtype=np.float32)
    x = wp.array(x_np, dtype=wp.float32, copy=False)
    y = wp.array(y_np, copy=False)  # wp.from_numpy copies, as Warp
    assert np.shares_memory(x.numpy(), x_np) and np.shares_memory(y.numpy(), y_np)
    wp.launch(axpy, dim=6, inputs=[x, y])
    assert y_np.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]  # the caller's numpy array changed
    x_np[0] = 100.0  # and numpy writes are seen by the array
    assert x.numpy()[0] == 100.0


def test_copy_true_copies_and_dtype_conversion_copies():
    src = np.arange(4, dtype=np.float32)
    a = wp.array(src)  # copy=True by default
    assert not np.shares_memory(a.numpy(), src)
    b = wp.array(src.astype(np.float64), dtype=wp.float32, copy=False)  # conversion needs a copy
    assert b.numpy().dtype == np.float32 and b.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_numpy_method_is_zero_copy():
    a = wp.zeros(4)
    view = a.numpy()
    view[2] = 5.0
    wp.launch(axpy, dim=4, inputs=[wp.array([1.0, 1.0, 1.0, 1.0]), a])
    assert view.tolist() == [2.0, 2.0, 7.0, 2.0]
    assert a.numpy().__array_interface__["data"][0] == view.__array_interface__["data"][0]


def test_vector_arrays_numpy_view_has_trailing_dimension():
    data = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]], dtype=np.float32)
    v = wp.array(data, dtype=wp.vec3, copy=False)  # a view (wp.from_numpy copies, as Warp)
    assert v.shape == (2,) and np.shares_memory(v.numpy(), data)
    out = wp.zeros(2)
    wp.launch(vec_norms, dim=2, inputs=[v, out])
    assert out.numpy().tolist() == [5.0, 2.0]
    assert data.tolist() == [[6.0, 8.0, 0.0], [0.0, 0.0, 4.0]]


def test_array_interface():
    a = wp.array(np.arange(6, dtype=np.int16).reshape(2, 3))
    iface = a.__array_interface__
    assert iface["shape"] == (2, 3) and iface["typestr"] == "<i2"
    assert iface["data"][0] == a.ptr
    wrapped = np.asarray(a)
    assert np.shares_memory(wrapped, a.numpy())
    assert wrapped.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_dlpack_both_ways():
    a = wp.array(np.arange(5, dtype=np.float64))
    n = np.from_dlpack(a)
    assert np.shares_memory(n, a.numpy()) and n.dtype == np.float64
    n[0] = 42.0
    assert a.numpy()[0] == 42.0
    src = np.arange(4, dtype=np.float32)
    b = wp.from_dlpack(src)
    assert b.dtype is wp.float32 and np.shares_memory(b.numpy(), src)


def test_to_dlpack_and_capsules_share_writable_memory():
    a = wp.array(np.arange(6, dtype=np.float32))
    b = wp.from_dlpack(wp.to_dlpack(a))  # a capsule, as Warp's to_dlpack gives
    assert b.dtype is wp.float32 and b.ptr == a.ptr
    b.numpy()[0] = 42.0
    wp.launch(_double, dim=6, inputs=[b])
    np.testing.assert_array_equal(a.numpy(), [84, 2, 4, 6, 8, 10])
    strided = np.arange(12.0).reshape(3, 4)[:, ::2]  # a producer's capsule with strides
    v = wp.from_dlpack(strided.__dlpack__())
    assert v.shape == (3, 2) and v.numpy().tolist() == [[0, 2], [4, 6], [8, 10]]
    v.numpy()[2, 1] = -1.0
    assert strided[2, 1] == -1.0
    vec = wp.from_dlpack(np.zeros((5, 3), np.float32).__dlpack__(), dtype=wp.vec3)
    assert vec.shape == (5,) and vec.dtype is wp.vec3
    assert wp.from_dlpack(np.zeros((0, 3)).__dlpack__()).shape == (0, 3)


def test_an_imported_capsule_keeps_its_producer_alive_until_the_array_goes():
    import gc
    import weakref

    src = np.arange(3.0)
    alive = weakref.ref(src)
    a = wp.from_dlpack(src.__dlpack__())
    del src
    gc.collect()
    assert alive() is not None and a.numpy().tolist() == [0.0, 1.0, 2.0]
    del a
    gc.collect()
    assert alive() is None  # the producer's deleter ran


def test_from_dlpack_refuses_what_it_cannot_import():
    a = wp.array([1.0, 2.0])
    capsule = wp.to_dlpack(a)
    wp.from_dlpack(capsule)
    with pytest.raises(ValueError, match="unconsumed DLPack capsule.*used_dltensor"):
        wp.from_dlpack(capsule)  # a capsule is imported once
    with pytest.raises(TypeError, match="needs an object with __dlpack__ or a DLPack capsule, got int"):
        wp.from_dlpack(3)
    with pytest.raises(TypeError, match="needs a brickwork array, got list"):
        wp.to_dlpack([1.0])

    class OnTheGpu:
        def __dlpack_device__(self):
            return 2, 0

    with pytest.raises(TypeError, match="needs an object with __dlpack__ .* got OnTheGpu \\(it has __dlpack_device__ "
                                        "only\\)"):
        wp.from_dlpack(OnTheGpu())  # a CUDA tensor is imported (tests/runtime/test_cuda_import.py)

    class Elsewhere:
        def __dlpack_device__(self):
            return 123, 7

        def __dlpack__(self, stream=None):
            raise AssertionError("not asked for its capsule")

    with pytest.raises(TypeError, match="Unsupported source device for DLPack: device_type=123, device_id=7"):
        wp.from_dlpack(Elsewhere())

    class NoCapsule:
        def __dlpack_device__(self):
            return 1, 0

        def __dlpack__(self, stream=None):
            return object()

    with pytest.raises(TypeError, match="Expected a valid DLPack capsule, got object"):
        wp.from_dlpack(NoCapsule())
    with pytest.raises(RuntimeError, match="Incompatible data types: DLPack bool8 and Warp float32"):
        wp.from_dlpack(wp.to_dlpack(wp.zeros(1, dtype=wp.bool)), dtype=wp.float32)
    with pytest.raises(RuntimeError, match="Incompatible data types: DLPack int32 and Warp float32"):
        wp.from_dlpack(np.zeros(2, np.int32), dtype=wp.float32)


def test_from_dlpack_element_types_as_warp_reads_them():
    for t in (wp.int8, wp.uint16, wp.int32, wp.uint64, wp.float16, wp.float32, wp.float64, wp.bool, wp.bfloat16):
        a = wp.zeros(3, dtype=t)
        b = wp.from_dlpack(wp.to_dlpack(a))
        assert b.dtype is t and b.ptr == a.ptr and b.strides == a.strides
    for src, dst in ((wp.int8, wp.uint8), (wp.uint32, wp.int32), (wp.int64, wp.uint64), (wp.bool, wp.int8),
                     (wp.bool, wp.uint8)):  # same-size integers and bool alias each other
        a = wp.array(np.array([1, 0, 1]).astype(wp.dtype_to_numpy(src)), dtype=src)
        b = wp.from_dlpack(wp.to_dlpack(a), dtype=dst)
        assert b.dtype is dst and b.ptr == a.ptr and b.numpy().tolist() == [1, 0, 1]
    bf = wp.array(np.array([1.0, 2.5, -3.0], np.float32), dtype=wp.bfloat16)
    back = wp.from_dlpack(wp.to_dlpack(bf))
    assert back.dtype is wp.bfloat16 and back.ptr == bf.ptr
    out = wp.zeros(3, dtype=wp.float32)
    wp.launch(_widen_bf16, dim=3, inputs=[back, out])
    assert out.numpy().tolist() == [1.0, 2.5, -3.0]
    m = wp.zeros(4, dtype=wp.types.matrix((2, 3), wp.float32))
    s = wp.from_dlpack(wp.to_dlpack(m), dtype=wp.float32)  # a matrix array as scalars: two more dimensions
    assert s.shape == (4, 2, 3) and s.strides == (*m.strides, 12, 4) and s.ptr == m.ptr
    v = wp.from_dlpack(wp.to_dlpack(wp.zeros((4, 3), dtype=wp.float32)), dtype=wp.vec3)
    assert v.shape == (4,) and v.dtype is wp.vec3


@wp.kernel
def _widen_bf16(x: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.float32(x[i])


@wp.kernel
def _double(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = 2.0 * x[i]


def test_str_and_repr():
    for a in (wp.array([1.5, 2.0, -3.25]), wp.array(np.arange(12).reshape(3, 4)),
              wp.zeros(2, dtype=wp.vec3), wp.array(np.arange(4, dtype=np.float16))):
        assert str(a) == str(a.numpy())
    assert repr(wp.array([1, 2], dtype=wp.int8)) == "array([1, 2], dtype=int8, device=cpu)"


# -- strided views passed to kernels ---------------------------------------------------------------


def test_every_other_element_view():
    base = np.arange(10, dtype=np.float32)
    a = wp.array(base.copy())
    evens, odds = a[::2], a[1::2]
    assert evens.shape == (5,) and evens.strides == (8,) and not evens.is_contiguous
    wp.launch(axpy, dim=5, inputs=[evens, odds])  # odds += 2 * evens, in place through the views
    expected = base.copy()
    expected[1::2] += 2 * base[::2]
    assert a.numpy().tolist() == expected.tolist()


def test_reversed_view():
    a = wp.array(np.arange(6, dtype=np.float32))
    y = wp.zeros(6)
    wp.launch(axpy, dim=6, inputs=[a[::-1], y])
    assert y.numpy().tolist() == [10.0, 8.0, 6.0, 4.0, 2.0, 0.0]


def test_2d_column_slice_row_and_transposed_views():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(base.copy())
    inner = a[:, 1:]  # inner dimension offset: rows are not contiguous
    assert inner.shape == (3, 3) and inner.strides == (16, 4)
    wp.launch(mark2d, dim=inner.shape, inputs=[inner])
    expected = base.copy()
    expected[:, 1:] = base[:, 1:] * 10 + np.arange(9).reshape(3, 3)
    assert a.numpy().tolist() == expected.tolist()

    b = wp.array(base.copy())
    t = wp.array(b.numpy().T, dtype=b.dtype, copy=False)  # inner stride is not 1
    assert t.shape == (4, 3)
    wp.launch(mark2d, dim=t.shape, inputs=[t])
    assert b.numpy().T.tolist() == (base.T * 10 + np.arange(12).reshape(4, 3)).tolist()

    c = wp.array(base.copy())
    row = c[1]  # a 1d view of one row
    assert row.ndim == 1 and row.shape == (4,)
    wp.launch(axpy, dim=4, inputs=[row, row])
    assert c.numpy()[1].tolist() == (base[1] * 3).tolist() and c.numpy()[0].tolist() == base[0].tolist()

    d = wp.array(base.copy())
    block = d[1:3, ::2]
    wp.launch(mark2d, dim=block.shape, inputs=[block])
    expected = base.copy()
    expected[1:3, ::2] = base[1:3, ::2] * 10 + np.arange(4).reshape(2, 2)
    assert d.numpy().tolist() == expected.tolist()


def test_host_indexing():
    a = wp.array(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert a[1, 2] == 5 and type(a[1, 2]) is int
    a[0, 0] = 9
    assert a.numpy()[0, 0] == 9
    a[1] = [7, 7, 7]
    assert a.numpy()[1].tolist() == [7, 7, 7]
    assert a.flatten().shape == (6,) and a.reshape((3, 2)).shape == (3, 2)
    assert np.shares_memory(a.flatten().numpy(), a.numpy())


# -- annotation types ----------------------------------------------------------------------------


def test_annotation_types():
    t = wp.array2d[wp.float32]
    assert isinstance(t, wp.ArrayType) and t.dtype is wp.float32 and t.ndim == 2
    assert wp.array2d(dtype=wp.float32) is t
    assert wp.array(dtype=wp.float32, ndim=2) is t
    assert wp.array[wp.float32] is wp.array(dtype=wp.float32) is wp.array1d[wp.float32]
    assert wp.array3d[wp.vec3].ndim == 3 and wp.array4d[float].dtype is wp.float32
    assert repr(t) == "array(dtype=float32, ndim=2)"
    assert wp.zeros((2, 2))._key is t
    with pytest.raises(TypeError, match="ndim must be 1 to 4"):
        wp.array(dtype=float, ndim=5)


@wp.kernel
def sum_rows(a: wp.array2d[wp.float64], out: wp.array1d[wp.float64]):
    i = wp.tid()
    s = wp.float64(0.0)
    for j in range(a.shape[1]):
        s += a[i, j]
    out[i] = s


def test_subscripted_annotations_in_kernels():
    a = np.random.default_rng(3).standard_normal((5, 7))
    out = wp.zeros(5, dtype=wp.float64)
    wp.launch(sum_rows, dim=5, inputs=[wp.array(a), out])
    expected = np.zeros(5)
    for j in range(7):  # the same order of additions as the kernel
        expected += a[:, j]
    assert out.numpy().tolist() == expected.tolist()


def test_list_is_flat_and_typed():
    a = wp.array(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert a.list() == [0, 1, 2, 3, 4, 5] and all(type(x) is int for x in a.list())
    v = wp.array([[1.0, 2.0], [3.0, 4.0]], dtype=wp.vec2)
    items = v.list()
    assert [type(x) for x in items] == [wp.vec2, wp.vec2] and items[1] == [3.0, 4.0]
    b = wp.array(np.array([1.5, -2.0], dtype=np.float32), dtype=wp.bfloat16)
    assert b.list() == [1.5, -2.0]  # values, not the stored bit patterns


def test_vector_data_shapes_as_warp_reads_them():
    assert wp.array(np.arange(24, dtype=np.float32).reshape(4, 6), dtype=wp.vec3).shape == (4, 2)
    m = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=wp.mat22)
    assert m.shape == (3,) and m.numpy()[2].tolist() == [[8.0, 9.0], [10.0, 11.0]]
    col = wp.array(np.arange(6, dtype=np.float32).reshape(3, 2, 1), dtype=wp.vec2)  # column vectors
    assert col.shape == (3,) and col.numpy()[1].tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="does not end with the vec3f shape"):
        wp.array(np.zeros((4, 5), dtype=np.float32), dtype=wp.vec3)


def test_struct_arrays_fill_full_and_records():
    @wp.struct
    class Rec:
        i: wp.int16
        v: wp.vec3

    r = Rec()
    r.i = 7
    r.v = wp.vec3(1.0, 2.0, 3.0)
    full = wp.full((2, 2), r)
    assert full.dtype is Rec and full.shape == (2, 2)
    assert full.numpy().dtype == Rec.numpy_dtype()
    assert full.numpy()["i"].tolist() == [[7, 7], [7, 7]] and full.numpy()["v"][1, 0].tolist() == [1.0, 2.0, 3.0]
    expected = np.zeros(3, dtype=Rec.numpy_dtype())
    expected.fill(r.numpy_value())
    filled = wp.zeros(3, dtype=Rec).fill_(r)
    for field in ("i", "v"):  # the fields, not the padding between them (numpy's fill leaves it as it was)
        assert filled.numpy()[field].tobytes() == expected[field].tobytes()
    assert [x.i for x in filled.list()] == [7, 7, 7]

    @wp.struct
    class Other:
        i: wp.int16

    target = wp.zeros(2, dtype=Rec)
    with pytest.raises(TypeError, match=r"fill_: an array of Rec takes Rec values, got a Other \(Other\(i=0\)\)"):
        target.fill_(Other())
    assert target.numpy()["i"].tolist() == [0, 0]


def test_fill_of_bfloat16_arrays_stores_the_numbers_bit_patterns():
    a = wp.full((2, 3), 42, dtype=wp.bfloat16)
    assert a.list() == [42.0] * 6
    assert a.numpy().view(np.uint16)[0, 0] == 0x4228  # the upper half of float32(42.0)
    a.fill_(wp.bfloat16(-1.5))
    assert a.list() == [-1.5] * 6
    a.zero_()
    assert a.list() == [0.0] * 6


def test_copy_with_offsets_and_a_count_moves_row_major_elements_as_warp():
    src = wp.array(np.arange(1, 6, dtype=np.float32))

    def into(n, **kw):
        dest = wp.zeros(n)
        wp.copy(dest, src, **kw)
        return dest.numpy().tolist()

    assert into(6, dest_offset=1, src_offset=2, count=2) == [0, 3, 4, 0, 0, 0]
    assert into(8) == [1, 2, 3, 4, 5, 0, 0, 0]  # count 0: all of the source, shapes may differ
    grid = wp.zeros((2, 3))
    wp.copy(grid, wp.array(np.arange(6, dtype=np.float32).reshape(2, 3)), dest_offset=1, count=4)
    assert grid.numpy().tolist() == [[0, 0, 1], [2, 3, 0]]
    strided = wp.zeros(6)
    wp.copy(strided[::2], src, dest_offset=1, count=2)  # a view: its elements, not its memory
    assert strided.numpy().tolist() == [0, 0, 1, 0, 2, 0]
    vecs = wp.zeros(3, dtype=wp.vec2)
    wp.copy(vecs, wp.array([[1, 2], [3, 4]], dtype=wp.vec2), dest_offset=1, count=1)
    assert vecs.numpy().tolist() == [[0, 0], [1, 2], [0, 0]]


@pytest.mark.parametrize(("kw", "error", "words"), [
    (dict(src_offset=2), ValueError, "a range of 5 element(s) from source offset (2) exceeds the source size (5)"),
    (dict(dest_offset=5, count=3), ValueError, "3 element(s) to destination offset (5) exceeds the destination size"),
    (dict(dest_offset=-1, count=1), ValueError, "Destination offset must be non-negative, got -1"),
    (dict(src_offset=-2), RuntimeError, "Source offset must be non-negative, got -2"),  # Warp's exception class
    (dict(count=-1), ValueError, "Copy count must be non-negative, got -1"),
    (dict(count=1.5), RuntimeError, "src_offset, dest_offset, and count must be integers"),
    (dict(count=True), ValueError, "must be integers"),
])
def test_copy_refuses_what_does_not_fit_and_changes_nothing(kw, error, words):
    src, dest = wp.array(np.arange(1, 6, dtype=np.float32)), wp.full(6, 9.0)
    with pytest.raises(error) as info:
        wp.copy(dest, src, **kw)
    assert words in str(info.value)
    assert dest.numpy().tolist() == [9.0] * 6


def test_copy_refuses_arrays_of_different_types():
    dest = wp.full(5, 9.0)
    with pytest.raises(TypeError, match="destination dtype=float32, source dtype=float64"):
        wp.copy(dest, wp.array(np.arange(5.0)))
    with pytest.raises(RuntimeError, match="Incompatible array data types"):  # Warp's class, also a TypeError
        wp.copy(dest, wp.array(np.arange(5), dtype=wp.int32))
    assert dest.numpy().tolist() == [9.0] * 5


def test_copy_between_strided_nd_views_needs_one_shape_and_no_range_as_warp():
    src = wp.array(np.arange(18, dtype=np.float32).reshape(6, 3))[::3, :]
    dest = wp.zeros((6, 2))[::2, :]
    with pytest.raises(RuntimeError, match=r"destination shape=\(3, 2\), source shape=\(2, 3\)"):
        wp.copy(dest, src)
    grid = wp.array(np.arange(100, dtype=np.float32).reshape(10, 10))[1::2, 1::2]
    out = wp.zeros((5, 5))
    with pytest.raises(ValueError, match="only supported for 1-D non-contiguous arrays"):
        wp.copy(out, grid, count=2)
    assert not out.numpy().any()
    wp.copy(out, grid)  # same shapes, no range: copied element by element
    np.testing.assert_array_equal(out.numpy(), np.arange(100).reshape(10, 10)[1::2, 1::2])


def test_is_contiguous_compares_every_stride_as_warp():
    assert wp.zeros((3, 2)).is_contiguous
    assert wp.zeros((3, 1))[:, 0:1].is_contiguous
    assert not wp.array([0, 1], dtype=wp.int32)[::2].is_contiguous  # one element, but a step of 2
    assert not wp.zeros((4, 2))[::4].is_contiguous
    assert not wp.zeros((3, 2))[:, 0:1].is_contiguous
    assert wp.array((), dtype=wp.int32).is_contiguous and wp.zeros((2, 0))[:, ::2].is_contiguous


def test_a_taped_partial_copy_hands_back_the_gradient_of_its_part():
    src = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    dest = wp.zeros(6, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(dest, src, dest_offset=2, src_offset=1, count=3)
    dest.grad.assign(np.arange(10, 16, dtype=np.float32))
    tape.backward()
    assert src.grad.numpy().tolist() == [0, 12, 13, 14]


@pytest.mark.parametrize("dtype, hint", [
    (np.float32, "write dtype=wp.float32"), (np.dtype("int64"), "write dtype=wp.int64"),
    ("float64", "write dtype=wp.float64"), (np.bool_, "write dtype=wp.bool"),
])
def test_a_numpy_dtype_names_brickworks_spelling(dtype, hint):
    # Warp refuses numpy's types too ('Invalid data type'); the message says what to write instead
    with pytest.raises(TypeError, match="is not a valid array dtype") as info:
        wp.zeros(3, dtype=dtype)
    assert f"(numpy's {np.dtype(dtype).name}: {hint})" in str(info.value)


@pytest.mark.parametrize("dtype", [np.complex64, "xyz", object])
def test_other_invalid_dtypes_get_no_spelling(dtype):
    with pytest.raises(TypeError, match="is not a valid array dtype$"):
        wp.zeros(3, dtype=dtype)
