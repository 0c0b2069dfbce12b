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
    # Warp's CPU log/cos are not always correctly rounded: a few float32 ulps apart
    np.testing.assert_allclose(on.numpy(), [-0.39321261644363403, -0.7936477065086365], rtol=1e-6)


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
