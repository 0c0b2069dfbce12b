"""wp.length's adjoint rounds as Warp 1.19's: (v / |v|) * g, componentwise (newuser round 12: Warp's
optim/example_particle_repulsion, whose forces are wp.grad of a potential of wp.length, had 9136 of 18696 force
components an ulp or more apart from Warp's after 5 frames; brickwork computed (g / |v|) * v). Now bit-equal."""

import numpy as np

import brickwork as wp


@wp.kernel
def weighted_length(v: wp.array(dtype=wp.vec3), w: wp.array(dtype=float), r: wp.array(dtype=float),
                    loss: wp.array(dtype=float)):
    i = wp.tid()
    n = wp.length(v[i])
    r[i] = n
    wp.atomic_add(loss, 0, n * w[i])


def test_the_gradient_of_length_is_v_over_length_times_the_adjoint():
    rng = np.random.default_rng(7)
    vs = rng.uniform(-2.0, 2.0, (256, 3)).astype(np.float32)
    vs[5] = 0.0  # no direction: a zero gradient, as Warp's
    ws = rng.uniform(0.1, 3.0, 256).astype(np.float32)
    v = wp.array(vs, dtype=wp.vec3, requires_grad=True)
    w = wp.array(ws, dtype=float)
    r = wp.zeros(256, dtype=float)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_length, dim=256, inputs=[v, w, r, loss])
    tape.backward(loss=loss)
    lengths = r.numpy()
    expected = (vs / np.where(lengths > 0, lengths, 1)[:, None]) * ws[:, None]  # float32, Warp's order
    expected[5] = 0.0
    np.testing.assert_array_equal(v.grad.numpy(), expected)
    other_order = (ws / np.where(lengths > 0, lengths, 1))[:, None] * vs
    assert (other_order != expected).sum() > 50  # the inputs tell the two orders apart
