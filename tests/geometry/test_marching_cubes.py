"""Marching cubes (``brickwork.geometry.IsoSurfaceMarchingCubes``): the case tables, the extraction against Warp
1.19's outputs and against a sphere's geometry, gradients, the GPU mapping and the user's errors."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import brickwork.geometry
from brickwork.geometry import marching_cubes_tables as mct
from kernel_files import kernel_module

MC = brickwork.geometry.IsoSurfaceMarchingCubes

# -- the case tables ----------------------------------------------------------------------------------------------


def test_the_tables_have_the_classic_sizes():
    assert len(mct.CORNER_OFFSETS) == 8 and len(mct.EDGE_CORNERS) == 12 and len(mct.EDGE_OFFSETS) == 12
    assert len(mct.CASE_TRIANGLES) == 256 and len(mct.CASE_TRI_START) == 257
    assert mct.CASE_TRI_START[0] == 0 and mct.CASE_TRI_START[-1] == len(mct.TRI_EDGES) == 2460
    assert mct.CASE_TRI_START[1] == 0 and mct.CASE_TRI_START[255] == mct.CASE_TRI_START[256]  # no surface
    assert mct.MAX_CASE_TRIANGLES == 5
    # the first cases as Warp's table has them: corner 0 alone, corner 1 alone, corners 0 and 1
    assert mct.TRI_EDGES[:12] == (0, 8, 3, 0, 1, 9, 1, 8, 3, 9, 8, 1)


def test_each_edge_offset_names_the_edge_between_its_corners():
    for e, (a, b) in enumerate(mct.EDGE_CORNERS):
        dx, dy, dz, axis = mct.EDGE_OFFSETS[e]
        start, end = np.array(mct.CORNER_OFFSETS[a]), np.array(mct.CORNER_OFFSETS[b])
        assert (start == (dx, dy, dz)).all()
        assert (end - start == np.eye(3, dtype=int)[axis]).all()  # one step along a positive axis


def test_each_case_uses_exactly_the_edges_whose_corners_differ():
    for case in range(256):
        inside = [(case >> c) & 1 for c in range(8)]
        crossed = {e for e, (a, b) in enumerate(mct.EDGE_CORNERS) if inside[a] != inside[b]}
        edges = mct.TRI_EDGES[mct.CASE_TRI_START[case]:mct.CASE_TRI_START[case + 1]]
        assert len(edges) % 3 == 0 and set(edges) == crossed, case
        tris = np.array(edges).reshape(-1, 3)
        assert (tris[:, 0] != tris[:, 1]).all() and (tris[:, 1] != tris[:, 2]).all() and (tris[:, 0] != tris[:, 2]).all()


def test_device_tables_are_int32_arrays_made_once_per_device():
    tables = mct.device_tables("cpu")
    assert tables is mct.device_tables("cpu") is mct.device_tables()
    assert tables.case_tri_start.dtype == wp.int32 and tables.edge_offsets.shape == (12, 4)
    assert tables.tri_edges.numpy().tolist() == list(mct.TRI_EDGES)
    assert tables.corner_offsets.numpy().tolist() == [list(c) for c in mct.CORNER_OFFSETS]
    assert tables.edge_corners.numpy().tolist() == [list(e) for e in mct.EDGE_CORNERS]
    fresh = mct.numpy_tables()
    fresh.tri_edges[0] = 99  # a copy: the module's tables stay as they are
    assert mct.numpy_tables().tri_edges[0] == 0


# -- a reference in numpy ------------------------------------------------------------------------------------------


def reference(field: np.ndarray, threshold: float, lower=(0.0, 0.0, 0.0), upper=None):
    """``(verts, indices)`` of marching cubes in float64 loops: a vertex per crossed grid edge in the order of the
    edges (node by node, then x, y, z), each cell's triangles from the table in the order of the cells."""
    shape = field.shape
    lower = np.array(lower, dtype=np.float64)
    upper = np.array([n - 1.0 for n in shape]) if upper is None else np.array(upper, dtype=np.float64)
    delta = (upper - lower) / (np.array(shape) - 1.0)
    f = field.astype(np.float64)
    thr = float(threshold)
    vertex_of, verts = {}, []
    for node in np.ndindex(*shape):
        for axis in range(3):
            other = tuple(n + (d == axis) for d, n in enumerate(node))
            if other[axis] >= shape[axis]:
                continue
            a, b = f[node], f[other]
            if (a >= thr) != (b >= thr):
                t = min(max((thr - a) / (b - a), 0.0), 1.0)
                vertex_of[(*node, axis)] = len(verts)
                verts.append(lower + delta * (np.array(node) * (1 - t) + np.array(other) * t))
    indices = []
    for cell in np.ndindex(*(n - 1 for n in shape)):
        case = sum(1 << c for c, off in enumerate(mct.CORNER_OFFSETS)
                   if f[tuple(np.add(cell, off))] >= thr)
        for e in mct.TRI_EDGES[mct.CASE_TRI_START[case]:mct.CASE_TRI_START[case + 1]]:
            dx, dy, dz, axis = mct.EDGE_OFFSETS[e]
            indices.append(vertex_of[(cell[0] + dx, cell[1] + dy, cell[2] + dz, axis)])
    return np.array(verts, dtype=np.float64).reshape(-1, 3), np.array(indices, dtype=np.int32)


