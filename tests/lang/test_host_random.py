"""Random numbers and noise called from Python (``wp.rand_init(42)``, ``wp.randf(state)``): the values a kernel
gives for the same arguments, the result types Warp returns, keywords and defaults, and refused arguments."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def in_a_kernel(seed: int, u: wp.array(dtype=wp.uint32), f: wp.array(dtype=float), i: wp.array(dtype=int),
                v2: wp.array(dtype=wp.vec2), v3: wp.array(dtype=wp.vec3)):
    s = wp.rand_init(seed)
    u[0] = s
    u[1] = wp.rand_init(seed, 7)
    u[2] = wp.randu(wp.rand_init(seed))  # each from a fresh state: a host call does not advance its state
    u[3] = wp.randu(wp.rand_init(seed), wp.uint32(3), wp.uint32(90))
    u[4] = wp.poisson(wp.rand_init(seed), 4.0)
    f[0] = wp.randf(wp.rand_init(seed))
    f[1] = wp.randf(wp.rand_init(seed), 2.0, 5.0)
    f[2] = wp.randn(wp.rand_init(seed))
    f[3] = wp.noise(wp.rand_init(seed), 0.3)
    f[4] = wp.noise(wp.rand_init(seed), wp.vec3(0.3, 0.4, 0.5))
    f[5] = wp.pnoise(wp.rand_init(seed), wp.vec2(0.3, 0.4), 4, 5)
    i[0] = wp.randi(wp.rand_init(seed))
    i[1] = wp.randi(wp.rand_init(seed), -10, 10)
    v2[0] = wp.sample_unit_disk(wp.rand_init(seed))
    v2[1] = wp.sample_triangle(wp.rand_init(seed))
    v2[2] = wp.curlnoise(wp.rand_init(seed), wp.vec2(0.3, 0.4))
    v2[3] = wp.curlnoise(wp.rand_init(seed), wp.vec2(0.3, 0.4), wp.uint32(3), 2.5, 0.25)
    v3[0] = wp.sample_unit_sphere(wp.rand_init(seed))
    v3[1] = wp.sample_unit_hemisphere_surface(wp.rand_init(seed))


def test_host_calls_give_the_kernels_values():
    u, f, i = wp.zeros(5, dtype=wp.uint32), wp.zeros(6, dtype=float), wp.zeros(2, dtype=int)
    v2, v3 = wp.zeros(4, dtype=wp.vec2), wp.zeros(2, dtype=wp.vec3)
    wp.launch(in_a_kernel, dim=1, inputs=[42, u, f, i, v2, v3])
    s = wp.rand_init(42)
    host_u = [s, wp.rand_init(42, 7), wp.randu(s), wp.randu(s, wp.uint32(3), wp.uint32(90)), wp.poisson(s, 4.0)]
    assert [int(x) for x in host_u] == u.numpy().tolist()
    assert int(s) == 1223963391  # Warp's state for seed 42
    host_f = [wp.randf(s), wp.randf(s, 2.0, 5.0), wp.randn(s), wp.noise(s, 0.3), wp.noise(s, wp.vec3(0.3, 0.4, 0.5)),
              wp.pnoise(s, wp.vec2(0.3, 0.4), 4, 5)]
    assert [np.float32(x) for x in host_f] == f.numpy().tolist()  # exactly: one implementation
    assert [wp.randi(s), wp.randi(s, -10, 10)] == i.numpy().tolist()
    host_v2 = [wp.sample_unit_disk(s), wp.sample_triangle(s), wp.curlnoise(s, wp.vec2(0.3, 0.4)),
               wp.curlnoise(s, wp.vec2(0.3, 0.4), wp.uint32(3), 2.5, 0.25)]
    np.testing.assert_array_equal(np.array(host_v2, dtype=np.float32), v2.numpy())
    host_v3 = [wp.sample_unit_sphere(s), wp.sample_unit_hemisphere_surface(s)]
    np.testing.assert_array_equal(np.array(host_v3, dtype=np.float32), v3.numpy())


def test_result_types_are_warps():
    s = wp.rand_init(3)
    assert type(s) is wp.uint32 and type(wp.randu(s)) is wp.uint32 and type(wp.poisson(s, 2.0)) is wp.uint32
    assert type(wp.randf(s)) is float and type(wp.randn(s)) is float and type(wp.noise(s, 0.5)) is float
    assert type(wp.randi(s)) is int
    assert type(wp.sample_unit_cube(s)) is wp.vec3f and type(wp.sample_unit_square(s)) is wp.vec2f
    assert wp.randf(s) == wp.randf(s)  # the state is passed by value


def test_python_ints_are_int32_and_keywords_take_warps_names():
    assert wp.rand_init(2**32 + 5) == wp.rand_init(5)  # wraps as an int32, as in Warp
    assert wp.rand_init(seed=5, offset=2) == wp.rand_init(5, 2)
    s = wp.rand_init(1)
    assert wp.randf(s, low=2.0, high=3.0) == wp.randf(s, 2.0, 3.0)
    assert wp.sample_unit_disk(state=s) == wp.sample_unit_disk(s)
    assert wp.noise(state=s, xy=wp.vec2(0.3, 0.4)) == wp.noise(s, wp.vec2(0.3, 0.4))
    assert wp.pnoise(s, x=0.3, px=4) == wp.pnoise(s, 0.3, 4)
    # curlnoise's optional parameters take Warp's defaults (octaves=1, lacunarity=2, gain=0.5)
    p = wp.vec2(0.3, 0.4)
    assert wp.curlnoise(state=s, xy=p, gain=0.5) == wp.curlnoise(s, p, wp.uint32(1), 2.0, 0.5)
    assert wp.curlnoise(xy=p, state=s) == wp.curlnoise(s, p)


@pytest.mark.parametrize("call, message", [
    (lambda: wp.randf(42), "Couldn't find a function 'randf' compatible with the arguments 'int'"),
    (lambda: wp.randf(wp.rand_init(1), 2.0), "compatible with the arguments 'uint32, float'"),
    (lambda: wp.rand_init(wp.int64(5)), "compatible with the arguments 'int64'"),
    (lambda: wp.randi(wp.rand_init(1), 1.0, 10.0), "compatible with the arguments 'uint32, float, float'"),
    (lambda: wp.noise(wp.rand_init(1), wp.vec3d(1.0, 2.0, 3.0)), "compatible with the arguments 'uint32, vec3d'"),
    (lambda: wp.randf(wp.rand_init(1), "a"), "compatible with the arguments 'uint32, str'"),
])
def test_refused_arguments_are_runtime_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_bad_keywords_are_type_errors():
    s = wp.rand_init(1)
    with pytest.raises(TypeError, match=r"noise\(\) has no parameter 'q' \(its parameters: state, x/xy/xyz/xyzt\)"):
        wp.noise(s, q=1.0)
    with pytest.raises(TypeError, match=r"randf\(\) is missing the argument\(s\) state"):
        wp.randf(low=1.0)
    with pytest.raises(TypeError, match=r"randf\(\) got two values for 'state'"):
        wp.randf(s, state=s)


def test_host_calls_are_not_recorded_on_a_tape():
    with wp.Tape() as tape:
        wp.randf(wp.rand_init(3))
    assert not tape.launches
