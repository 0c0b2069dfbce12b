"""A struct class defined again is another type of the same name (attacker round 19, lead 3): a notebook cell
defining ``S`` run a second time, or a reloaded module, made every launch of a kernel written against the first
class say "argument 'xs' must be array(dtype=S, ndim=1), got array(dtype=S, ndim=1)", and ``a[0] = s`` "an array
of S takes S values, got a S". Both are still refused (as in Warp: the kernel's code was made for the first
class's layout), now saying why, with each class's fields; nothing runs, nothing is written."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError
from brickwork.types.array_values import ElementValueError


def _struct_s(*fields):
    """A new class ``S`` with ``fields`` ((name, type) pairs), as a cell re-run defines it."""
    return wp.struct(type("S", (), {"__annotations__": dict(fields), "__module__": __name__}))


FIRST = _struct_s(("a", float), ("b", int))


@wp.kernel
def sum_fields(xs: wp.array(dtype=FIRST), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = xs[i].a + float(xs[i].b)


@wp.kernel
def read_a(s: FIRST, out: wp.array(dtype=float)):
    out[0] = s.a


HINT = ("(another struct class named S than the one wanted: a class defined again, by a notebook cell run twice or a "
        "reloaded module, is a new type; the one wanted has fields a: float32, b: int32, this value's {fields}; make the "
        "value from the class wanted, or define again what uses the struct (the kernel) after the class)")


@pytest.mark.parametrize("fields, shown", [((("b", int), ("a", float), ("c", wp.vec3)), "b: int32, a: float32, c: vec3f"),
                                           ((("a", float), ("b", int)), "the same")])
def test_an_array_of_a_struct_defined_again_is_refused_saying_why(fields, shown):
    again = _struct_s(*fields)
    out = wp.array(np.full(2, 7.0, np.float32))
    with pytest.raises(LaunchError) as e:
        wp.launch(sum_fields, 2, inputs=[wp.zeros(2, dtype=again), out])
    assert str(e.value) == ("launch of 'sum_fields': argument 'xs' must be array(dtype=S, ndim=1), got array(dtype=S, "
                            "ndim=1) " + HINT.format(fields=shown))
    np.testing.assert_array_equal(out.numpy(), [7.0, 7.0])


def test_a_struct_value_of_a_class_defined_again_is_refused_saying_why():
    again = _struct_s(("a", wp.float64), ("b", int))
    value = again()
    value.a = 2.0
    out = wp.array(np.full(1, 7.0, np.float32))
    with pytest.raises(LaunchError) as e:
        wp.launch(read_a, 1, inputs=[value, out])
    assert str(e.value) == "launch of 'read_a': argument 's' must be S, got S " + HINT.format(fields="a: float64, b: int32")
    np.testing.assert_array_equal(out.numpy(), [7.0])


def test_assigning_a_value_of_a_class_defined_again_is_refused_saying_why():
    a = wp.zeros(2, dtype=FIRST)
    again = _struct_s(("a", float), ("b", int))
    value = again()
    value.a = 1.5
    with pytest.raises(ElementValueError) as e:
        a[0] = value
    assert str(e.value) == ("a[0] = ...: an array of S takes S values, got a S (S(a=1.5, b=0)) "
                            + HINT.format(fields="the same"))
    assert a.numpy()["a"].tolist() == [0.0, 0.0]


def test_other_mismatches_carry_no_such_hint():
    out = wp.array(np.full(2, 7.0, np.float32))
    other = wp.struct(type("T", (), {"__annotations__": {"a": float, "b": int}, "__module__": __name__}))
    with pytest.raises(LaunchError) as e:
        wp.launch(sum_fields, 2, inputs=[wp.zeros(2, dtype=other), out])
    assert str(e.value) == "launch of 'sum_fields': argument 'xs' must be array(dtype=S, ndim=1), got array(dtype=T, ndim=1)"
    with pytest.raises(LaunchError) as e:
        wp.launch(sum_fields, 2, inputs=[wp.zeros(2, dtype=float), out])
    assert "another struct class" not in str(e.value)
