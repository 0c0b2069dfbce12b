"""Results that differed from Warp's: typed constants, augmented assignment to a part of an array
element, host-side builtins, arrays built from struct values."""


import math
from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def typed_constants(d: wp.array(dtype=wp.float64), h: wp.array(dtype=wp.float16), i: wp.array(dtype=wp.int64)):
    d[0] = wp.float64(0.3)
    d[1] = wp.float64(1e300)
    d[2] = wp.float64(3)
    h[0] = wp.float16(0.1)
    i[0] = wp.int64(3000000000)


def test_float64_and_float16_constants_keep_their_own_precision():
    d, h, i = wp.zeros(3, dtype=wp.float64), wp.zeros(1, dtype=wp.float16), wp.zeros(1, dtype=wp.int64)
    wp.launch(typed_constants, dim=1, inputs=[d, h, i])
    assert d.numpy().tolist() == [0.3, 1e300, 3.0]
    assert h.numpy()[0] == np.float16(0.1)
    assert i.numpy()[0] == 3000000000


@wp.struct
class Counter:
    value: float
    n: int


@wp.func
def next_slot(cnt: wp.array(dtype=int)) -> int:
    return wp.atomic_add(cnt, 0, 1)


@wp.kernel
def aug_parts(v: wp.array(dtype=wp.vec3), s: wp.array(dtype=Counter), m: wp.array(dtype=wp.mat22),
              a: wp.array(dtype=float), cnt: wp.array(dtype=int)):
    v[wp.atomic_add(cnt, 0, 1)][1] += 1.0
    v[next_slot(cnt)].z += 2.0
    s[next_slot(cnt)].value += 3.0
    m[next_slot(cnt)][0, 1] += 4.0
    a[next_slot(cnt)] *= 5.0


def test_augmented_assignment_evaluates_the_place_once():
    v, s, m = wp.zeros(8, dtype=wp.vec3), wp.zeros(8, dtype=Counter), wp.zeros(8, dtype=wp.mat22)
    a, cnt = wp.array(np.ones(8, dtype=np.float32)), wp.zeros(1, dtype=int)
    wp.launch(aug_parts, dim=1, inputs=[v, s, m, a, cnt])
    assert cnt.numpy()[0] == 5  # one increment per statement
    vv = v.numpy()
    assert vv[0].tolist() == [0, 1, 0] and vv[1].tolist() == [0, 0, 2] and not vv[2:].any()
    assert [x["value"] for x in s.numpy()] == [0, 0, 3, 0, 0, 0, 0, 0]
    assert m.numpy()[3].tolist() == [[0, 4], [0, 0]] and not np.delete(m.numpy(), 3, axis=0).any()
    assert a.numpy().tolist() == [1, 1, 1, 1, 5, 1, 1, 1]


def test_host_builtins_agree_with_kernels():
    assert wp.round(2.5) == 3.0 and wp.round(-2.5) == -3.0 and wp.round(0.49999997) == 0.0
    assert wp.sign(0.0) == 1.0 and wp.sign(-3) == -1
    assert wp.log(0.0) == -math.inf and math.isnan(wp.sqrt(-1.0))
    assert wp.sqrt(2.0) == float(np.float32(math.sqrt(2.0)))  # a float is a float32, as in kernels
    assert wp.sqrt(wp.float64(2.0)) == math.sqrt(2.0)
    assert wp.cbrt(27.0) == 3.0


@wp.kernel
def host_vs_kernel(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i, 0] = wp.round(x[i])
    out[i, 1] = wp.sign(x[i])
    out[i, 2] = wp.sqrt(x[i])
    out[i, 3] = wp.exp(x[i])


@pytest.mark.parametrize("value", [0.0, 2.5, -2.5, 0.49999997, 7.3, -1.0])
def test_host_and_kernel_give_the_same_bits(value):
    x = wp.array(np.array([value], dtype=np.float32))
    out = wp.zeros((1, 4), dtype=float)
    wp.launch(host_vs_kernel, dim=1, inputs=[x, out])
    host = [wp.round(value), wp.sign(value), wp.sqrt(value), wp.exp(value)]
    np.testing.assert_array_equal(out.numpy()[0], np.array(host, dtype=np.float32))


