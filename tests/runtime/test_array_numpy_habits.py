"""numpy's host methods on a brickwork array (newuser round 14, a numpy user in a notebook): Warp 1.19's arrays have
no ``astype``, ``T``, ``sum``, ``copy``, ``tolist``..., nor comparisons, ``abs`` or ``@``, and neither do brickwork's;
each refusal keeps Python's exception type and says what to write instead. numpy's functions (np.sum(a), np.max(a))
still read an array, and hasattr(a, "sum") stays False."""

import numpy as np
import pytest

import brickwork as wp


def _arrays():
    a = wp.array([1.0, -2.0, 3.0, 4.0], dtype=wp.float32)
    m = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    return a, m


NO_NUMPY = "brickwork arrays, as Warp's, have no numpy methods; "

# (expression, exception type, the message after "'array' object has no attribute 'name': " + NO_NUMPY)
ATTRIBUTES = [
    ("a.astype(np.float64)", "astype", "a.numpy().astype(np.float64) for a numpy copy, wp.array(a.numpy(), "
     "dtype=wp.float64) for a new array, or wp.utils.array_cast(a, out) into an array of the new dtype on a's device"),
    ("m.T", "T", "a.transpose() is the transposed view (Warp's name)"),
    ("a.sum()", "sum", "np.sum(a) on the host, or wp.utils.array_sum(a) on a's device"),
    ("a.mean()", "mean", "np.mean(a) on the host, or wp.utils.array_sum(a) / a.size on a's device"),
    ("a.max()", "max", "np.max(a) on the host (an array reads as a numpy array; from a device, a copy), or on a's "
     "device a kernel that combines each thread's a[i] with wp.atomic_max"),
    ("a.copy()", "copy", "wp.clone(a) makes a new array on a's device (as copy.copy(a)); a.numpy().copy() a numpy "
     "array"),
    ("a.tolist()", "tolist", "a.list() (Warp's name) or a.numpy().tolist()"),
    ("a.item()", "item", "a[0] reads one element of a 1-D array (a Python number for scalar elements), or "
     "a.numpy().item()"),
    ("a.fill(0.0)", "fill", "a.fill_(value) fills in place (Warp's name)"),
    ("a.nbytes", "nbytes", "a.size * wp.types.type_size_in_bytes(a.dtype)"),
    ("a[wp.array([0, 2], dtype=wp.int32)].sum()", "sum", "np.sum(a) on the host, or wp.utils.array_sum(a) on a's "
     "device"),
]


@pytest.mark.parametrize("expression,name,hint", ATTRIBUTES)
def test_numpy_methods_say_what_to_write_and_change_nothing(expression, name, hint):
    a, m = _arrays()
    with pytest.raises(AttributeError) as caught:
        eval(expression)
    kind = "indexedarray" if expression.startswith("a[") else "array"
    assert str(caught.value) == f"'{kind}' object has no attribute '{name}': {NO_NUMPY}{hint}"
    assert caught.value.name == name
    assert a.numpy().tolist() == [1.0, -2.0, 3.0, 4.0] and m.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_the_suggestions_compute_what_numpy_would():
    a, m = _arrays()
    values = a.numpy().copy()
    assert wp.utils.array_sum(a) == values.sum() and np.max(a) == 4.0 and np.mean(a) == values.mean()
    assert np.array_equal(m.transpose().numpy(), np.arange(6, dtype=np.float32).reshape(2, 3).T)
    assert a.list() == values.tolist() and a[0] == 1.0 and a.size * wp.types.type_size_in_bytes(a.dtype) == 16
    wide = wp.zeros(4, dtype=wp.float64)
    wp.utils.array_cast(a, wide)
    assert wide.numpy().tolist() == values.tolist()
    twin = wp.clone(a)
    twin.fill_(0.0)
    assert a.numpy().tolist() == values.tolist()
    # numpy's functions look for a method and take the array's values when there is none
    assert not hasattr(a, "sum") and not hasattr(m, "T") and np.sum(a) == 6.0 and np.argmax(a) == 3
    assert np.squeeze(m).shape == (2, 3) and np.clip(a, -1.0, 1.0).tolist() == [1.0, -1.0, 1.0, 1.0]


@pytest.mark.parametrize("compare,symbol", [(lambda a: a > 0, ">"), (lambda a: 0 < a, ">"), (lambda a: a <= a, "<=")])
def test_comparisons_say_how_to_compare_values(compare, symbol):
    a, _ = _arrays()
    with pytest.raises(TypeError) as caught:
        compare(a)
    assert str(caught.value) == (
        f"comparing an array ('{symbol}') is not mapped on the host, in Warp as here: np.asarray(a) {symbol} x "
        f"compares the values (a numpy bool array), a.numpy()[a.numpy() {symbol} x] selects them (a copy: a[mask] is "
        f"refused), and wp.map(lambda v: wp.where(v {symbol} x, 1, 0), a) computes 0/1 into an array on a's device")
    assert (np.asarray(a) > 0).tolist() == [True, False, True, True]
    assert a.numpy()[a.numpy() > 0].tolist() == [1.0, 3.0, 4.0]
    assert wp.map(lambda v: wp.where(v > 0.0, 1, 0), a).numpy().tolist() == [1, 0, 1, 1]
    assert a == a and not (a == wp.clone(a))  # equality stays identity, as in Warp
    with pytest.raises(IndexError, match="selects a copy"):
        a[np.asarray(a) > 0]


def test_abs_and_matmul_say_the_mapped_and_host_forms():
    a, m = _arrays()
    with pytest.raises(TypeError) as caught:
        abs(a)
    assert str(caught.value) == ("abs() of an array is not mapped on the host, in Warp as here: wp.map(wp.abs, a) "
                                 "makes a new array on a's device, np.abs(a) a numpy array")
    assert wp.map(wp.abs, a).numpy().tolist() == [1.0, 2.0, 3.0, 4.0] == np.abs(a).tolist()
    with pytest.raises(TypeError, match=r"^a @ b of arrays is not mapped on the host, in Warp as here: "
                                        r"np\.matmul\(a\.numpy\(\), b\.numpy\(\)\) on the host"):
        m @ m
    assert (np.asarray(m) @ m.transpose()).tolist() == [[5, 14], [14, 50]]  # numpy on the left reads the array
    assert a.numpy().tolist() == [1.0, -2.0, 3.0, 4.0]
