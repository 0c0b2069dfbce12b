"""Vector and matrix features Warp code uses: slices, bool vectors, quat(v, w), norms (l1, l2, Huber,
pseudo-Huber), smooth_normalize, argmin/argmax, get_diag, matrix_from_cols/rows. Expected values were
measured with Warp 1.19 for the same inputs."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def slices(v: wp.vec4, m: wp.mat33, out: wp.array(dtype=float)):
    a = v[1:3]
    b = v[::-1]
    r = m[1:]
    c = m[0, 1:]
    d = m[:, 2]
    e = m[1:, :2]
    out[0] = a[0] + a[1]
    out[1] = b[0]
    out[2] = r[1, 2]
    out[3] = c[1]
    out[4] = d[2]
    out[5] = e[1, 1]
    out[6] = float(len(b))


def test_slices_select_components_like_numpy():
    v, m = np.array([1.0, 2.0, 3.0, 4.0]), np.arange(9.0).reshape(3, 3)
    out = wp.zeros(7, dtype=float)
    wp.launch(slices, dim=1, inputs=[wp.vec4(*v), wp.mat33(*m.ravel()), out])
    expected = [v[1:3].sum(), v[::-1][0], m[1:][1, 2], m[0, 1:][1], m[:, 2][2], m[1:, :2][1, 1], 4.0]
    assert out.numpy().tolist() == expected

    @wp.kernel
    def empty(v: wp.vec4, out: wp.array(dtype=float)):
        out[0] = v[3:1][0]

    # v[3:1] is the empty vector (as in Warp), which has no component 0
    with pytest.raises(wp.KernelTypeError, match="index 0 is out of range for vec0f"):
        wp.launch(empty, dim=1, inputs=[wp.vec4(), out])

    @wp.kernel
    def runtime_bound(v: wp.vec4, n: int, out: wp.array(dtype=float)):
        out[0] = v[0:n][0]

    with pytest.raises(wp.KernelTypeError, match="must be known at compile time"):
        wp.launch(runtime_bound, dim=1, inputs=[wp.vec4(), 2, out])
    assert out.numpy().tolist() == expected


@wp.kernel
def norms(v: wp.vec3, out: wp.array(dtype=float), ou: wp.array(dtype=wp.uint32), om: wp.array(dtype=wp.mat33),
          ov: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), flags: wp.array(dtype=wp.vector(3, bool))):
    out[0] = wp.norm_l1(v)
    out[1] = wp.norm_l2(v)
    out[2] = wp.norm_huber(v)
    out[3] = wp.norm_huber(v, 10.0)
    out[4] = wp.norm_pseudo_huber(v)
    out[5] = wp.norm_pseudo_huber(v, 0.5)
    ov[0] = wp.smooth_normalize(v)
    ov[1] = wp.smooth_normalize(v, 0.5)
    ou[0] = wp.argmin(v)
    ou[1] = wp.argmax(v)
    ou[2] = wp.argmin(wp.vec3(1.0, 0.5, 0.5))  # ties: the first
    om[0] = wp.matrix_from_cols(v, 2.0 * v, 3.0 * v)
    om[1] = wp.matrix_from_rows(v, 2.0 * v, 3.0 * v)
    ov[2] = wp.get_diag(om[0])
    q[0] = wp.quat(v, 4.0)
    flags[0] = wp.vector(v[0] > 0.0, v[1] > 0.0, v[2] > 0.0)


def test_norms_and_helpers_match_warp():
    out, ou = wp.zeros(6, dtype=float), wp.zeros(3, dtype=wp.uint32)
    om, ov, q = wp.zeros(2, dtype=wp.mat33), wp.zeros(3, dtype=wp.vec3), wp.zeros(1, dtype=wp.quat)
    flags = wp.zeros(1, dtype=wp.vector(3, bool))
    wp.launch(norms, dim=1, inputs=[wp.vec3(1.0, -2.0, 0.5), out, ou, om, ov, q, flags])
    assert out.numpy().tolist() == [3.5, 2.291287899017334, 1.791287899017334, 2.625, 2.5, 2.345207929611206]
    assert ou.numpy().tolist() == [1, 0, 1]
    assert om.numpy().tolist() == [[[1.0, 2.0, 3.0], [-2.0, -4.0, -6.0], [0.5, 1.0, 1.5]],
                                   [[1.0, -2.0, 0.5], [2.0, -4.0, 1.0], [3.0, -6.0, 1.5]]]
    assert ov.numpy().tolist() == [[0.4000000059604645, -0.800000011920929, 0.20000000298023224],
                                   [0.42640143632888794, -0.8528028726577759, 0.21320071816444397], [1.0, -4.0, 1.5]]
    assert q.numpy().tolist() == [[1.0, -2.0, 0.5, 4.0]]
    assert flags.numpy().tolist() == [[True, False, True]]
    assert list(+wp.quat(1.0, 2.0, 3.0, 4.0)) == [1.0, 2.0, 3.0, 4.0]


def test_matrix_from_rows_needs_one_vector_type():
    @wp.kernel
    def mixed(out: wp.array(dtype=wp.mat22)):
        out[0] = wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec2d(1.0, 2.0))

    out = wp.zeros(1, dtype=wp.mat22)
    with pytest.raises(wp.KernelTypeError, match=r"matrix_from_rows\(\): needs vectors of one type, got vec2f and "
                                                 r"vec2d"):
        wp.launch(mixed, dim=1, inputs=[out])
    assert out.numpy().tolist() == [[[0, 0], [0, 0]]]


def test_host_slices_are_vectors_and_matrices():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    assert type(v[0:2]) is wp.vec2 and list(v[0:2]) == [1.0, 2.0] and v[1:3] == wp.vec2(2.0, 3.0)
    m = wp.mat33d(*range(9))
    rows = m[1:]
    assert rows._shape == (2, 3) and rows._dtype is wp.float64 and np.asarray(rows).tolist() == [[3, 4, 5], [6, 7, 8]]
    assert type(m[0]) is wp.vec3d
