"""Array constructors given what is no shape or dtype (attacker round 16, lead 4): wp.array(data, shape=(-2,)) made an
array of shape (2,) and shape=(-2, 2) one of (2, 2) (numpy's reshape takes any negative extent as -1), a shape the
data does not fill was numpy's bare 'cannot reshape'; wp.ones(3, dtype="float32") (and wp.full) was an AttributeError
('str' object has no attribute '_dtype') where wp.zeros names the dtype; a shape whose element count overflows
(2**31 - 1 in three dimensions) was numpy's 'Maximum allowed dimension exceeded', naming nothing."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


@pytest.mark.parametrize(("shape", "message"), [
    ((-2,), "Array shapes must be non-negative, got -2 in dimension 0"),
    ((-2, 2), "Array shapes must be non-negative, got -2 in dimension 0"),
    ((-1, -1), "Array shapes must be non-negative, got -1 in dimension 0"),
    ((3,), "shape (3,) does not fit the data's 4 element(s)"),
    ((-1, 3), "shape (-1, 3) does not fit the data's 4 element(s)"),
])
def test_a_shape_given_with_data_is_checked(shape, message):
    data = np.arange(4, dtype=np.float32)
    with pytest.raises(ValueError) as e:
        wp.array(data, shape=shape, dtype=wp.float32)
    assert str(e.value) == message
    assert data.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_shapes_given_with_data_that_fit_are_taken():
    data = np.arange(12, dtype=np.float32)
    assert wp.array(data, shape=(-1, 3)).numpy().tolist() == data.reshape(4, 3).tolist()
    assert wp.array(data, shape=np.int64(12)).shape == (12,)
    v = wp.array(data, shape=(2, 2), dtype=wp.vec3)
    assert v.shape == (2, 2) and v.numpy().reshape(-1).tolist() == data.tolist()
    with pytest.raises(TypeError, match=r"^an array shape is an int or a tuple of ints, got '12'$"):
        wp.array(data, shape="12")


@pytest.mark.parametrize("make", [lambda d: wp.ones(3, dtype=d), lambda d: wp.full(3, 1, dtype=d)])
def test_ones_and_full_name_what_is_no_dtype(make):
    with pytest.raises(TypeError, match=r"^'float32' is not a valid array dtype \(numpy's float32: write "
                                        r"dtype=wp.float32\)$"):
        make("float32")
    with pytest.raises(TypeError, match=r"^float32 is not a valid array dtype \(numpy's float32: write "
                                        r"dtype=wp.float32\)$"):
        make(np.float32)


@pytest.mark.parametrize("make", [wp.zeros, wp.empty, lambda s: wp.full(s, 1.0)])
def test_a_shape_whose_element_count_overflows_is_named(make):
    with pytest.raises(ValueError) as e:
        make((2**31 - 1,) * 3)
    assert str(e.value) == (f"an array of shape {(2**31 - 1,) * 3} would hold {(2**31 - 1) ** 3} elements, far more "
                            f"than any machine's memory")


@pytest.mark.parametrize("data", [(i for i in range(3)), iter([1.0, 2.0]), map(float, [1, 2]), {1.0, 2.0}, {1: 2}])
@pytest.mark.parametrize("dtype", [wp.float32, None])
def test_data_numpy_makes_one_object_of_is_named(data, dtype):
    """A generator was 'float() argument must be a string or a real number, not 'generator'' with a dtype and 'cannot
    infer an array dtype from data of numpy dtype object' without."""
    with pytest.raises(TypeError) as e:
        wp.array(data, dtype=dtype)
    assert str(e.value) == (f"Data must be a sequence or array, got a {type(data).__name__} (numpy makes one object of "
                            f"it): pass a list (wp.array(list(data), ...))")
    assert wp.array(range(3), dtype=wp.float32).numpy().tolist() == [0.0, 1.0, 2.0]  # a range is a sequence
