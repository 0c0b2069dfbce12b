"""``@struct`` values on the host and in kernels (nested structs, arrays inside), and ``constant``."""

import re

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Particle:
    mass: float
    pos: wp.vec3
    id: wp.int32


@wp.struct
class System:
    gravity: wp.vec3
    lead: Particle
    masses: wp.array(dtype=float)
    grid: wp.array2d(dtype=wp.float64)
    active: wp.bool
    frame: wp.mat22d
    count: wp.int64


SCALE = wp.constant(2.5)
OFFSET = wp.constant(wp.vec3(1.0, 0.0, -1.0))
STEPS = wp.constant(3)


@wp.func
def make_particle(i: int) -> Particle:
    p = Particle()
    p.mass = float(i) * 0.5
    p.pos = wp.vec3(float(i), 0.0, 0.0)
    p.id = i
    return p


@wp.func
def heavier(p: Particle, extra: float) -> Particle:
    q = p
    q.mass = q.mass + extra  # a struct argument is a copy
    return q


@wp.kernel
def use_system(s: System, out: wp.array2d(dtype=float), parts: wp.array(dtype=Particle)):
    i = wp.tid()
    # reads: scalar, vector, nested struct fields, arrays inside the struct
    out[i, 0] = s.masses[i] * s.lead.mass
    out[i, 1] = s.gravity[2] + s.lead.pos.y
    out[i, 2] = float(s.lead.id) + float(s.count)
    out[i, 3] = float(s.grid[i, 1] * s.frame[1, 0])
    out[i, 4] = 1.0 if s.active else -1.0
    # constants
    out[i, 5] = SCALE * float(STEPS) + OFFSET[0]
    # writes: through an array field, and into a struct array
    s.masses[i] = s.masses[i] + 100.0
    p = make_particle(i)
    p.pos[1] = 7.0
    parts[i] = heavier(p, 1.0)
    parts[i].id = parts[i].id + 10
    out[i, 6] = p.mass  # unchanged by heavier()
    # a struct built in the kernel with keywords
    q = Particle(mass=3.0, pos=OFFSET, id=STEPS)
    out[i, 7] = q.mass * float(q.id) + q.pos[2]


def test_struct_host_values():
    p = Particle()
    assert p.mass == 0.0 and p.pos == wp.vec3() and p.id == 0
    p = Particle(1.5, wp.vec3(1.0, 2.0, 3.0), 7)
    assert (p.mass, p.id) == (1.5, 7) and p.pos == [1.0, 2.0, 3.0]
    p.pos = (4.0, 5.0, 6.0)  # converted to the field type
    assert type(p.pos) is wp.vec3
    with pytest.raises(TypeError, match=r"struct field Particle.id \(int32\) takes an integer, got float 3.9"):
        p.id = 3.9  # refused, as Warp: no truncation
    assert p.id == 7
    p.id = np.int64(3)
    assert p.id == 3
    p.mass = 0.1
    assert p.mass == float(np.float32(0.1))
    assert repr(Particle(id=2)) == "Particle(mass=0.0, pos=vec3f([0.0, 0.0, 0.0]), id=2)"
    with pytest.raises(AttributeError, match="no field 'speed'"):
        p.speed = 1.0
    with pytest.raises(TypeError, match="no field 'speed'"):
        Particle(speed=1.0)
    s = System()
    with pytest.raises(TypeError, match="System.masses needs array"):
        s.masses = wp.zeros(3, dtype=wp.float64)


@wp.struct
class ArrayFields:
    values: wp.array2d(dtype=wp.int32)
    picked: wp.indexedarray(dtype=wp.int32)


@pytest.mark.parametrize("field, value, message", [
    ("values", [1, 2], "ArrayFields.values needs array(dtype=int32, ndim=2): Struct field 'values' expects a Warp "
                       "array, got list"),
    ("values", wp.zeros((1, 1), dtype=wp.float32), "Struct field 'values' expects dtype int32, got float32"),
    ("values", wp.zeros(1, dtype=wp.int32), "Struct field 'values' expects an array with 2 dimension(s), got 1 "
                                            "dimension(s)"),
    ("picked", wp.zeros(1, dtype=wp.int32), "Struct field 'picked' expects a Warp indexed array, got array"),
])
def test_array_fields_say_what_is_wrong_and_keep_their_value(field, value, message):
    s = ArrayFields()
    before = getattr(s, field)
    with pytest.raises(TypeError, match=re.escape(message)):
        setattr(s, field, value)
    assert getattr(s, field) is before
    with pytest.raises(TypeError, match="unsupported type"):
        wp.struct(type("Bad", (), {"__annotations__": {"x": str}}))


