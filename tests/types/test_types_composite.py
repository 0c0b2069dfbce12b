"""Vector, matrix and quaternion types and their host values."""

import re

import numpy as np
import pytest

import brickwork as wp


def test_named_families_are_the_generic_types():
    assert wp.vec3 is wp.vec3f is wp.vector(3, wp.float32) is wp.vector(length=3, dtype=float)
    assert wp.vec2d is wp.vector(2, wp.float64)
    assert wp.vec4h is wp.vector(4, wp.float16)
    assert wp.vec3i is wp.vector(3, wp.int32) and wp.vec2ub is wp.vector(2, wp.uint8)
    assert wp.mat33 is wp.mat33f is wp.matrix((3, 3), wp.float32)
    assert wp.mat22d is wp.matrix(shape=(2, 2), dtype=wp.float64)
    assert wp.quat is wp.quatf is wp.quaternion(wp.float32)
    assert wp.quatd is wp.quaternion(wp.float64)
    assert wp.vec3.dtype is wp.float32 and wp.vec3.length == 3
    assert wp.mat22d.dtype is wp.float64 and wp.mat22d.shape == (2, 2)
    assert wp.matrix((2, 3), wp.float32).__name__ == "matrix(shape=(2, 3), dtype=float32)"


def test_vector_construction():
    assert wp.vec3(1, 2, 3) == [1.0, 2.0, 3.0]
    assert wp.vec3(2.5) == [2.5, 2.5, 2.5]  # one scalar fills every component
    assert wp.vec3() == [0.0, 0.0, 0.0]
    assert wp.vec3([1, 2, 3]) == [1.0, 2.0, 3.0]
    assert wp.vec3(np.array([4.0, 5.0, 6.0])) == [4.0, 5.0, 6.0]
    assert wp.vec3(wp.vec3d(1.0, 2.0, 3.0)) == [1.0, 2.0, 3.0]
    assert wp.vec3i(np.int64(1), True, 3) == [1, 1, 3]
    for floats in ((1.9, -1.9, 3), (1.0, 2, 3), ([1.5, 2, 3],), (np.array([1.0, 2.0, 3.0]),), (wp.vec3(1, 2, 3),),
                   (2.5,), (np.float32(1), 2, 3)):
        with pytest.raises(TypeError, match=r"vec3i\(\) takes"):  # refused, as Warp: no truncation
            wp.vec3i(*floats)
    assert wp.vec3h(0.1, 0, 0)[0] == float(np.float16(0.1))
    with pytest.raises(ValueError, match="Invalid number of arguments in vector constructor, expected 3 elements, "
                                         "got 2"):
        wp.vec3(1.0, 2.0)
    with pytest.raises(TypeError, match="dtype must be a scalar type"):
        wp.vector(3, str)


def test_vector_indexing_components_and_iteration():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    assert v[0] == 1.0 and v[-1] == 4.0 and type(v[0]) is float
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0)
    v[1] = 20.0
    v.z = 30.0
    assert list(v) == [1.0, 20.0, 30.0, 4.0]
    assert len(v) == 4
    assert type(wp.vec3i(1, 2, 3)[0]) is int
    with pytest.raises(IndexError):
        v[4]


def test_vector_repr_str_numpy():
    v = wp.vec3(1.0, 2.0, 3.5)
    assert repr(v) == "vec3f([1.0, 2.0, 3.5])"
    assert str(v) == "[1.0, 2.0, 3.5]"
    a = np.array(v)
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0, 3.5]
    a[0] = 100.0  # a copy: the vector is unchanged
    assert v[0] == 1.0
    assert np.asarray(wp.vec2d(1, 2)).dtype == np.float64
    assert np.asarray(wp.vec2h(1, 2), dtype=np.float64).dtype == np.float64


def test_vector_arithmetic():
    a, b = wp.vec3(1.0, 2.0, 3.0), wp.vec3(0.5, -1.0, 2.0)
    assert a + b == [1.5, 1.0, 5.0] and type(a + b) is wp.vec3
    assert a - b == [0.5, 3.0, 1.0]
    assert -a == [-1.0, -2.0, -3.0]
    assert a * 2.0 == [2.0, 4.0, 6.0] and 2.0 * a == [2.0, 4.0, 6.0]
    assert a / 2.0 == [0.5, 1.0, 1.5]
    assert 6.0 / a == [6.0, 3.0, 2.0]
    assert a == wp.vec3(1.0, 2.0, 3.0) and a != b
    with pytest.raises(TypeError):
        a * b  # no componentwise product by '*', as in kernels (use cw_mul)
    h = wp.vec2h(0.1, 0.2) + wp.vec2h(0.2, 0.1)
    assert np.array(h).tolist() == (np.array([0.1, 0.2], np.float16) + np.array([0.2, 0.1], np.float16)).tolist()


