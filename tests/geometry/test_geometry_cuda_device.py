"""brickwork.geometry, the fast winding number and brickwork.utils on a real CUDA device, against the same calls
on the CPU (marker ``cuda_device``: skipped without a GPU; ``scripts/gpu_check.sh`` runs them on a machine with
one). Topology (indices, adjacency, flips, sort orders, counts) must be identical; float results may differ in
the last bits (the GPU's fused multiply-adds, a scan's segment order), so they are compared to a tolerance."""

import numpy as np
import pytest

import brickwork as wp
import brickwork.geometry
from brickwork import cuda_driver, utils
from brickwork.jit import nvrtc

from .test_mesh_points_gradients import _gradients as mesh_points_gradients
from .test_swept_volume import along_x, sphere_points

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

DEV = "cuda:0"


def blob(n: int) -> np.ndarray:
    """A smooth field with a closed level set (two merged spheres), sampled at n^3 nodes."""
    g = np.mgrid[0:n, 0:n, 0:n].astype(np.float64) / (n - 1)
    a = np.sqrt(((g - np.reshape([0.4, 0.45, 0.5], (3, 1, 1, 1))) ** 2).sum(0)) - 0.22
    b = np.sqrt(((g - np.reshape([0.62, 0.55, 0.5], (3, 1, 1, 1))) ** 2).sum(0)) - 0.18
    return np.minimum(a, b).astype(np.float32)


def on_both(f):
    """``f(device)`` on the CPU and on the GPU, each result as numpy."""
    def host(value):
        return tuple(host(v) for v in value) if isinstance(value, tuple) else value.numpy()
    return host(f("cpu")), host(f(DEV))


@pytest.mark.parametrize("extract", ["marching_cubes", "nets_triangles", "nets_quads"])
def test_dense_isosurfaces_equal_the_cpus(extract):
    field = blob(40)
    def run(device):
        f = wp.array(field, dtype=wp.float32, device=device)
        if extract == "marching_cubes":
            return wp.geometry.IsoSurfaceMarchingCubes.extract(f, 0.0)
        return wp.geometry.IsoSurfaceNets.extract(f, 0.0, topology="quad" if extract == "nets_quads" else "triangle")
    (v_cpu, i_cpu), (v_gpu, i_gpu) = on_both(run)
    assert len(i_cpu) > 1000
    np.testing.assert_array_equal(i_gpu, i_cpu)
    np.testing.assert_allclose(v_gpu, v_cpu, atol=1e-5)


def test_marching_cubes_gradients_equal_the_cpus():
    field = blob(24)
    def run(device):
        f = wp.array(field, dtype=wp.float32, device=device, requires_grad=True)
        tape = wp.Tape()
        with tape:
            verts, _ = wp.geometry.IsoSurfaceMarchingCubes.extract(f, 0.0)
        tape.backward(grads={verts: wp.array(np.ones((verts.shape[0], 3), np.float32), dtype=wp.vec3,
                                             device=device)})
        return f.grad
    cpu, gpu = on_both(run)
    assert np.abs(cpu).sum() > 0
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)


@wp.kernel
def _torus(points: wp.array(dtype=wp.vec3), values: wp.array(dtype=wp.float32)):
    i = wp.tid()
    p = points[i]
    q = wp.vec2(wp.length(wp.vec2(p[0], p[2])) - 0.3, p[1])
    values[i] = wp.length(q) - 0.12


def torus(points):
    """The torus's signed distance at ``points``, on their device (sparse marching cubes' batched field)."""
    values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)
    wp.launch(_torus, points.shape[0], inputs=[points, values], device=points.device)
    return values


def test_sparse_marching_cubes_equals_the_cpus():
    def run(device):
        return wp.geometry.sparse_marching_cubes(torus, 65, 65, 65, lower=(-0.5, -0.5, -0.5), upper=(0.5, 0.5, 0.5),
                                                 device=device)
    (v_cpu, i_cpu), (v_gpu, i_gpu) = on_both(run)
    assert len(i_cpu) > 1000
    np.testing.assert_array_equal(i_gpu, i_cpu)
    np.testing.assert_allclose(v_gpu, v_cpu, atol=1e-5)


