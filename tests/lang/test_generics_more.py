"""Generics past the seed: inference errors, explicit instances, placeholders, vectors, structs."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


def test_launch_inference_rules():
    @wp.kernel
    def store(out: wp.array(dtype=Any), v: Any):
        out[0] = v

    for value, dt in ((3, np.int32), (2.5, np.float32), (True, np.bool_), (wp.int64(7), np.int64),
                      (wp.uint8(200), np.uint8), (wp.float16(0.5), np.float16)):
        out = wp.zeros(1, dtype=wp.types.scalars.scalar_from_numpy(dt))
        wp.launch(store, dim=1, inputs=[out, value])
        assert out.numpy()[0] == getattr(value, "value", value)

    out = wp.zeros(1, dtype=wp.float32)
    for bad, label in (([1, 2], "list"), ((1, 2), "tuple"), (np.complex64(1), "numpy.complex64")):
        with pytest.raises(wp.LaunchError) as e:
            wp.launch(store, dim=1, inputs=[out, bad])
        assert "argument 'v'" in str(e.value) and label in str(e.value)
    assert out.numpy()[0] == 0


def test_numpy_scalars_infer_their_own_type():
    """np.float64 is a Python float subclass, but it infers float64 (its precision kept), not float32."""
    @wp.kernel
    def excess(out: wp.array(dtype=Any), v: Any):
        out[0] = out.dtype(v) - out.dtype(1)

    for dt, value in ((np.float64, 1.0 + 2.0**-40), (np.float32, 1.5), (np.float16, 0.5), (np.int64, 2**40),
                      (np.int8, -3), (np.uint8, 200), (np.uint32, 2**31 + 5), (np.uint64, 2**63 + 9)):
        out = wp.zeros(1, dtype=wp.types.scalars.scalar_from_numpy(dt))
        wp.launch(excess, dim=1, inputs=[out, dt(value)])  # a mismatched instance would not compile
        assert out.numpy()[0] == dt(value) - dt(1)

    @wp.kernel
    def count(out: wp.array(dtype=wp.int64), n: wp.Int):
        out[0] = wp.int64(n)

    out = wp.zeros(1, dtype=wp.int64)
    with pytest.raises(wp.LaunchError, match="argument 'n' must be Int, got float64"):
        wp.launch(count, dim=1, inputs=[out, np.float64(2)])
    assert out.numpy()[0] == 0


def test_placeholders_scalar_float_int():
    @wp.kernel
    def half_of(x: wp.array(dtype=wp.Float), y: wp.array(dtype=wp.Int)):
        i = wp.tid()
        x[i] = x[i] / x.dtype(2)
        y[i] = y[i] // y.dtype(2)

    x, y = wp.array([2.0, 5.0], dtype=wp.float64), wp.array([7, -7], dtype=wp.int64)
    wp.launch(half_of, dim=2, inputs=[x, y])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.5])
    np.testing.assert_array_equal(y.numpy(), [3, -4])
    with pytest.raises(wp.LaunchError, match="argument 'x'"):
        wp.launch(half_of, dim=2, inputs=[wp.array([1, 2], dtype=wp.int32), y])


def test_generic_vectors_and_dtype_dtype():
    @wp.kernel
    def norm(v: wp.array(dtype=Any), out: wp.array(dtype=Any)):
        i = wp.tid()
        s = v.dtype.dtype(0)
        for c in range(3):
            s = s + v[i][c] * v[i][c]
        out[i] = wp.sqrt(s)

    for vt, st in ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64)):
        v = wp.array(np.arange(6).reshape(2, 3), dtype=vt)
        out = wp.zeros(2, dtype=st)
        wp.launch(norm, dim=2, inputs=[v, out])
        np.testing.assert_allclose(out.numpy(), np.linalg.norm(np.arange(6).reshape(2, 3), axis=1), rtol=1e-6)

    @wp.kernel
    def pair(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
        i = wp.tid()
        v = wp.vector(a[i], a[i] + a.dtype(1), length=2, dtype=type(a[i]))
        out[i] = v[0] * v[1]

    a = wp.array([1.0, 2.0], dtype=wp.float64)
    out = wp.zeros(2, dtype=wp.float64)
    wp.launch(pair, dim=2, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), [2.0, 6.0])


def test_struct_construction_through_type():
    @wp.struct
    class Particle:
        pos: wp.vec3
        mass: float

    @wp.kernel
    def heavier(ps: wp.array(dtype=Particle), p: Particle, out: wp.array(dtype=float)):
        i = wp.tid()
        q = type(p)(p.pos, p.mass * 2.0)
        out[i] = q.mass + q.pos[1]

    p = Particle()
    p.pos = wp.vec3(1.0, 2.0, 3.0)
    p.mass = 1.5
    out = wp.zeros(2, dtype=float)
    wp.launch(heavier, dim=2, inputs=[wp.zeros(2, dtype=Particle), p, out])
    np.testing.assert_array_equal(out.numpy(), [5.0, 5.0])


def test_strict_typing_names_both_types():
    @wp.func
    def triple_bad(x: Any):
        return 3 * x

    @wp.kernel
    def k(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = triple_bad(a[i])

    a = wp.array([1.0, 2.0], dtype=wp.float64)
    with pytest.raises(wp.TypeError) as e:
        wp.launch(k, dim=2, inputs=[a])
    msg = str(e.value)
    assert "int32 and float64" in msg and "return 3 * x" in msg and __file__ in msg
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    b = wp.array([1, 2], dtype=wp.int32)  # the int32 instance of the same kernel is valid
    wp.launch(k, dim=2, inputs=[b])
    np.testing.assert_array_equal(b.numpy(), [3, 6])
    with pytest.raises(wp.TypeError):  # the failed instance keeps failing, clearly
        wp.launch(k, dim=2, inputs=[a])


def test_misspelled_type_and_missing_attribute():
    @wp.kernel
    def typo(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = tpye(a[i])(1)  # noqa: F821

    with pytest.raises(wp.KernelNameError, match="name 'tpye' is not defined"):
        wp.launch(typo, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def attr(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = a.dtipe(1)

    with pytest.raises(AttributeError, match="dtipe"):
        wp.launch(attr, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_same_name_kernels_with_other_argument_counts():
    @wp.kernel
    def fill(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = a.dtype(1)

    fill_one = fill

    @wp.kernel
    def fill(a: wp.array(dtype=Any), v: Any):  # noqa: F811 - same name, two parameters
        i = wp.tid()
        a[i] = v

    @wp.overload
    def fill(a: wp.array(dtype=wp.float64), v: wp.float64):  # noqa: F811
        ...

    x = wp.zeros(3, dtype=wp.float64)
    wp.launch(fill_one, dim=3, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), 1.0)
    wp.launch(fill, dim=3, inputs=[x, wp.float64(4)])
    np.testing.assert_array_equal(x.numpy(), 4.0)
    assert len(fill.instances) == 1


def test_overload_errors():
    @wp.kernel
    def scale(x: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        x[i] = s * x[i]

    with pytest.raises(wp.KernelSyntaxError, match="empty body"):
        @wp.overload
        def scale(x: wp.array(dtype=wp.float32), s: wp.float32):  # noqa: F811
            x[0] = s

    with pytest.raises(wp.TypeError, match="generic parameter 's' needs a type"):
        wp.overload(scale, {"x": wp.array(dtype=wp.float32)})
    with pytest.raises(wp.TypeError, match="no parameter named 'y'"):
        wp.overload(scale, {"y": wp.float32})
    with pytest.raises(wp.TypeError, match="has 2 parameters, got 1 types"):
        wp.overload(scale, [wp.array(dtype=wp.float32)])
    with pytest.raises(wp.TypeError, match="parameter 'x'.*got float32"):
        wp.overload(scale, [wp.float32, wp.float32])
    with pytest.raises(wp.TypeError, match=r"parameter 'x' of kernel 'scale' needs a concrete type, got the generic "
                                           r"array\(dtype=Any"):
        wp.overload(scale, [wp.array(dtype=Any), wp.float32])
    with pytest.raises(wp.TypeError, match="parameter 's' of kernel 'scale' needs a concrete type"):
        wp.overload(scale, {"x": wp.array(dtype=wp.float32), "s": Any})
    inst = wp.overload(scale, [wp.array(dtype=wp.float16), wp.float16])
    with pytest.raises(wp.LaunchError, match="argument 'x'"):
        wp.launch(inst, dim=1, inputs=[wp.zeros(1, dtype=wp.float32), 3])


def test_function_overloads_concrete_beats_generic():
    @wp.func
    def pick(x: Any):
        return type(x)(1)

    @wp.func
    def pick(x: wp.float32):  # noqa: F811
        return 2.0

    @wp.func
    def pick(x: wp.float32, y: wp.float32):  # noqa: F811
        return x + y

    @wp.kernel
    def k(out: wp.array(dtype=float), d: wp.array(dtype=wp.float64)):
        out[0] = pick(out[0])
        out[1] = pick(out[1], 5.0)
        d[0] = pick(d[0])

    out, d = wp.zeros(2, dtype=float), wp.zeros(1, dtype=wp.float64)
    wp.launch(k, dim=1, inputs=[out, d])
    np.testing.assert_array_equal(out.numpy(), [2.0, 5.0])
    assert d.numpy()[0] == 1.0


def test_structs_as_generic_arguments():
    @wp.struct
    class Pair:
        a: wp.float64
        b: wp.float64

    @wp.struct
    class PairF:
        a: float
        b: float

    @wp.kernel
    def total(s: Any, out: wp.array(dtype=Any)):
        out[0] = s.a + s.b

    for struct_type, dtype in ((Pair, wp.float64), (PairF, wp.float32)):
        s = struct_type(1.5, 2.25)
        out = wp.zeros(1, dtype=dtype)
        wp.launch(total, dim=1, inputs=[s, out])
        assert out.numpy()[0] == 3.75
    assert len(total.instances) == 2


#: a generic array type named at module level, as Warp code often spells its annotations
AnyArray = wp.array(dtype=Any)


@wp.kernel
def _double_any(x: AnyArray):
    i = wp.tid()
    x[i] = x[i] * x.dtype(2)


def test_a_generic_array_type_alias_as_annotation():
    """The cache key hashes the values a kernel names: a generic array type has no type key of its own
    (before, building such a kernel failed with an AttributeError)."""
    for dt in (np.float32, np.int64):
        a = wp.array(np.arange(4, dtype=dt))
        wp.launch(_double_any, 4, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), [0, 2, 4, 6])
