"""Warp builtins and names added for compatibility: wp.static, step/nonzero/smoothstep, operators and bit
operations by name, builtins, types and constants named without the ``wp.`` prefix, Warp's error names.
Expected values were measured with Warp 1.19 (step is 1 below zero, as Warp defines it)."""

import math

import numpy as np
import pytest

import brickwork as wp

SCALE = 3


@wp.func
def plus_one(x: float):
    return x + 1.0


@wp.func
def times_ten(x: float):
    return x * 10.0


TABLE = [plus_one, times_ten]


@wp.kernel
def static_values(out: wp.array(dtype=float)):
    x = float(wp.static(SCALE * 2))
    out[0] = wp.static(TABLE[1])(x) + wp.static(TABLE[0])(x)
    for i in range(wp.static(len(TABLE))):
        out[1 + i] = float(i)


def test_static_expressions_are_evaluated_at_compile_time():
    out = wp.zeros(3, dtype=float)
    wp.launch(static_values, dim=1, inputs=[out])
    assert out.numpy().tolist() == [67.0, 0.0, 1.0]
    assert wp.static(5) == 5

    @wp.kernel
    def constant_local(out: wp.array(dtype=float)):
        y = 2.0  # a Python constant, known until assigned again (as in Warp)
        out[2] = wp.static(y + 1.0)

    out3 = wp.zeros(3, dtype=float)
    wp.launch(constant_local, dim=1, inputs=[out3])
    assert out3.numpy().tolist() == [0.0, 0.0, 3.0]

    @wp.kernel
    def runtime_name(out: wp.array(dtype=float)):
        y = out[1]
        out[0] = wp.static(y + 1.0)

    with pytest.raises(wp.KernelTypeError, match="'y' is a runtime value of the kernel"):
        wp.launch(runtime_name, dim=1, inputs=[out])

    @wp.kernel
    def failing(out: wp.array(dtype=float)):
        out[0] = wp.static(1.0 / 0.0)

    with pytest.raises(wp.KernelTypeError, match=r"wp.static\(1.0 / 0.0\) failed: ZeroDivisionError"):
        wp.launch(failing, dim=1, inputs=[out])
    assert out.numpy().tolist() == [67.0, 0.0, 1.0]


@wp.kernel
def steps(out: wp.array(dtype=float), outi: wp.array(dtype=int), outd: wp.array(dtype=wp.float64)):
    out[0] = wp.step(-1.0)
    out[1] = wp.step(0.0)
    out[2] = wp.step(2.0)
    out[3] = wp.nonzero(0.0)
    out[4] = wp.nonzero(-3.0)
    out[5] = wp.smoothstep(1.0, 3.0, 1.5)
    out[6] = wp.smoothstep(3.0, 1.0, 1.5)
    out[7] = wp.smoothstep(1.0, 3.0, 5.0)
    outi[0] = wp.step(-2)
    outi[1] = wp.nonzero(5)
    outi[2] = wp.step(3)
    outd[0] = wp.smoothstep(wp.float64(0.1), wp.float64(0.7), wp.float64(0.3))


def test_step_nonzero_smoothstep_match_warp():
    out, outi, outd = wp.zeros(8, dtype=float), wp.zeros(3, dtype=int), wp.zeros(1, dtype=wp.float64)
    wp.launch(steps, dim=1, inputs=[out, outi, outd])
    assert out.numpy().tolist() == [1.0, 0.0, 0.0, 0.0, 1.0, 0.15625, 0.84375, 1.0]
    assert outi.numpy().tolist() == [1, 1, 0]
    assert outd.numpy().tolist() == [0.25925925925925924]
    assert (wp.step(-1.0), wp.nonzero(2.0), wp.smoothstep(1.0, 3.0, 1.5)) == (1.0, 1.0, 0.15625)


