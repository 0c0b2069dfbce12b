"""Volume builtins against numpy: trilinear values and gradients on dense data loaded with
``Volume.load_from_numpy``, nearest-voxel sampling, the background outside the active region, stores,
the generic ``dtype=`` forms, gradients through a Tape, and the CUDA compile of the sampling kernels."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

rng = np.random.default_rng(5)
DATA = rng.uniform(-1, 1, (12, 10, 9)).astype(np.float32)  # padded to 16 x 16 x 16 (two tiles a side)
BG = -7.0


def _trilinear(data, bg, p):
    """numpy's trilinear value and gradient of the dense data (bg outside) at index-space point p."""
    def at(i, j, k):
        inside = 0 <= i < data.shape[0] and 0 <= j < data.shape[1] and 0 <= k < data.shape[2]
        return float(data[i, j, k]) if inside else bg

    base = np.floor(p).astype(int)
    f = p - base
    value, grad = 0.0, np.zeros(3)
    for o in np.ndindex(2, 2, 2):
        w = [f[a] if o[a] else 1 - f[a] for a in range(3)]
        v = at(*(base + o))
        value += w[0] * w[1] * w[2] * v
        for a in range(3):
            dw = np.prod([w[b] for b in range(3) if b != a]) * (1 if o[a] else -1)
            grad[a] += dw * v
    return value, grad


@wp.kernel
def _sample(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), lin: wp.array(dtype=float), near: wp.array(dtype=float),
            grads: wp.array(dtype=wp.vec3), generic: wp.array(dtype=float)):
    t = wp.tid()
    p = pts[t]
    lin[t] = wp.volume_sample_f(vid, p, wp.Volume.LINEAR)
    near[t] = wp.volume_sample_f(vid, p, wp.Volume.CLOSEST)
    g = wp.vec3(0.0)
    v = wp.volume_sample_grad_f(vid, p, wp.Volume.LINEAR, g)
    grads[t] = g
    generic[t] = wp.volume_sample(vid, p, wp.Volume.LINEAR, dtype=float) - v


def _run(volume, points):
    n = len(points)
    outs = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=float)]
    wp.launch(_sample, dim=n, inputs=[volume.id, wp.array(points, dtype=wp.vec3), *outs])
    return [o.numpy() for o in outs]


def _points():
    inside = rng.uniform(0, 11, (40, 3))
    edges = np.array([[7.5, 3.2, 1.1], [8.0, 8.0, 8.0], [15.5, 2, 2], [-0.5, 3.3, 4.4], [11.5, 9.5, 8.5],
                      [15.9, 15.9, 15.9], [16.2, 3, 3], [-3, -3, -3], [40, 1, 1], [2.5, 2.5, 2.5]])
    return np.concatenate([inside, edges]).astype(np.float32)


def test_linear_values_and_gradients_match_numpy_trilinear_inside_at_tile_edges_and_outside():
    volume = wp.Volume.load_from_numpy(DATA, bg_value=BG)
    padded = np.full((16, 16, 16), BG, np.float32)
    padded[:12, :10, :9] = DATA
    pts = _points()
    lin, near, grads, generic = _run(volume, pts)
    for p, value, grad in zip(pts.astype(np.float64), lin, grads):
        want, want_grad = _trilinear(padded, BG, p)
        assert value == pytest.approx(want, abs=2e-5)
        np.testing.assert_allclose(grad, want_grad, atol=5e-5)
    np.testing.assert_array_equal(generic, 0.0)  # volume_sample(dtype=float) is volume_sample_f
    # CLOSEST: round half away from zero, the background off the padded 16^3 block
    for p, value in zip(pts, near):
        ijk = np.sign(p) * np.floor(np.abs(p) + 0.5)
        i, j, k = ijk.astype(int)
        inside = all(0 <= c < 16 for c in (i, j, k))
        assert value == (padded[i, j, k] if inside else BG)


@wp.kernel
def _lookup_store(vid: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=float),
                  out: wp.array(dtype=float)):
    t = wp.tid()
    c = ijk[t]
    wp.volume_store_f(vid, c[0], c[1], c[2], values[t])
    out[t] = wp.volume_lookup(vid, c[0], c[1], c[2], dtype=wp.float32)


