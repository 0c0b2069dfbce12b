"""Products round as Warp 1.19's, bit for bit (the expected values are Warp's on the same inputs): matrix
products and ``ddot`` accumulate with fused multiply-adds, quaternion products sum their terms in Warp's
order, ``normalize(quat)`` multiplies by the reciprocal length, float32 ``degrees``/``radians`` multiply
in double and round once. And a ``range`` whose step is 0 at run time runs no iteration (Warp's answer;
Python raises), whatever its bounds."""

import numpy as np

import brickwork as wp


@wp.kernel
def mat_products(a: wp.array(dtype=wp.mat22), b: wp.array(dtype=wp.mat22), o: wp.array(dtype=wp.mat22),
                 d: wp.array(dtype=float)):
    o[0] = a[0] * b[0]
    d[0] = wp.ddot(a[1], b[1])
    d[1] = wp.ddot(a[0], b[0])


def test_matrix_products_and_ddot_use_fused_multiply_adds():
    a = np.array([[[0.4356134235858917, 0.9711291193962097], [2.095913887023926, 0.6196920275688171]],
                  [[65504.0, 1.0], [3.4028234663852886e38, -3.4028234663852886e38]]], np.float32)
    b = np.array([[[0.09511043131351471, -0.5115987658500671], [-0.18483656644821167, 1.6339311599731445]],
                  [[-1.066775918006897, -0.7070372104644775], [2.0, 2.0]]], np.float32)
    o, d = wp.zeros(1, dtype=wp.mat22), wp.zeros(2, dtype=float)
    wp.launch(mat_products, dim=1, inputs=[wp.array(a, dtype=wp.mat22), wp.array(b, dtype=wp.mat22), o, d])
    assert float(o.numpy()[0][1][1]) == -0.0597328245639801  # a separate multiply and add: -0.059732794761657715
    # fma(a, b, c) rounds once: a product of inf and a sum of -inf would be NaN; Warp gives inf
    assert d.numpy()[0] == np.inf
    # each term folded in with one rounding, in row-major order (float64 has every product exactly)
    s = np.float32(0)
    for x, y in zip(a[0].ravel(), b[0].ravel()):
        s = np.float32(np.float64(x) * np.float64(y) + np.float64(s))
    assert d.numpy()[1] == s


@wp.kernel
def quat_products(a: wp.array(dtype=wp.quat), b: wp.array(dtype=wp.quat), o: wp.array(dtype=wp.quat)):
    o[0] = a[0] * b[0]
    o[1] = wp.normalize(a[1])


def test_quaternion_products_and_normalize_round_as_warp():
    a = np.array([[-1.4456517696380615, -1.869493842124939, -2.0, 1.0],
                  [1.4834225177764893, 2.0, -0.8671467900276184, 0.23460276424884796]], np.float32)
    b = np.array([[4.0, -0.2705747187137604, 4.0, 0.4737537205219269]] * 2, np.float32)
    o = wp.zeros(2, dtype=wp.quat)
    wp.launch(quat_products, dim=1, inputs=[wp.array(a, dtype=wp.quat), wp.array(b, dtype=wp.quat), o])
    assert [float(v) for v in o.numpy()[0]] == [-4.704007625579834, -3.373647689819336, 10.921625137329102,
                                                13.75052261352539]
    assert float(o.numpy()[1][0]) == 0.5603798627853394  # x / length would be 0.5603799223899841


@wp.kernel
def angles(x: wp.array(dtype=float), o: wp.array(dtype=float)):
    o[0] = wp.degrees(x[0])
    o[1] = wp.radians(x[1])


def test_float32_degrees_and_radians_round_once():
    o = wp.zeros(2, dtype=float)
    wp.launch(angles, dim=1, inputs=[wp.array([9.0, 710.0], dtype=float), o])
    assert o.numpy().tolist() == [515.6619873046875, 12.391838073730469]  # float32 constants: 515.6620483398438
    assert o.numpy()[0] == np.float32(9.0 * (180 / np.pi))


@wp.kernel
def count_steps(start: wp.array(dtype=int), stop: wp.array(dtype=int), step: wp.array(dtype=int),
                n: wp.array(dtype=int)):
    i = wp.tid()
    c = 0
    for _ in range(start[i], stop[i], step[i]):
        c += 1
        if c > 100:  # a guard: the loop must not run at all
            break
    n[i] = c


def test_a_range_with_a_zero_step_at_run_time_runs_no_iteration():
    starts, stops, steps = [0, 0, 5, 0, 10], [-10, 10, 5, 10, 0], [0, 0, 0, 3, -4]
    n = wp.zeros(5, dtype=int)
    wp.launch(count_steps, dim=5, inputs=[wp.array(starts, dtype=int), wp.array(stops, dtype=int),
                                          wp.array(steps, dtype=int), n])
    assert n.numpy().tolist() == [0, 0, 0, 4, 3]
