"""Arrays laid out by the caller (``strides=`` allocation, ``array(ptr=...)`` over existing memory), empty
arrays' strides and array interface, ``retain_grad`` rules, and array fields of structs read back."""

import gc

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def copy_2d(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j]


def test_strided_allocation_reaches_only_its_span():
    a = wp.zeros((3, 3), dtype=wp.int32, strides=(4, 12))  # column-major
    assert a.strides == (4, 12) and a.capacity == 36 and not a.is_contiguous
    assert a.numpy().tolist() == [[0] * 3] * 3
    gapped = wp.empty((2, 3, 4), dtype=wp.int32, strides=(40, 16, 4))
    assert gapped.capacity == 4 + 1 * 40 + 2 * 16 + 3 * 4
    v = wp.ones((2, 3), dtype=wp.vec3, strides=(12, 24))
    assert v.strides == (12, 24) and v.numpy().strides == (12, 24, 4) and v.numpy()[1, 2].tolist() == [1.0] * 3
    assert wp.full((2, 2), 5, dtype=wp.int32, strides=(4, 8)).numpy().tolist() == [[5, 5], [5, 5]]
    assert wp.array(shape=(2, 2), dtype=float, strides=(4, 8)).strides == (4, 8)


def test_strided_arrays_in_kernels_and_their_gradients():
    a = wp.zeros((2, 3), dtype=float, strides=(4, 8), requires_grad=True)
    a.numpy()[...] = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = wp.zeros((2, 3), dtype=float)
    wp.launch(copy_2d, dim=(2, 3), inputs=[a, out])
    assert out.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert a.grad.strides == (4, 8)  # laid out as the array, as Warp


def test_empty_strided_allocation():
    a = wp.empty((0, 3), dtype=wp.int32, strides=(4, 16))
    assert a.capacity == 0 and a.ptr is None and a.strides == (4, 16) and not a.is_contiguous


@pytest.mark.parametrize("strides, error, message", [
    ((4,), ValueError, "Invalid number of strides, expected 2 strides, got 1"),
    ((16, -4), NotImplementedError, "Negative strides are not supported for newly allocated arrays"),
    ((6, 2), ValueError, r"multiples of the element size \(4 bytes\)"),
    ((4.0, 16), TypeError, "strides must be integers"),
])
def test_bad_strides_are_refused(strides, error, message):
    with pytest.raises(error, match=message):
        wp.empty((3, 3), dtype=wp.int32, strides=strides)


def test_negative_strides_error_is_also_a_value_error():
    """Warp raises NotImplementedError; code written against earlier brickwork catches ValueError."""
    with pytest.raises(ValueError) as e:
        wp.zeros((3, 3), dtype=wp.int32, strides=(16, -4))
    assert isinstance(e.value, NotImplementedError)


def test_strides_with_data_must_be_the_datas():
    data = np.zeros((2, 3), dtype=np.float32)
    assert wp.array(data, strides=(12, 4), copy=False).ptr == data.ctypes.data
    with pytest.raises(ValueError, match=r"strides \(4, 8\) differ from the data's \(12, 4\)"):
        wp.array(data, strides=(4, 8))


def test_array_over_an_address_views_the_memory():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = wp.array(ptr=src.ctypes.data, shape=(4, 3), strides=(4, 16), dtype=float)  # the transpose
    assert t.ptr == src.ctypes.data and not t.is_contiguous and t.capacity == 48
    assert t.numpy().tolist() == src.T.tolist()
    out = wp.zeros((4, 3), dtype=float)
    wp.launch(copy_2d, dim=(4, 3), inputs=[t, out])
    assert out.numpy().tolist() == src.T.tolist()
    t.numpy()[0, 1] = 100.0
    assert src[1, 0] == 100.0  # the same memory
    v = wp.array(ptr=src.ctypes.data, shape=(2, 2), dtype=wp.vec2)  # dense strides by default
    assert v.strides == (16, 8) and v.numpy()[1, 1].tolist() == [6.0, 7.0]


def test_deleter_runs_when_the_last_view_goes():
    src = np.zeros(4, dtype=np.float32)
    freed = []
    a = wp.array(ptr=src.ctypes.data, shape=(4,), dtype=float, deleter=lambda p, n: freed.append((p, n)))
    view = a[1:]
    del a
    gc.collect()
    assert freed == []
    del view
    gc.collect()
    assert freed == [(src.ctypes.data, 16)]