def extract(field: np.ndarray, threshold=0.0, **bounds):
    verts, indices = MC.extract(wp.array(field, dtype=wp.float32), threshold, **bounds)
    return verts.numpy(), indices.numpy()


def sphere_sdf(n: int, radius: float, center=None) -> np.ndarray:
    """A sphere's signed distance (negative inside) at the nodes (i, j, k) of an n^3 grid."""
    center = np.full(3, (n - 1) / 2.0) if center is None else np.asarray(center)
    i, j, k = np.meshgrid(*(np.arange(n, dtype=np.float64),) * 3, indexing="ij")
    return (np.sqrt((i - center[0]) ** 2 + (j - center[1]) ** 2 + (k - center[2]) ** 2) - radius).astype(np.float32)


# -- Warp 1.19's outputs -----------------------------------------------------------------------------------------------


def ramp() -> np.ndarray:
    """Integer values -2..2 on a 3 x 3 x 2 grid: several cases, and nodes exactly at threshold 0."""
    i, j, k = np.meshgrid(np.arange(3), np.arange(3), np.arange(2), indexing="ij")
    return (((7 * i + 5 * j + 3 * k) % 5) - 2.0).astype(np.float32)


def ellipsoid() -> np.ndarray:
    x = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    return (np.sqrt(X * X + 2 * Y * Y + Z * Z) - 0.9).astype(np.float32)


