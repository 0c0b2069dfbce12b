"""numpy's view of the scalar types (``np.dtype(wp.float32)``, not of values), composite values' repr,
and the tile and array predicates, as Warp has them."""

import numpy as np
import pytest

import brickwork as wp

PAIRS = [(wp.bool, np.bool_), (wp.int8, np.int8), (wp.uint8, np.uint8), (wp.int16, np.int16),
         (wp.uint16, np.uint16), (wp.int32, np.int32), (wp.uint32, np.uint32), (wp.int64, np.int64),
         (wp.uint64, np.uint64), (wp.float16, np.float16), (wp.float32, np.float32), (wp.float64, np.float64)]
PROTOCOL = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 4)


@pytest.mark.parametrize("t, np_type", PAIRS)
def test_scalar_types_are_numpy_dtypes(t, np_type):
    assert np.dtype(t) == np.dtype(np_type)
    assert np.zeros(2, dtype=t).dtype == np.dtype(np_type)
    assert wp.dtype_to_numpy(t) is np_type
    if PROTOCOL:  # numpy 2.4's protocol; older numpy reads a dtype attribute instead
        assert t.__numpy_dtype__ == np.dtype(np_type)
        assert not hasattr(t, "dtype") and not hasattr(t(1), "dtype")


def test_values_are_not_array_likes():
    value = wp.float32(1.25)
    assert np.asarray(value).dtype == object and np.array([value]).dtype == object
    assert not np.isscalar(value)
    assert np.array([value], dtype=wp.float32).tolist() == [1.25]


def test_bfloat16_and_handle():
    assert not hasattr(wp.bfloat16, "__numpy_dtype__") and not hasattr(wp.bfloat16, "dtype")
    assert np.dtype(wp.bfloat16) == np.dtype(object)  # numpy has no bfloat16; arrays store uint16 bits
    assert wp.dtype_to_numpy(wp.bfloat16) is np.uint16
    assert np.dtype(wp.handle) == np.dtype(np.uint64)

    class Sub(wp.float32):
        pass

    assert np.dtype(Sub) == np.dtype(np.float32)


def test_composite_repr_shows_element_types_python_numbers_do_not_denote():
    assert repr(wp.vec2i(1, 2)) == "vec2i([1, 2])"
    assert repr(wp.vec3f(1.0, 2.0, 3.0)) == "vec3f([1.0, 2.0, 3.0])"
    assert repr(wp.vec4d(1.0, 2.0, 3.0, 4.0)) == "vec4d([float64(1.0), float64(2.0), float64(3.0), float64(4.0)])"
    assert repr(wp.vec2ub(1, 2)) == "vec2ub([uint8(1), uint8(2)])"
    assert repr(wp.vec2h(1.5, 2.0)) == "vec2h([float16(1.5), float16(2.0)])"
    assert repr(wp.quatd(0.0, 0.0, 0.0, 1.0)) == "quatd([float64(0.0), float64(0.0), float64(0.0), float64(1.0)])"
    assert repr(wp.mat22d(1, 2, 3, 4)) == "mat22d([[float64(1.0), float64(2.0)], [float64(3.0), float64(4.0)]])"
    assert repr(wp.mat22f(1, 2, 3, 4)) == "mat22f([[1.0, 2.0], [3.0, 4.0]])"
    assert str(wp.vec4d(1.0, 2.0, 3.0, 4.0)) == "[1.0, 2.0, 3.0, 4.0]"


def test_array_and_tile_predicates():
    """As Warp's (checked under Warp 1.19): ``type_is_*`` answers for the classes themselves, ``is_*`` for
    values and for annotations, which in Warp are empty instances (``wp.array(dtype=int)``,
    ``wp.tile(dtype=float, shape=(2, 2))``)."""
    T = wp.types
    for t in (wp.array, wp.indexedarray, wp.fixedarray, wp.fabricarray):
        assert T.type_is_array(t) and not T.is_array(t)
    for t in (wp.array(dtype=int), wp.array[float], wp.indexedarray(dtype=float),
              wp.fixedarray(dtype=int, shape=(2,)), wp.array2d[wp.vec3]):
        assert T.is_array(t) and not T.type_is_array(t)
    assert T.is_array(wp.zeros(2)) and not T.type_is_array(int) and not T.is_array(int)
    assert T.type_is_tile(wp.tile) and not T.is_tile(wp.tile)
    for t in (wp.tile(dtype=float, shape=(2, 2)), wp.tile(dtype=wp.float16, shape=(3,)), wp.tile[float, 4, 8]):
        assert T.is_tile(t) and not T.type_is_tile(t) and not T.is_array(t) and not T.is_value(t)
    assert wp.tile(dtype=wp.vec3, shape=(2, 2)) == wp.tile[wp.vec3, 2, 2]
    assert wp.tile(dtype=float, shape=4) == wp.tile[float, 4]
    for x in (wp.vec3, wp.array, float, wp.vec3(), wp.zeros(2), 1.0):
        assert not T.type_is_tile(x) and not T.is_tile(x)
    with pytest.raises(RuntimeError, match="can only be called inside a @kernel"):  # a thread's value: kernels only
        wp.tile(1.0)


def test_str_of_a_scalar_is_its_value_and_repr_names_its_type():
    """``print(wp.float32(2.5))`` shows ``2.5`` (as Warp and numpy's scalars); ``repr`` keeps the type."""
    assert [str(wp.float32(2.5)), str(wp.int32(-7)), str(wp.uint8(-1)), str(wp.bool(1))] == ["2.5", "-7", "255", "True"]
    assert f"{wp.float64(3.0)}" == "3.0" and str([wp.int64(4)]) == "[int64(4)]"
    assert repr(wp.float32(2.5)) == "float32(2.5)" and repr(wp.uint8(-1)) == "uint8(255)"


def test_float_scalar_text_is_short_and_keeps_integers():
    """A float's text has the shortest digits of its type's precision; one made from an integer shows that
    integer (as Warp's, whose scalars keep the Python value given)."""
    assert [str(wp.float32(0.1)), str(wp.float16(0.1)), str(wp.float64(0.1))] == ["0.1", "0.1", "0.1"]
    assert str(wp.float32(123456789.0)) == "123456790.0" and repr(wp.float32(1e20)) == "float32(1e+20)"
    assert wp.float32(0.1).value == float(np.float32(0.1))  # the value itself is the float32 one
    assert [repr(t(-1)) for t in (wp.float16, wp.float32, wp.float64)] == ["float16(-1)", "float32(-1)",
                                                                           "float64(-1)"]
    assert [str(wp.float32(np.int64(5))), str(wp.float32(-1.0)), str(wp.float32(True)), str(wp.float32(2.5))] == [
        "5", "-1.0", "1.0", "2.5"]
    assert str(wp.float32(2**40)) == "1099511627776" and str(wp.float32(float("nan"))) == "nan"
