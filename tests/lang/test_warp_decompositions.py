"""svd3, svd2, qr3, eig3, quat_to_axis_angle and transform_decompose: tuple results and Warp's output
arguments, against numpy; signs against values measured with Warp 1.19; host and kernel agree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import brickwork as wp

T = lambda x: np.swapaxes(x, -1, -2)  # noqa: E731


@wp.kernel
def decompose(a: wp.array(dtype=wp.mat33d), a2: wp.array(dtype=wp.mat22d), u: wp.array(dtype=wp.mat33d),
              s: wp.array(dtype=wp.vec3d), v: wp.array(dtype=wp.mat33d), q: wp.array(dtype=wp.mat33d),
              r: wp.array(dtype=wp.mat33d), e: wp.array(dtype=wp.mat33d), d: wp.array(dtype=wp.vec3d),
              u2: wp.array(dtype=wp.mat22d), s2: wp.array(dtype=wp.vec2d), v2: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    U, sigma, V = wp.svd3(a[i])  # tuple form
    u[i] = U
    s[i] = sigma
    v[i] = V
    Q = wp.mat33d()
    R = wp.mat33d()
    wp.qr3(a[i], Q, R)  # Warp's output arguments
    q[i] = Q
    r[i] = R
    E, ev = wp.eig3(a[i] + wp.transpose(a[i]))
    e[i] = E
    d[i] = ev
    U2 = wp.mat22d()
    S2 = wp.vec2d()
    V2 = wp.mat22d()
    wp.svd2(a2[i], U2, S2, V2)
    u2[i] = U2
    s2[i] = S2
    v2[i] = V2


def run_decompose(a3, a2):
    n = len(a3)
    outs = [wp.zeros(n, dtype=t) for t in (wp.mat33d, wp.vec3d, wp.mat33d, wp.mat33d, wp.mat33d, wp.mat33d,
                                           wp.vec3d, wp.mat22d, wp.vec2d, wp.mat22d)]
    wp.launch(decompose, dim=n, inputs=[wp.array(a3, dtype=wp.mat33d), wp.array(a2, dtype=wp.mat22d), *outs])
    return [o.numpy() for o in outs]


def special_matrices():
    rng = np.random.default_rng(7)
    a3 = rng.normal(size=(12, 3, 3))
    a3[0], a3[1], a3[2], a3[3] = np.eye(3), 0.0, np.diag([2.0, 2.0, 3.0]), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    a3[4] = np.outer([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])  # rank 1
    a2 = rng.normal(size=(12, 2, 2))
    a2[0], a2[1], a2[2], a2[3] = 0.0, np.eye(2), [[1, 1], [-1, -1]], [[3, 0], [4, 5]]
    a2[4] = [[1.0, 0.0], [0.0, 0.0]]
    return a3, a2


def check_factorizations(a3, a2, outs, tol):
    u, s, v, q, r, e, d, u2, s2, v2 = outs
    eye3 = np.broadcast_to(np.eye(3), a3.shape)
    np.testing.assert_allclose(u @ (s[..., None] * T(v)), a3, atol=tol)
    np.testing.assert_allclose(u @ T(u), eye3, atol=tol)
    np.testing.assert_allclose(v @ T(v), eye3, atol=tol)
    np.testing.assert_allclose(np.linalg.det(u), 1.0, atol=tol)  # rotations: the last sigma carries the sign
    np.testing.assert_allclose(np.linalg.det(v), 1.0, atol=tol)
    assert np.all(np.abs(s[:, 0]) >= np.abs(s[:, 1]) - tol) and np.all(np.abs(s[:, 1]) >= np.abs(s[:, 2]) - tol)
    np.testing.assert_allclose(np.abs(s), np.linalg.svd(a3, compute_uv=False), atol=tol)
    np.testing.assert_allclose(q @ r, a3, atol=tol)
    np.testing.assert_allclose(np.tril(r, -1), 0.0, atol=tol)
    np.testing.assert_allclose(q @ T(q), eye3, atol=tol)
    sym = a3 + T(a3)
    np.testing.assert_allclose(e @ (d[..., None] * T(e)), sym, atol=tol)
    np.testing.assert_allclose(np.sort(d, axis=1), np.linalg.eigvalsh(sym), atol=tol)
    np.testing.assert_allclose(u2 @ (s2[..., None] * T(v2)), a2, atol=tol)
    np.testing.assert_allclose(u2 @ T(u2), np.broadcast_to(np.eye(2), a2.shape), atol=tol)
    np.testing.assert_allclose(v2 @ T(v2), np.broadcast_to(np.eye(2), a2.shape), atol=tol)
    assert np.all(s2[:, 0] >= s2[:, 1]) and np.all(s2[:, 1] >= 0)


def test_decompositions_factor_special_and_random_matrices():
    a3, a2 = special_matrices()
    check_factorizations(a3, a2, run_decompose(a3, a2), tol=1e-12)


# Entries are 0 or at least 1e-100 in magnitude: with entries near 1e-158 whose squares underflow,
# LAPACK's own eigvalsh (the reference) is off by 1e-7 relative (eigenvalues of a matrix whose exact
# ones are +-sqrt(50): numpy gave 7.07106698, brickwork 7.0710678118654740).
ENTRIES = st.one_of(st.just(0.0), st.floats(1e-100, 100), st.floats(-100, -1e-100))


@settings(max_examples=20, deadline=None)
@given(arrays(np.float64, (4, 3, 3), elements=ENTRIES), arrays(np.float64, (4, 2, 2), elements=ENTRIES))
def test_decompositions_factor_any_matrix(a3, a2):
    check_factorizations(a3, a2, run_decompose(a3, a2), tol=1e-9 * max(1.0, np.abs(a3).max(), np.abs(a2).max()))


def test_eigenvalues_stay_accurate_when_squares_underflow():
    """The case above where LAPACK loses accuracy: exact eigenvalues -sqrt(50), ~0, sqrt(50)."""
    a3 = np.full((1, 3, 3), 8.24820873e-159)
    a3[0, 0, 1], a3[0, 2, 0] = -7.0, -1.0
    d = run_decompose(a3, np.zeros((1, 2, 2)))[6]
    np.testing.assert_allclose(np.sort(d[0]), [-np.sqrt(50.0), 0.0, np.sqrt(50.0)], rtol=1e-14, atol=1e-14)


def test_svd3_signs_agree_with_warp():
    """U, sigma, V of a singular matrix as Warp 1.19 gives them (test_codegen's expectations)."""
    a3, a2 = special_matrices()
    u, s, v = run_decompose(a3[3:4], a2[3:4])[:3]
    np.testing.assert_allclose(u[0], [[0.21483721, 0.88723058, -0.40824816], [0.52058744, 0.24964368, 0.81649637],
                                      [0.82633746, -0.38794267, -0.40824834]], atol=1e-6)
    np.testing.assert_allclose(s[0], [16.84809875, 1.06836915, 0.0], atol=1e-5)  # Warp: float32
    np.testing.assert_allclose(v[0], [[0.47967088, -0.77669406, 0.40824246], [0.57236743, -0.07568054, -0.81649727],
                                      [0.66506463, 0.62531471, 0.40825251]], atol=1e-5)


def test_host_decompositions_agree_with_kernels():
    a3, a2 = special_matrices()
    u, s, v, q, r, e, d, u2, s2, v2 = run_decompose(a3, a2)
    for i in range(len(a3)):
        hu, hs, hv = wp.svd3(wp.mat33d(a3[i]))
        for host, kern in ((hu, u), (hs, s), (hv, v)):
            np.testing.assert_allclose(np.asarray(host), kern[i], atol=1e-13)
        hq, hr = wp.qr3(wp.mat33d(a3[i]))
        np.testing.assert_allclose(np.asarray(hq), q[i], atol=1e-13)
        np.testing.assert_allclose(np.asarray(hr), r[i], atol=1e-13)
        he, hd = wp.eig3(wp.mat33d(a3[i] + a3[i].T))
        np.testing.assert_allclose(np.asarray(he), e[i], atol=1e-13)
        np.testing.assert_allclose(np.asarray(hd), d[i], atol=1e-13)
        hu2, hs2, hv2 = wp.svd2(wp.mat22d(a2[i]))
        np.testing.assert_allclose(np.asarray(hu2), u2[i], atol=1e-13)
        np.testing.assert_allclose(np.asarray(hs2), s2[i], atol=1e-13)
    hu, hs, hv = wp.svd3(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0))
    assert type(hu) is wp.mat33 and type(hs) is wp.vec3


