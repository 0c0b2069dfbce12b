"""numpy data converted into an array's element type: values the cast would wrap (2**40 as int32, -1 as uint32),
invent (NaN, inf or 1e10 as an integer) or drop (a complex value's imaginary part) are refused, by wp.array,
wp.from_numpy, assign and a[i:j] = data, with nothing made or changed; values that convert stay as numpy converts
them (no check of same-dtype data)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.types.array_values import ElementRangeError, ElementValueError

WRAPS = "(Warp would wrap it silently)"
INVENTS = "(Warp would store an arbitrary integer)"

REFUSED = [
    (np.array([5, 2**40]), wp.int32, ElementRangeError,
     f"the data hold 1099511627776 at index (1,), which does not fit in int32 (-2147483648 to 2147483647); {{}} "
     f"{WRAPS}"),
    (np.array([3, -1]), wp.uint32, ElementRangeError,
     f"the data hold -1 at index (1,), which does not fit in uint32 (0 to 4294967295); {{}} {WRAPS}"),
    (np.array([2**63], dtype=np.uint64), wp.int64, ElementRangeError,
     "the data hold 9223372036854775808 at index (0,), which does not fit in int64 (-9223372036854775808 to "
     f"9223372036854775807); {{}} {WRAPS}"),
    (np.array([1.0, np.nan]), wp.int32, ElementValueError,
     f"the data hold nan at index (1,), which has no value in int32; {{}} {INVENTS}"),
    (np.array([-np.inf, 0.0]), wp.int64, ElementValueError,
     f"the data hold -inf at index (0,), which has no value in int64; {{}} {INVENTS}"),
    (np.array([1e10, 0.0]), wp.int32, ElementRangeError,
     f"the data hold 10000000000.0 at index (0,), which does not fit in int32 (-2147483648 to 2147483647); {{}} "
     f"{INVENTS}"),
    (np.array([[1, 2, 3], [300, 0, 0]]), wp.vec3ub, ElementRangeError,
     f"the data hold 300 at index (1, 0), which does not fit in the uint8 components of vec3ub (0 to 255); {{}} "
     f"{WRAPS}"),
    (np.array([1 + 2j, 0]), wp.float32, ElementValueError,
     "the data are complex (complex128), and float32 would keep only their real parts; {} (pass data.real to "
     "convert the real parts)"),
]


@pytest.mark.parametrize(("data", "dtype", "error", "message"), REFUSED)
def test_constructors_refuse_values_the_cast_would_change(data, dtype, error, message):
    before = data.copy()
    expected = f"wp.array(dtype={dtype.__name__}): " + message.format("no array was made")
    for make in (lambda: wp.array(data, dtype=dtype), lambda: wp.array(data, dtype=dtype, copy=False),
                 lambda: wp.from_numpy(data, dtype=dtype), lambda: wp.array(data.tolist(), dtype=dtype)):
        with pytest.raises(error) as e:
            make()
        assert str(e.value) == expected
    np.testing.assert_array_equal(data, before)


@pytest.mark.parametrize(("data", "dtype", "error", "message"), REFUSED)
def test_assign_and_slices_refuse_them_with_nothing_changed(data, dtype, error, message):
    a = wp.array(np.zeros(data.shape, dtype=np.int64) + 7, dtype=dtype)
    before = a.numpy().copy()
    with pytest.raises(error) as e:
        a.assign(data)
    assert str(e.value) == "assign: " + message.format("nothing was changed")
    with pytest.raises(error) as e:
        a[0:2] = data
    assert str(e.value) == "a[0:2] = ...: " + message.format("nothing was changed")
    np.testing.assert_array_equal(a.numpy(), before)


def test_values_that_fit_convert_as_numpy_converts_them():
    info = np.iinfo(np.int32)
    a = wp.array(np.array([info.min, info.max, 0]), dtype=wp.int32)  # int64 data at the ends of the range
    np.testing.assert_array_equal(a.numpy(), [info.min, info.max, 0])
    assert a.numpy().dtype == np.int32
    b = wp.array(np.array([1.7, -2.9, 2147483647.5, -2147483648.9]), dtype=wp.int32)  # truncated toward zero
    np.testing.assert_array_equal(b.numpy(), [1, -2, 2147483647, -2147483648])
    c = wp.array(np.array([[255, 0, 1]], dtype=np.int16), dtype=wp.vec3ub)
    np.testing.assert_array_equal(c.numpy(), [[255, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warning: the value is inf, as fill_ stores
        d = wp.array(np.array([1e300, -1e300, 1.5]), dtype=wp.float32)
    np.testing.assert_array_equal(d.numpy(), np.array([np.inf, -np.inf, 1.5], dtype=np.float32))
    e = wp.array(np.array([True, False]), dtype=wp.uint8)
    np.testing.assert_array_equal(e.numpy(), [1, 0])
    same = np.array([2**31 - 1], dtype=np.int32)
    view = wp.array(same, dtype=wp.int32, copy=False)  # same dtype: viewed, not looked at
    assert view.ptr == same.ctypes.data


def test_device_array_assign_refuses_them_too():
    from tests.runtime.cuda_fake import FakeDriver, installed  # the stand-in driver

    with installed(FakeDriver()):
        a = wp.zeros(2, dtype=wp.int32, device="cuda:0")
        a.assign(np.array([3, 4]))
        with pytest.raises(ElementRangeError, match=r"assign: the data hold 4294967296 at index \(0,\)"):
            a.assign(np.array([2**32, 4]))
        with pytest.raises(ElementRangeError, match=r"a\[0:2\] = \.\.\.: the data hold -4294967296"):
            a[0:2] = np.array([-(2**32), 4])
        np.testing.assert_array_equal(a.numpy(), [3, 4])


@wp.struct
class Particle:
    n: wp.int32
    w: wp.float32
    c: wp.vec3ub


def test_struct_records_of_other_field_types_are_checked_field_by_field():
    rec = np.zeros(2, dtype=[("n", np.int64), ("w", np.float64), ("c", np.int64, (3,))])
    rec["n"], rec["w"], rec["c"][1] = [1, 5], [0.5, 1.5], [255, 0, 7]
    made = wp.array(rec, dtype=Particle).numpy()  # values that fit: converted
    assert made["n"].tolist() == [1, 5] and made["w"].tolist() == [0.5, 1.5]
    assert made["c"].tolist() == [[0, 0, 0], [255, 0, 7]]
    for field, value, index, target, bounds in (("n", 2**40, "(1,)", "int32 field 'n'", "-2147483648 to 2147483647"),
                                                ("c", 300, "(1, 0)", "uint8 field 'c'", "0 to 255")):
        bad = rec.copy()
        bad[field][1] = value
        with pytest.raises(ElementRangeError) as e:
            wp.array(bad, dtype=Particle)
        assert str(e.value) == (f"wp.array(dtype=Particle): the data hold {value} at index {index}, which does not fit "
                                f"in the {target} ({bounds}); no array was made (Warp would wrap it silently)")


def test_a_slice_set_from_an_array_of_another_dtype_is_checked_too():
    a = wp.array([7, 7, 7], dtype=wp.int32)
    with pytest.raises(ElementRangeError) as e:
        a[0:2] = wp.array(np.array([3, 2**40]), dtype=wp.int64)
    assert str(e.value) == ("a[0:2] = ...: the data hold 1099511627776 at index (1,), which does not fit in int32 "
                            f"(-2147483648 to 2147483647); nothing was changed {WRAPS}")
    np.testing.assert_array_equal(a.numpy(), [7, 7, 7])
    a[0:2] = wp.array([3, 4], dtype=wp.int64)  # values that fit: converted
    a[2:] = wp.array([5], dtype=wp.int32)
    np.testing.assert_array_equal(a.numpy(), [3, 4, 5])
