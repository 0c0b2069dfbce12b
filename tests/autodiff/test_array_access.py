"""wp.config.verify_autograd_array_access: read flags of taped launches and the overwrite warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.ir.array_access import param_access
from brickwork.pipeline import type_instance


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def overwrite(z: wp.array(dtype=float), x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = z[i]


@wp.kernel
def add_in_place(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    x[i] += y[i]


@wp.kernel
def write_then_read(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = c[i] * c[i]
    b[i] = a[i]


@wp.kernel
def read_then_write(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * a[i]
    a[i] = 1.0


@wp.func
def store_two(x: wp.array(dtype=float), i: int):
    x[i] = 2.0


@wp.kernel
def read_then_func_write(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    store_two(x, i)
    y[i] = v


@wp.kernel
def through_views(x: wp.array3d(dtype=float), y: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    row = x[i, j]
    out = y[i, j]
    out[k] = row[k]


@pytest.fixture
def verify():
    with wp.config.override(verify_autograd_array_access=True):
        yield


def _access(kernel, n=1):
    typed, _ = type_instance(kernel, kernel.concrete_types(), kernel.key)
    return param_access(typed)


def test_param_access_reads_writes_and_order():
    a = _access(square)
    assert a.reads == {"x"} and a.writes == {"y"} and a.read_then_written == ()
    a = _access(add_in_place)  # an in-place update is an atomic: a write only
    assert a.reads == {"y"} and a.writes == {"x"}
    a = _access(write_then_read)
    assert a.reads == {"a", "c"} and a.writes == {"a", "b"} and a.read_then_written == ()
    a = _access(read_then_write)
    assert [name for name, _ in a.read_then_written] == ["a"]
    assert a.read_then_written[0][1].endswith(f":{read_then_write.func.__code__.co_firstlineno + 4}")
    a = _access(read_then_func_write)  # the write inside the called function counts
    assert a.reads == {"x"} and a.writes == {"x", "y"} and [n for n, _ in a.read_then_written] == ["x"]
    a = _access(through_views)
    assert a.reads == {"x"} and a.writes == {"y"}


def test_taped_launches_flag_reads_and_warn_on_overwrite(verify):
    a = wp.array(np.array([1.0, 2.0, 3.0]), dtype=float, requires_grad=True)
    b, c = wp.zeros_like(a), wp.array([-1.0, -2.0, -3.0], dtype=float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with wp.Tape():
            wp.launch(square, 3, inputs=[a], outputs=[b])
            assert a._is_read and not b._is_read
            wp.launch(overwrite, 3, inputs=[c], outputs=[a])
    assert len(caught) == 1 and caught[0].category is UserWarning
    text = str(caught[0].message)
    assert "passed to argument x in kernel overwrite at" in text
    assert f"{__file__}:{overwrite.func.__code__.co_firstlineno}" in text
    assert "is being written to but has already been read from in a previous launch" in text
    assert caught[0].filename == __file__  # the warning points at the user's launch
    np.testing.assert_array_equal(a.numpy(), [-1.0, -2.0, -3.0])  # the launch ran


def test_no_flags_without_tape_or_setting():
    a, b = wp.array([1.0, 2.0]), wp.zeros(2)
    with wp.Tape():
        wp.launch(square, 2, inputs=[a], outputs=[b])
    assert not a._is_read  # the setting is off
    with wp.config.override(verify_autograd_array_access=True):
        wp.launch(square, 2, inputs=[a], outputs=[b])
        assert not a._is_read  # no tape records


def test_write_then_read_flags_and_in_place_does_not(verify):
    a, b, c = wp.zeros(3), wp.zeros(3), wp.ones(3)
    with wp.Tape():
        wp.launch(add_in_place, 3, inputs=[a, c])
        assert not a._is_read and c._is_read
        wp.launch(write_then_read, 3, inputs=[a, b, c])
        assert a._is_read and not b._is_read
        with pytest.warns(UserWarning, match="argument x in kernel overwrite"):
            wp.launch(overwrite, 3, inputs=[b, a])


def test_read_then_write_in_one_kernel_warns_once(verify):
    a, b = wp.ones(3), wp.zeros(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with wp.Tape():
            wp.launch(read_then_func_write, 3, inputs=[a, b])
            wp.launch(square, 3, inputs=[b], outputs=[a])  # a was read: warns as an overwrite
            wp.launch(read_then_func_write, 3, inputs=[wp.zeros(3), wp.zeros(3)])  # warned already
    texts = [str(w.message) for w in caught]
    same_kernel = [t for t in texts if "after it has been read from within the same kernel" in t]
    assert len(same_kernel) == 1 and "argument x in kernel read_then_func_write" in same_kernel[0]
    assert sum("in a previous launch" in t for t in texts) == 1


def test_views_flag_the_arrays_they_view(verify):
    a = wp.zeros((3, 3))
    v = a[1]
    assert not v._is_read
    v.flatten().mark_read()
    assert v._is_read and a._is_read
    a.mark_init()
    assert not a._is_read and v._is_read
    x = wp.array(np.arange(27.0).reshape(3, 3, 3), dtype=float)
    y = wp.zeros_like(x)
    with wp.Tape():
        wp.launch(through_views, (3, 3, 3), inputs=[x, y])
    assert x._is_read and not y._is_read
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_mark_write_warns_only_when_read():
    a = wp.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.mark_write()  # not read: no warning
    a.mark_read()
    with pytest.warns(UserWarning, match=r"passed to argument q in kernel k at f\.py:3 is being written"):
        a.mark_write(arg_name="q", kernel_name="k", filename="f.py", lineno=3)
    assert a._is_read  # a write does not clear the flag: only backward and reset do


def test_backward_and_reset_clear_flags(verify):
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros_like(x)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 2, inputs=[x[:2]], outputs=[y[:2]])
    assert x._is_read
    tape.backward(grads={y: wp.ones_like(y)})
    assert not x._is_read
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 0.0])
    tape2 = wp.Tape()
    with tape2:
        wp.launch(square, 3, inputs=[x], outputs=[y])
    tape2.reset()
    assert not x._is_read


def test_copies_check_the_destination_and_flag_the_source(verify):
    a = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    b = wp.zeros_like(a)
    with wp.Tape():
        wp.copy(b, a)
        assert a._is_read and not b._is_read
        wp.launch(square, 3, inputs=[a], outputs=[b])
        with pytest.warns(UserWarning) as caught:
            line = _line() + 1
            a.assign(b)
    text = str(caught[0].message)
    assert f"is being written to by an array copy at {__file__}:{line} but has already been read" in text
    np.testing.assert_array_equal(a.numpy(), [1.0, 4.0, 9.0])


def _line() -> int:
    import inspect

    return inspect.currentframe().f_back.f_lineno
