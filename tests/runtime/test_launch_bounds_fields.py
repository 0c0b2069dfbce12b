"""The launch's bounds check covers array fields of struct arguments (``ir/launch_bounds.py``): an access of
``s.values[i]`` (or ``s.inner.values[i]``) made at every launch point refuses a dim past that field's array,
and a field never set (None, which the kernel read at the null address and crashed the process) is named as
unset; nothing is written. A kernel that assigns a field of the struct, or guards the access, is not checked."""

import numpy as np
import pytest

import brickwork as wp

HERE = __file__.rsplit("/", 1)[-1]


@wp.struct
class Samples:
    scale: float
    values: wp.array(dtype=float)


@wp.struct
class Outer:
    inner: Samples
    grid: wp.array2d(dtype=float)


@wp.kernel
def scaled(s: Samples, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = s.scale * s.values[i]


@wp.kernel
def nested(o: Outer, out: wp.array(dtype=float)):
    i, j = wp.tid()
    out[0] = o.inner.values[i + 1] + o.grid[i, j]


@wp.kernel
def guarded(s: Samples, out: wp.array(dtype=float)):
    i = wp.tid()
    if i < s.values.shape[0]:
        out[i] = s.values[i]


@wp.kernel
def replaced(s: Samples, other: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s.values = other
    out[i] = s.values[i]


def _samples(n, scale=2.0):
    s = Samples()
    s.scale = scale
    if n is not None:
        s.values = wp.array(np.arange(n, dtype=np.float32))
    return s


def test_a_field_in_bounds_launches():
    out = wp.zeros(4, dtype=float)
    wp.launch(scaled, dim=4, inputs=[_samples(4), out])
    np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(4))


def test_a_dim_past_a_field_is_refused_and_nothing_is_written():
    out = wp.full(8, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(scaled, dim=8, inputs=[_samples(4), out])
    message = str(e.value)
    assert "'scaled'" in message and "'s.values'" in message and f"{HERE}:" in message
    assert "index 7" in message and "shape (4,)" in message
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_an_unset_field_is_named():
    out = wp.full(4, -1.0, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(scaled, dim=4, inputs=[_samples(None), out])
    assert "'s.values' is None (the field was never set)" in str(e.value)
    np.testing.assert_array_equal(out.numpy(), -1.0)


def test_nested_fields_and_offsets():
    o, out = Outer(), wp.zeros(1, dtype=float)
    o.inner = _samples(3)
    o.grid = wp.zeros((2, 5), dtype=float)
    wp.launch(nested, dim=(2, 5), inputs=[o, out])  # values[i + 1] reaches index 2 of 3
    assert out.numpy()[0] == 2.0
    with pytest.raises(wp.LaunchError, match=r"'o\.inner\.values'.*index 3 .*shape \(3,\)"):
        wp.launch(nested, dim=(3, 5), inputs=[o, out])
    with pytest.raises(wp.LaunchError, match=r"'o\.grid'.*index 5 on its axis 1.*shape \(2, 5\)"):
        wp.launch(nested, dim=(2, 6), inputs=[o, out])
    o.inner = Samples()  # an unset field of a nested struct
    with pytest.raises(wp.LaunchError, match=r"'o\.inner\.values' is None"):
        wp.launch(nested, dim=(2, 5), inputs=[o, out])
    assert out.numpy()[0] == 2.0


def test_guarded_or_reassigned_fields_are_not_checked():
    out = wp.full(8, -1.0, dtype=float)
    wp.launch(guarded, dim=8, inputs=[_samples(4), out])
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 3, -1, -1, -1, -1])
    other = wp.array(np.arange(8, dtype=np.float32) + 10)
    wp.launch(replaced, dim=8, inputs=[_samples(None), other, out])  # the field the kernel reads is `other`
    np.testing.assert_array_equal(out.numpy(), np.arange(8) + 10)
