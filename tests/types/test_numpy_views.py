"""``wp.array(a, copy=False)`` of a numpy array of scalars (the short path of ``array.__init__``) and
``wrap_numpy`` (a launch's numpy arguments) view ``a`` as the general constructor does: the same type, shape,
strides, address, read-only flag and refusals, for every scalar dtype, strided and reversed views, read-only and
empty arrays. The general constructor is the same call with a keyword argument (``requires_grad=False``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.types.array_constructors import wrap_numpy

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.bool_]


def _same_view(a: np.ndarray, dtype=None) -> wp.array:
    kw = {} if dtype is None else {"dtype": dtype}
    short = wp.array(a, copy=False, **kw)
    general = wp.array(a, copy=False, requires_grad=False, **kw)
    for attr in ("dtype", "shape", "ndim", "_key", "_sig", "_packed", "_unit_inner"):
        assert getattr(short, attr) == getattr(general, attr), attr
    assert short.numpy() is a or np.shares_memory(short.numpy(), a) or a.size == 0
    return short


@pytest.mark.parametrize("np_dtype", DTYPES)
def test_a_view_of_each_scalar_dtype_is_the_general_constructors(np_dtype):
    a = (np.arange(24) % 2).astype(np_dtype).reshape(2, 3, 4)
    short = _same_view(a)
    assert short.dtype is (wp.bool if np_dtype is np.bool_ else getattr(wp, np.dtype(np_dtype).name))
    wrapped = wrap_numpy(a, short.dtype)
    assert (wrapped._packed, wrapped._sig, wrapped.shape) == (short._packed, short._sig, short.shape)
    short.numpy()[1, 2, 3] = 1
    assert a[1, 2, 3] == 1  # the same memory


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4), step=st.sampled_from([1, 2, -1]),
       transpose=st.booleans(), writeable=st.booleans())
def test_strided_reversed_read_only_and_empty_views_match(shape, step, transpose, writeable):
    full = np.arange(2 * int(np.prod(shape)), dtype=np.float32).reshape([2 * shape[0]] + shape[1:])
    a = full[::2] if step == 2 else full[::-1] if step == -1 else full[: shape[0]]
    a = a.T if transpose else a
    a.flags.writeable = writeable
    short = _same_view(a, wp.float32 if step == 2 else None)
    assert short.shape == a.shape
    np.testing.assert_array_equal(short.numpy(), a)


def test_a_mismatched_dtype_is_converted_as_before():
    a = np.arange(6, dtype=np.float64)
    b = wp.array(a, dtype=wp.float32, copy=False)
    assert b.dtype is wp.float32 and not np.shares_memory(b.numpy(), a)
    np.testing.assert_array_equal(b.numpy(), a.astype(np.float32))


@pytest.mark.parametrize(("data", "error", "match"), [
    (np.zeros((1, 1, 1, 1, 2), dtype=np.float32), ValueError, r"arrays have 1 to 4 dimensions, got shape \(1, 1, 1, 1, 2\)"),
    (np.lib.stride_tricks.as_strided(np.zeros(8, dtype=np.float32), shape=(3,), strides=(6,)), ValueError,
     "array strides must be multiples of the element size"),
    (np.zeros(3, dtype=">f4"), TypeError, "non-native byte order"),
])
def test_refusals_are_the_general_constructors(data, error, match):
    before = data.copy()
    for kw in ({}, {"requires_grad": False}):
        with pytest.raises(error, match=match):
            wp.array(data, copy=False, **kw)
    np.testing.assert_array_equal(data, before)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), start=st.integers(0, 5), step=st.sampled_from([1, 3, -1, -2]),
       np_dtype=st.sampled_from(DTYPES))
def test_data_address_is_the_array_interfaces(n, start, step, np_dtype):
    from brickwork.types.array_address import data_address

    a = np.zeros(n + 6, dtype=np_dtype)[start::step]
    if a.size:
        assert data_address(a) == a.__array_interface__["data"][0]
        assert data_address(a.reshape(1, -1).T) == a.__array_interface__["data"][0] or not a.flags.c_contiguous


def test_a_capsule_reader_that_disagrees_is_not_used(monkeypatch):
    from brickwork.types import array_address

    assert array_address.data_address is not array_address._slow  # CPython and numpy: the capsule's pointer
    monkeypatch.setattr(array_address, "_capsule_reader", lambda: lambda arr: 8)
    assert array_address._choose() is array_address._slow
    monkeypatch.setattr(array_address, "_capsule_reader", lambda: (_ for _ in ()).throw(AttributeError("no pythonapi")))
    assert array_address._choose() is array_address._slow
