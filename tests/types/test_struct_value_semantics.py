"""Struct fields hold values, as Warp's: assigning a vector, matrix or struct stores a copy (arrays stay
references), the kernel sees the values as they were assigned and changes made in place, and values that do not
fit a field are refused with the field's name, leaving it unchanged."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Inner:
    a: float
    b: wp.vec3


@wp.struct
class Holder:
    v: wp.vec3
    m: wp.mat22
    t: wp.transform
    inner: Inner
    data: wp.array(dtype=float)
    n: wp.int32
    x: float


@wp.kernel
def read_holder(s: Holder, out: wp.array(dtype=float)):
    out[0] = s.v[0]
    out[1] = s.m[1, 1]
    out[2] = s.inner.a
    out[3] = s.inner.b[2]
    out[4] = s.t.p[1]
    out[5] = s.data[0]


def _seen(s: Holder) -> list:
    out = wp.zeros(6, dtype=float)
    wp.launch(read_holder, dim=1, inputs=[s, out])
    return out.numpy().tolist()


def test_assigned_vectors_matrices_and_structs_are_copies():
    s = Holder()
    v, m, t = wp.vec3(1.0, 2.0, 3.0), wp.mat22(1.0, 2.0, 3.0, 4.0), wp.transform(wp.vec3(0.0, 5.0, 0.0))
    inner = Inner(a=3.0, b=wp.vec3(0.0, 0.0, 6.0))
    data = wp.array([7.0], dtype=float)
    s.v, s.m, s.t, s.inner, s.data = v, m, t, inner, data
    v[0], m[1, 1], t[1], inner.a, inner.b[2] = 100.0, 100.0, 100.0, 100.0, 100.0  # the originals change ...
    assert s.v[0] == 1.0 and s.m[1, 1] == 4.0 and s.t[1] == 5.0 and s.inner.a == 3.0 and s.inner.b[2] == 6.0
    assert s.v is not v and s.inner is not inner
    assert s.data is data  # ... an array stays a reference, as in Warp
    assert _seen(s) == [1.0, 4.0, 3.0, 6.0, 5.0, 7.0]
    data.fill_(8.0)
    assert _seen(s)[5] == 8.0


def test_changes_through_a_field_do_not_reach_the_value_assigned_nor_another_struct():
    first, second = Holder(), Holder()
    inner = Inner(a=1.0)
    first.inner = inner
    second.inner = first.inner
    second.inner.a = 50.0
    first.inner.b[0] = 9.0
    assert (inner.a, first.inner.a, second.inner.a) == (1.0, 1.0, 50.0)
    assert inner.b[0] == 0.0 and second.inner.b[0] == 0.0 and first.inner.b[0] == 9.0
    assert Holder(v=inner.b).v is not inner.b  # the constructor's values are copied too


def test_kernels_see_changes_made_in_place_after_a_launch():
    s = Holder()
    s.data = wp.zeros(1, dtype=float)
    assert _seen(s)[:5] == [0.0] * 5
    s.v[0] = 2.0
    s.m[1, 1] = 3.0
    s.inner.a = 4.0
    s.inner.b.z = 5.0
    s.t.p = wp.vec3(0.0, 6.0, 0.0)
    assert _seen(s)[:5] == [2.0, 3.0, 4.0, 5.0, 6.0]
    s.v.x = 7.0  # and again, once the struct's bytes are cached
    assert _seen(s)[0] == 7.0


def test_a_vector_taken_from_a_field_and_replaced_no_longer_speaks_for_it():
    s = Holder()
    s.data = wp.zeros(1, dtype=float)
    old = s.v
    s.v = wp.vec3(1.0, 1.0, 1.0)
    old[0] = 99.0  # the struct's field is the new vector
    assert s.v[0] == 1.0 and _seen(s)[0] == 1.0


def test_values_that_do_not_fit_a_field_are_refused_and_leave_it_unchanged():
    s = Holder(n=5, x=1.5, v=wp.vec3(1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match=r"struct field Holder.n \(int32\) takes an integer, got float 2.7"):
        s.n = 2.7
    with pytest.raises(TypeError, match=r"struct field Holder.n \(int32\) takes an integer, got float32"):
        s.n = wp.float32(2.0)
    with pytest.raises(TypeError, match=r"struct field Holder.x expects float32 \(a number\), got a vec3f "
                                        r"vec3f\(\[1.0, 2.0, 3.0\]\)"):
        s.x = wp.vec3(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="struct field Holder.x expects float32 \\(a number\\), got a str 'x'"):
        s.x = "x"
    with pytest.raises(ValueError, match="struct field Holder.v: vec3f needs 3 components"):
        s.v = (1.0, 2.0)
    with pytest.raises(TypeError, match="Holder.inner needs Inner, got vec3f"):
        s.inner = wp.vec3()
    assert (s.n, s.x, s.v) == (5, 1.5, wp.vec3(1.0, 2.0, 3.0))
    s.n = np.int64(7)  # integers of any kind, and bools, are integers
    s.x = np.float64(0.25)
    assert (s.n, s.x) == (7, 0.25)