WARP = {  # (field, threshold, bounds) -> Warp 1.19's (verts, indices)
    "ramp at 0": (ramp, 0.0, {}, [
        (1.0, 0.0, 0.0), (0.0, 0.0, 0.6666667), (0.33333334, 0.0, 1.0), (1.0, 1.0, 0.0), (0.0, 1.0, 0.6666667),
        (0.33333334, 1.0, 1.0), (1.0, 2.0, 0.0), (0.0, 2.0, 0.6666667), (0.33333334, 2.0, 1.0), (1.0, 0.0, 0.0),
        (2.0, 0.0, 1.0), (1.0, 1.0, 0.0), (2.0, 1.0, 1.0), (1.0, 2.0, 0.0), (2.0, 2.0, 1.0)],
        [2, 4, 1, 2, 5, 4, 0, 3, 9, 3, 11, 9, 5, 7, 4, 5, 8, 7, 3, 6, 11, 6, 13, 11, 12, 10, 9, 11, 12, 9, 14, 12,
         11, 13, 14, 11]),
    "ramp at 0.5": (ramp, 0.5, {}, [
        (0.0, 0.0, 0.8333333), (0.16666667, 0.0, 1.0), (0.0, 1.0, 0.8333333), (0.16666667, 1.0, 1.0),
        (0.0, 2.0, 0.8333333), (0.16666667, 2.0, 1.0), (1.25, 0.0, 0.0), (1.25, 1.0, 0.0), (1.25, 2.0, 0.0),
        (2.0, 0.0, 0.75), (2.0, 1.0, 0.75), (2.0, 2.0, 0.75)],
        [3, 0, 1, 2, 0, 3, 5, 2, 3, 4, 2, 5, 9, 7, 10, 6, 7, 9, 10, 8, 11, 7, 8, 10]),
    "ellipsoid in [-1, 1]^3": (ellipsoid, 0.0, {"lower": (-1.0, -1.0, -1.0), "upper": (1.0, 1.0, 1.0)}, [
        (-0.65207255, -0.3333333, -0.3333333), (-0.65207255, -0.3333333, 0.33333337),
        (-0.65207255, 0.33333337, -0.3333333), (-0.65207255, 0.33333337, 0.33333337),
        (-0.3333333, -0.5221039, -0.3333333), (-0.3333333, -0.5221039, 0.33333337),
        (-0.3333333, -0.3333333, -0.65207255), (-0.3333333, -0.3333333, 0.65207255),
        (-0.3333333, 0.33333337, -0.65207255), (-0.3333333, 0.52210397, -0.3333333),
        (-0.3333333, 0.52210397, 0.33333337), (-0.3333333, 0.33333337, 0.65207255),
        (0.33333337, -0.5221039, -0.3333333), (0.33333337, -0.5221039, 0.33333337),
        (0.33333337, -0.3333333, -0.65207255), (0.65207255, -0.3333333, -0.3333333),
        (0.65207255, -0.3333333, 0.33333337), (0.33333337, -0.3333333, 0.65207255),
        (0.33333337, 0.33333337, -0.65207255), (0.65207255, 0.33333337, -0.3333333),
        (0.33333337, 0.52210397, -0.3333333), (0.65207255, 0.33333337, 0.33333337),
        (0.33333337, 0.52210397, 0.33333337), (0.33333337, 0.33333337, 0.65207255)],
        [6, 4, 0, 4, 5, 1, 0, 4, 1, 5, 7, 1, 8, 6, 0, 2, 8, 0, 0, 1, 2, 1, 3, 2, 7, 11, 3, 1, 7, 3, 8, 2, 9, 2, 3,
         10, 9, 2, 10, 3, 11, 10, 6, 14, 12, 4, 6, 12, 12, 13, 4, 4, 13, 5, 5, 13, 17, 7, 5, 17, 14, 6, 18, 18, 6, 8,
         17, 23, 7, 23, 11, 7, 18, 8, 9, 20, 18, 9, 20, 9, 22, 9, 10, 22, 22, 10, 11, 23, 22, 11, 12, 14, 15, 13, 12,
         15, 16, 13, 15, 13, 16, 17, 19, 15, 14, 18, 19, 14, 15, 19, 16, 16, 19, 21, 16, 21, 23, 17, 16, 23, 19, 18,
         20, 21, 19, 20, 22, 21, 20, 21, 22, 23]),
}


