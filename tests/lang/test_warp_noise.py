"""Gradient noise (``wp.noise``, ``wp.pnoise``, ``wp.curlnoise``): values measured with Warp 1.19 (seed 11),
the properties of the construction (zero at lattice points, periods, divergence-free curl), gradients under
``wp.Tape`` against central differences, and the argument rules; on the CPU and the GPU mapping's emulation."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

TARGETS = ["cpu", "cuda-emulation"]

# Points and Warp's results: noise of the 1-D to 4-D prefixes, then pnoise with periods (3,), (3, 5), (3, 5, 2),
# (3, 5, 2, 4), and curlnoise of the 2-D prefix with 3 octaves.
POINTS = np.array([[3.6600351333618164, 3.695289373397827, 0.18390673398971558, -2.5703835487365723],
                   [-5.3528313636779785, -1.3995734453201294, -1.098321557044983, -5.456697463989258],
                   [-5.414907455444336, 5.990113258361816, 1.8284293413162231, -3.185877561569214]], np.float32)
WARP_NOISE = np.array([
    [0.07360582053661346, 0.37615489959716797, -0.06714485585689545, -0.17300808429718018,
     -0.03464066982269287, 0.38024991750717163, -0.3076341152191162, -0.3479151427745819],
    [-0.06739497184753418, -0.28262612223625183, 0.3402058482170105, -0.17015337944030762,
     -0.029148906469345093, -0.36529484391212463, 0.17776049673557281, -0.07775086909532547],
    [-0.045861005783081055, 0.07642859220504761, 0.17971187829971313, -0.13135409355163574,
     0.0013214647769927979, 0.020217478275299072, -0.36414745450019836, -0.13887611031532288]])
WARP_CURL = np.array([[-0.8415138721466064, -0.8623156547546387], [1.0726304054260254, 1.551040768623352],
                      [0.8888835906982422, 0.668000340461731]])


@wp.kernel
def all_noise(seed: int, p: wp.array(dtype=wp.vec4), o: wp.array2d(dtype=float), c: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    st = wp.rand_init(seed)
    q = p[i]
    x2 = wp.vec2(q[0], q[1])
    x3 = wp.vec3(q[0], q[1], q[2])
    o[i, 0] = wp.noise(st, q[0])
    o[i, 1] = wp.noise(st, x2)
    o[i, 2] = wp.noise(st, x3)
    o[i, 3] = wp.noise(st, q)
    o[i, 4] = wp.pnoise(st, q[0], 3)
    o[i, 5] = wp.pnoise(st, x2, 3, 5)
    o[i, 6] = wp.pnoise(st, x3, 3, 5, 2)
    o[i, 7] = wp.pnoise(st, q, 3, 5, 2, 4)
    c[i] = wp.curlnoise(st, x2, wp.uint32(3), 2.0, 0.5)


def _run_all(points, target="cpu", seed=11):
    o, c = wp.zeros((len(points), 8), dtype=float), wp.zeros(len(points), dtype=wp.vec2)
    with config.override(target=target):
        wp.launch(all_noise, dim=len(points), inputs=[seed, wp.array(points, dtype=wp.vec4), o, c])
    return o.numpy(), c.numpy()


@pytest.mark.parametrize("target", TARGETS)
def test_values_are_warps(target):
    o, c = _run_all(POINTS, target)
    np.testing.assert_array_equal(o, WARP_NOISE.astype(np.float32))  # the bits: corners blended in Warp's order
    np.testing.assert_allclose(c, WARP_CURL, atol=2e-6)


def test_zero_at_lattice_points_and_periodic():
    rng = np.random.default_rng(3)
    lattice = rng.integers(-7, 8, (16, 4)).astype(np.float32)
    o, _ = _run_all(lattice)
    np.testing.assert_array_equal(o, 0.0)
    # pnoise repeats with its periods where the lattice coordinates are not negative
    p = rng.uniform(0.0, 4.0, (16, 4)).astype(np.float32)
    shifted = p + np.array([3.0, 5.0, 2.0, 4.0], np.float32) * rng.integers(1, 3, (16, 1)).astype(np.float32)
    np.testing.assert_allclose(_run_all(p)[0][:, 4:], _run_all(shifted)[0][:, 4:], atol=2e-6)
    # noise is not periodic
    assert np.abs(_run_all(p)[0][:, :4] - _run_all(shifted)[0][:, :4]).max() > 0.05


@wp.kernel
def curl_divergence(seed: int, p: wp.array(dtype=wp.vec2), h: float, div: wp.array(dtype=float)):
    i = wp.tid()
    st = wp.rand_init(seed)
    q = p[i]
    dx = wp.curlnoise(st, q + wp.vec2(h, 0.0))[0] - wp.curlnoise(st, q - wp.vec2(h, 0.0))[0]
    dy = wp.curlnoise(st, q + wp.vec2(0.0, h))[1] - wp.curlnoise(st, q - wp.vec2(0.0, h))[1]
    div[i] = (dx + dy) / (2.0 * h)


def test_curlnoise_is_divergence_free():
    p = np.random.default_rng(4).uniform(-3.0, 3.0, (32, 2)).astype(np.float32)
    div = wp.zeros(32, dtype=float)
    wp.launch(curl_divergence, dim=32, inputs=[5, wp.array(p, dtype=wp.vec2), 1e-2, div])
    assert np.abs(div.numpy()).max() < 5e-3


# Warp's curlnoise of the 3-D prefixes and the 4-D points above (seed 11, 3 octaves, lacunarity 2, gain 0.5), and
# the gradient in the 4-D point of dot(curlnoise(xyz, 2 octaves) + curlnoise(xyzt, 2 octaves), (1, -0.5, 0.25)).
WARP_CURL3 = np.array([[-0.28155261278152466, -1.1480090618133545, 0.5512405633926392],
                       [0.1452571451663971, -0.1590009331703186, 1.6786129474639893],
                       [-0.24356615543365479, 1.2046321630477905, 0.6157125234603882]])
WARP_CURL4 = np.array([[-0.649587869644165, 0.4758605360984802, -0.6790003180503845],
                       [0.8634340167045593, -0.49533021450042725, -1.1583682298660278],
                       [0.4347648024559021, 1.345224380493164, -0.5418108105659485]])
WARP_CURL_GRAD = np.array([[-7.220851898193359, -4.833453178405762, -2.4179975986480713, -0.18442541360855103],
                           [3.998967170715332, 0.6672118902206421, -2.580294132232666, 0.6316007375717163],
                           [4.559691429138184, -1.6677472591400146, 1.2973496913909912, 0.984133243560791]])


@wp.kernel
def curl_3d_4d(seed: int, p: wp.array(dtype=wp.vec4), octaves: int, c3: wp.array(dtype=wp.vec3),
               c4: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    st = wp.rand_init(seed)
    q = p[i]
    c3[i] = wp.curlnoise(st, wp.vec3(q[0], q[1], q[2]), wp.uint32(octaves), 2.0, 0.5)
    c4[i] = wp.curlnoise(st, q, wp.uint32(octaves), 2.0, 0.5)


def _run_curl(points, target="cpu", seed=11, octaves=3):
    c3, c4 = wp.zeros(len(points), dtype=wp.vec3), wp.zeros(len(points), dtype=wp.vec3)
    with config.override(target=target):
        wp.launch(curl_3d_4d, dim=len(points), inputs=[seed, wp.array(points, dtype=wp.vec4), octaves, c3, c4])
    return c3.numpy(), c4.numpy()


@pytest.mark.parametrize("target", TARGETS)
def test_3d_and_4d_curlnoise_values_are_warps(target):
    c3, c4 = _run_curl(POINTS, target)
    np.testing.assert_allclose(c3, WARP_CURL3, atol=2e-6)
    np.testing.assert_allclose(c4, WARP_CURL4, atol=2e-6)
    # from Python, with Warp's defaults and parameter names
    state = wp.rand_init(42)
    host = wp.curlnoise(xyz=wp.vec3f(0.25, 0.5, 0.75), state=state)
    assert isinstance(host, wp.vec3f)
    np.testing.assert_allclose(host, [-0.6267461180686951, -0.2916299104690552, 0.7065942883491516], atol=2e-6)
    np.testing.assert_array_equal(host, wp.curlnoise(state, wp.vec3f(0.25, 0.5, 0.75), wp.uint32(1), 2.0, 0.5))
    host4 = wp.curlnoise(state, wp.vec4f(0.25, 0.5, 0.75, 0.1), wp.uint32(2), 2.0, 0.5)
    assert isinstance(host4, wp.vec3f)
    np.testing.assert_allclose(host4, [-0.5506068468093872, -0.34754592180252075, -0.35686665773391724], atol=2e-6)


def test_3d_and_4d_curlnoise_are_divergence_free():
    p = np.random.default_rng(8).uniform(-3.0, 3.0, (16, 4)).astype(np.float32)
    h = np.float32(1e-2)
    div3, div4 = np.zeros(16), np.zeros(16)
    for j in range(3):  # the 4-D form is a curl in x, y, z at each time t
        e = np.zeros(4, np.float32)
        e[j] = h
        (a3, a4), (b3, b4) = _run_curl(p + e, octaves=2), _run_curl(p - e, octaves=2)
        div3 += (a3[:, j] - b3[:, j]) / (2 * h)
        div4 += (a4[:, j] - b4[:, j]) / (2 * h)
    assert np.abs(div3).max() < 1e-2 and np.abs(div4).max() < 1e-2
    c3, c4 = _run_curl(p, octaves=2)
    assert np.abs(c3).max() > 0.3 and np.abs(c4).max() > 0.3


@wp.kernel
def curl_3d_4d_loss(seed: int, p: wp.array(dtype=wp.vec4), w: wp.vec3, loss: wp.array(dtype=float)):
    i = wp.tid()
    st = wp.rand_init(seed)
    q = p[i]
    c = wp.curlnoise(st, wp.vec3(q[0], q[1], q[2]), wp.uint32(2), 2.0, 0.5) + wp.curlnoise(st, q, wp.uint32(2), 2.0, 0.5)
    wp.atomic_add(loss, 0, wp.dot(c, w))


def test_3d_and_4d_curlnoise_gradients_are_warps():
    p = wp.array(POINTS, dtype=wp.vec4, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(curl_3d_4d_loss, dim=len(POINTS), inputs=[11, p, wp.vec3(1.0, -0.5, 0.25), loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(p.grad.numpy(), WARP_CURL_GRAD, atol=2e-5)


@wp.kernel
def noise_loss(seed: int, p1: wp.array(dtype=float), p3: wp.array(dtype=wp.vec3), p4: wp.array(dtype=wp.vec4),
               p2: wp.array(dtype=wp.vec2), w: wp.vec2, loss: wp.array(dtype=float)):
    i = wp.tid()
    st = wp.rand_init(seed)
    c = wp.curlnoise(st, p2[i], wp.uint32(3), 2.0, 0.5)
    v = wp.noise(st, p1[i]) + wp.noise(st, p3[i]) + wp.pnoise(st, p4[i], 2, 3, 4, 5) + wp.dot(c, w)
    wp.atomic_add(loss, 0, v)


def _loss(seed, arrays, w):
    loss = wp.zeros(1, dtype=float)
    wp.launch(noise_loss, dim=len(arrays[0]), inputs=[seed, *arrays, w, loss])
    return float(loss.numpy()[0])


def test_gradients_match_central_differences():
    rng = np.random.default_rng(6)
    n = 4
    values = [rng.uniform(-2.0, 2.0, (n, *shape)).astype(np.float32) for shape in ((), (3,), (4,), (2,))]
    dtypes = [float, wp.vec3, wp.vec4, wp.vec2]
    arrays = [wp.array(v, dtype=t, requires_grad=True) for v, t in zip(values, dtypes)]
    w = wp.vec2(1.0, -0.5)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(noise_loss, dim=n, inputs=[7, *arrays, w, loss])
    tape.backward(loss=loss)
    h = 1e-2
    for k, v in enumerate(values):
        grad = arrays[k].grad.numpy().reshape(n, -1)
        flat = v.reshape(n, -1)
        for i in range(n):
            for j in range(flat.shape[1]):
                plus, minus = [x.copy() for x in values], [x.copy() for x in values]
                plus[k].reshape(n, -1)[i, j] += h
                minus[k].reshape(n, -1)[i, j] -= h
                fd = (_loss(7, [wp.array(x, dtype=t) for x, t in zip(plus, dtypes)], w)
                      - _loss(7, [wp.array(x, dtype=t) for x, t in zip(minus, dtypes)], w)) / (2 * h)
                assert grad[i, j] == pytest.approx(fd, abs=2e-2), (k, i, j)


@wp.kernel
def noise_2d_state_unchanged(seed: int, out: wp.array(dtype=float)):
    st = wp.rand_init(seed)
    a = wp.noise(st, wp.vec2(0.3, 0.4))
    out[0] = a - wp.noise(st, wp.vec2(0.3, 0.4))  # the state is read, not advanced
    out[1] = wp.randf(st) - wp.randf(wp.rand_init(seed))


@wp.kernel
def curl_keywords(out: wp.array(dtype=wp.vec2)):
    st = wp.rand_init(3)
    out[0] = wp.curlnoise(st, wp.vec2(0.3, 0.4), octaves=wp.uint32(2), lacunarity=3.0, gain=0.25)
    out[1] = wp.curlnoise(st, wp.vec2(0.3, 0.4), wp.uint32(2), 3.0, 0.25)
    out[2] = wp.curlnoise(state=st, xy=wp.vec2(0.3, 0.4))
    out[3] = wp.curlnoise(st, wp.vec2(0.3, 0.4), wp.uint32(1), 2.0, 0.5)  # Warp's defaults


def test_curlnoise_keywords_and_defaults():
    out = wp.zeros(4, dtype=wp.vec2)
    wp.launch(curl_keywords, dim=1, inputs=[out])
    o = out.numpy()
    np.testing.assert_array_equal(o[0], o[1])
    np.testing.assert_array_equal(o[2], o[3])
    assert np.abs(o[0] - o[2]).max() > 1e-3


@wp.kernel
def curl_3d_4d_keywords(out: wp.array(dtype=wp.vec3)):
    st = wp.rand_init(3)
    out[0] = wp.curlnoise(state=st, xyz=wp.vec3(0.3, 0.4, 0.5))
    out[1] = wp.curlnoise(st, wp.vec3(0.3, 0.4, 0.5), wp.uint32(1), 2.0, 0.5)
    out[2] = wp.curlnoise(st, wp.vec4(0.3, 0.4, 0.5, 0.6), octaves=wp.uint32(2), gain=0.25)  # lacunarity's default
    out[3] = wp.curlnoise(st, wp.vec4(0.3, 0.4, 0.5, 0.6), wp.uint32(2), 2.0, 0.25)
    out[4] = wp.curlnoise(state=st, xyzt=wp.vec4(0.3, 0.4, 0.5, 0.6))


def test_3d_and_4d_curlnoise_keywords_and_defaults():
    out = wp.zeros(5, dtype=wp.vec3)
    wp.launch(curl_3d_4d_keywords, dim=1, inputs=[out])
    o = out.numpy()
    np.testing.assert_array_equal(o[0], o[1])
    np.testing.assert_array_equal(o[2], o[3])
    # Warp's values
    np.testing.assert_allclose(o[[0, 2, 4]], [[-0.37072432, -0.32342842, 0.04141013],
                                              [-0.08557144, 0.08714736, -1.2050081],
                                              [-0.27026165, -0.02959731, -1.3025949]], atol=2e-6)


def test_noise_reads_the_state():
    out = wp.zeros(2, dtype=float)
    wp.launch(noise_2d_state_unchanged, dim=1, inputs=[1, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0])


@wp.kernel
def int_point(out: wp.array(dtype=float)):
    out[0] = wp.noise(wp.rand_init(1), 1)


@wp.kernel
def int_state(out: wp.array(dtype=float)):
    out[0] = wp.noise(1, 0.5)


@wp.kernel
def missing_period(out: wp.array(dtype=float)):
    out[0] = wp.pnoise(wp.rand_init(1), wp.vec2(0.5, 0.5), 4)


@wp.kernel
def curl_1d(out: wp.array(dtype=float)):
    out[0] = wp.curlnoise(wp.rand_init(1), 0.5)[0]


@wp.kernel
def int_octaves(out: wp.array(dtype=float)):
    out[0] = wp.curlnoise(wp.rand_init(1), wp.vec2(0.5, 0.5), 3)[0]


@pytest.mark.parametrize("kernel, message", [
    (int_point, "noise(): needs a uint32 state from rand_init() and a float32 point"),
    (int_state, "got int32 and float32"),
    (missing_period, "one int32 period per dimension of the point (2 for vec2f)"),
    (curl_1d, "curlnoise takes a vec2f, vec3f or vec4f point, got float32"),
    (int_octaves, "octaves: uint32"),
])
def test_argument_errors(kernel, message):
    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(kernel, dim=1, inputs=[out])
    assert message in str(info.value) and "test_warp_noise.py" in str(info.value)
    assert out.numpy()[0] == 0.0


@wp.kernel
def _noise_keywords(out: wp.array(dtype=float)):
    s = wp.rand_init(42)
    p2 = wp.vec2(0.3, 0.7)
    p3 = wp.vec3(0.3, 0.7, 0.1)
    out[0] = wp.noise(state=s, x=0.3) - wp.noise(s, 0.3)
    out[1] = wp.noise(s, xy=p2) - wp.noise(s, p2)
    out[2] = wp.noise(state=s, xyz=p3) - wp.noise(s, p3)
    out[3] = wp.pnoise(state=s, xy=p2, px=4, py=4) - wp.pnoise(s, p2, 4, 4)
    out[4] = wp.pnoise(s, x=0.3, px=2) - wp.pnoise(s, 0.3, 2)
    out[5] = wp.noise(state=s, xyz=p3)


def test_noise_and_pnoise_take_warps_keywords():
    """``noise(state=, x|xy|xyz|xyzt=)`` and ``pnoise(..., px=, py=, ...)``, as Warp names them."""
    out = wp.zeros(6, dtype=float)
    wp.launch(_noise_keywords, 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy()[:5], 0.0)
    assert abs(out.numpy()[5] - 0.41898462) < 1e-6  # Warp 1.19's value
