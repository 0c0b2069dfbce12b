"""Spatial-vector, transform-matrix, norm, slerp and erfinv builtins called from Python, as Warp 1.19 allows
(``wp.skew(v)``, ``wp.spatial_cross(a, b)``, ``wp.transform_to_matrix(t)`` in host code): each was a
RuntimeError 'can only be called inside a @kernel or @func'. They run as one-thread kernels, so the values
are the kernels'; checked here against numpy's formulas, with Warp's result types and overload errors."""

import math

import numpy as np
import pytest

import brickwork as wp

S = wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
S2 = wp.spatial_vector(-1.0, 0.5, 2.0, 0.0, 1.0, -3.0)
Q = wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, 2.0, 3.0)), 0.7)
T = wp.transform(wp.vec3(1.0, -2.0, 0.5), Q)


def _np(x):
    return np.asarray(x, dtype=np.float64)


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def test_spatial_algebra_on_the_host():
    a, b = _np(S), _np(S2)
    assert _np(wp.spatial_top(S)).tolist() == [1.0, 2.0, 3.0] and _np(wp.spatial_bottom(S)).tolist() == [4.0, 5.0, 6.0]
    assert wp.spatial_dot(S, S2) == pytest.approx(a @ b) and type(wp.spatial_dot(S, S2)) is float
    w1, v1, w2, v2 = a[:3], a[3:], b[:3], b[3:]
    cross = np.concatenate([np.cross(w1, w2), np.cross(w1, v2) + np.cross(v1, w2)])
    dual = np.concatenate([np.cross(w1, w2) + np.cross(v1, v2), np.cross(w1, v2)])
    np.testing.assert_allclose(_np(wp.spatial_cross(S, S2)), cross, rtol=1e-6)
    np.testing.assert_allclose(_np(wp.spatial_cross_dual(S, S2)), dual, rtol=1e-6)
    r = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(_np(wp.velocity_at_point(S, wp.vec3(*r))), np.cross(w1, r) + v1, rtol=1e-6)
    assert type(wp.spatial_cross(S, S2)) is type(S)


def test_matrix_helpers_on_the_host():
    v = np.array([1.0, 2.0, 3.0])
    skew = wp.skew(wp.vec3(*v))
    assert type(skew) is wp.mat33f and (_np(skew) == _skew(v)).all()
    d = wp.diag(wp.vec3d(*v))
    assert type(d) is wp.mat33d and (_np(d) == np.diag(v)).all()
    m = wp.mat33(1.0, 2.0, 0.0, 0.0, 3.0, 1.0, 1.0, 0.0, 2.0)
    assert _np(wp.get_diag(m)).tolist() == [1.0, 3.0, 2.0]


def test_transform_matrices_on_the_host():
    rot = _np(wp.quat_to_matrix(Q))
    expected = np.eye(4)
    expected[:3, :3], expected[:3, 3] = rot, [1.0, -2.0, 0.5]
    m = wp.transform_to_matrix(T)
    assert type(m) is wp.mat44f
    np.testing.assert_allclose(_np(m), expected, atol=1e-6)
    back = wp.transform_from_matrix(m)
    assert type(back) is type(T)
    np.testing.assert_allclose(_np(back), _np(T), atol=1e-6)
    scaled = np.eye(4)
    scaled[:3, :3], scaled[:3, 3] = rot * [2.0, 1.0, 0.5], [1.0, 2.0, 3.0]  # columns scaled
    composed = wp.transform_compose(wp.vec3(1.0, 2.0, 3.0), Q, wp.vec3(2.0, 1.0, 0.5))
    np.testing.assert_allclose(_np(composed), scaled, atol=1e-6)


def test_slerp_norms_and_scalars_on_the_host():
    q1 = wp.quatd(0.0, 0.6, 0.0, 0.8)  # a turn of 2 asin(0.6) about y
    half_angle = math.asin(0.6)
    q = wp.quat_slerp(wp.quatd(0.0, 0.0, 0.0, 1.0), q1, wp.float64(0.25))
    assert type(q) is wp.quatd
    np.testing.assert_allclose(_np(q), [0.0, math.sin(0.25 * half_angle), 0.0, math.cos(0.25 * half_angle)],
                               rtol=1e-12)
    v = wp.vec3(1.0, -2.0, 3.0)
    n = math.sqrt(14.0)
    assert wp.norm_l1(v) == 6.0 and wp.norm_l2(v) == pytest.approx(n)
    assert wp.norm_huber(v) == pytest.approx(n - 0.5)  # delta 1: delta (|v| - delta / 2)
    assert wp.norm_huber(wp.vec3(0.1, 0.2, 0.2), delta=0.5) == pytest.approx(0.5 * 0.09)  # |v| <= delta: |v|^2 / 2
    assert wp.norm_pseudo_huber(v, 0.5) == pytest.approx(math.sqrt(14.25))
    np.testing.assert_allclose(_np(wp.smooth_normalize(v)), np.array([1.0, -2.0, 3.0]) / math.sqrt(15.0), rtol=1e-6)
    assert wp.rint(2.5) == 2.0 and wp.rint(wp.float64(-3.5)) == -4.0  # half to even
    assert math.erf(wp.erfinv(wp.float64(0.5))) == pytest.approx(0.5, rel=1e-15)
    assert type(wp.erfinv(wp.float64(0.5))) is wp.float64  # it kept its type (it was taken as a Python float)
    assert math.erfc(wp.erfcinv(0.3)) == pytest.approx(0.3, rel=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: wp.skew(1.0), "Couldn't find a function 'skew' compatible with the arguments 'float'"),
    (lambda: wp.spatial_dot(S, wp.vec3(1.0, 2.0, 3.0)),
     "Couldn't find a function 'spatial_dot' compatible with the arguments 'vec6f, vec3f'"),
])
def test_wrong_arguments_are_warps_overload_error(call, message):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message


def test_host_calls_during_a_graph_capture_run_at_once():
    """They read their one-thread kernel's output unwritten during a capture (the launch was recorded): the
    random-number builtins gave 2.4e+37 for randf(rand_init(42)), skew a matrix of stale memory."""
    expected = wp.randf(wp.rand_init(42))
    with wp.ScopedCapture() as capture:
        skew = wp.skew(wp.vec3(1.0, 2.0, 3.0))
        r = wp.randf(wp.rand_init(42))
    assert (_np(skew) == _skew([1.0, 2.0, 3.0])).all() and r == expected
    assert len(capture.graph) == 0  # nothing recorded: a replay runs nothing of them


def test_host_calls_print_no_launch(capsys):
    """wp.config.print_launches printed 'kernel: call1 (.../host_builtins.py:...)' for each host call."""
    with wp.config.override(print_launches=True):
        skew = wp.skew(wp.vec3(1.0, 2.0, 3.0))
    assert capsys.readouterr().out == "" and (_np(skew) == _skew([1.0, 2.0, 3.0])).all()
    assert wp.config.print_launches is False