def test_an_array_from_a_list_of_struct_values():
    items = [Counter(), Counter(), Counter()]
    items[0].value, items[2].n = 1.5, 7
    a = wp.array(items, dtype=Counter)
    assert a.shape == (3,)
    assert [(x["value"], x["n"]) for x in a.numpy()] == [(1.5, 0), (0.0, 0), (0.0, 7)]
    with pytest.raises(TypeError, match="element 1 is an int \\(3\\), not a value of struct Counter"):
        wp.array([Counter(), 3], dtype=Counter)


@wp.kernel
def quat_formulas(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
                  qa: wp.array(dtype=wp.quat)):
    out[0] = wp.quat_rotate(q[0], v[0])
    out[1] = wp.quat_rotate_inv(q[0], v[0])
    qa[0] = wp.quat_from_axis_angle(v[0], 0.7)


def test_quaternion_helpers_follow_warps_formulas_for_non_unit_inputs():
    """Values measured with Warp 1.19 on the CPU for a quaternion of norm 2.1 and an axis of norm 3.7."""
    q = wp.array([wp.quat(0.3, -0.4, 0.5, 2.0)], dtype=wp.quat)
    v = wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3)
    out, qa = wp.zeros(2, dtype=wp.vec3), wp.zeros(1, dtype=wp.quat)
    wp.launch(quat_formulas, dim=1, inputs=[q, v, out, qa])
    np.testing.assert_allclose(out.numpy(), [[-1.2, 11.6, 26.0], [16.4, 14.8, 18.0]], rtol=1e-6)
    np.testing.assert_allclose(qa.numpy()[0], [0.3428978, 0.6857956, 1.0286934, 0.9393727], rtol=1e-6)


@wp.struct
class Mass:
    m: float


@wp.func
def add(x: Mass, y: Mass) -> Mass:
    r = Mass()
    r.m = x.m + y.m + 100.0
    return r


@wp.kernel
def struct_plus(arr: wp.array(dtype=Mass), out: wp.array(dtype=float)):
    s = arr[0]
    t = s + arr[1]
    out[0] = t.m
    u = arr[0]
    u += arr[1]
    out[1] = u.m
    out[2] = 1.0 + 2.0  # the builtin still serves the types it accepts


def test_a_user_function_named_add_overloads_plus_and_plus_equals():
    """As in Warp 1.19 (measured: [100, 100] for the two struct sums of zeros)."""
    out = wp.zeros(3, dtype=float)
    wp.launch(struct_plus, dim=1, inputs=[wp.zeros(2, dtype=Mass), out])
    assert out.numpy().tolist() == [100.0, 100.0, 3.0]


def test_python_scope_api_that_warp_code_uses():
    assert wp.types.vector(3, wp.float32) is wp.vec3 and wp.types.matrix((2, 2), wp.float64) is wp.mat22d
    assert wp.types.Float is wp.Float and wp.types.array is wp.array
    assert wp.dtype_from_numpy(np.float64) is wp.float64 and wp.dtype_from_numpy(np.dtype("int16")) is wp.int16
    assert wp.dtype_to_numpy(wp.float16) is np.float16 and wp.dtype_to_numpy(float) is np.float32
    assert np.dtype(wp.float32) == np.float32 and np.dtype(wp.uint8) == np.uint8
    with pytest.raises(TypeError, match="no brickwork scalar type"):
        wp.dtype_from_numpy(np.complex64)
    assert wp.zeros(n=3, dtype=float).shape == (3,) and wp.ones(n=2, dtype=wp.int32).numpy().tolist() == [1, 1]
    assert wp.empty(shape=(2, 3), dtype=float).shape == (2, 3)
    with pytest.raises(TypeError, match="needs a shape"):
        wp.zeros(dtype=float)
    assert wp.uint8(-1).value == 255 and wp.int8(200).value == -56 and wp.int32(2**31).value == -2**31