@pytest.mark.parametrize("name", list(WARP))
def test_the_output_is_warps(name):
    make, threshold, bounds, want_verts, want_indices = WARP[name]
    verts, indices = extract(make(), threshold, **bounds)
    assert indices.tolist() == want_indices
    np.testing.assert_allclose(verts, np.array(want_verts, dtype=np.float32), rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", range(256))
def test_every_case_of_one_cell(case):
    # corner c at 1 (at or above 0.5) when bit c is set, else 0: the case's triangles, on the cell's edge midpoints
    field = np.zeros((2, 2, 2), dtype=np.float32)
    for c, off in enumerate(mct.CORNER_OFFSETS):
        field[off] = (case >> c) & 1
    verts, indices = extract(field, 0.5)
    want_verts, want_indices = reference(field, 0.5)
    assert indices.tolist() == want_indices.tolist()
    np.testing.assert_array_equal(verts, want_verts.astype(np.float32))
    assert len(indices) == 3 * (mct.CASE_TRI_START[case + 1] - mct.CASE_TRI_START[case]) // 3


@pytest.mark.parametrize("shape", [(2, 2, 2), (4, 3, 5), (6, 6, 6), (7, 2, 3)])
def test_random_fields_match_the_reference(shape):
    rng = np.random.default_rng(sum(shape))
    field = rng.standard_normal(shape).astype(np.float32)
    field[rng.random(shape) < 0.1] = 0.25  # ties: a node exactly at the threshold counts as above
    lower, upper = (-1.0, 2.0, 0.5), (3.0, 2.5, 4.0)
    verts, indices = extract(field, 0.25, lower=lower, upper=upper)
    want_verts, want_indices = reference(field, 0.25, lower, upper)
    assert indices.dtype == np.int32 and indices.tolist() == want_indices.tolist()
    np.testing.assert_allclose(verts, want_verts, rtol=1e-6, atol=1e-6)


# -- a sphere's geometry -------------------------------------------------------------------------------------------


def mesh_measures(verts: np.ndarray, indices: np.ndarray):
    """(enclosed volume by the divergence theorem, area) of a triangle mesh, in float64."""
    p = verts.astype(np.float64)[indices.reshape(-1, 3)]
    cross = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    return np.einsum("ij,ij->", p[:, 0], cross) / 6.0, 0.5 * np.linalg.norm(cross, axis=1).sum()


def test_a_spheres_surface_is_closed_outward_and_measures_as_the_sphere():
    n, radius = 24, 8.0
    verts, indices = extract(sphere_sdf(n, radius))
    tris = indices.reshape(-1, 3)
    assert len(tris) > 0 and (tris[:, 0] != tris[:, 1]).all() and (tris[:, 1] != tris[:, 2]).all()
    assert np.unique(tris).tolist() == list(range(len(verts)))  # every vertex used
    # closed and consistently wound: each directed edge once, its reverse in exactly one other triangle
    directed = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    assert len({tuple(e) for e in directed.tolist()}) == len(directed)
    assert {tuple(e) for e in directed.tolist()} == {tuple(e) for e in directed[:, ::-1].tolist()}
    # on the sphere within the linear interpolation's error (a small fraction of a cell)
    distance = np.linalg.norm(verts - (n - 1) / 2.0, axis=1)
    assert np.abs(distance - radius).max() < 0.05
    volume, area = mesh_measures(verts, indices)
    assert volume > 0  # outward faces
    assert abs(volume - 4 / 3 * np.pi * radius**3) < 0.01 * 4 / 3 * np.pi * radius**3
    assert abs(area - 4 * np.pi * radius**2) < 0.02 * 4 * np.pi * radius**2


def test_bounds_scale_the_vertices_and_keep_the_triangles():
    field = sphere_sdf(10, 3.0)
    verts, indices = extract(field)
    lower, upper = np.array([-1.0, 0.0, 2.0]), np.array([1.0, 4.5, 2.9])
    scaled, scaled_indices = extract(field, lower=wp.vec3(*lower), upper=tuple(upper))
    assert scaled_indices.tolist() == indices.tolist()
    np.testing.assert_allclose(scaled, lower + verts * (upper - lower) / 9.0, rtol=1e-5, atol=1e-5)
    # upper defaults to the last node's index, (9, 9, 9), whatever lower is
    only_lower, _ = extract(field, lower=(1.0, 1.0, 1.0))
    np.testing.assert_allclose(only_lower, 1.0 + verts * 8.0 / 9.0, rtol=1e-5)


def test_an_instance_is_reused_after_resize():
    iso = MC(8, 8, 8, lower=(0.0, 0.0, 0.0), upper=(1.0, 1.0, 1.0))
    iso.surface(wp.array(sphere_sdf(8, 2.5)), 0.0)
    small = iso.verts.numpy()
    assert iso.indices.dtype == wp.int32 and iso.verts.dtype == wp.vec3 and len(small) > 0
    assert small.min() >= 0.0 and small.max() <= 1.0
    iso.resize(12, 12, 12)
    with pytest.raises(ValueError, match=r"Field shape \(8, 8, 8\) does not match context grid dimensions"):
        iso.surface(wp.array(sphere_sdf(8, 2.5)), 0.0)
    field = sphere_sdf(12, 4.0)
    iso.surface(wp.array(field), 0.0)
    want_verts, want_indices = reference(field, 0.0, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert iso.indices.numpy().tolist() == want_indices.tolist()
    np.testing.assert_allclose(iso.verts.numpy(), want_verts, rtol=1e-5, atol=1e-6)


def test_no_crossing_gives_empty_arrays():
    field = wp.array(sphere_sdf(6, 2.0))
    verts, indices = MC.extract(field, threshold=1000.0)
    assert verts.shape == (0,) and indices.shape == (0,)
    assert verts.dtype == wp.vec3 and indices.dtype == wp.int32
    assert verts.device == field.device and not verts.requires_grad
    iso = MC(6, 6, 6)
    iso.surface(field, -1000.0)
    assert iso.verts.shape == (0,) and iso.indices.shape == (0,)


# -- gradients -----------------------------------------------------------------------------------------------------


def test_vertex_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    field_np = sphere_sdf(6, 1.7) + 0.05 * rng.standard_normal((6, 6, 6)).astype(np.float32)
    lower, upper = (-1.0, -1.0, -1.0), (1.0, 2.0, 1.5)
    weights_np = None
    field = wp.array(field_np, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, indices = MC.extract(field, 0.1, lower=lower, upper=upper)
    assert verts.requires_grad and not indices.requires_grad
    weights_np = rng.standard_normal((len(verts), 3)).astype(np.float32)
    verts.grad = wp.array(weights_np, dtype=wp.vec3)
    tape.backward()
    got = field.grad.numpy()

    def loss(f):  # the weighted sum of the vertex positions, in float64
        return float((reference(f, 0.1, lower, upper)[0] * weights_np).sum())

    want = np.zeros(field_np.shape)
    f64 = field_np.astype(np.float64)
    eps = 1e-6
    for node in np.ndindex(*field_np.shape):
        plus, minus = f64.copy(), f64.copy()
        plus[node] += eps
        minus[node] -= eps
        want[node] = (loss(plus) - loss(minus)) / (2 * eps)
    assert np.abs(want).max() > 0.1  # the test sees gradients
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


def test_gradients_flow_from_a_generating_kernel_through_the_tape(tmp_path):
    # d(area)/d(radius) of a sphere is 8 pi r: the area of the extracted mesh is a kernel's atomic sum
    module, _ = kernel_module(tmp_path, '''
@wp.kernel
def sphere(field: wp.array3d(dtype=float), radius: wp.array(dtype=float), h: float):
    i, j, k = wp.tid()
    p = wp.vec3(float(i) * h - 1.0, float(j) * h - 1.0, float(k) * h - 1.0)
    field[i, j, k] = wp.length(p) - radius[0]


@wp.kernel
def area(verts: wp.array(dtype=wp.vec3), indices: wp.array(dtype=int), total: wp.array(dtype=float)):
    t = wp.tid()
    a = verts[indices[3 * t]]
    b = verts[indices[3 * t + 1]]
    c = verts[indices[3 * t + 2]]
    wp.atomic_add(total, 0, 0.5 * wp.length(wp.cross(b - a, c - a)))
''')
    n, r = 40, 0.5
    radius = wp.array([r], dtype=float, requires_grad=True)
    field = wp.zeros((n, n, n), dtype=float, requires_grad=True)
    total = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(module.sphere, dim=field.shape, inputs=[field, radius, 2.0 / (n - 1)])
        verts, indices = MC.extract(field, 0.0, lower=(-1.0, -1.0, -1.0), upper=(1.0, 1.0, 1.0))
        wp.launch(module.area, dim=len(indices) // 3, inputs=[verts, indices, total])
    assert abs(total.numpy()[0] - 4 * np.pi * r * r) < 0.02
    tape.backward(total)
    assert abs(radius.grad.numpy()[0] - 8 * np.pi * r) < 0.05


# -- the GPU mapping -----------------------------------------------------------------------------------------------


@pytest.mark.compiles_for_cuda
def test_the_emulated_gpu_gives_the_cpus_mesh_and_gradients():
    from brickwork import config

    rng = np.random.default_rng(2)
    field_np = sphere_sdf(9, 3.0) + 0.1 * rng.standard_normal((9, 9, 9)).astype(np.float32)
    cpu_verts, cpu_indices = extract(field_np, 0.0, lower=(0.0, 0.0, 0.0), upper=(2.0, 2.0, 2.0))
    seed = rng.standard_normal(cpu_verts.shape).astype(np.float32)

    def gradient():
        field = wp.array(field_np, dtype=wp.float32, requires_grad=True)
        with wp.Tape() as tape:
            verts, indices = MC.extract(field, 0.0, lower=(0.0, 0.0, 0.0), upper=(2.0, 2.0, 2.0))
        verts.grad = wp.array(seed, dtype=wp.vec3)
        tape.backward()
        return verts.numpy(), indices.numpy(), field.grad.numpy()

    cpu = gradient()
    with config.override(target="cuda-emulation"):
        emulated = gradient()
        empty_verts, empty_indices = MC.extract(wp.array(field_np), 100.0)
    assert emulated[1].tolist() == cpu[1].tolist() == cpu_indices.tolist()
    np.testing.assert_allclose(emulated[0], cpu[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(emulated[2], cpu[2], rtol=1e-5, atol=1e-5)
    assert empty_verts.shape == (0,) and empty_indices.shape == (0,)


# -- the user's errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4, 4), (3, 3, 3, 3), (1, 4, 4), (4, 4, 1), (0, 4, 4)])
def test_fields_that_are_not_3d_grids_of_cells_are_refused(shape):
    field = wp.zeros(shape, dtype=wp.float32)
    message = "Expected a 3D array" if len(shape) != 3 else "at least 2 nodes on each axis"
    with pytest.raises(ValueError, match=message):
        MC.extract(field)
    iso = MC(*(tuple(shape) + (2, 2, 2))[:3])
    with pytest.raises(ValueError, match=message):
        iso.surface(field, 0.0)
    assert iso.verts is None and iso.indices is None


@pytest.mark.parametrize("dtype", [wp.float64, wp.int32, wp.float16])
def test_other_dtypes_are_refused(dtype):
    with pytest.raises(TypeError, match="Expected a dtype of wp.float32 for 'field'"):
        MC.extract(wp.zeros((3, 3, 3), dtype=dtype))


def test_a_numpy_field_is_refused():
    with pytest.raises(TypeError, match="Expected a float32 array for 'field', but got ndarray"):
        MC.extract(np.zeros((3, 3, 3), dtype=np.float32))


def test_a_field_of_another_shape_leaves_the_last_surface():
    iso = MC(5, 5, 5)
    iso.surface(wp.array(sphere_sdf(5, 1.5)), 0.0)
    verts, indices = iso.verts, iso.indices
    before = verts.numpy().copy()
    with pytest.raises(ValueError, match=r"Field shape \(5, 5, 6\) does not match context grid dimensions "
                                         r"\(5, 5, 5\)"):
        iso.surface(wp.zeros((5, 5, 6), dtype=wp.float32), 0.0)
    assert iso.verts is verts and iso.indices is indices
    np.testing.assert_array_equal(iso.verts.numpy(), before)


@pytest.mark.parametrize("bound", [(1.0, 2.0), (1.0, 2.0, 3.0, 4.0), "abc", (1.0, "x", 2.0), 3.0])
def test_bounds_that_are_not_three_numbers_are_refused(bound):
    field = wp.zeros((3, 3, 3), dtype=wp.float32)
    for name in ("lower", "upper"):
        with pytest.raises(ValueError, match=f"Expected '{name}' to be a vec3 or a sequence of 3 numbers"):
            MC.extract(field, **{name: bound})
        with pytest.raises(ValueError, match=f"Expected '{name}' to be a vec3 or a sequence of 3 numbers"):
            MC(3, 3, 3, **{name: bound})
    iso = MC(3, 3, 3, lower=(1.0, 1.0, 1.0))
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="'domain_bounds_lower_corner'"):
        iso.domain_bounds_lower_corner = bound
    assert iso.lower == (1.0, 1.0, 1.0)


# -- Warp's deprecated names ---------------------------------------------------------------------------------------


def test_the_deprecated_bound_names_warn_and_forward():
    with pytest.warns(DeprecationWarning, match="argument `domain_bounds_lower_corner` is deprecated .* Use `lower`") \
            as record:
        iso = MC(8, 8, 8, domain_bounds_lower_corner=(-1.0, -2.0, -3.0))
    assert record[0].filename == __file__  # the warning names the caller's line, as Warp's
    assert iso.lower == (-1.0, -2.0, -3.0) and iso.upper is None
    with pytest.warns(DeprecationWarning, match="argument `domain_bounds_upper_corner` is deprecated .* Use `upper`"):
        iso = MC(8, 8, 8, lower=(0.0, 0.0, 0.0), domain_bounds_upper_corner=None)  # an explicit None warns too
    assert iso.upper is None
    with pytest.warns(DeprecationWarning, match=r"IsoSurfaceMarchingCubes.domain_bounds_upper_corner is deprecated"):
        iso.domain_bounds_upper_corner = (1.0, 2.0, 3.0)
    assert iso.upper == (1.0, 2.0, 3.0)
    with pytest.warns(DeprecationWarning, match=r"IsoSurfaceMarchingCubes.domain_bounds_lower_corner is deprecated"):
        assert iso.domain_bounds_lower_corner == (0.0, 0.0, 0.0)
    for new, old in (("lower", "domain_bounds_lower_corner"), ("upper", "domain_bounds_upper_corner")):
        with pytest.raises(TypeError, match=f"Cannot specify both `{new}` and `{old}`"):
            MC(8, 8, 8, **{new: (0.0, 0.0, 0.0), old: (1.0, 1.0, 1.0)})


def test_the_deprecated_names_of_the_class_and_of_extract():
    field = wp.array(sphere_sdf(7, 2.0))
    with pytest.warns(DeprecationWarning, match="wp.MarchingCubes is deprecated .* Use wp.geometry.IsoSurfaceMar") \
            as record:
        alias = wp.MarchingCubes
    assert record[0].filename == __file__
    assert alias is MC and issubclass(MC, brickwork.geometry.IsoSurfaceBase)
    with pytest.warns(DeprecationWarning, match=r"extract_surface_marching_cubes\(\) is deprecated"):
        verts, indices = MC.extract_surface_marching_cubes(field, 0.0, (1.0, 1.0, 1.0), None)
    want_verts, want_indices = MC.extract(field, 0.0, lower=(1.0, 1.0, 1.0))
    np.testing.assert_array_equal(verts.numpy(), want_verts.numpy())
    np.testing.assert_array_equal(indices.numpy(), want_indices.numpy())
    assert MC.TRI_LOCAL_INDICES is mct.TRI_EDGES and MC.CASE_TO_TRI_RANGE is mct.CASE_TRI_START
    assert MC.CUBE_CORNER_OFFSETS[1] == (1, 0, 0) and MC.EDGE_TO_CORNERS[0] == (0, 1)