@pytest.mark.parametrize("dtype, tol", [(wp.float16, 2e-2), (wp.float32, 2e-5)])
def test_decompositions_of_narrow_types(dtype, tol):
    mat33, vec3 = wp.types.matrix((3, 3), dtype), wp.types.vector(3, dtype)

    @wp.kernel
    def narrow(a: wp.array(dtype=mat33), u: wp.array(dtype=mat33), s: wp.array(dtype=vec3), v: wp.array(dtype=mat33)):
        U = mat33()
        sigma = vec3()
        V = mat33()
        wp.svd3(a[0], U, sigma, V)
        u[0], s[0], v[0] = U, sigma, V

    a = np.array([[2.0, -1.0, 0.5], [0.25, 3.0, 1.0], [1.0, 0.0, -1.5]])
    outs = [wp.zeros(1, dtype=t) for t in (mat33, vec3, mat33)]
    wp.launch(narrow, dim=1, inputs=[wp.array(a[None], dtype=mat33), *outs])
    u, s, v = (o.numpy()[0].astype(np.float64) for o in outs)
    np.testing.assert_allclose(u @ np.diag(s) @ v.T, a, atol=tol)


@wp.kernel
def axis_angle(q: wp.array(dtype=wp.quat), axis: wp.array(dtype=wp.vec3), angle: wp.array(dtype=float)):
    i = wp.tid()
    ax = wp.vec3()
    an = 0.0
    wp.quat_to_axis_angle(q[i], ax, an)
    axis[i] = ax
    angle[i] = an