@wp.kernel
def by_name(a: int, b: int, x: float, y: float, out: wp.array(dtype=int), outf: wp.array(dtype=float),
            outv: wp.array(dtype=wp.vec2)):
    out[0] = wp.add(a, b)
    out[1] = wp.sub(a, b)
    out[2] = wp.mul(a, b)
    out[3] = wp.div(a, b)
    out[4] = wp.mod(a, b)
    out[5] = wp.floordiv(a, b)
    out[6] = wp.neg(a)
    out[7] = wp.bit_and(a, b)
    out[8] = wp.bit_or(a, b)
    out[9] = wp.bit_xor(a, b)
    out[10] = wp.lshift(a, 2)
    out[11] = wp.rshift(a, 1)
    out[12] = wp.invert(a)
    out[13] = int(wp.unot(a))
    out[14] = wp.pos(b)
    outf[0] = wp.div(x, y)
    outv[0] = wp.mul(wp.vec2(x, y), 2.0)


def test_operators_called_by_name_give_the_operators_values():
    out, outf, outv = wp.zeros(15, dtype=int), wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.vec2)
    wp.launch(by_name, dim=1, inputs=[-7, 2, 1.0, 4.0, out, outf, outv])
    a, b = -7, 2
    assert out.numpy().tolist() == [a + b, a - b, a * b, -3, -1, a // b, 7, a & b, a | b, a ^ b, a << 2, a >> 1,
                                    ~a, 0, 2]
    assert outf.numpy().tolist() == [0.25] and outv.numpy().tolist() == [[2.0, 8.0]]
    assert (wp.add(2, 3), wp.div(-7, 2), wp.bit_xor(6, 3), wp.unot(0)) == (5, -3, 5, True)


@wp.kernel
def unprefixed(out: wp.array(dtype=float)):
    v = vec3(1.0, 2.0, 3.0)  # noqa: F821 - names resolved among Warp's builtins, as Warp does
    expect_eq(v[0], 1.0)  # noqa: F821
    out[0] = sin(HALF_PI) + v[1] + float32(pi)  # noqa: F821


def test_builtins_types_and_constants_resolve_without_the_prefix():
    out = wp.zeros(1, dtype=float)
    wp.launch(unprefixed, dim=1, inputs=[out])
    assert out.numpy()[0] == np.float32(1.0 + 2.0 + np.float32(math.pi))
    assert (wp.pi, wp.PI, wp.TAU, wp.HALF_PI, wp.E) == (math.pi, math.pi, math.tau, math.pi / 2, math.e)
    assert math.isinf(wp.inf) and math.isnan(wp.NAN)

    @wp.kernel
    def unknown(out: wp.array(dtype=float)):
        out[0] = not_a_builtin(1.0)  # noqa: F821 - the name is unknown on purpose

    with pytest.raises(wp.KernelNameError, match="name 'not_a_builtin' is not defined"):
        wp.launch(unknown, dim=1, inputs=[out])


def test_warp_error_names_and_type_size():
    assert wp.WarpCodegenError is wp.KernelError and issubclass(wp.WarpCodegenTypeError, TypeError)
    assert issubclass(wp.WarpCodegenAttributeError, AttributeError)
    assert [wp.types.type_size(t) for t in (wp.float32, wp.vec3, wp.mat33, wp.transform, wp.quat)] == [1, 3, 9, 7, 4]


@wp.kernel
def near(x: float, v: wp.vec2):
    wp.expect_near(x, 1.0, 0.01)
    wp.expect_near(v, wp.vec2(1.0, 2.0), 0.01)
    wp.expect_near(x, 1.0)


def test_expect_near_prints_only_when_apart(capfd):
    wp.launch(near, dim=1, inputs=[1.0, wp.vec2(1.0, 2.0)])
    wp.synchronize()
    assert capfd.readouterr().out == ""
    wp.launch(near, dim=1, inputs=[1.001, wp.vec2(1.0, 2.05)])
    wp.synchronize()
    out = capfd.readouterr().out
    assert "expect_near(v, wp.vec2(1.0, 2.0), 0.01) failed" in out and "expect_near(x, 1.0) failed" in out
    assert "expect_near(x, 1.0, 0.01)" not in out
    wp.expect_near(1.0, 1.5, 0.1)
    assert "differ by more than 0.1" in capfd.readouterr().out