def test_stores_change_leaf_voxels_only_and_lookups_read_them_back():
    volume = wp.Volume.load_from_numpy(DATA, bg_value=BG)
    ijk = np.array([[0, 0, 0], [11, 9, 8], [15, 15, 15], [16, 0, 0], [-1, 2, 2]], np.int32)
    values = np.array([1.5, 2.5, 3.5, 4.5, 5.5], np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(_lookup_store, dim=5, inputs=[volume.id, wp.array(ijk, dtype=wp.vec3i), wp.array(values), out])
    # voxels of the allocated tiles take the stores; outside them the background stays
    np.testing.assert_array_equal(out.numpy(), [1.5, 2.5, 3.5, BG, BG])


@wp.kernel
def _sample_loss(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    t = wp.tid()
    q = wp.volume_world_to_index(vid, pts[t])
    wp.atomic_add(loss, 0, wp.volume_sample_f(vid, q, wp.Volume.LINEAR))


def test_tape_gives_the_world_space_gradient_of_linear_sampling():
    vs, origin = (0.5, 0.25, 2.0), (1.0, -2.0, 0.5)
    volume = wp.Volume.load_from_numpy(DATA, min_world=origin, voxel_size=vs, bg_value=BG)
    index_points = rng.uniform(1, 8, (6, 3))
    world = (index_points * vs + origin).astype(np.float32)
    pts = wp.array(world, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_sample_loss, dim=6, inputs=[volume.id, pts, loss])
    tape.backward(loss)
    padded = np.full((16, 16, 16), BG, np.float32)
    padded[:12, :10, :9] = DATA
    for p, g in zip(world.astype(np.float64), pts.grad.numpy()):
        _, grad_index = _trilinear(padded, BG, (p - origin) / vs)
        np.testing.assert_allclose(g, grad_index / vs, rtol=1e-4, atol=1e-4)


@wp.kernel
def _grad_loss(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    t = wp.tid()
    g = wp.vec3(0.0)
    v = wp.volume_sample_grad_f(vid, pts[t], wp.Volume.LINEAR, g)
    wp.atomic_add(loss, 0, v + 2.0 * g[0] - g[2])


def test_tape_differentiates_the_sampled_gradient_through_the_mixed_second_derivatives():
    volume = wp.Volume.load_from_numpy(DATA, bg_value=BG)
    padded = np.full((16, 16, 16), BG, np.float32)
    padded[:12, :10, :9] = DATA
    p0 = rng.uniform(1, 8, (5, 3)).astype(np.float32)
    pts = wp.array(p0, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_grad_loss, dim=5, inputs=[volume.id, pts, loss])
    tape.backward(loss)

    def f(p):
        v, g = _trilinear(padded, BG, p)
        return v + 2 * g[0] - g[2]

    h = 1e-4  # inside one cell the function is smooth: central differences in float64
    for p, got in zip(p0.astype(np.float64), pts.grad.numpy()):
        want = [(f(p + h * e) - f(p - h * e)) / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


@wp.kernel
def _zero_id(pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), idx: wp.array(dtype=int)):
    t = wp.tid()
    out[t] = wp.volume_sample_f(wp.uint64(0), pts[t], wp.Volume.LINEAR) + wp.volume_lookup_f(wp.uint64(0), 1, 2, 3)
    idx[t] = wp.volume_lookup_index(wp.uint64(0), 1, 2, 3) + wp.volume_voxel_count(wp.uint64(0))


def test_an_id_of_zero_reads_as_an_empty_grid_instead_of_faulting():
    out, idx = wp.full(2, 9.0, dtype=float), wp.zeros(2, dtype=int)
    wp.launch(_zero_id, dim=2, inputs=[wp.array(np.ones((2, 3), np.float32), dtype=wp.vec3), out, idx])
    np.testing.assert_array_equal(out.numpy(), 0.0)
    np.testing.assert_array_equal(idx.numpy(), -1)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_samples_as_the_cpu_does():
    volume = wp.Volume.load_from_numpy(DATA, bg_value=BG)
    pts = _points()
    on_cpu = _run(volume, pts)
    with config.override(target="cuda-emulation"):
        emulated = _run(volume, pts)
    for a, b in zip(on_cpu, emulated):
        np.testing.assert_array_equal(a, b)


@wp.kernel
def _rotated(vid: wp.uint64, world: wp.array(dtype=wp.vec3), ijk: wp.array(dtype=wp.vec3), near: wp.array(dtype=float),
             back: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    near[t] = wp.volume_sample_f(vid, wp.volume_world_to_index(vid, world[t]), wp.Volume.CLOSEST)
    back[t] = wp.volume_index_to_world(vid, ijk[t])
    dirs[t] = wp.volume_world_to_index_dir(vid, wp.volume_index_to_world_dir(vid, ijk[t]))


def test_a_rotated_anisotropic_transform_maps_points_as_numpy_does():
    from brickwork.runtime.nanovdb.build import build_grid

    c, s = np.cos(0.7), np.sin(0.7)
    m = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]) @ np.diag([0.25, 0.5, 2.0])
    t = np.array([1.0, -2.0, 0.5])
    ijk = np.array([[0, 0, 0], [3, 1, 2], [-5, 7, 9], [20, -3, 1]])
    grid = build_grid(ijk, [1.0, 2.0, 3.0, 4.0], grid_type="float", background=-1.0, transform=m, translation=t)
    v = wp.Volume(wp.array(grid, dtype=wp.uint8))
    world = ijk @ m.T + t + 0.01  # near each voxel's centre in world space
    n = len(ijk)
    near, back, dirs = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    wp.launch(_rotated, dim=n, inputs=[v.id, wp.array(world, dtype=wp.vec3), wp.array(ijk, dtype=wp.vec3), near,
                                       back, dirs])
    np.testing.assert_array_equal(near.numpy(), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(back.numpy(), ijk @ m.T + t, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dirs.numpy(), ijk, atol=1e-4)
    # Warp's voxel size: the world vector of a voxel's diagonal, M (1, 1, 1)
    assert v.get_voxel_size() == pytest.approx(m @ np.ones(3))