def test_quat_to_axis_angle():
    qs = [wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, -2.0, 0.5)), 2.5), wp.quat(1.0, 2.0, 3.0, 4.0),
          wp.quat(-0.0, 0.6, 0.0, -0.8), wp.quat(0.0, 0.0, 0.0, 1.0)]
    axis, angle = wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=float)
    wp.launch(axis_angle, dim=4, inputs=[wp.array(qs, dtype=wp.quat), axis, angle])
    np.testing.assert_allclose(axis.numpy()[0], np.array([1.0, -2.0, 0.5]) / np.sqrt(5.25), atol=1e-6)
    np.testing.assert_allclose(angle.numpy()[:3], [2.5, 2 * np.arctan2(np.sqrt(14), 4), 2 * np.arctan2(0.6, 0.8)],
                               atol=1e-6)
    np.testing.assert_allclose(axis.numpy()[2], [0.0, -1.0, 0.0], atol=1e-7)  # w < 0: the axis turns round
    assert axis.numpy()[3].tolist() == [0.0, 0.0, 0.0] and angle.numpy()[3] == 0.0  # identity
    for i, q in enumerate(qs):
        h_axis, h_angle = wp.quat_to_axis_angle(q)
        np.testing.assert_allclose(np.asarray(h_axis), axis.numpy()[i], atol=1e-6)
        assert abs(h_angle - angle.numpy()[i]) < 1e-6


def test_transform_decompose_inverts_compose():
    @wp.kernel
    def roundtrip(p: wp.vec3d, q: wp.quatd, s: wp.vec3d, out_p: wp.array(dtype=wp.vec3d),
                  out_q: wp.array(dtype=wp.quatd), out_s: wp.array(dtype=wp.vec3d)):
        p2, q2, s2 = wp.transform_decompose(wp.transform_compose(p, q, s))
        out_p[0], out_q[0], out_s[0] = p2, q2, s2

    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3d(0.3, 1.0, -0.4)), wp.float64(1.1))
    outs = [wp.zeros(1, dtype=t) for t in (wp.vec3d, wp.quatd, wp.vec3d)]
    wp.launch(roundtrip, dim=1, inputs=[wp.vec3d(1.0, -2.0, 3.0), q, wp.vec3d(4.0, 0.5, 6.0), *outs])
    np.testing.assert_allclose(outs[0].numpy()[0], [1.0, -2.0, 3.0], atol=1e-14)
    np.testing.assert_allclose(outs[1].numpy()[0], np.asarray(q), atol=1e-14)
    np.testing.assert_allclose(outs[2].numpy()[0], [4.0, 0.5, 6.0], atol=1e-14)
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = np.asarray(wp.quat_to_matrix(q)) * [4.0, 0.5, 6.0], [1.0, -2.0, 3.0]
    m = wp.mat44d(m)
    hp, hq, hs = wp.transform_decompose(m)
    np.testing.assert_allclose(np.asarray(hp), [1.0, -2.0, 3.0], atol=1e-14)
    np.testing.assert_allclose(np.asarray(hq), np.asarray(q), atol=1e-14)
    np.testing.assert_allclose(np.asarray(hs), [4.0, 0.5, 6.0], atol=1e-14)