def test_matrix_construction_indexing_repr():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m == wp.mat22((1.0, 2.0), (3.0, 4.0)) == wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))
    assert m == wp.mat22(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert wp.mat33(1.0) == np.full((3, 3), 1.0)
    assert m[0] == wp.vec2(1.0, 2.0) and type(m[0]) is wp.vec2
    assert m[1, 0] == 3.0 and m[1][1] == 4.0
    m[0, 1] = 7.0
    m[1] = wp.vec2(8.0, 9.0)
    assert np.array(m).tolist() == [[1.0, 7.0], [8.0, 9.0]]
    assert len(m) == 2
    assert repr(m) == "mat22f([[1.0, 7.0], [8.0, 9.0]])"
    assert str(m) == "[[1.0, 7.0],\n [8.0, 9.0]]"
    with pytest.raises(ValueError, match="Invalid number of arguments in matrix constructor, expected 4 elements, "
                                         "got 3"):
        wp.mat22(1.0, 2.0, 3.0)


def test_matrix_arithmetic_and_products():
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal((2, 3, 3))
    v_np = rng.standard_normal(3)
    a, b, v = wp.mat33d(a_np), wp.mat33d(b_np), wp.vec3d(v_np)
    np.testing.assert_allclose(np.array(a * b), a_np @ b_np, rtol=1e-14)
    np.testing.assert_allclose(np.array(a @ b), a_np @ b_np, rtol=1e-14)
    assert type(a * v) is wp.vec3d
    np.testing.assert_allclose(np.array(a * v), a_np @ v_np, rtol=1e-14)
    np.testing.assert_allclose(np.array(v * a), v_np @ a_np, rtol=1e-14)
    np.testing.assert_array_equal(np.array(a + b), a_np + b_np)
    np.testing.assert_array_equal(np.array(a * 2.0), a_np * 2.0)
    np.testing.assert_array_equal(np.array(-a), -a_np)
    rect = wp.matrix((2, 3), wp.float64)(np.arange(6.0))
    assert type(rect * v) is wp.vec2d
    assert np.array(rect * v).tolist() == (np.arange(6.0).reshape(2, 3) @ v_np).tolist()
    with pytest.raises(RuntimeError, match="^Couldn't find a function 'mul' compatible with the arguments "
                                           "'mat33d, vec3f'$"):
        a * wp.vec3(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="cannot multiply"):
        v * rect


def test_quaternion_host_values():
    q = wp.quat(1.0, 2.0, 3.0, 4.0)
    assert (q.x, q.y, q.z, q.w) == (1.0, 2.0, 3.0, 4.0)  # w is the real part, stored last
    assert repr(q) == "quatf([1.0, 2.0, 3.0, 4.0])"
    r = wp.quat(5.0, 6.0, 7.0, 8.0)
    # Hamilton product with w last: (4 + i + 2j + 3k)(8 + 5i + 6j + 7k)
    assert q * r == [24.0, 48.0, 48.0, -6.0]
    assert q * 2.0 == [2.0, 4.0, 6.0, 8.0]
    assert q + r == [6.0, 8.0, 10.0, 12.0]


def test_copy_constructor_copies():
    v = wp.vec3(1.0, 2.0, 3.0)
    c = wp.vec3(v)
    c[0] = 9.0
    assert v == [1.0, 2.0, 3.0] and c == [9.0, 2.0, 3.0]
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    mc = wp.mat22(m)
    mc[0, 0] = 7.0
    assert m[0, 0] == 1.0
    v.tag = "mine"  # user attributes, as on Warp's values
    assert v.tag == "mine"


def test_host_access_errors_leave_values_unchanged():
    v, m = wp.vec3i(1, 2, 3), wp.mat22h(1.0, 2.0, 3.0, 4.0)
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None]
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None] = 0
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `str` instead"):
        v[0] = "123.0"
    with pytest.raises(TypeError, match="Expected to assign a slice from a sequence of `int32` values but got `vec3i`"):
        v[:1] = (v,)
    with pytest.raises(ValueError, match="Can only assign sequence of same size"):
        v[:1] = (1, 2)
    assert v == [1, 2, 3]
    with pytest.raises(KeyError, match="Invalid key None, expected int or pair of ints"):
        m[None] = 0
    with pytest.raises(KeyError, match="Invalid key, expected one or two indices, got 3"):
        m[0, 1, 2]
    with pytest.raises(TypeError, match="Expected to assign a `float16` value but got `str` instead"):
        m[0, 0] = "1"
    with pytest.raises(TypeError, match="expected row of length 2, got \\(1, 2, 3\\)"):
        wp.mat22((1, 2, 3), (3, 4, 5))
    with pytest.raises(IndexError, match="Invalid row index"):
        m.set_row(2, (0, 0))
    with pytest.raises(IndexError, match="Invalid column index"):
        m.get_col(-3)
    assert m == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="NULL pointer exception"):
        wp.vec3.from_ptr(0)