@wp.kernel
def keywords(out: wp.array(dtype=float), seed: int):
    out[0] = wp.pow(x=2.0, y=4.0)
    out[1] = wp.pow(2.0, y=3.0)
    out[2] = wp.clamp(5.0, high=2.0, low=-1.0)
    state = wp.rand_init(seed=seed)
    out[3] = wp.randf(state, low=10.0, high=11.0)
    out[4] = wp.norm_huber(wp.vec2(3.0, 4.0), delta=10.0)
    out[5] = wp.lerp(a=1.0, t=0.25, b=3.0)


def test_builtins_take_warps_keyword_arguments():
    out = wp.zeros(6, dtype=float)
    wp.launch(keywords, dim=1, inputs=[out, 42])
    got = out.numpy().tolist()
    assert got[:3] == [16.0, 8.0, 2.0] and 10.0 <= got[3] < 11.0 and got[4:] == [12.5, 1.5]

    @wp.kernel
    def bad_name(out: wp.array(dtype=float)):
        out[0] = wp.pow(x=2.0, z=4.0)

    with pytest.raises(wp.KernelTypeError, match=r"pow\(\) has no parameter 'z' \(its parameters: x, y\)"):
        wp.launch(bad_name, dim=1, inputs=[out])

    @wp.kernel
    def twice(out: wp.array(dtype=float)):
        out[0] = wp.pow(2.0, x=4.0)

    with pytest.raises(wp.KernelTypeError, match=r"pow\(\) got two values for 'x'"):
        wp.launch(twice, dim=1, inputs=[out])

    @wp.kernel
    def missing(out: wp.array(dtype=float)):
        out[0] = wp.pow(y=4.0)

    with pytest.raises(wp.KernelTypeError, match=r"pow\(\) is missing the argument\(s\) x"):
        wp.launch(missing, dim=1, inputs=[out])
    assert out.numpy().tolist() == got


def test_subscript_with_none_is_an_error():
    @wp.kernel
    def none_index(v: wp.vec3, out: wp.array(dtype=float)):
        out[0] = v[None]

    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError, match="constant None is not supported in kernels"):
        wp.launch(none_index, dim=1, inputs=[wp.vec3(), out])
    assert out.numpy().tolist() == [0.0]