@pytest.mark.parametrize("annotation", ["Node", "wp.array(dtype=Node)"])
def test_a_struct_holding_itself_is_refused_by_name(annotation):
    # as written under ``from __future__ import annotations``: the text is evaluated by the decorator, before the
    # class is bound to its name (Python's 'name 'Node' is not defined' named neither the cause nor a way out)
    cls = type("Node", (), {"__annotations__": {"value": "float", "next": annotation}, "__module__": __name__})
    with pytest.raises(wp.errors.StructDefinitionError,
                       match=re.escape(f"struct Node: field 'next' refers to Node itself ({annotation!r}); a struct "
                                       "cannot contain itself or an array of itself: keep the nodes in an array of "
                                       "Node and store an int index")):
        wp.struct(cls)
    assert not hasattr(cls, "_bw_struct")
    with pytest.raises(TypeError, match="cannot evaluate the annotation 'Nodes' of field 'next': name 'Nodes' is not"):
        wp.struct(type("Node", (), {"__annotations__": {"next": "Nodes"}, "__module__": __name__}))


def test_struct_arrays_on_the_host():
    parts = wp.zeros(3, dtype=Particle)
    assert parts.dtype is Particle and parts.shape == (3,)
    n = parts.numpy()
    assert n.dtype.names == ("mass", "pos", "id")
    n["mass"] = [1.0, 2.0, 3.0]
    assert parts.numpy()["mass"].tolist() == [1.0, 2.0, 3.0]


def test_structs_in_kernels():
    n = 4
    masses = wp.array([1.0, 2.0, 3.0, 4.0])
    grid = wp.array(np.arange(2.0 * n).reshape(n, 2))
    s = System(gravity=wp.vec3(0.0, 0.0, -9.8), lead=Particle(2.0, wp.vec3(0.0, 0.5, 0.0), 5), masses=masses,
               grid=grid, active=True, frame=wp.mat22d(1.0, 0.0, 3.0, 1.0), count=wp.int64(2**40))
    out = wp.zeros((n, 8))
    parts = wp.zeros(n, dtype=Particle)
    wp.launch(use_system, dim=n, inputs=[s, out, parts])
    i = np.arange(n)
    expected = np.zeros((n, 8), np.float32)
    expected[:, 0] = np.array([1.0, 2.0, 3.0, 4.0]) * 2.0
    expected[:, 1] = np.float32(-9.8) + 0.5
    expected[:, 2] = np.float32(5.0) + np.float32(2**40)
    expected[:, 3] = (np.arange(2.0 * n).reshape(n, 2)[:, 1] * 3.0).astype(np.float32)
    expected[:, 4] = 1.0
    expected[:, 5] = 2.5 * 3 + 1.0
    expected[:, 6] = i * 0.5
    expected[:, 7] = 3.0 * 3 - 1.0
    np.testing.assert_array_equal(out.numpy(), expected)
    assert masses.numpy().tolist() == [101.0, 102.0, 103.0, 104.0]
    got = parts.numpy()
    assert got["mass"].tolist() == (i * 0.5 + 1.0).tolist()
    assert got["pos"].tolist() == [[float(k), 7.0, 0.0] for k in i]
    assert got["id"].tolist() == (i + 10).tolist()


def test_struct_field_changes_between_launches():
    s = System(masses=wp.array([1.0, 1.0]), grid=wp.zeros((2, 2), dtype=wp.float64),
               lead=Particle(mass=1.0))
    out = wp.zeros((2, 8))
    parts = wp.zeros(2, dtype=Particle)
    wp.launch(use_system, dim=2, inputs=[s, out, parts])
    s.lead.mass = 3.0
    s.masses = wp.array([5.0, 6.0])
    wp.launch(use_system, dim=2, inputs=[s, out, parts])
    assert out.numpy()[:, 0].tolist() == [15.0, 18.0]
    assert out.numpy()[:, 4].tolist() == [-1.0, -1.0]


def test_constant_returns_its_value():
    assert wp.constant(3) == 3
    assert SCALE == 2.5
    assert OFFSET == wp.vec3(1.0, 0.0, -1.0)


@wp.struct
class Small:
    a: wp.int8
    h: wp.float16
    v: wp.vec3h
    d: wp.float64
    u: wp.uint8
    b: wp.bool


@wp.struct
class Wrapper:
    x: wp.uint8
    s: Small
    arr: wp.array(dtype=wp.int16)
    y: wp.float16