def test_rows_columns_and_from_ptr():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    m.set_row(1, (5.0, 6.0))
    m.set_col(0, wp.vec2(7.0, 8.0))
    assert m == [[7.0, 2.0], [8.0, 6.0]] and m.get_row(-1) == [8.0, 6.0] and m.get_col(1) == [2.0, 6.0]
    m[0] = 0.5  # a scalar fills the row
    assert m.get_row(0) == [0.5, 0.5]
    data = np.array([1.5, -2.0, 3.25], dtype=np.float32)
    v = wp.vec3.from_ptr(data.ctypes.data)
    data[0] = 0.0  # a copy, not a view
    assert type(v) is wp.vec3 and v == [1.5, -2.0, 3.25]
    assert wp.spatial_vector(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_host_transform_product_is_transform_multiply():
    a = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))  # not a unit quaternion: Warp's formula
    b = wp.transform(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)
    assert list(a * b) == [396.0, 432.0, 720.0, 56.0, 70.0, 84.0, -28.0]
    r = wp.transformd(wp.vec3d(0.5, 0.0, 0.0), wp.quatd(0.0, 0.0, np.sin(0.3), np.cos(0.3)))
    s = wp.transformd(wp.vec3d(0.0, 1.0, 2.0), wp.quatd(np.sin(0.2), 0.0, 0.0, np.cos(0.2)))
    point = wp.vec3d(1.0, -1.0, 0.5)
    np.testing.assert_allclose(wp.transform_point(r * s, point), wp.transform_point(r, wp.transform_point(s, point)),
                               rtol=1e-12)
    with pytest.raises(TypeError, match="^got an unexpected keyword argument 'pos'$"):
        wp.transform(pos=wp.vec3(), rot=wp.quat())


def test_host_transform_constructor_forms_and_errors():
    comps = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    for t in (wp.transformh, wp.transformf, wp.transformd):
        assert list(t()) == [0, 0, 0, 0, 0, 0, 1.0]
        assert list(t(np.float16(1.5))) == [1.5] * 7 and list(t(True)) == [1.0] * 7
        assert list(t((1.0, 2.0, 3.0))) == [1.0, 2.0, 3.0, 0, 0, 0, 1.0]
        assert list(t(q=(4.0, 5.0, 6.0, 7.0))) == [0, 0, 0, 4.0, 5.0, 6.0, 7.0]
        assert list(t(wp.transformd(*comps))) == comps
        with pytest.raises(TypeError, match="expected a scalar value, got object"):
            t(object())
        with pytest.raises(TypeError, match="Invalid argument 'p' in transformation constructor: expected a sequence, "
                                            "got float"):
            t(1.5, 2.5)
        with pytest.raises(TypeError, match="Invalid argument 'q' .* got float"):
            t((1.0, 2.0, 3.0), 1.0)
        with pytest.raises(TypeError, match="^multiple values for argument 'q'$"):
            t(*comps, q=(8.0, 9.0, 10.0, 11.0))


def test_kernel_transform_constructor_errors():
    @wp.kernel
    def two_values():
        wp.transform(1.0, 2.0)

    @wp.kernel
    def other_dtype():
        wp.transformd(wp.transform(1.0))

    with pytest.raises(RuntimeError, match=r"incompatible number of values given \(2\) when constructing a transform; "
                                           r"expected 0, 1, or 7$"):
        wp.launch(two_values, 1)
    with pytest.raises(RuntimeError, match="copy constructing a transform requires matching source and target "
                                           "dtypes, got `float32` and `float64`$"):
        wp.launch(other_dtype, 1)


def test_host_vector_components_beyond_the_length_and_swizzles_are_attribute_errors():
    v2 = wp.vec2(1.0, 2.0)
    for name in ("z", "w"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'$"):
            getattr(v2, name)
        with pytest.raises(AttributeError, match=f"no attribute '{name}'$"):
            setattr(v2, name, 9.0)
    assert not hasattr(v2, "w")
    v3 = wp.vec3(1.0, 2.0, 3.0)
    for name in ("xy", "xyz", "wx"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'$"):
            setattr(v3, name, 9.0)
    v3.foo = 9  # other attributes are the user's, as in Warp
    assert v3.foo == 9 and list(v3) == [1.0, 2.0, 3.0] and v3.z == 3.0


@pytest.mark.parametrize("length", [True, False, 2.0, "3", None, -1])
def test_vector_lengths_that_are_not_ints_are_refused(length):
    # True and 2.0 are equal to 1 and 2 as cache keys: True made a type named 'vecTruef'
    with pytest.raises(TypeError, match=f"vector length must be a non-negative int, got {length!r}"):
        wp.types.vector(length, wp.float32)


@pytest.mark.parametrize("shape", [(True, True), (2.5, 3), ("a", "b"), (3, None), 5, (0, 3), (3, 3, 3)])
def test_matrix_shapes_that_are_not_two_positive_ints_are_refused(shape):
    shown = repr(shape if isinstance(shape, tuple) else (shape,))
    with pytest.raises(TypeError, match=f"matrix shape must be \\(rows, cols\\) with positive int sizes \\(or \\(0, "
                                        f"0\\), the empty matrix\\), got {re.escape(shown)}$"):
        wp.types.matrix(shape, wp.float32)


def test_matrix_shapes_of_numpy_ints_are_the_same_type():
    assert wp.types.matrix((np.int64(3), np.int32(3)), wp.float32) is wp.mat33
    assert wp.types.matrix((0, 0), wp.float32).shape == (0, 0)