@wp.kernel
def bump_all(a: wp.array(dtype=float), maybe: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = a[i] + 1.0
    out[0] = maybe.shape[0]


def test_launch_takes_numpy_arrays_in_place_and_none_as_a_null_array():
    x = np.zeros(3, dtype=np.float32)
    out = np.full(1, -1, dtype=np.int32)
    wp.launch(bump_all, dim=3, inputs=[x, None, out])
    wp.launch(bump_all, dim=3, inputs=[x, None, out])  # the second time through the launch table
    assert x.tolist() == [2.0, 2.0, 2.0] and out[0] == 0  # written in place; None is an empty array
    with pytest.raises(wp.LaunchError, match="must be"):
        wp.launch(bump_all, dim=3, inputs=[np.zeros(3), None, out])  # float64 data for a float32 array


@wp.kernel
def add_rows(a: wp.array2d(dtype=Any), b: wp.array2d(dtype=Any)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + b[i, j]


def test_numpy_arguments_of_every_layout_are_used_in_place():
    """Plain ndarrays (the launch wraps them without from_numpy's conversions) of generic parameters:
    strided and transposed views, several dtypes, an empty array; a read-only one a kernel writes is refused."""
    for dt in (np.float32, np.float64, np.int16, np.uint8):
        base = np.arange(24, dtype=dt).reshape(4, 6)
        a, b = base[:, ::2], np.ones((6, 4), dtype=dt).T[:, :3]  # strided rows, a transposed view
        expected = a + b
        wp.launch(add_rows, dim=a.shape, inputs=[a, b])
        np.testing.assert_array_equal(base[:, ::2], expected)
        np.testing.assert_array_equal(base[:, 1::2], np.arange(24, dtype=dt).reshape(4, 6)[:, 1::2])
    empty = np.zeros((0, 3), dtype=np.float32)
    wp.launch(add_rows, dim=(0, 3), inputs=[empty, empty])
    frozen = np.ones((2, 2), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(wp.LaunchError, match="read-only"):
        wp.launch(add_rows, dim=(2, 2), inputs=[frozen, np.ones((2, 2), dtype=np.float32)])
    assert frozen.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_recorded_launch_runs_later_with_changed_parameters():
    a, b = wp.zeros(3, dtype=float), wp.zeros(3, dtype=float)
    out = wp.zeros(1, dtype=int)
    cmd = wp.launch(bump_all, dim=3, inputs=[a, None, out], record_cmd=True)
    assert isinstance(cmd, wp.Launch) and a.numpy().tolist() == [0, 0, 0]  # nothing ran
    cmd.launch()
    cmd.set_param_at_index(0, b)
    cmd.launch()
    cmd.set_param_by_name("a", b)
    cmd.set_dim(2)
    cmd.launch()
    assert a.numpy().tolist() == [1, 1, 1] and b.numpy().tolist() == [2, 2, 1]
    with pytest.raises(KeyError, match="no parameter 'c'"):
        cmd.set_param_by_name("c", b)


def test_kernel_objects_and_module_options():
    assert isinstance(bump_all, wp.Kernel) and bump_all.key == "bump_all"
    assert bump_all.module.name == __name__ and bump_all.module is wp.get_module(__name__)

    def twice(a: wp.array(dtype=float)):
        a[wp.tid()] = 2.0

    k = wp.Kernel(twice, key="twice_made_by_hand")
    a = wp.zeros(2, dtype=float)
    wp.launch(k, dim=2, inputs=[a])
    assert a.numpy().tolist() == [2.0, 2.0] and k.key == "twice_made_by_hand"
    wp.set_module_options({"enable_backward": False})
    assert wp.get_module_options()["enable_backward"] is False and wp.get_module_options()["max_unroll"] == 16


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    inner: Mass


def test_struct_elements_read_and_written_on_the_host_as_struct_values():
    p = Particle()
    p.pos, p.mass = wp.vec3(1.0, 2.0, 3.0), 0.5
    p.inner.m = 7.0
    a = wp.zeros(2, dtype=Particle)
    a[1] = p
    got = a[1]
    assert isinstance(got, Particle) and isinstance(got.inner, Mass)
    assert list(got.pos) == [1.0, 2.0, 3.0] and got.mass == 0.5 and got.inner.m == 7.0
    assert a[0].mass == 0.0


@wp.kernel
def spatial(v: wp.array(dtype=wp.spatial_vector), m: wp.array(dtype=wp.spatial_matrixd)):
    i = wp.tid()
    v[i] = v[i] * 2.0
    m[i] = m[i] + m[i]


def test_spatial_vector_and_matrix_families():
    assert wp.spatial_vector is wp.vector(6, wp.float32) and wp.spatial_vectord is wp.vector(6, wp.float64)
    assert wp.spatial_matrix is wp.matrix((6, 6), wp.float32) and wp.spatial_matrixh is wp.matrix((6, 6), wp.float16)
    v = wp.array(np.arange(12, dtype=np.float32).reshape(2, 6), dtype=wp.spatial_vector)
    m = wp.array(np.ones((2, 6, 6)), dtype=wp.spatial_matrixd)
    wp.launch(spatial, dim=2, inputs=[v, m])
    assert v.numpy().tolist() == (np.arange(12).reshape(2, 6) * 2).tolist()
    assert (m.numpy() == 2).all()


@wp.kernel
def through_an_integer(a: wp.array(dtype=wp.float32), o: wp.array2d(dtype=wp.float32)):
    i = wp.tid()
    n = int(a[i])
    o[i, 0] = 1.0 / float(n)
    o[i, 1] = wp.atan2(float(n), -1.0)
    o[i, 2] = 1.0 / wp.float32(wp.int64(a[i]))
    o[i, 3] = 1.0 / float(wp.float16(wp.int8(a[i])))


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_float_through_an_integer_has_no_negative_zero(target):
    """int(-0.5) is 0, and an integer has no sign of zero: g++ (with -fno-trapping-math) had folded
    float(int(x)) into trunc(x), which gives -0.0 (1 / it: -inf; Warp: +inf)."""
    from brickwork import config

    a = wp.array(np.array([-0.5, -0.0, 0.5, -1.5], dtype=np.float32))
    o = wp.zeros((4, 4), dtype=wp.float32)
    with config.override(target=target):
        wp.launch(through_an_integer, dim=4, inputs=[a, o])
    got = o.numpy()
    np.testing.assert_array_equal(got[:3], np.array([[np.inf, np.pi, np.inf, np.inf]] * 3, dtype=np.float32))
    np.testing.assert_array_equal(got[3], np.array([-1.0, np.float32(np.arctan2(-1.0, -1.0)), -1.0, -1.0],
                                                   dtype=np.float32))


@wp.kernel
def integer_constants_from_floats(o: wp.array(dtype=wp.int64), p: wp.array(dtype=wp.int8)):
    o[0] = wp.int64(1e18)
    o[1] = wp.int64(16777217.0)
    o[2] = wp.int64(-2.7)
    o[3] = wp.int64(wp.nan)
    p[0] = wp.int8(300.0)
    p[1] = wp.int8(-1e10)


def test_an_integer_made_from_a_float_constant_starts_from_pythons_float():
    """wp.int64(1e18) went through a float32 (999999984306749440); as Warp, it is exact. Out of range
    saturates and NaN is 0, as a conversion at run time does."""
    o, p = wp.zeros(4, dtype=wp.int64), wp.zeros(2, dtype=wp.int8)
    wp.launch(integer_constants_from_floats, dim=1, inputs=[o, p])
    assert o.numpy().tolist() == [10**18, 16777217, -2, 0]
    assert p.numpy().tolist() == [127, -128]


@wp.kernel
def lengths(o: wp.array(dtype=int), t: wp.transform):
    o[0] = len(t)
    o[1] = wp.static(len(t))
    o[2] = len(wp.quat_identity())
    o[3] = len(wp.mat22())


def test_len_of_a_transform_counts_its_seven_components_as_warp_does():
    o = wp.zeros(4, dtype=int)
    wp.launch(lengths, dim=1, inputs=[o, wp.transform_identity()])
    assert o.numpy().tolist() == [7, 7, 4, 2]