@wp.kernel
def bit_atomics(flags: wp.array(dtype=wp.uint32), ints: wp.array(dtype=int), old: wp.array(dtype=wp.uint32),
                last: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_or(flags, 0, wp.uint32(1) << wp.uint32(i))
    wp.atomic_and(flags, 1, ~(wp.uint32(1) << wp.uint32(i)))
    wp.atomic_xor(flags, 2, wp.uint32(1) << wp.uint32(i % 3))
    if i == 0:
        wp.atomic_exch(ints, 0, 7)
        old[0] = wp.uint32(wp.atomic_exch(ints, 1, 9))
        last[1] = wp.atomic_exch(last, 0, 2.5)


def test_bitwise_and_exchange_atomics():
    flags = wp.array([0, 0xFFFFFFFF, 0], dtype=wp.uint32)
    ints, old, last = wp.array([1, 2], dtype=int), wp.zeros(1, dtype=wp.uint32), wp.array([1.5, 0.0], dtype=float)
    wp.launch(bit_atomics, dim=8, inputs=[flags, ints, old, last])
    expected_xor = 0
    for i in range(8):
        expected_xor ^= 1 << (i % 3)
    assert flags.numpy().tolist() == [0xFF, 0xFFFFFF00, expected_xor]
    assert ints.numpy().tolist() == [7, 9] and old.numpy().tolist() == [2] and last.numpy().tolist() == [2.5, 1.5]

    @wp.kernel
    def float_or(a: wp.array(dtype=float)):
        wp.atomic_or(a, 0, 1.0)

    with pytest.raises(wp.KernelTypeError, match=r"atomic_or\(\): needs an array of integers or of integer vectors "
                                                 r"or matrices, got array\(dtype=float32"):
        wp.launch(float_or, dim=1, inputs=[last])
    assert last.numpy().tolist() == [2.5, 1.5]


@wp.kernel
def special(o: wp.array(dtype=float), od: wp.array(dtype=wp.float64), oi: wp.array(dtype=int)):
    o[0] = wp.erf(0.5)
    o[1] = wp.erfc(0.5)
    o[2] = wp.erfinv(0.3)
    o[3] = wp.erfcinv(0.3)
    o[4] = wp.erfinv(0.999)
    o[5] = wp.copysign(2.0, -0.0)
    o[6] = wp.erfinv(-0.7)
    o[7] = wp.erfinv(1.0)
    od[0] = wp.erfinv(wp.float64(0.3))
    od[1] = wp.erfcinv(wp.float64(1.9))
    oi[0] = wp.bit_count(255)
    oi[1] = wp.bit_count(-1)
    oi[2] = wp.bit_count(wp.int64(-1))
    oi[3] = wp.bit_count(wp.uint8(7))


def test_erf_family_copysign_bit_count_match_warp():
    o, od, oi = wp.zeros(8, dtype=float), wp.zeros(2, dtype=wp.float64), wp.zeros(4, dtype=int)
    wp.launch(special, dim=1, inputs=[o, od, oi])
    assert o.numpy().tolist()[:7] == [0.5204998850822449, 0.4795001149177551, 0.27246272563934326,
                                      0.7328690886497498, 2.326756238937378, -2.0, -0.7328690886497498]
    assert o.numpy()[7] == np.inf
    np.testing.assert_allclose(od.numpy(), [0.27246271472675443, -1.1630871536766736], rtol=1e-15)
    assert oi.numpy().tolist() == [8, 32, 64, 3]
    assert wp.erf(0.5) == np.float32(0.5204998850822449) and wp.bit_count(255) == 8


@wp.kernel
def static_len(v: wp.vec2, out: wp.array(dtype=int)):
    out[0] = wp.static(len(v) + 1)


def test_static_of_a_value_the_compiler_knows():
    out = wp.zeros(1, dtype=int)
    wp.launch(static_len, dim=1, inputs=[wp.vec2(), out])
    assert out.numpy().tolist() == [3]


@wp.kernel
def near_composites(m: wp.mat22, q: wp.quat, t: wp.transform):
    wp.expect_near(m, wp.mat22(1.0, 2.0, 3.0, 4.0), tolerance=0.01)
    wp.expect_near(q, wp.quat(0.0, 0.0, 0.0, 1.0), tolerance=0.01)
    wp.expect_near(t, wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0)), 0.01)


def test_expect_near_on_matrices_quaternions_transforms_takes_tolerance_keyword(capfd):
    ident = wp.quat(0.0, 0.0, 0.0, 1.0)
    wp.launch(near_composites, dim=1, inputs=[wp.mat22(1.0, 2.0, 3.0, 4.005), ident,
                                               wp.transform(wp.vec3(1.0, 2.0, 3.0), ident)])
    wp.synchronize()
    assert capfd.readouterr().out == ""
    # one component past the tolerance is enough, whichever it is
    wp.launch(near_composites, dim=1, inputs=[wp.mat22(1.0, 2.0, 3.02, 4.0), wp.quat(0.0, 0.0, 0.0, 0.98),
                                               wp.transform(wp.vec3(1.0, 2.0, 3.0), ident)])
    wp.synchronize()
    out = capfd.readouterr().out
    assert "expect_near(m, wp.mat22(1.0, 2.0, 3.0, 4.0), tolerance=0.01) failed" in out
    assert "expect_near(q, wp.quat(0.0, 0.0, 0.0, 1.0), tolerance=0.01) failed" in out
    assert "expect_near(t," not in out


def test_matrix_from_rows_and_cols_on_the_host():
    m = wp.matrix_from_cols(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0), wp.vec2(5.0, 6.0))
    assert type(m) is wp.types.matrix((2, 3), wp.float32)
    np.testing.assert_array_equal(np.asarray(m), [[1, 3, 5], [2, 4, 6]])
    r = wp.matrix_from_rows(wp.vec3d(1.0, 2.0, 3.0), wp.vec3d(4.0, 5.0, 6.0))
    assert type(r) is wp.types.matrix((2, 3), wp.float64)
    np.testing.assert_array_equal(np.asarray(r), [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match="one length and dtype"):
        wp.matrix_from_rows(wp.vec3(1.0, 2.0, 3.0), wp.vec2(4.0, 5.0))
