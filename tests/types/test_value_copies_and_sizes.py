"""Host values Warp code uses: pickled vectors and matrices, copies of arrays (and refused pickling), the sizes
and ctypes of types (``wp.types.type_size_in_bytes``, ``type_ctype``), ``%`` of vectors by scalars, and DLPack's
complex types named."""

import copy
import ctypes
import pickle
import typing

import numpy as np
import pytest

import brickwork as wp


@pytest.mark.parametrize("value", [
    wp.vec3(1.0, 2.0, 3.0), wp.mat22(1.0, 2.0, 3.0, 4.0), wp.quat(0.0, 0.0, 0.0, 1.0),
    wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0)), wp.vec3ub(255, 1, 2), wp.vec2d(0.1, 0.2),
    wp.types.vector(5, wp.float16)(1, 2, 3, 4, 5), wp.types.matrix((2, 3), wp.float64)(1, 2, 3, 4, 5, 6),
    wp.types.vector(2, wp.bool)(True, False), wp.spatial_vector(1, 2, 3, 4, 5, 6),
])
def test_vectors_and_matrices_pickle_to_the_same_type_and_values(value):
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is type(value)  # types made on the fly are made again: vector(5, float16) is one class
    assert np.array_equal(np.asarray(back), np.asarray(value)) and back is not value
    deep = copy.deepcopy(value)
    assert type(deep) is type(value) and deep == value


def test_pickling_keeps_user_attributes_and_scalar_types():
    v = wp.vec3(1.0, 2.0, 3.0)
    v.label = "a"
    assert pickle.loads(pickle.dumps(v)).label == "a"
    assert pickle.loads(pickle.dumps(wp.mat22(1.0, 2.0, 3.0, 4.0)))[1] == wp.vec2(3.0, 4.0)
    for t in (wp.bool, wp.vec3i, wp.mat33d, wp.quath, wp.transform, wp.types.vector(7, wp.float16),
              wp.types.vector(2, wp.bool), wp.types.matrix((2, 3), wp.float64), wp.types.matrix((10, 10), wp.int8)):
        assert pickle.loads(pickle.dumps(t)) is t  # types by name, made again where needed
    assert pickle.loads(pickle.dumps(wp.uint8(200))) == wp.uint8(200)


def test_copies_of_arrays_copy_the_data_and_pickling_is_refused():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    shallow, (deep, again) = copy.copy(a), copy.deepcopy([a, a])
    for c in (shallow, deep):
        assert type(c) is wp.array and c.numpy().tolist() == [1.0, 2.0] and c.requires_grad
        c.fill_(5.0)
    assert deep is again  # deepcopy's memo: one copy per array
    assert a.numpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match=r"cannot pickle a brickwork array \(array\(dtype=float32, ndim=1\) of shape "
                                        r"\(2,\) on cpu\).*pickle a.numpy\(\) and make it again with "
                                        r"wp.array\(data, dtype=float32\)"):
        pickle.dumps(a)
    assert pickle.loads(pickle.dumps(a.numpy())).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("t, size, ctype", [
    (wp.vec3, 12, ctypes.c_float * 3), (wp.float16, 2, ctypes.c_uint16), (wp.mat33d, 72, ctypes.c_double * 9),
    (wp.quat, 16, ctypes.c_float * 4), (wp.transform, 28, ctypes.c_float * 7), (float, 4, ctypes.c_float),
    (int, 4, ctypes.c_int32), (wp.bool, 1, ctypes.c_bool), (wp.uint64, 8, ctypes.c_uint64),
    (wp.bfloat16, 2, ctypes.c_uint16), (wp.types.vector(5, wp.int16), 10, ctypes.c_int16 * 5),
    (ctypes.c_double, 8, ctypes.c_double),
])
def test_type_size_in_bytes_and_type_ctype_as_warp(t, size, ctype):
    assert wp.types.type_size_in_bytes(t) == size
    assert wp.types.type_ctype(t) is ctype and ctypes.sizeof(wp.types.type_ctype(t)) == size


def test_type_sizes_of_structs_and_types_without_one():
    @wp.struct
    class Rec:
        a: wp.int8
        b: wp.float64

    assert wp.types.type_size_in_bytes(Rec) == 16  # aligned as in C
    for bad, why in ((wp.array(dtype=float), r"Invalid data type: array\(dtype=float32, ndim=1\) has no size"),
                     (str, "Invalid data type: str has no size"), (typing.Any, "A concrete type is required")):
        with pytest.raises(TypeError, match=why):
            wp.types.type_size_in_bytes(bad)
    with pytest.raises(TypeError, match=r"Invalid data type: Rec has no ctypes type .*value.__ctype__\(\)"):
        wp.types.type_ctype(Rec)


