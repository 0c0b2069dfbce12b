"""Sparse marching cubes (``brickwork.geometry.sparse_marching_cubes``, ``lipschitz_octree``,
``sparse_marching_cubes_from_cells``): Warp 1.19's outputs, the geometry of spheres and tori, the octree's
economy and completeness, the dense extractor's surface, gradients, the GPU mapping and the user's errors."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
import brickwork.geometry
from brickwork import config

geometry = brickwork.geometry
_spec = importlib.util.spec_from_file_location("sparse_mc_cases", Path(__file__).with_name("data")
                                               / "make_sparse_marching_cubes_expected.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
WARP = np.load(Path(__file__).with_name("data") / "sparse_marching_cubes_warp.npz")
CORNERS = np.array(geometry.IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS, dtype=np.int32)
UNIT_BOX = {"lower": (-1.0, -1.0, -1.0), "upper": (1.0, 1.0, 1.0)}


@wp.kernel(enable_backward=False)
def _sphere_kernel(points: wp.array[wp.vec3], values: wp.array[wp.float32]):
    i = wp.tid()
    values[i] = wp.length(points[i]) - 0.5


@wp.kernel(enable_backward=False)
def _torus_kernel(points: wp.array[wp.vec3], values: wp.array[wp.float32]):
    i = wp.tid()
    p = points[i]
    q = wp.vec2(wp.length(wp.vec2(p[0], p[2])) - 0.5, p[1])
    values[i] = wp.length(q) - 0.2


@wp.kernel
def _sphere_of_radius(points: wp.array[wp.vec3], radius: wp.array[wp.float32], values: wp.array[wp.float32]):
    i = wp.tid()
    values[i] = wp.length(points[i]) - radius[0]


@wp.func
def _sphere_at(p: wp.vec3):
    return wp.length(p) - 0.5


@wp.kernel
def _area(verts: wp.array[wp.vec3], indices: wp.array[wp.int32], area: wp.array[wp.float32]):
    t = wp.tid()
    a = verts[indices[3 * t]]
    wp.atomic_add(area, 0, 0.5 * wp.length(wp.cross(verts[indices[3 * t + 1]] - a, verts[indices[3 * t + 2]] - a)))


def batched(kernel):
    def evaluate(points):
        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)
        wp.launch(kernel, points.shape[0], inputs=[points], outputs=[values], device=points.device)
        return values

    return evaluate


sphere, torus = batched(_sphere_kernel), batched(_torus_kernel)


def mesh(verts, indices):
    return verts.numpy().astype(np.float64), indices.numpy().reshape(-1, 3)


def edge_counts(faces):
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    return np.unique(edges, axis=0, return_counts=True)[1]


def signed_volume(v, f):
    return float(np.einsum("ij,ij->i", v[f[:, 0]], np.cross(v[f[:, 1]], v[f[:, 2]])).sum() / 6.0)


def area(v, f):
    return float(0.5 * np.linalg.norm(np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]), axis=1).sum())


# -- Warp's outputs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(cases.GRIDS))
def test_sparse_marching_cubes_gives_warps_outputs(case):
    name, nx, ny, nz, kwargs = cases.GRIDS[case]
    verts, indices, stats = geometry.sparse_marching_cubes(cases.evaluator(wp, name), nx, ny, nz, return_stats=True,
                                                           **kwargs)
    assert verts.dtype == wp.vec3 and indices.dtype == wp.int32 and indices.ndim == 1
    np.testing.assert_array_equal(indices.numpy(), WARP[f"{case}/indices"])
    np.testing.assert_allclose(verts.numpy(), WARP[f"{case}/verts"], rtol=0, atol=1e-6)
    keys = ("leaf_cells", "unique_corners", "field_evaluations", "resolution", "culled_cells")
    assert [stats[k] for k in keys] == WARP[f"{case}/stats"].tolist()
    assert stats["requested_ncells"] == (nx - 1, ny - 1, nz - 1)


def test_culling_drops_the_padding_cells():
    # the culled case's grid ends inside the sphere: the padded octree found cells past it, which are dropped
    assert WARP["culled/stats"][4] > 0
    name, nx, ny, nz, kwargs = cases.GRIDS["culled"]
    v, _ = mesh(*geometry.sparse_marching_cubes(cases.evaluator(wp, name), nx, ny, nz, **kwargs))
    assert (v <= np.array(kwargs["upper"]) + 1e-6).all() and (v >= np.array(kwargs["lower"]) - 1e-6).all()


def test_lipschitz_octree_gives_warps_cells():
    cells, width = geometry.lipschitz_octree(cases.evaluator(wp, "sphere"), *cases.OCTREE)
    assert cells.dtype == wp.vec3i and isinstance(width, float) and width == float(WARP["octree/width"])
    np.testing.assert_array_equal(cells.numpy(), WARP["octree/cells"])


@pytest.mark.parametrize("case", ["cells", "far"])
def test_explicit_cells_give_warps_outputs_first_cell_values_win(case):
    # "far": two copies thousands of cells apart, whose corner codes need both words of the sort
    cells, values, origin, width, threshold = {"cells": cases.explicit_cells, "far": cases.far_cells}[case]()
    verts, indices = geometry.sparse_marching_cubes_from_cells(cells, values, origin, width, threshold)
    np.testing.assert_array_equal(indices.numpy(), WARP[f"{case}/indices"])
    np.testing.assert_allclose(verts.numpy(), WARP[f"{case}/verts"], rtol=0, atol=1e-5)


def test_the_warp_test_counts_of_the_octree():
    # Warp's own regression counts (its test file): leaves and evaluations of a sphere at depth 5 and 6
    for depth, leaves, evaluations in ((5, 1304, 6275), (6, 5360, 24387)):
        n = (1 << depth) + 1
        _, _, stats = geometry.sparse_marching_cubes(sphere, n, n, n, return_stats=True, **UNIT_BOX)
        assert (stats["leaf_cells"], stats["field_evaluations"], stats["culled_cells"]) == (leaves, evaluations, 0)


# -- geometry ------------------------------------------------------------------------------------------------------


def test_a_sphere_is_a_closed_outward_manifold_on_the_level_set():
    n, r, h = 48, 0.5, 2.0 / 47  # no node on the sphere: few slivers
    v, f = mesh(*geometry.sparse_marching_cubes(sphere, n, n, n, **UNIT_BOX))
    counts = edge_counts(f)
    assert (counts == 2).all()  # every edge between two triangles: closed and manifold
    assert len(v) - len(counts) + len(f) == 2  # Euler characteristic of a sphere
    assert np.unique(f).tolist() == list(range(len(v)))
    # each vertex interpolates along a cell edge: within the chord error of the level set
    assert np.abs(np.linalg.norm(v, axis=1) - r).max() < 0.5 * h * h / r
    np.testing.assert_allclose(signed_volume(v, f), 4.0 / 3.0 * np.pi * r**3, rtol=1e-2)  # positive: outward
    np.testing.assert_allclose(area(v, f), 4.0 * np.pi * r**2, rtol=1e-2)
    centroids = v[f].mean(axis=1)
    normals = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    outward = np.einsum("ij,ij->i", normals, centroids)
    proper = np.linalg.norm(normals, axis=1) > 1e-3 * h * h  # slivers (a vertex at a cell corner) have no direction
    assert proper.mean() > 0.99 and (outward[proper] > 0).all()


def test_a_torus_is_closed_with_genus_one_and_its_volume():
    n = 49
    v, f = mesh(*geometry.sparse_marching_cubes(torus, n, n, n, **UNIT_BOX))
    counts = edge_counts(f)
    assert (counts == 2).all() and len(v) - len(counts) + len(f) == 0
    np.testing.assert_allclose(signed_volume(v, f), 2.0 * np.pi**2 * 0.5 * 0.2**2, rtol=2e-2)
    np.testing.assert_allclose(area(v, f), 4.0 * np.pi**2 * 0.5 * 0.2, rtol=2e-2)


def test_a_threshold_extracts_the_offset_surface_and_an_unreached_one_nothing():
    n = 33
    v, f = mesh(*geometry.sparse_marching_cubes(sphere, n, n, n, threshold=0.25, lower=(-1.5,) * 3, upper=(1.5,) * 3))
    assert np.abs(np.linalg.norm(v, axis=1) - 0.75).max() < 3.0 / 32
    verts, indices, stats = geometry.sparse_marching_cubes(sphere, n, n, n, threshold=-10.0, return_stats=True,
                                                           **UNIT_BOX)
    assert verts.shape == (0,) and indices.shape == (0,) and verts.dtype == wp.vec3 and indices.dtype == wp.int32
    assert stats["leaf_cells"] == 0 and stats["field_evaluations"] == 1  # the root's centre rules everything out


def test_the_octree_refines_only_near_the_surface_and_misses_no_crossing():
    depth, r = 6, 0.5
    h = 2.0 / (1 << depth)
    cells, width = geometry.lipschitz_octree(sphere, (-1.0, -1.0, -1.0), 2.0, depth)
    c = cells.numpy()
    assert width == h and len(np.unique(c, axis=0)) == len(c)
    centres = -1.0 + h * (c + 0.5)
    band = np.sqrt(3.0) / 2.0 * h
    assert (np.abs(np.linalg.norm(centres, axis=1) - r) <= band + 1e-6).all()
    # no more leaves than the band around the sphere holds, far below the dense grid's cells
    assert len(c) <= 4.0 / 3.0 * np.pi * ((r + band + h) ** 3 - (r - band - h) ** 3) / h**3
    assert len(c) < (1 << depth) ** 3 / 15
    # every dense cell whose corners change sign is a leaf
    g = -1.0 + h * np.indices((65, 65, 65)).reshape(3, -1).T
    inside = (np.linalg.norm(g, axis=1) < r).reshape(65, 65, 65)
    total = sum(inside[i:64 + i, j:64 + j, k:64 + k].astype(int) for i, j, k in CORNERS)
    crossing = {tuple(x) for x in np.argwhere((total > 0) & (total < 8))}
    assert crossing <= {tuple(x) for x in c}


def test_sparse_equals_dense_marching_cubes_on_the_same_grid():
    lower, upper, shape = (-1.0, -1.2, -0.9), (1.0, 1.3, 1.1), (17, 21, 13)
    verts, indices = geometry.sparse_marching_cubes(cases.evaluator(wp, "torus"), *shape, lower=lower, upper=upper)
    nodes = np.array(lower) + np.indices(shape).reshape(3, -1).T * ((np.array(upper) - lower) / (np.array(shape) - 1))
    field = wp.array(cases.field_values("torus", nodes).reshape(shape), dtype=wp.float32)
    dense_v, dense_i = geometry.IsoSurfaceMarchingCubes.extract(field, 0.0, lower=lower, upper=upper)
    v, f = mesh(verts, indices)
    dv, df = mesh(dense_v, dense_i)
    assert len(v) == len(dv) and len(f) == len(df)
    # the same vertices (one to one) and the same triangles through that correspondence, with the same winding
    distance = np.linalg.norm(v[:, None, :] - dv[None, :, :], axis=2)
    nearest = distance.argmin(axis=1)
    assert distance.min(axis=1).max() < 1e-5 and len(np.unique(nearest)) == len(v)

    def triangles(f):
        return sorted(tuple(np.roll(t, -int(t.argmin()))) for t in f)  # each from its smallest vertex

    assert triangles(nearest[f]) == triangles(df)


# -- explicit cells ------------------------------------------------------------------------------------------------


def _octree_cells_and_values(depth=5):
    cells, width = geometry.lipschitz_octree(sphere, (-1.0, -1.0, -1.0), 2.0, depth)
    c = cells.numpy()
    positions = -1.0 + width * (c[:, None, :] + CORNERS[None])
    values = (np.linalg.norm(positions, axis=2) - 0.5).astype(np.float32)
    return cells, c, values, width


def test_explicit_cells_in_any_layout_and_place_give_the_same_surface():
    cells, c, values, width = _octree_cells_and_values()
    ref_v, ref_i = mesh(*geometry.sparse_marching_cubes_from_cells(c, values, (-1.0, -1.0, -1.0), width))
    assert (edge_counts(ref_i) == 2).all()
    flat = wp.array(values.reshape(-1))
    strided = wp.array(np.repeat(values[:, :, None], 2, axis=2))[:, :, 0]
    assert not strided.is_contiguous
    for layout, vals in ((cells, flat), (wp.array(c, dtype=wp.int32), values), (c.tolist(), strided)):
        v, f = mesh(*geometry.sparse_marching_cubes_from_cells(layout, vals, (-1.0, -1.0, -1.0), width))
        np.testing.assert_array_equal(f, ref_i)
        np.testing.assert_array_equal(v, ref_v)
    # far subscripts (past float32's integers) and a compensating origin: the same surface, no collapsed edge
    for shift in (np.array([1000, -500, 7]), np.full(3, 1 << 25)):
        origin = tuple(-1.0 - shift * width)
        v, f = mesh(*geometry.sparse_marching_cubes_from_cells(c + shift.astype(np.int32), values, origin, width))
        np.testing.assert_array_equal(f, ref_i)
        np.testing.assert_allclose(v, ref_v, atol=1e-5)


def test_a_corner_shared_by_cells_takes_the_first_cells_value():
    # two cells side by side along x share corners 1, 2, 5, 6 of the first (0, 3, 4, 7 of the second)
    cells = np.array([[0, 0, 0], [1, 0, 0]], dtype=np.int32)
    values = np.ones((2, 8), dtype=np.float32)
    values[0, 1] = -1.0  # the first cell's corner (1, 0, 0) is inside
    values[1, 0] = 3.0  # the second cell's claim on the same corner is ignored
    v, f = mesh(*geometry.sparse_marching_cubes_from_cells(cells, values))
    assert len(f) == 2  # one triangle in each cell around the shared inside corner
    assert sorted(map(tuple, v.round(6))) == [(0.5, 0.0, 0.0), (1.0, 0.0, 0.5), (1.0, 0.5, 0.0), (1.5, 0.0, 0.0)]


def test_no_cells_or_no_crossing_give_empty_meshes():
    for cells, values in ((np.zeros((0, 3), np.int32), np.zeros(0, np.float32)),
                          (np.zeros((1, 3), np.int32), np.ones((1, 8), np.float32))):
        verts, indices = geometry.sparse_marching_cubes_from_cells(cells, values)
        assert verts.shape == (0,) and indices.shape == (0,) and verts.dtype == wp.vec3


# -- gradients -----------------------------------------------------------------------------------------------------


def test_vertex_gradients_are_the_interpolations_derivatives():
    values = wp.array(np.array([-1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0], np.float32), requires_grad=True)
    with wp.Tape() as tape:
        verts, indices = geometry.sparse_marching_cubes_from_cells(np.zeros((1, 3), np.int32), values)
    v = verts.numpy()
    assert verts.requires_grad and len(v) == 3 and sorted(map(tuple, v)) == [(0, 0, 0.5), (0, 0.5, 0), (0.5, 0, 0)]
    # d(sum of all coordinates)/d(values): each vertex at t = -a / (b - a) from corner 0 towards b = 1
    verts.grad = wp.array(np.ones((3, 3), np.float32), dtype=wp.vec3)
    tape.backward()
    grad = values.grad.numpy()
    # dt/da = -b / (b - a)^2 = -1/4 on each of the three edges; dt/db = a / (b - a)^2 = -1/4 for corners 1, 3, 4
    np.testing.assert_allclose(grad, [-0.75, -0.25, 0, -0.25, -0.25, 0, 0, 0], atol=1e-7)


def _area_gradient(extract):
    radius = wp.array(np.array([0.5], np.float32), requires_grad=True)
    with wp.Tape() as tape:
        verts, indices = extract(radius)
        total = wp.zeros(1, dtype=wp.float32, requires_grad=True)
        wp.launch(_area, indices.shape[0] // 3, inputs=[verts, indices, total])
    tape.backward(total)
    return float(total.numpy()[0]), float(radius.grad.numpy()[0])


def test_the_area_of_a_sphere_differentiates_through_the_field_without_warnings():
    def from_field(radius):
        def evaluate(points):
            values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device, requires_grad=True)
            wp.launch(_sphere_of_radius, points.shape[0], inputs=[points, radius], outputs=[values])
            return values

        return geometry.sparse_marching_cubes(evaluate, 33, 33, 33, **UNIT_BOX)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total, grad = _area_gradient(from_field)
    np.testing.assert_allclose(total, np.pi, rtol=1e-2)  # 4 pi r^2
    np.testing.assert_allclose(grad, 4.0 * np.pi, rtol=2e-2)  # 8 pi r


def test_the_area_differentiates_through_explicit_corner_values():
    cells, c, _, width = _octree_cells_and_values()
    positions = wp.array((-1.0 + width * (c[:, None, :] + CORNERS[None])).reshape(-1, 3), dtype=wp.vec3)

    def from_cells(radius):
        values = wp.empty(positions.shape[0], dtype=wp.float32, requires_grad=True)
        wp.launch(_sphere_of_radius, positions.shape[0], inputs=[positions, radius], outputs=[values])
        return geometry.sparse_marching_cubes_from_cells(cells, values, (-1.0, -1.0, -1.0), width)

    total, grad = _area_gradient(from_cells)
    np.testing.assert_allclose(grad, 4.0 * np.pi, rtol=3e-2)
    assert _area_gradient(from_cells) == (total, grad)  # deterministic


# -- the GPU mapping -----------------------------------------------------------------------------------------------


@pytest.mark.compiles_for_cuda
def test_the_emulation_target_gives_the_cpus_surface_and_gradients():
    def run():
        verts, indices, stats = geometry.sparse_marching_cubes(torus, 11, 15, 21, lower=(-1.0, -1.2, -0.9),
                                                               upper=(1.0, 1.3, 1.1), return_stats=True)
        cells, width = geometry.lipschitz_octree(sphere, (-1.0, -1.0, -1.0), 2.0, 4)
        explicit = cases.far_cells()  # corner codes of both sort words
        cv, ci = geometry.sparse_marching_cubes_from_cells(*explicit)
        values = wp.array(explicit[1], requires_grad=True)
        with wp.Tape() as tape:
            gv, _ = geometry.sparse_marching_cubes_from_cells(explicit[0], values, *explicit[2:])
        gv.grad = wp.array(np.ones((gv.shape[0], 3), np.float32), dtype=wp.vec3)
        tape.backward()
        return [verts.numpy(), indices.numpy(), cells.numpy(), cv.numpy(), ci.numpy(), values.grad.numpy()], stats

    cpu, cpu_stats = run()
    with config.override(target="cuda-emulation"):
        emulated, emulated_stats = run()
    assert emulated_stats == cpu_stats
    for a, b in zip(emulated, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


# -- the user's errors ---------------------------------------------------------------------------------------------


def test_bad_grids_and_bounds_are_refused():
    with pytest.raises(ValueError, match=r"nx, ny, nz must each be at least 2, got \(1, 17, 17\)"):
        geometry.sparse_marching_cubes(sphere, 1, 17, 17)
    with pytest.raises(TypeError, match="ny must be an integer number of grid nodes, got float"):
        geometry.sparse_marching_cubes(sphere, 17, 17.0, 17)
    for call in (lambda: geometry.sparse_marching_cubes(sphere, 17, 17, 17, lipschitz_bound=-1.0),
                 lambda: geometry.lipschitz_octree(sphere, (0, 0, 0), 2.0, 4, lipschitz_bound=-1.0)):
        with pytest.raises(ValueError, match="lipschitz_bound must be non-negative, got -1.0"):
            call()
    with pytest.raises(ValueError, match="root_width must be positive, got 0.0"):
        geometry.lipschitz_octree(sphere, (0, 0, 0), 0.0, 4)
    with pytest.raises(ValueError, match="max_depth must be non-negative, got -1"):
        geometry.lipschitz_octree(sphere, (0, 0, 0), 1.0, -1)
    with pytest.raises(ValueError, match="max_depth must be at most 30"):
        geometry.lipschitz_octree(sphere, (0, 0, 0), 1.0, 31)
    with pytest.raises(ValueError, match="too large to pack into 64-bit corner codes"):
        geometry.sparse_marching_cubes(sphere, 2**22, 2, 2)
    with pytest.raises(ValueError, match="origin must be a point of 3 coordinates, got 2"):
        geometry.lipschitz_octree(sphere, (0, 0), 1.0, 2)
    with pytest.raises(ValueError, match="lower must be a point of 3 coordinates, got 2"):
        geometry.sparse_marching_cubes(sphere, 9, 9, 9, lower=(0.0, 0.0))
    with pytest.raises(TypeError, match="upper must be a point of 3 coordinates, got 'abc'"):
        geometry.sparse_marching_cubes(sphere, 9, 9, 9, upper="abc")
    with pytest.raises(TypeError, match="threshold must be a real number, got str"):
        geometry.sparse_marching_cubes(sphere, 9, 9, 9, threshold="0.1")
    with pytest.raises(TypeError, match="max_depth must be an integer, got float"):
        geometry.lipschitz_octree(sphere, (0, 0, 0), 1.0, 2.0)
    # brickwork's and numpy's numbers and vectors are numbers and points
    verts, _ = geometry.sparse_marching_cubes(sphere, np.int64(9), 9, 9, lower=wp.vec3(-1.0, -1.0, -1.0),
                                              upper=np.ones(3), threshold=wp.float32(0.0))
    assert verts.shape[0] > 0


def test_fields_that_are_not_batched_evaluators_are_refused():
    func = _sphere_at
    calls = {"sparse": lambda f: geometry.sparse_marching_cubes(f, 9, 9, 9, **UNIT_BOX),
             "octree": lambda f: geometry.lipschitz_octree(f, (-1, -1, -1), 2.0, 3)}
    for call in calls.values():
        with pytest.raises(TypeError, match="not a single-point @wp.func. Wrap it in a small kernel"):
            call(func)
        with pytest.raises(TypeError, match="`field` must be a callable .* but got <class 'int'>"):
            call(42)
        with pytest.raises(TypeError, match="`field` is the kernel '.*_sphere_kernel.*', which cannot be called: "
                                            "pass a function of the points that launches it"):
            call(_sphere_kernel)
    wrong = {
        "must return a warp.array of float32 distance values, but returned <class 'numpy.ndarray'>":
            lambda p: np.zeros(p.shape[0], np.float32),
        "returned 3 values for 1 query points": lambda p: wp.zeros(3, dtype=wp.float32),
        "must return a warp.array of float32 distance values, got float64": lambda p: wp.zeros(p.shape[0],
                                                                                             dtype=wp.float64),
    }
    for message, evaluate in wrong.items():
        with pytest.raises((TypeError, ValueError), match=message):
            geometry.sparse_marching_cubes(evaluate, 9, 9, 9, **UNIT_BOX)


def test_bad_cells_and_corner_values_are_refused_and_left_as_they_were():
    cells = np.zeros((1, 3), np.int32)
    values = wp.array(np.zeros((1, 8), np.float32))
    for width in (0.0, -1.0):
        with pytest.raises(ValueError, match=f"cell_width must be positive, got {width}"):
            geometry.sparse_marching_cubes_from_cells(cells, values, cell_width=width)
    with pytest.raises(ValueError, match="corner_values must have 8 entries for 1 cells, got 7"):
        geometry.sparse_marching_cubes_from_cells(cells, np.zeros(7, np.float32))
    with pytest.raises(ValueError, match="corner_values must have 0 entries for 0 cells, got 3"):
        geometry.sparse_marching_cubes_from_cells(np.zeros((0, 3), np.int32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="corner_values must be float32, got float64"):
        geometry.sparse_marching_cubes_from_cells(cells, wp.zeros(8, dtype=wp.float64))
    with pytest.raises(ValueError, match=r"cells must be an \(N, 3\) array of integer cell subscripts, got shape "
                                         r"\(1, 4\)"):
        geometry.sparse_marching_cubes_from_cells(np.zeros((1, 4), np.int32), values)
    with pytest.raises(TypeError, match="cell_width must be a real number, got NoneType"):
        geometry.sparse_marching_cubes_from_cells(cells, values, cell_width=None)
    with pytest.raises(ValueError, match="outside the int32 range"):
        geometry.sparse_marching_cubes_from_cells(np.array([[0, 0, 2**31]]), values)
    far = wp.array(np.array([[0, 0, 0], [2**30, 0, 0]], np.int32), dtype=wp.vec3i)
    with pytest.raises(ValueError, match="spans 1073741826 nodes per axis, too large to pack into 64-bit corner"):
        geometry.sparse_marching_cubes_from_cells(far, np.zeros((2, 8), np.float32))
    assert far.numpy().tolist() == [[0, 0, 0], [2**30, 0, 0]] and not values.numpy().any()