def test_deleter_attribute_names_the_callers_function_on_the_array_made_over_the_pointer():
    # Warp's array.deleter: the function given with ptr=, None on views (and here on memory brickwork manages)
    src = np.zeros(4, dtype=np.float32)

    def free(p, n):
        pass

    a = wp.array(ptr=src.ctypes.data, shape=(4,), dtype=float, deleter=free)
    assert a.deleter is free and a[1:].deleter is None and a[:2].deleter is None
    assert wp.array(ptr=src.ctypes.data, shape=(4,), dtype=float).deleter is None
    assert wp.zeros(3).deleter is None and wp.array(src).deleter is None


@pytest.mark.parametrize("kwargs, error, message", [
    ({"data": [1.0], "ptr": 1024, "shape": (1,)}, ValueError, "takes a shape and no data"),
    ({"ptr": -1, "shape": (1,)}, TypeError, "ptr must be a memory address"),
    ({"ptr": 0, "shape": (2,)}, ValueError, r"ptr is 0 \(null\) but shape \(2,\) has elements"),
    ({"ptr": 1024, "shape": (4,), "capacity": 8}, ValueError, "capacity 8 is smaller than the 16 bytes"),
    # element 0 at ptr, the others below it: memory the capacity does not cover (it was taken, and read)
    ({"ptr": 1024, "shape": (4,), "strides": (-4,), "capacity": 64}, ValueError,
     r"strides \(-4,\) of shape \(4,\) reach 12 bytes below ptr, but capacity 64 counts the bytes from ptr up"),
    ({"ptr": 1024, "shape": (2, 3), "strides": (12, -4), "capacity": 64}, ValueError, "reach 8 bytes below ptr"),
])
def test_bad_pointer_arrays_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        wp.array(dtype=float, **kwargs)


def test_empty_arrays_have_warps_dense_strides():
    a = wp.zeros((1, 0), dtype=wp.vec2f)
    assert a.strides == (0, 8) and a.is_contiguous and a.ptr is None
    assert a.__array_interface__["data"][0] != 0 and a.__array_interface__["strides"] == (0, 8, 4)
    na = np.asarray(a)
    assert na.shape == (1, 0, 2) and na.strides == (0, 8, 4)
    assert wp.zeros((2, 0, 3), dtype=float).strides == (0, 12, 4)
    assert wp.array(np.zeros((0, 3), np.float32)).strides == (12, 4)


def test_array_interface_always_gives_strides():
    a = wp.zeros((2, 3), dtype=float)
    assert a.__array_interface__["strides"] == (12, 4)
    assert np.shares_memory(np.asarray(a), a.numpy())


def test_retain_grad_needs_requires_grad():
    with pytest.raises(ValueError, match="retain_grad=True requires requires_grad=True"):
        wp.zeros(3, dtype=float, retain_grad=True)
    a = wp.zeros(3, dtype=float)
    with pytest.raises(ValueError, match="retain_grad=True requires requires_grad=True"):
        a.retain_grad = True
    assert not a.retain_grad
    a.requires_grad = True
    a.retain_grad = True
    assert a.retain_grad
    a.requires_grad = False  # clears it, as Warp
    assert not a.retain_grad
    b = wp.zeros(3, dtype=float, requires_grad=True, retain_grad=True)
    b.grad = None
    assert not b.retain_grad and not b.requires_grad


def test_array_fields_of_structs_read_back_view_their_memory():
    @wp.struct
    class Holder:
        n: int
        a: wp.array2d(dtype=float)
        b: wp.array(dtype=wp.vec3)

    h = Holder()
    h.n = 3
    h.a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    items = wp.full(2, h, dtype=Holder).list()
    assert items[1].n == 3
    assert items[1].a.dtype is wp.float32 and items[1].a.ndim == 2
    assert items[1].a.ptr == h.a.ptr and items[1].a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert items[1].b is None  # a field never set stays unset


def test_a_non_native_byte_order_is_refused_with_the_conversion():
    big = np.arange(4, dtype=">f4")
    for make in (lambda: wp.array(big), lambda: wp.array(big, copy=False)):
        with pytest.raises(TypeError, match=r"numpy dtype >f4 has a non-native byte order: .*newbyteorder\('='\)"):
            make()
    converted = wp.array(big.astype(big.dtype.newbyteorder("=")))
    assert converted.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert wp.array(big, dtype=wp.float32).numpy().tolist() == [0.0, 1.0, 2.0, 3.0]  # a named dtype converts
    with pytest.raises(TypeError, match="numpy dtype <U1 has no brickwork scalar type"):
        wp.array(np.array(["a"]))