def test_output_argument_errors():
    out = wp.zeros(1, dtype=wp.vec3)

    @wp.kernel
    def undeclared(a: wp.mat33, out: wp.array(dtype=wp.vec3)):
        U = wp.mat33()
        V = wp.mat33()
        wp.svd3(a, U, sigma, V)  # noqa: F821 - sigma is the error

    with pytest.raises(wp.KernelTypeError, match=r"output argument 'sigma' of svd3\(\) must be a variable that "
                                                 r"already holds a vec3f"):
        wp.launch(undeclared, dim=1, inputs=[wp.mat33(), out])

    @wp.kernel
    def wrong_type(a: wp.mat33, out: wp.array(dtype=wp.vec3)):
        U = wp.mat33()
        sigma = wp.vec3d()
        V = wp.mat33()
        wp.svd3(a, U, sigma, V)

    with pytest.raises(wp.KernelTypeError, match=r"output argument 'sigma' of svd3\(\) holds a vec3d; svd3\(\) "
                                                 r"stores a vec3f there"):
        wp.launch(wrong_type, dim=1, inputs=[wp.mat33(), out])

    @wp.kernel
    def too_few(a: wp.mat33, out: wp.array(dtype=wp.vec3)):
        U = wp.mat33()
        wp.svd3(a, U)

    with pytest.raises(wp.KernelTypeError, match=r"svd3\(\) takes 1 input and 3 output arguments, got 2"):
        wp.launch(too_few, dim=1, inputs=[wp.mat33(), out])

    @wp.kernel
    def element(a: wp.mat33, out: wp.array(dtype=wp.vec3)):
        U = wp.mat33()
        V = wp.mat33()
        wp.svd3(a, U, out[0], V)

    with pytest.raises(wp.KernelTypeError, match=r"output argument 2 of svd3\(\) must be a local variable, got "
                                                 r"'out\[0\]'"):
        wp.launch(element, dim=1, inputs=[wp.mat33(), out])
    assert out.numpy().tolist() == [[0.0, 0.0, 0.0]]

    @wp.kernel
    def not_square(a: wp.mat22, out: wp.array(dtype=wp.vec3)):
        U, sigma, V = wp.svd3(a)

    with pytest.raises(wp.KernelTypeError, match=r"svd3\(\): needs a 3x3 floating-point matrix, got mat22f"):
        wp.launch(not_square, dim=1, inputs=[wp.mat22(), out])

    with pytest.raises(TypeError, match="needs a 3x3 matrix"):
        wp.svd3(wp.mat22())


def test_decomposition_header_only_where_used():
    from brickwork.targets.cpu.unit import UnitScan

    @wp.kernel
    def plain(a: wp.array(dtype=float)):
        a[0] = 1.0

    @wp.kernel
    def uses(a: wp.array(dtype=wp.mat33)):
        Q, R = wp.qr3(a[0])
        a[0] = Q

    from brickwork.pipeline import type_instance
    from brickwork.types.arrays import array

    plain_ir, _ = type_instance(plain, [array(dtype=wp.float32)], "plain")
    uses_ir, _ = type_instance(uses, [array(dtype=wp.mat33)], "uses")
    assert UnitScan([plain_ir]).includes == []
    assert UnitScan([uses_ir]).includes == ['#include "brickwork_decompositions.h"']
