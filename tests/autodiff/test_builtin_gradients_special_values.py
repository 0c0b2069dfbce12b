"""Gradients at special values, as Warp gives them: ties and NaN operands of min, max and clamp (the
adjoint goes to the operand the result came from; a tie to the second), copysign at signed zeros (by the
sign bits), and atomic_min/atomic_max where both the element and the value are NaN."""

import numpy as np

import brickwork as wp

NAN = float("nan")


def _grads(kernel, columns, n_out=1):
    arrays = [wp.array(np.array(c, dtype=np.float32), dtype=wp.float32, requires_grad=True) for c in columns]
    outs = [wp.zeros(len(columns[0]), dtype=wp.float32, requires_grad=True) for _ in range(n_out)]
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(columns[0]), inputs=arrays, outputs=outs)
    for o in outs:
        o.grad.fill_(1.0)
    tape.backward()
    return [o.numpy() for o in outs], [a.grad.numpy() for a in arrays]


@wp.kernel
def clamp_k(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.clamp(x[i], lo[i], hi[i])


def test_clamp_gives_the_adjoint_to_the_input_the_result_came_from():
    rows = [  # x, lo, hi -> which receives the adjoint
        (NAN, -1.0, 1.0, "lo"), (NAN, 1.0, -1.0, "hi"), (0.5, NAN, 1.0, "x"), (2.0, NAN, 1.0, "hi"),
        (-2.0, -1.0, NAN, "lo"), (0.5, -1.0, 1.0, "x"), (NAN, NAN, 1.0, "hi"), (NAN, NAN, NAN, "hi"),
        (0.5, 0.5, 1.0, "x"), (1.0, 0.0, 1.0, "hi"), (-3.0, 2.0, 1.0, "hi"),
    ]
    (out,), grads = _grads(clamp_k, [[r[k] for r in rows] for k in range(3)])
    np.testing.assert_array_equal(out[:3], [-1.0, -1.0, 0.5])
    for i, row in enumerate(rows):
        expected = [1.0 if name == row[3] else 0.0 for name in ("x", "lo", "hi")]
        assert [g[i] for g in grads] == expected, row


@wp.kernel
def clamp_vec(x: wp.array(dtype=wp.vec3), lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
              out: wp.array(dtype=float)):
    out[0] = wp.dot(wp.clamp(x[0], lo[0], hi[0]), wp.vec3(1.0, 2.0, 3.0))


def test_clamp_of_vectors_differentiates_each_component():
    x, lo, hi = (wp.array([v], dtype=wp.vec3, requires_grad=True)
                 for v in ((0.5, -2.0, 5.0), (0.0, -1.0, 0.0), (1.0, 1.0, 1.0)))
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(clamp_vec, dim=1, inputs=[x, lo, hi, out])
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    np.testing.assert_array_equal(x.grad.numpy()[0], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(lo.grad.numpy()[0], [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(hi.grad.numpy()[0], [0.0, 0.0, 3.0])


@wp.kernel
def min_max(a: wp.array(dtype=float), b: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float)):
    i = wp.tid()
    lo[i] = wp.min(a[i], b[i])
    hi[i] = wp.max(a[i], b[i]) * 10.0


def test_min_and_max_give_ties_to_the_second_operand_and_nan_to_the_number():
    rows = [(NAN, 1.0), (1.0, NAN), (NAN, NAN), (1.0, 1.0), (-0.0, 0.0), (1.0, 2.0)]
    _, (ga, gb) = _grads(min_max, [[r[0] for r in rows], [r[1] for r in rows]], n_out=2)
    np.testing.assert_array_equal(ga, [0.0, 11.0, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(gb, [11.0, 0.0, 11.0, 11.0, 11.0, 10.0])


@wp.kernel
def copysign_k(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.copysign(x[i], y[i])


def test_copysign_gradient_compares_sign_bits():
    rows = [(3.0, 1.0, 1.0), (3.0, -1.0, -1.0), (-3.0, 1.0, -1.0), (-0.0, -1.0, 1.0), (-0.0, 1.0, -1.0),
            (0.0, -1.0, -1.0), (0.0, 1.0, 1.0), (2.0, -0.0, -1.0)]
    _, (gx, gy) = _grads(copysign_k, [[r[0] for r in rows], [r[1] for r in rows]])
    np.testing.assert_array_equal(gx, [r[2] for r in rows])
    np.testing.assert_array_equal(gy, np.zeros(len(rows)))


@wp.kernel
def atomic_min_k(slot: wp.array(dtype=float), value: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.atomic_min(slot, i, value[i])


def test_atomic_min_gives_the_adjoint_to_a_nan_value_stored_over_nan():
    rows = [(NAN, NAN, 1.0), (NAN, 2.0, 1.0), (2.0, NAN, 0.0), (5.0, 2.0, 1.0), (2.0, 5.0, 0.0)]
    slot = wp.array([r[0] for r in rows], dtype=float, requires_grad=True)
    value = wp.array([r[1] for r in rows], dtype=float, requires_grad=True)
    out = wp.zeros(len(rows), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(atomic_min_k, dim=len(rows), inputs=[slot, value], outputs=[out])
    slot.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(value.grad.numpy(), [r[2] for r in rows])


@wp.kernel
def step_and_angle(e: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float),
                   z: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.smoothstep(e[i], e[i], x[i]) + wp.atan2(y[i], z[i])


def test_equal_smoothstep_edges_and_atan2_at_the_origin_pass_zero_not_nan():
    """smoothstep(e, e, x) is a step (flat where x != e) and atan2(0, 0) has no gradient: Warp gives 0,
    and a NaN there would poison every gradient upstream."""
    (out,), grads = _grads(step_and_angle, [[0.5, 0.5], [0.7, 0.2], [0.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(out, [1.0, np.pi / 4], rtol=1e-6)
    assert [g[0] for g in grads] == [0.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose([g[1] for g in grads], [0.0, 0.0, 0.5, -0.5], rtol=1e-6)  # d atan2 = (z, -y)/r^2


@wp.kernel
def smooth3(e0: wp.array(dtype=float), e1: wp.array(dtype=float), x: wp.array(dtype=float),
            out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.smoothstep(e0[i], e1[i], x[i])


def test_smoothstep_beyond_its_ramp_passes_zero_also_with_infinite_inputs():
    """Outside the ramp smoothstep is flat: every gradient is 0, as in Warp and finite differences, also
    where x or an edge is infinite (the edge's term multiplied 0 by x - e1 = inf: NaN)."""
    inf = float("inf")
    (out,), grads = _grads(smooth3, [[7.0, 0.0, 3.0, 0.1, 0.0], [-7.0, 1.0, inf, -inf, 1.0],
                                     [inf, -inf, 2.5, 4.5, 0.5]])
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 0.0, 0.5])
    for g in grads:
        np.testing.assert_array_equal(g[:4], 0.0)
    np.testing.assert_allclose([g[4] for g in grads], [-0.75, -0.75, 1.5], rtol=1e-6)  # 6 t (1 - t) inside


@wp.kernel
def erf_h(x: wp.array(dtype=wp.float16), out: wp.array(dtype=wp.float16)):
    i = wp.tid()
    out[i] = wp.erf(x[i]) + wp.erfc(x[i]) * wp.float16(2.0)


def test_half_erf_gradients_round_once_from_float32():
    """d erf = 2/sqrt(pi) exp(-x^2) worked out in float32 and rounded once to float16, as Warp: in float16
    throughout it was 1-4 ulp off (0.8784 for 0.8789 at x = 0.5)."""
    xs = np.array([0.5, 1.5, 2.5, 3.0], np.float16)
    x = wp.array(xs, dtype=wp.float16, requires_grad=True)
    out = wp.zeros(4, dtype=wp.float16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(erf_h, dim=4, inputs=[x], outputs=[out])
    out.grad.fill_(1.0)
    tape.backward()
    slope = np.float32(2.0 / np.sqrt(np.pi)) * np.exp(-np.float32(xs) ** 2, dtype=np.float32)
    expected = np.float16(slope) + np.float16(np.float16(-slope) * np.float16(2.0))
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert np.float16(slope[0]) == np.float16(0.87890625)  # Warp's value
