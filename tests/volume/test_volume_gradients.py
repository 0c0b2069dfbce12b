"""Gradients of the volume builtins through a Tape against central finite differences: an index grid's
``voxel_data`` and background (value and sampled gradient), the index<->world maps under a rotated,
anisotropic transform (the transposed matrix, where Warp 1.19 applies the matrix itself), and the
backward kernels on the GPU mapping."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

VOXELS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1], [5, 5, 5], [1, 0, 1]], np.int32)
POINTS = np.array([[0.3, 0.6, 0.2], [0.9, 0.1, 0.7], [4.6, 5.2, 4.9], [0.0, 0.0, 0.0], [-3.0, 2.0, 9.0]],
                  np.float32)


@wp.kernel
def _value(vid: wp.uint64, mode: int, pts: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
           bg: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.volume_sample_index(vid, pts[t], mode, data, bg[0])


@wp.kernel
def _gradient(vid: wp.uint64, mode: int, pts: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
              bg: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.tid()
    g = wp.vec3()
    wp.volume_sample_grad_index(vid, pts[t], mode, data, bg[0], g)
    out[t] = g[0] + 2.0 * g[1] - g[2]


@wp.kernel
def _vector(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), data: wp.array(dtype=wp.vec3),
            bg: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    v = wp.volume_sample_index(vid, pts[t], wp.Volume.LINEAR, data, bg[0])
    out[t] = v[0] - 3.0 * v[1] + 0.5 * v[2]


def _index_volume():
    return wp.Volume.allocate_by_voxels(wp.array(VOXELS, dtype=wp.vec3i), voxel_size=1.0)


def _tape_and_fd(kernel, volume, data0, bg0, mode=None, h=1e-2):
    extra = [] if mode is None else [mode]
    dtype = float if data0.ndim == 1 else wp.vec3
    pts = wp.array(POINTS, dtype=wp.vec3)

    def total(d, b):
        out = wp.zeros(len(POINTS), dtype=float)
        wp.launch(kernel, dim=len(POINTS), inputs=[volume.id, *extra, pts, wp.array(d, dtype=dtype),
                                                    wp.array(b, dtype=dtype), out])
        return out.numpy().astype(np.float64).sum()

    data = wp.array(data0, dtype=dtype, requires_grad=True)
    bg = wp.array(bg0, dtype=dtype, requires_grad=True)
    out = wp.zeros(len(POINTS), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(POINTS), inputs=[volume.id, *extra, pts, data, bg, out])
    out.grad.fill_(1.0)
    tape.backward()
    fd_data = np.zeros(data0.shape)
    for idx in np.ndindex(*data0.shape):
        e = np.zeros(data0.shape, np.float32)
        e[idx] = h
        fd_data[idx] = (total(data0 + e, bg0) - total(data0 - e, bg0)) / (2 * h)
    fd_bg = np.zeros(bg0.shape)
    for idx in np.ndindex(*bg0.shape):
        e = np.zeros(bg0.shape, np.float32)
        e[idx] = h
        fd_bg[idx] = (total(data0, bg0 + e) - total(data0, bg0 - e)) / (2 * h)
    return data.grad.numpy(), fd_data, bg.grad.numpy(), fd_bg


@pytest.mark.parametrize("kernel, mode", [(_value, wp.Volume.LINEAR), (_value, wp.Volume.CLOSEST),
                                          (_gradient, wp.Volume.LINEAR)])
def test_voxel_data_and_background_gradients_match_finite_differences(kernel, mode):
    v = _index_volume()
    data0 = np.random.default_rng(1).uniform(-1, 1, v.get_voxel_count()).astype(np.float32)
    got, fd, got_bg, fd_bg = _tape_and_fd(kernel, v, data0, np.array([0.7], np.float32), mode)
    np.testing.assert_allclose(got, fd, atol=2e-3)
    np.testing.assert_allclose(got_bg, fd_bg, atol=2e-3)
    assert np.abs(got).sum() > 0.5  # the points reach several voxels


def test_vector_voxel_data_gradients_match_finite_differences():
    v = _index_volume()
    data0 = np.random.default_rng(2).uniform(-1, 1, (v.get_voxel_count(), 3)).astype(np.float32)
    got, fd, got_bg, fd_bg = _tape_and_fd(_vector, v, data0, np.array([[0.1, -0.2, 0.3]], np.float32))
    np.testing.assert_allclose(got, fd, atol=2e-3)
    np.testing.assert_allclose(got_bg, fd_bg, atol=2e-3)


@wp.kernel
def _maps(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    w = wp.vec3(1.0, -2.0, 0.5)
    out[t] = wp.dot(wp.volume_index_to_world(vid, pts[t]), w) + wp.dot(wp.volume_world_to_index(vid, pts[t]), w)


def test_map_gradients_use_the_transposed_matrix_of_a_rotated_transform():
    c, s = np.cos(0.4), np.sin(0.4)
    m = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.diag([0.5, 1.0, 2.0])
    v = wp.Volume.allocate_by_voxels(wp.array(VOXELS, dtype=wp.vec3i), transform=m, translation=(1.0, 2.0, 3.0))
    p0 = POINTS[:2]
    pts = wp.array(p0, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_maps, dim=2, inputs=[v.id, pts, out])
    out.grad.fill_(1.0)
    tape.backward()
    w = np.array([1.0, -2.0, 0.5])
    expected = m.T @ w + np.linalg.inv(m).T @ w  # d/dp of w.(M p + t) + w.(M^-1 (p - t))
    np.testing.assert_allclose(pts.grad.numpy(), [expected, expected], rtol=1e-5, atol=1e-5)

    def total(p):
        o = wp.zeros(2, dtype=float)
        wp.launch(_maps, dim=2, inputs=[v.id, wp.array(p, dtype=wp.vec3), o])
        return o.numpy().astype(np.float64).sum()

    fd = [(total(p0 + 0.05 * np.eye(3)[a]) - total(p0 - 0.05 * np.eye(3)[a])) / 0.2 for a in range(3)]
    np.testing.assert_allclose(fd, expected, rtol=1e-3)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_gives_the_same_data_gradients():
    v = _index_volume()
    data0 = np.random.default_rng(3).uniform(-1, 1, v.get_voxel_count()).astype(np.float32)
    on_cpu = _tape_and_fd(_gradient, v, data0, np.array([0.7], np.float32), wp.Volume.LINEAR)
    with config.override(target="cuda-emulation"):
        emulated = _tape_and_fd(_gradient, v, data0, np.array([0.7], np.float32), wp.Volume.LINEAR)
    np.testing.assert_allclose(on_cpu[0], emulated[0], atol=1e-6)
    np.testing.assert_allclose(on_cpu[2], emulated[2], atol=1e-6)
