"""Random numbers with Warp's generator: values measured with Warp 1.19 for seed 42, the state advanced
in place by each draw, the documented ranges, and the argument rules."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def draws(seed: int, ou: wp.array(dtype=wp.uint32), of: wp.array(dtype=float), oi: wp.array(dtype=int),
          on: wp.array(dtype=float)):
    s = wp.rand_init(seed)
    ou[0] = s
    ou[1] = wp.rand_init(seed, 7)
    of[0] = wp.randf(s)
    of[1] = wp.randf(s)
    of[2] = wp.randf(s, 2.0, 5.0)
    oi[0] = wp.randi(s)
    oi[1] = wp.randi(s, -10, 10)
    ou[2] = wp.randu(s)
    on[0] = wp.randn(s)
    on[1] = wp.randn(s)
    ou[3] = s
    of[3] = wp.randf(wp.rand_init(seed))  # a temporary state


def test_seed_gives_warps_numbers():
    ou, of = wp.zeros(4, dtype=wp.uint32), wp.zeros(4, dtype=float)
    oi, on = wp.zeros(2, dtype=int), wp.zeros(2, dtype=float)
    wp.launch(draws, dim=1, inputs=[42, ou, of, oi, on])
    assert ou.numpy().tolist() == [1223963391, 3115480925, 211253275, 1276060305]
    assert of.numpy().tolist() == [np.float32(v) for v in (0.6485052108764648, 0.9323613047599792,
                                                           4.020423889160156, 0.6485052108764648)]
    assert oi.numpy().tolist() == [-625781038, -3]
    # randn takes Warp's steps (the first draw moved into (0, 1), float32 logf and cosf): the same bits
    assert on.numpy().tolist() == [np.float32(v) for v in (-0.39321261644363403, -0.7936477065086365)]


@wp.kernel
def many(seed: int, f: wp.array(dtype=float), i: wp.array(dtype=int), n: wp.array(dtype=float)):
    t = wp.tid()
    s = wp.rand_init(seed, t)
    f[t] = wp.randf(s, -1.0, 3.0)
    i[t] = wp.randi(s, 5, 9)
    n[t] = wp.randn(s)


def test_ranges_and_distribution():
    count = 20000
    f, i, n = wp.zeros(count, dtype=float), wp.zeros(count, dtype=int), wp.zeros(count, dtype=float)
    wp.launch(many, dim=count, inputs=[123, f, i, n])
    fv, iv, nv = f.numpy(), i.numpy(), n.numpy()
    assert fv.min() >= -1.0 and fv.max() < 3.0 and abs(fv.mean() - 1.0) < 0.05
    assert set(iv.tolist()) == {5, 6, 7, 8}
    assert abs(nv.mean()) < 0.05 and abs(nv.std() - 1.0) < 0.05


def test_state_must_be_a_uint32():
    @wp.kernel
    def int_state(out: wp.array(dtype=float)):
        s = 3
        out[0] = wp.randf(s)

    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError, match=r"randf\(\): needs a uint32 state from rand_init\(\), got int32"):
        wp.launch(int_state, dim=1, inputs=[out])
    assert out.numpy().tolist() == [0.0]


@wp.kernel
def samplers(o2: wp.array(dtype=wp.vec2), o3: wp.array(dtype=wp.vec3)):
    s = wp.rand_init(7)
    o2[0] = wp.sample_unit_square(s)
    s = wp.rand_init(7)
    o2[1] = wp.sample_unit_disk(s)
    s = wp.rand_init(7)
    o2[2] = wp.sample_unit_ring(s)
    s = wp.rand_init(7)
    o2[3] = wp.sample_triangle(s)
    s = wp.rand_init(7)
    o3[0] = wp.sample_unit_cube(s)
    s = wp.rand_init(7)
    o3[1] = wp.sample_unit_sphere_surface(s)
    s = wp.rand_init(7)
    o3[2] = wp.sample_unit_sphere(s)
    s = wp.rand_init(7)
    o3[3] = wp.sample_unit_hemisphere_surface(s)
    s = wp.rand_init(7)
    o3[4] = wp.sample_unit_hemisphere(s)


def test_samplers_give_warps_points():
    o2, o3 = wp.zeros(4, dtype=wp.vec2), wp.zeros(5, dtype=wp.vec3)
    wp.launch(samplers, dim=1, inputs=[o2, o3])
    warp_2 = [[0.0025464296340942383, 0.37712550163269043], [0.5079212188720703, -0.49453258514404297],
              [-0.9998720288276672, -0.015999197959899902], [0.29109489917755127, 0.6217987537384033]]
    warp_3 = [[0.0025464296340942383, 0.37712550163269043, 0.060148537158966064],
              [0.716477632522583, -0.6975914835929871, -0.00509288115426898],
              [0.5906139016151428, -0.5750455260276794, -0.004198214504867792],
              [0.621545672416687, -0.6051619052886963, 0.49745360016822815],
              [0.5123586654663086, -0.49885305762290955, 0.4100658893585205]]
    np.testing.assert_allclose(o2.numpy(), warp_2, rtol=0, atol=2e-7)
    np.testing.assert_allclose(o3.numpy(), warp_3, rtol=0, atol=2e-7)
    n = np.linalg.norm(o3.numpy()[[1, 3]], axis=1)
    np.testing.assert_allclose(n, 1.0, atol=1e-6)  # points on the unit sphere


@wp.kernel
def draw_poisson(seed: int, lam: float, out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    out[i] = wp.poisson(state, lam)


@pytest.mark.parametrize("lam", [0.5, 3.0, 10.0, 10.5, 42.0, 1000.0])
def test_poisson_moments_and_zeros(lam):
    n = 200_000
    out = wp.zeros(n, dtype=wp.uint32)
    wp.launch(draw_poisson, dim=n, inputs=[7, lam, out])
    x = out.numpy().astype(np.float64)
    se = np.sqrt(lam / n)
    assert abs(x.mean() - lam) < 6 * se  # mean and variance lam
    assert abs(x.var() / lam - 1.0) < 0.03
    zeros = np.count_nonzero(x == 0)
    assert zeros <= n * np.exp(-lam) + 6 * np.sqrt(n * np.exp(-lam)) + 1  # no excess zeros (rejected negatives)
    assert x.max() < lam + 12 * np.sqrt(lam) + 10


def test_poisson_of_a_zero_rate_and_errors():
    out = wp.full(4, 9, dtype=wp.uint32)
    wp.launch(draw_poisson, dim=4, inputs=[1, 0.0, out])
    assert out.numpy().tolist() == [0, 0, 0, 0]

    @wp.kernel
    def wrong(out: wp.array(dtype=wp.uint32)):
        out[0] = wp.poisson(wp.rand_init(1), 2.0, 3.0)

    with pytest.raises(wp.KernelTypeError, match="poisson"):
        wp.launch(wrong, dim=1, inputs=[out])


def test_sample_cdf_and_lower_bound():
    @wp.kernel
    def draw(cdf: wp.array(dtype=float), out: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = wp.sample_cdf(wp.rand_init(3, i), cdf)

    p = np.array([0.1, 0.0, 0.6, 0.3])
    cdf = wp.array(np.cumsum(p).astype(np.float32))
    n = 100_000
    out = wp.zeros(n, dtype=int)
    wp.launch(draw, dim=n, inputs=[cdf, out])
    counts = np.bincount(out.numpy(), minlength=4) / n
    assert np.all(np.abs(counts - p) < 0.01) and counts[1] == 0.0

    @wp.kernel
    def search(arr: wp.array(dtype=float), values: wp.array(dtype=float), out: wp.array2d(dtype=int)):
        i = wp.tid()
        out[0, i] = wp.lower_bound(arr, values[i])
        out[1, i] = wp.lower_bound(arr, 2, 5, values[i])

    arr = wp.array(np.arange(6, dtype=np.float32))
    values = np.array([-0.1, 0.0, 2.5, 4.0, 5.0, 5.5], dtype=np.float32)
    found = wp.zeros((2, 6), dtype=int)
    wp.launch(search, dim=6, inputs=[arr, wp.array(values), found])
    assert found.numpy()[0].tolist() == [0, 0, 3, 4, 5, 5]  # Warp's: the last index when all are below
    assert found.numpy()[1].tolist() == [2, 2, 3, 4, 4, 4]

    @wp.kernel
    def mixed(arr: wp.array(dtype=float), out: wp.array(dtype=int)):
        out[0] = wp.lower_bound(arr, 1)

    with pytest.raises(wp.KernelTypeError, match="value of the array's dtype"):
        wp.launch(mixed, dim=1, inputs=[arr, wp.zeros(1, dtype=int)])
