"""wp.randn, wp.sample_unit_sphere and wp.sample_unit_hemisphere give Warp 1.19's float32 bits on the CPU (newuser
round 11; the samplers took a cube root and scaled the direction after it, an ulp off in half of the points): a Monte-Carlo program's variances differed
from Warp's in all 256 threads (1e-5 relative), because Warp moves the first uniform draw into (0, 1) by 5.96e-8f
before its logarithm, and computes logf and cosf in float32 (brickwork went through double). A draw of exactly 0
gave -inf here (log 0), a finite value in Warp."""

import ctypes
import ctypes.util

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def normal_draws(seed: int, out: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    out[tid] = wp.randn(state)


@wp.kernel
def normal_draws_from(state: wp.uint32, out: wp.array(dtype=float)):
    s = wp.uint32(state)
    out[0] = wp.randn(s)
    out[1] = wp.randn(s)


@wp.kernel
def ball_points(seed: int, out: wp.array(dtype=wp.vec3, ndim=2)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    out[tid, 0] = wp.sample_unit_sphere(state)
    out[tid, 1] = wp.sample_unit_hemisphere(state)


# Warp 1.19's bits of randn(rand_init(42, tid)) for tid 0..7 on its CPU
WARP_BITS = [1045906681, 1057002700, 1066930169, 3194234293, 3207381771, 3203664397, 1068014592, 3205555198]


def test_randn_gives_warps_bits():
    out = wp.zeros(8, dtype=float)
    wp.launch(normal_draws, dim=8, inputs=[42, out])
    assert out.numpy().view(np.uint32).tolist() == WARP_BITS


def test_points_in_the_ball_and_half_ball_are_warps():
    out = wp.zeros((4, 2), dtype=wp.vec3)
    wp.launch(ball_points, dim=4, inputs=[5, out])
    assert out.numpy().view(np.uint32).reshape(4, 6).tolist() == [  # Warp 1.19's, rand_init(5, tid)
        [3201234985, 3203721860, 1057143929, 1048829049, 3175713617, 1047065428],
        [1049311901, 3207747966, 3194130267, 3180296519, 1062506273, 1037861228],
        [3196336948, 1045753325, 3181522518, 1052795526, 1049994362, 1057296355],
        [1051571126, 3203404334, 1056321833, 1052229838, 3203385045, 1053315596]]
    assert (np.linalg.norm(out.numpy(), axis=2) <= 1.0).all() and (out.numpy()[:, 1, 2] >= 0.0).all()


def test_a_uniform_draw_of_zero_gives_a_finite_normal_draw():
    out = wp.zeros(2, dtype=float)
    wp.launch(normal_draws_from, dim=1, inputs=[wp.uint32(4734895), out])  # its first randf is exactly 0.0
    assert out.numpy().view(np.uint32).tolist() == [3228699966, 3199460195]  # Warp 1.19: -3.78205824, -0.35134420


def _pcg(s: int) -> int:
    s = (s * 747796405 + 2891336453) & 0xFFFFFFFF
    w = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & 0xFFFFFFFF
    return ((w >> 22) ^ w) & 0xFFFFFFFF


@pytest.mark.skipif(ctypes.util.find_library("m") is None, reason="the C math library's logf/cosf are the reference")
def test_randn_is_box_muller_in_float32_steps():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in ("logf", "cosf", "sqrtf"):
        getattr(libm, name).restype, getattr(libm, name).argtypes = ctypes.c_float, [ctypes.c_float]
    f32 = np.float32
    expected = []
    for tid in range(64):
        state = _pcg((7 + _pcg(tid)) & 0xFFFFFFFF)
        state = _pcg(state)
        u1 = f32(f32(state >> 8) * f32(2.0**-24) + f32(5.96e-8))
        state = _pcg(state)
        u2 = f32(state >> 8) * f32(2.0**-24)
        r = f32(libm.sqrtf(f32(-2.0) * f32(libm.logf(u1))))
        expected.append(r * f32(libm.cosf(f32(f32(2.0) * f32(3.14159265358979)) * u2)))
    out = wp.zeros(64, dtype=float)
    wp.launch(normal_draws, dim=64, inputs=[7, out])
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=np.float32))