def test_vector_remainder_by_a_scalar_as_kernels_compute_it():
    assert wp.vec3i(7, 8, 9) % 4 == wp.vec3i(3, 0, 1)
    assert wp.vec3i(-7, 8, 9) % 4 == wp.vec3i(-3, 0, 1)  # the dividend's sign, as C and Warp
    assert wp.vec3i(7, -8, 9) % -4 == wp.vec3i(3, 0, 1)
    assert wp.vec3i(7, 8, 9) % 0 == wp.vec3i(0, 0, 0)  # by zero: 0, as in kernels (Warp's host crashes)
    assert wp.vec3i(7, 8, 9) % wp.int32(4) == wp.vec3i(3, 0, 1)
    assert 4 % wp.vec3i(7, 8, 3) == wp.vec3i(4, 4, 1)
    assert wp.vec3(7.5, 8.0, -9.0) % 4.0 == wp.vec3(3.5, 0.0, -1.0)  # fmod
    assert wp.vec3d(7.5, 8.0, -9.0) % wp.float64(4.0) == wp.vec3d(3.5, 0.0, -1.0)
    assert type(wp.vec3ub(7, 8, 9) % wp.uint8(4)) is wp.vec3ub
    assert wp.vec3i(7, 8, 9) % wp.vec3i(4, 5, 6) == wp.vec3i(3, 3, 3)


@pytest.mark.parametrize("left, right, names", [
    (wp.vec3(7.5, 8.0, -9.0), 4, "vec3f, int"), (wp.vec3i(7, 8, 9), 4.0, "vec3i, float"),
    (wp.vec3i(7, 8, 9), wp.int64(4), "vec3i, int64"), (wp.vec3ub(7, 8, 9), 4, "vec3ub, int"),
    (wp.vec3i(7, 8, 9), wp.vec3(4.0, 5.0, 6.0), "vec3i, vec3f"), (4.0, wp.vec3i(7, 8, 9), "float, vec3i"),
])
def test_vector_remainder_needs_the_component_type(left, right, names):
    with pytest.raises(RuntimeError, match=f"Couldn't find a function 'mod' compatible with the arguments '{names}'"):
        left % right
    with pytest.raises(TypeError, match="the other operand must be of type"):
        left % right


def test_from_dlpack_names_complex_types():
    for dtype, name in ((np.complex64, "complex64"), (np.complex128, "complex128")):
        with pytest.raises(RuntimeError, match=f"Unsupported DLPack data type: {name}: complex types are not "
                                               f"supported"):
            wp.from_dlpack(np.arange(4, dtype=dtype))


@wp.struct
class _Inner:
    a: wp.int8
    v: wp.vec3


@wp.struct
class _Record:
    inner: _Inner
    h: wp.float16
    d: wp.float64
    data: wp.array(dtype=float)


def test_cptr_points_at_the_elements():
    """``a.cptr()`` as Warp's: a ctypes pointer to a contiguous CPU array's elements, struct fields by name at
    their offsets (so the record size is the struct's), writes reaching the array."""
    a = wp.array([1.0, 2.0, 3.0], dtype=float)
    p = a.cptr()
    assert isinstance(p, ctypes.POINTER(ctypes.c_float)) and p[2] == 3.0
    p[1] = 7.0
    assert a.numpy().tolist() == [1.0, 7.0, 3.0]
    assert list(wp.array([[1, 2], [3, 4]], dtype=wp.vec2).cptr()[1]) == [3.0, 4.0]
    records = wp.zeros(3, dtype=_Record)
    host = records.numpy()
    host["inner"]["a"] = [1, 2, 3]
    host["inner"]["v"][1] = [4.0, 5.0, 6.0]
    host["h"] = [1.5, 2.0, 3.0]
    host["d"] = [7.0, 8.0, 9.0]
    r = records.cptr()
    assert ctypes.sizeof(r._type_) == wp.types.type_size_in_bytes(_Record)
    assert r[1].inner.a == 2 and r[1].inner.v == wp.vec3(4.0, 5.0, 6.0) and r[2].d == 9.0
    assert r[0].h == np.float16(1.5).view(np.uint16)  # float16 as its bits, as Warp's
    assert wp.zeros(0, dtype=float).cptr() is None


@pytest.mark.parametrize("make", [lambda: wp.zeros(6, dtype=float)[::2], lambda: wp.zeros((2, 3), dtype=float).transpose()])
def test_cptr_refuses_arrays_that_are_not_contiguous(make):
    with pytest.raises(RuntimeError, match="only supported for contiguous CPU arrays"):
        make().cptr()