def test_adjacency_and_delaunay_flips_equal_the_cpus():
    rng = np.random.default_rng(5)
    n = 40
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    pts = np.stack([x.ravel() + 0.35 * y.ravel(), y.ravel()], 1) + rng.normal(0, 2e-3, (n * n, 2))
    quads = np.arange(n * n).reshape(n, n)[:-1, :-1].ravel()
    tris = np.concatenate([np.stack([quads, quads + 1, quads + n + 1], 1), np.stack([quads, quads + n + 1, quads + n], 1)])

    def run(device):
        positions = wp.array(pts.astype(np.float32), dtype=wp.vec2, device=device)
        indices = wp.array(tris.astype(np.int32), dtype=wp.int32, device=device)
        adjacency = wp.geometry.tri_tri_adjacency(indices, n * n)
        flipped = wp.geometry.delaunay_edge_flip(positions, indices)
        return adjacency, indices, flipped
    cpu, gpu = on_both(run)
    for a, b in zip(cpu, gpu):
        if isinstance(a, tuple):
            for x_, y_ in zip(a, b):
                np.testing.assert_array_equal(y_, x_)
        else:
            np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("k", [0, 1])
def test_mesh_points_gradients_equal_the_cpus(k):
    # points moved by a recorded kernel, a refit, a distance from corners read through mesh_get (k = 0: gradients in
    # the moved points' inputs) or from mesh_eval_position (k = 1: none there); the query point's in both
    cpu = mesh_points_gradients(k)
    with wp.ScopedDevice(DEV):
        gpu = mesh_points_gradients(k)
    assert np.abs(cpu[0]).sum() > 0 if k == 0 else not cpu[0].any()
    for got, want in zip(gpu, cpu):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _mesh(pts, tris, device):
    return wp.Mesh(wp.array(pts, dtype=wp.vec3, device=device), wp.array(tris, dtype=wp.int32, device=device),
                   support_winding_number=True)


def test_winding_numbers_and_swept_volumes_equal_the_cpus():
    sphere, box = sphere_points(3, 0.5), sphere_points(1, 0.25)

    @wp.kernel
    def inside(mesh: wp.uint64, q: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.mesh_query_point_sign_winding_number(mesh, q[i], 10.0).sign

    queries = np.random.default_rng(2).uniform(-0.7, 0.7, (20000, 3)).astype(np.float32)
    meshes = []  # alive until the comparisons: a query reads a mesh by its id

    def run(device):
        meshes.extend([_mesh(*sphere, device), _mesh(*box, device)])
        out = wp.zeros(len(queries), dtype=float, device=device)
        wp.launch(inside, len(queries), inputs=[meshes[-2].id, wp.array(queries, dtype=wp.vec3, device=device), out],
                  device=device)
        field, _, _ = wp.geometry.swept_volume_field([meshes[-1]], along_x(-0.3, 0.3, 5), 0.05, device=device)
        return out, field
    (s_cpu, f_cpu), (s_gpu, f_gpu) = on_both(run)
    r = np.linalg.norm(queries, axis=1)
    clear = np.abs(r - 0.5) > 0.02
    np.testing.assert_array_equal(s_gpu, s_cpu)
    np.testing.assert_array_equal(s_cpu[clear], np.where(r[clear] < 0.5, -1.0, 1.0))
    np.testing.assert_allclose(f_gpu, f_cpu, atol=1e-5)


@pytest.mark.parametrize("n", [1, 257, 65537, 1_000_000])
def test_utils_equal_the_cpus(n):
    rng = np.random.default_rng(n)
    counts = rng.integers(0, 5, n).astype(np.int32)
    keys = rng.integers(0, 1000, n).astype(np.int32)
    values = rng.standard_normal(n).astype(np.float32)

    def run(device):
        c = wp.array(counts, dtype=wp.int32, device=device)
        scan = wp.empty(n, dtype=wp.int32, device=device)
        utils.array_scan(c, scan, inclusive=False)
        k = wp.array(np.concatenate([keys, keys]), dtype=wp.int32, device=device)
        v = wp.array(np.concatenate([np.arange(n), np.arange(n)]).astype(np.int32), dtype=wp.int32, device=device)
        utils.radix_sort_pairs(k, v, n)
        runs_v, runs_l = (wp.empty(n, dtype=wp.int32, device=device) for _ in range(2))
        count = wp.zeros(1, dtype=wp.int32, device=device)
        utils.runlength_encode(k, runs_v, runs_l, run_count=count, value_count=n)
        total = wp.zeros(1, dtype=wp.float32, device=device)
        utils.array_sum(wp.array(values, dtype=wp.float32, device=device), out=total)
        return scan, k, v, runs_v, runs_l, count, total
    cpu, gpu = on_both(run)
    for a, b in zip(cpu[:6], gpu[:6]):
        np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(cpu[0], np.concatenate([[0], np.cumsum(counts)[:-1]]))
    np.testing.assert_array_equal(cpu[1][:n], np.sort(keys, kind="stable"))
    assert gpu[6].tobytes() == cpu[6].tobytes()  # the same order of summation on both