@wp.kernel
def read_layout(w: Wrapper, h: wp.float16, q: wp.vec3ub, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(w.x)
    out[1] = wp.float64(w.s.a)
    out[2] = wp.float64(w.s.h)
    out[3] = wp.float64(w.s.v[2])
    out[4] = w.s.d
    out[5] = wp.float64(w.s.u)
    out[6] = wp.float64(w.s.b)
    out[7] = wp.float64(w.arr[1])
    out[8] = wp.float64(w.y)
    out[9] = wp.float64(h)
    out[10] = wp.float64(q[2])


def test_struct_layout_with_small_and_mixed_fields():
    """Python packs struct and argument bytes with the alignment rules the C++ compiler uses."""
    w = Wrapper(x=200, s=Small(a=-5, h=1.5, v=wp.vec3h(0, 0, 2.25), d=3.25, u=250, b=True),
                arr=wp.array([1, -300], dtype=wp.int16), y=-0.5)
    out = wp.zeros(11, dtype=wp.float64)
    wp.launch(read_layout, dim=1, inputs=[w, wp.float16(0.25), wp.vec3ub(1, 2, 255), out])
    assert out.numpy().tolist() == [200, -5, 1.5, 2.25, 3.25, 250, 1, -300, -0.5, 0.25, 255]
    assert Small._size == 32 and Wrapper._size == 72


def test_struct_scalar_fields_keep_the_type_they_are_given():
    @wp.struct
    class S:
        u8: wp.uint8
        f64: wp.float64
        v: wp.vec3

    s = S()
    assert type(s.u8) is wp.uint8 and s.u8 == 0 and type(s.f64) is wp.float64  # defaults: the field's type
    s.u8 = wp.uint8(300 % 256)
    s.f64 = wp.float32(0.1)  # a typed value becomes the field's type, with the float32's value
    assert type(s.u8) is wp.uint8 and int(s.u8) == 44
    assert type(s.f64) is wp.float64 and float(s.f64) == float(np.float32(0.1))
    s.f64 = 1.5  # a Python number stays one
    assert type(s.f64) is float
    a = wp.array([s], dtype=S)
    assert a.numpy()["u8"][0] == 44 and a.numpy()["f64"][0] == 1.5
    for value in (123, 1.5, wp.float32(1.5)):
        with pytest.raises(TypeError, match="Struct field 'v' expects vec3f but got a single value"):
            s.v = value
    assert list(s.v) == [0.0, 0.0, 0.0]
    s.v = [4.0, 5.0, 6.0]
    s.v = None  # zero again
    assert list(s.v) == [0.0, 0.0, 0.0]


def test_numpy_dtype_is_the_dict_form_of_the_struct_layout():
    """``S.numpy_dtype()`` is a dict (names, formats, offsets, itemsize; a nested struct's format is its own
    dict), as Warp's; numpy takes it as a dtype, and it is the dtype of an array of S on the host."""

    @wp.struct
    class Inner:
        i: wp.int8
        q: wp.uint16

    @wp.struct
    class Outer:
        a: float
        v: wp.vec3
        m: wp.mat22d
        inner: Inner
        arr: wp.array(dtype=float)

    d = Outer.numpy_dtype()
    assert isinstance(d, dict) and d["names"] == ["a", "v", "m", "inner", "arr"]
    assert d["offsets"][:4] == [0, 4, 16, 48] and d["itemsize"] == np.dtype(d).itemsize
    assert d["formats"][:3] == [np.dtype("<f4"), np.dtype(("<f4", (3,))), np.dtype(("<f8", (2, 2)))]
    assert d["formats"][3] == {"names": ["i", "q"], "formats": [np.dtype("i1"), np.dtype("<u2")],
                               "offsets": [0, 2], "itemsize": 4}
    host = wp.zeros(2, dtype=Outer).numpy()
    assert host.dtype == np.dtype(d) and np.zeros(2, dtype=d).dtype == host.dtype
    s = Outer()
    s.a, s.v, s.inner.q = 2.5, wp.vec3(1.0, 2.0, 3.0), 7
    rec = s.numpy_value()
    assert rec["a"] == 2.5 and rec["v"].tolist() == [1.0, 2.0, 3.0] and rec["inner"]["q"] == 7


def test_vars_lists_the_fields_with_their_types_as_warps():
    """``S.vars``: field name -> an object with ``label`` and ``type`` (in order; Python's float is float32), as
    Warp's ``Struct.vars``; a field named ``vars`` keeps its name for the field."""

    @wp.struct
    class S:
        a: float
        v: wp.vec3
        arr: wp.array(dtype=float)

    assert list(S.vars) == ["a", "v", "arr"]
    assert [(f.label, f.type) for f in S.vars.values()] == [("a", wp.float32), ("v", wp.vec3),
                                                            ("arr", wp.array(dtype=float))]
    assert wp.types.is_array(S.vars["arr"].type) and S.vars["arr"].type.dtype is wp.float32

    @wp.struct
    class HasVars:
        vars: int

    h = HasVars()
    h.vars = 3
    assert h.vars == 3 and HasVars._field_types == {"vars": wp.int32}
