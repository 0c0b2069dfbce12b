"""Volumes on a real CUDA device against the same kernels on the CPU (marker ``cuda_device``: skipped without a GPU;
``scripts/gpu_check.sh`` runs them on a machine with one): sampling, gradients, lookups, stores, index grids and a
rebuild, each compared with the CPU's results (float values to a tolerance: the GPU fuses multiply-adds)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.jit import nvrtc

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

DEV = "cuda:0"
rng = np.random.default_rng(11)
DATA = rng.uniform(-1, 1, (20, 17, 12)).astype(np.float32)
POINTS = np.concatenate([rng.uniform(-2, 22, (500, 3)), [[8, 8, 8], [15.5, 2, 2], [-0.5, 3, 3]]]).astype(np.float32)


@wp.kernel
def sample(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), lin: wp.array(dtype=float), near: wp.array(dtype=float),
           grads: wp.array(dtype=wp.vec3), world: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    p = pts[t]
    lin[t] = wp.volume_sample_f(vid, p, wp.Volume.LINEAR)
    near[t] = wp.volume_sample_f(vid, p, wp.Volume.CLOSEST)
    g = wp.vec3(0.0)
    wp.volume_sample_grad_f(vid, p, wp.Volume.LINEAR, g)
    grads[t] = g
    world[t] = wp.volume_index_to_world(vid, p)


@wp.kernel
def store_then_lookup(vid: wp.uint64, out: wp.array(dtype=float)):
    i, j, k = wp.tid()
    wp.volume_store_f(vid, i, j, k, float(i * 100 + j * 10 + k))
    out[0] = 0.0


@wp.kernel
def lookup(vid: wp.uint64, out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    out[i, j, k] = wp.volume_lookup_f(vid, i, j, k)


@wp.kernel
def sample_index(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
                 out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.volume_sample_index(vid, pts[t], wp.Volume.LINEAR, data, -3.0)


@wp.kernel
def loss_of_samples(vid: wp.uint64, pts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    t = wp.tid()
    wp.atomic_add(loss, 0, wp.volume_sample_f(vid, pts[t], wp.Volume.LINEAR))


def on(device):
    volume = wp.Volume.load_from_numpy(DATA, min_world=(0.5, -1.0, 2.0), voxel_size=0.25, bg_value=-2.0,
                                       device=device)
    n = len(POINTS)
    outs = [wp.zeros(n, dtype=float, device=device), wp.zeros(n, dtype=float, device=device),
            wp.zeros(n, dtype=wp.vec3, device=device), wp.zeros(n, dtype=wp.vec3, device=device)]
    wp.launch(sample, dim=n, inputs=[volume.id, wp.array(POINTS, dtype=wp.vec3, device=device), *outs],
              device=device)
    return volume, [o.numpy() for o in outs]


def test_the_grid_on_the_device_is_the_cpus_byte_for_byte_and_samples_as_it():
    cpu_volume, cpu = on("cpu")
    gpu_volume, gpu = on(DEV)
    np.testing.assert_array_equal(gpu_volume.array().numpy(), cpu_volume.array().numpy())
    np.testing.assert_array_equal(gpu[1], cpu[1])  # CLOSEST: no arithmetic on the values
    for a, b in zip(gpu, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(gpu_volume.get_voxels().numpy(), cpu_volume.get_voxels().numpy())


def test_stores_on_the_device_are_read_back_by_lookups():
    def run(device):
        volume = wp.Volume.allocate((0, 0, 0), (15, 15, 15), voxel_size=1.0, bg_value=0.0, device=device)
        wp.launch(store_then_lookup, dim=(16, 16, 16), inputs=[volume.id, wp.zeros(1, device=device)],
                  device=device)
        out = wp.zeros((16, 16, 16), dtype=float, device=device)
        wp.launch(lookup, dim=(16, 16, 16), inputs=[volume.id, out], device=device)
        return out.numpy()
    i, j, k = np.indices((16, 16, 16))
    np.testing.assert_array_equal(run(DEV), (i * 100 + j * 10 + k).astype(np.float32))
    np.testing.assert_array_equal(run(DEV), run("cpu"))


def test_index_grids_and_gradients_equal_the_cpus():
    tiles = np.array([[0, 0, 0], [8, 0, 0], [8, 8, 8]], dtype=np.int32)

    def run(device):
        volume = wp.Volume.allocate_by_tiles(wp.array(tiles, dtype=wp.int32, device=device), voxel_size=1.0,
                                             bg_value=None, device=device)
        n = volume.get_voxel_count()
        data = wp.array(np.sin(np.arange(n, dtype=np.float32)), dtype=float, device=device)
        pts = wp.array(POINTS * 0.8, dtype=wp.vec3, device=device)
        out = wp.zeros(len(POINTS), dtype=float, device=device)
        wp.launch(sample_index, dim=len(POINTS), inputs=[volume.id, pts, data, out], device=device)
        dense = wp.Volume.load_from_numpy(DATA, bg_value=0.5, device=device)
        pts = wp.array(POINTS, dtype=wp.vec3, device=device, requires_grad=True)
        loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(loss_of_samples, dim=len(POINTS), inputs=[dense.id, pts, loss], device=device)
        tape.backward(loss)
        return out.numpy(), pts.grad.numpy(), loss.numpy()
    for a, b in zip(run(DEV), run("cpu")):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)


def test_a_rebuild_on_the_device_gives_the_cpus_topology():
    first = np.array([[0, 0, 0], [16, 0, 0]], dtype=np.int32)
    second = np.array([[0, 8, 0], [24, 24, 24], [0, 0, 0]], dtype=np.int32)

    def run(device):
        volume = wp.Volume.allocate_by_tiles(wp.array(first, dtype=wp.int32, device=device), voxel_size=1.0,
                                             bg_value=1.5, device=device, rebuildable=True, max_tiles=8)
        address = volume.id
        volume.rebuild(wp.array(second, dtype=wp.int32, device=device))
        assert volume.id == address
        return volume.get_tiles().numpy()
    np.testing.assert_array_equal(run(DEV), run("cpu"))
