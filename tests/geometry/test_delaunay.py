"""Triangle adjacency and Delaunay edge flips (``brickwork.geometry.tri_tri_adjacency``, ``delaunay_edge_flip``
and the kernel functions ``signed_area``, ``in_circle``, ``find_triangle_neighbor_edge_index``): against numpy
references (a dictionary of edges, a brute-force Delaunay triangulation), their invariants, the GPU mapping,
graph capture and the user's errors."""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.geometry as geo
from brickwork import config

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

# -- numpy references --------------------------------------------------------------------------------------------


def reference_adjacency(tris):
    """Each edge's half-edges in id order, paired two by two (the documented rule), as two (n, 3) arrays."""
    runs = {}
    for t, tri in enumerate(tris):
        for j in range(3):
            a, b = int(tri[(j + 1) % 3]), int(tri[(j + 2) % 3])
            runs.setdefault((min(a, b), max(a, b)), []).append((t, j))
    nbr = np.full((len(tris), 3), -1, np.int32)
    edge = np.full((len(tris), 3), -1, np.int32)
    for run in runs.values():
        for (ta, ja), (tb, jb) in zip(run[0::2], run[1::2]):
            nbr[ta, ja], edge[ta, ja], nbr[tb, jb], edge[tb, jb] = tb, jb, ta, ja
    return nbr, edge


def area2(p, tri):
    a, b, c = p[tri[0]].astype(np.float64), p[tri[1]].astype(np.float64), p[tri[2]].astype(np.float64)
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def circle_det(a, b, c, d):
    m = np.array([[*(q - d), np.dot(q - d, q - d)] for q in (a, b, c)], np.float64)
    return np.linalg.det(m)


def edges_of(tris):
    found = {}
    for t, tri in enumerate(tris):
        for j in range(3):
            a, b = int(tri[(j + 1) % 3]), int(tri[(j + 2) % 3])
            found.setdefault((min(a, b), max(a, b)), []).append((t, j))
    return found


def worst_interior_det(points, tris):
    """The largest relative in-circle determinant over the interior edges (<= 0 up to rounding: Delaunay)."""
    p = points.astype(np.float64)
    worst = -np.inf
    for incident in edges_of(tris).values():
        if len(incident) == 2:
            (t0, _), (t1, j1) = incident
            a, b, c = (p[v] for v in tris[t0])
            det = circle_det(a, b, c, p[tris[t1][j1]])
            worst = max(worst, det / max(1.0, np.abs(p).max() ** 4))
    return worst


def brute_force_delaunay(points):
    """The triangles (sorted vertex triples) whose circumcircle holds no other point: the Delaunay triangulation
    of points in general position."""
    p = points.astype(np.float64)
    found = set()
    for i, j, k in itertools.combinations(range(len(p)), 3):
        tri = (i, j, k) if area2(p, (i, j, k)) > 0 else (i, k, j)
        if abs(area2(p, tri)) < 1e-12:
            continue
        others = np.array([m for m in range(len(p)) if m not in tri])
        # the in-circle determinants of every other point at once
        rel = p[list(tri)][None, :, :] - p[others][:, None, :]
        rows = np.concatenate([rel, (rel**2).sum(axis=2, keepdims=True)], axis=2)
        if (np.linalg.det(rows) < 0).all():
            found.add(tuple(sorted(tri)))
    return found


def ellipse_fan(n, seed):
    """Points on an ellipse (convex, no four on a circle) triangulated as a fan from the first: far from Delaunay."""
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, n))
    points = np.stack([2.0 * np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    return points, np.array([[0, i, i + 1] for i in range(1, n - 1)], np.int32)


def jittered_grid(nx, ny, jitter, seed):
    """A grid of points moved at random (the border's stay), each cell split along a random diagonal."""
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
    inner = (xs.ravel() > 0) & (xs.ravel() < nx) & (ys.ravel() > 0) & (ys.ravel() < ny)
    points[inner] += rng.uniform(-jitter, jitter, (int(inner.sum()), 2))
    tris = []
    for i in range(nx):
        for j in range(ny):
            v00, v10, v11, v01 = i * (ny + 1) + j, (i + 1) * (ny + 1) + j, (i + 1) * (ny + 1) + j + 1, i * (ny + 1) + j + 1
            tris += [[v00, v10, v11], [v00, v11, v01]] if rng.random() < 0.5 else [[v00, v10, v01], [v10, v11, v01]]
    return points.astype(np.float32), np.array(tris, np.int32)


def flip(points, tris, **kwargs):
    indices = wp.array(tris, dtype=wp.int32)
    total = geo.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), indices, **kwargs)
    return int(total.numpy()[0]), indices.numpy()


# -- kernel functions ------------------------------------------------------------------------------------------


@wp.kernel
def _predicates(pts: wp.array(dtype=wp.vec2), area: wp.array(dtype=float), inside: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a, b, c, d = pts[4 * i], pts[4 * i + 1], pts[4 * i + 2], pts[4 * i + 3]
    area[i] = geo.signed_area(a, b, c)
    inside[i] = wp.where(geo.in_circle(a, b, c, d), 1, 0)


def test_signed_area_and_in_circle_agree_with_numpy():
    rng = np.random.default_rng(4)
    pts = rng.uniform(-2, 2, (200 * 4, 2)).astype(np.float32)
    area, inside = wp.zeros(200, dtype=float), wp.zeros(200, dtype=wp.int32)
    wp.launch(_predicates, 200, inputs=[wp.array(pts, dtype=wp.vec2), area, inside])
    quads = pts.reshape(200, 4, 2).astype(np.float64)
    want_area = 0.5 * np.array([area2(q, (0, 1, 2)) for q in quads])
    np.testing.assert_allclose(area.numpy(), want_area, rtol=1e-5, atol=1e-5)
    # in_circle assumes abc counter-clockwise: compare where it is and the determinant is clearly signed
    dets = np.array([circle_det(*q) for q in quads])
    clear = (want_area > 1e-3) & (np.abs(dets) > 1e-3)
    assert clear.sum() > 50
    assert (inside.numpy()[clear] == (dets[clear] > 0)).all()
    # the unit right triangle: area 1/2, circumcircle about (1/2, 1/2)
    unit = np.array([[0, 0], [1, 0], [0, 1], [0.4, 0.4], [0, 0], [0, 1], [1, 0], [0.4, 0.4],
                     [0, 0], [1, 0], [0, 1], [2, 2]], np.float32)
    wp.launch(_predicates, 3, inputs=[wp.array(unit, dtype=wp.vec2), area, inside])
    assert area.numpy()[:2].tolist() == [0.5, -0.5] and inside.numpy()[[0, 2]].tolist() == [1, 0]


@wp.kernel
def _neighbor_edges(nbr: wp.array2d(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    t, u = wp.tid()
    out[t, u] = geo.find_triangle_neighbor_edge_index(nbr, t, u)


def test_find_triangle_neighbor_edge_index_finds_the_shared_edge_or_minus_one():
    points, tris = jittered_grid(3, 3, 0.2, seed=1)
    nbr, edge = geo.tri_tri_adjacency(wp.array(tris, dtype=wp.int32))
    n = len(tris)
    out = wp.zeros((n, n), dtype=wp.int32)
    wp.launch(_neighbor_edges, (n, n), inputs=[nbr, out])
    got, nb = out.numpy(), nbr.numpy()
    for t in range(n):
        for u in range(n):
            want = [j for j in range(3) if nb[t, j] == u]
            assert got[t, u] == (want[0] if want else -1)
    # swapped, it recovers the neighbour's local edge that tri_tri_adjacency returns
    for t, j in zip(*np.nonzero(nb >= 0)):
        assert got[nb[t, j], t] == edge.numpy()[t, j]


# -- adjacency ---------------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(3, 12), st.integers(0, 2**31))
def test_adjacency_matches_the_dictionary_reference_on_random_meshes(num_tris, num_verts, seed):
    # few vertices: shared, non-manifold and degenerate (repeated corner) edges all occur
    tris = np.random.default_rng(seed).integers(0, num_verts, (num_tris, 3)).astype(np.int32)
    indices = wp.array(tris, dtype=wp.int32)
    nbr, edge = geo.tri_tri_adjacency(indices, vertex_count=num_verts)
    want_nbr, want_edge = reference_adjacency(tris)
    np.testing.assert_array_equal(nbr.numpy(), want_nbr)
    np.testing.assert_array_equal(edge.numpy(), want_edge)
    only = geo.tri_tri_adjacency(indices, return_neighbor_edge_indices=False)  # inferred vertex count
    assert not isinstance(only, tuple)
    np.testing.assert_array_equal(only.numpy(), want_nbr)
    np.testing.assert_array_equal(indices.numpy(), tris)  # read only


def test_adjacency_sorts_vertex_indices_past_16_bits():
    # a grid's triangles with its vertices renumbered at random below 2^20: two digits per key on the CPU
    _, tris = jittered_grid(12, 9, 0.2, seed=8)
    rng = np.random.default_rng(8)
    renumbered = rng.choice(2**20, size=tris.max() + 1, replace=False).astype(np.int32)[tris]
    indices = wp.array(renumbered, dtype=wp.int32)
    for count in (None, 2**20):
        nbr, edge = geo.tri_tri_adjacency(indices, vertex_count=count)
        want_nbr, want_edge = reference_adjacency(renumbered)
        np.testing.assert_array_equal(nbr.numpy(), want_nbr)
        np.testing.assert_array_equal(edge.numpy(), want_edge)
    # a captured build sorts with the GPU's sort (8-bit digits, recorded launches): the same pairs
    with wp.ScopedCapture() as capture:
        nbr, edge = geo.tri_tri_adjacency(indices, vertex_count=2**20)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(nbr.numpy(), want_nbr)
    np.testing.assert_array_equal(edge.numpy(), want_edge)


def test_adjacency_of_a_manifold_mesh_is_symmetric():
    _, tris = jittered_grid(6, 5, 0.2, seed=3)
    nbr, edge = (a.numpy() for a in geo.tri_tri_adjacency(wp.array(tris, dtype=wp.int32)))
    interior = 0
    for t in range(len(tris)):
        for j in range(3):
            u, k = nbr[t, j], edge[t, j]
            if u < 0:
                assert k == -1
                continue
            interior += 1
            assert nbr[u, k] == t and edge[u, k] == j
            shared = {tris[t][(j + 1) % 3], tris[t][(j + 2) % 3]}
            assert shared == {tris[u][(k + 1) % 3], tris[u][(k + 2) % 3]}
    # 6 x 5 cells: 36 + 35 axis edges and 30 diagonals, 22 of them on the border; each seen from both sides
    assert interior == 2 * (36 + 35 + 30 - 22)


def test_adjacency_of_non_manifold_and_degenerate_edges_is_warps():
    # outputs of Warp 1.19 on the CPU
    cases = [
        ([[0, 1, 2], [1, 0, 3], [0, 1, 4], [1, 0, 5]],
         [[-1, -1, 1], [-1, -1, 0], [-1, -1, 3], [-1, -1, 2]], [[-1, -1, 2], [-1, -1, 2], [-1, -1, 2], [-1, -1, 2]]),
        ([[0, 1, 2], [1, 0, 3], [0, 1, 4]], [[-1, -1, 1], [-1, -1, 0], [-1, -1, -1]],
         [[-1, -1, 2], [-1, -1, 2], [-1, -1, -1]]),
        ([[0, 0, 1], [0, 1, 2]], [[0, 0, -1], [-1, -1, -1]], [[1, 0, -1], [-1, -1, -1]]),
    ]
    for tris, want_nbr, want_edge in cases:
        nbr, edge = geo.tri_tri_adjacency(wp.array(tris, dtype=wp.int32))
        assert nbr.numpy().tolist() == want_nbr and edge.numpy().tolist() == want_edge


def test_adjacency_leaves_edges_out_of_the_vertex_count_unpaired():
    tris = wp.array([[0, 1, 7], [1, 0, 7]], dtype=wp.int32)  # sharing three edges, two of them ending at 7
    assert geo.tri_tri_adjacency(tris, vertex_count=4)[0].numpy().tolist() == [[-1, -1, 1], [-1, -1, 0]]
    assert geo.tri_tri_adjacency(tris)[0].numpy().tolist() == [[1, 1, 1], [0, 0, 0]]  # inferred: 8 vertices
    empty = geo.tri_tri_adjacency(wp.zeros((0, 3), dtype=wp.int32))
    assert [a.shape for a in empty] == [(0, 3), (0, 3)]


def test_adjacency_refuses_what_is_not_a_triangle_index_array():
    good = wp.array([[0, 1, 2]], dtype=wp.int32)
    with pytest.raises(ValueError, match=r"\(num_tris, 3\).*got shape \(6,\)"):
        geo.tri_tri_adjacency(wp.zeros(6, dtype=wp.int32))
    with pytest.raises(ValueError, match=r"got shape \(2, 4\)"):
        geo.tri_tri_adjacency(wp.zeros((2, 4), dtype=wp.int32))
    with pytest.raises(TypeError, match="int32 vertex indices, got int64"):
        geo.tri_tri_adjacency(wp.zeros((2, 3), dtype=wp.int64))
    with pytest.raises(TypeError, match="must be a wp.array of int32, got ndarray"):
        geo.tri_tri_adjacency(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="vertex_count must be in .* got -1"):
        geo.tri_tri_adjacency(good, vertex_count=-1)
    with pytest.raises(TypeError, match="vertex_count must be an integer or None, got float"):
        geo.tri_tri_adjacency(good, vertex_count=3.0)
    with pytest.raises(ValueError, match="vertex indices must be non-negative, got -5"):
        geo.tri_tri_adjacency(wp.array([[0, -5, 2]], dtype=wp.int32))


def test_adjacency_needs_the_vertex_count_under_graph_capture():
    indices = wp.array([[0, 1, 2], [0, 2, 3]], dtype=wp.int32)
    with pytest.raises(RuntimeError, match="vertex_count must be given while a graph is being captured"):
        with wp.ScopedCapture():
            geo.tri_tri_adjacency(indices)
    with wp.ScopedCapture() as capture:
        nbr, _ = geo.tri_tri_adjacency(indices, vertex_count=4)
    wp.capture_launch(capture.graph)
    assert nbr.numpy().tolist() == [[-1, 1, -1], [-1, -1, 0]]


# -- Delaunay flips -------------------------------------------------------------------------------------------------


def check_triangulation(points, before, after):
    """Same triangle count and vertices, every triangle counter-clockwise, area kept, manifold, boundary kept."""
    assert after.shape == before.shape
    assert set(np.unique(after)) == set(np.unique(before))
    areas = np.array([area2(points, t) for t in after])
    assert (areas > 0).all()
    np.testing.assert_allclose(areas.sum(), sum(area2(points, t) for t in before), rtol=1e-5)
    incident = edges_of(after)
    assert max(len(v) for v in incident.values()) == 2
    boundary = {e for e, v in incident.items() if len(v) == 1}
    assert boundary == {e for e, v in edges_of(before).items() if len(v) == 1}


@pytest.mark.parametrize("seed", range(4))
def test_a_fan_of_convex_points_flips_to_the_delaunay_triangulation(seed):
    points, tris = ellipse_fan(16, seed)
    assert worst_interior_det(points, tris) > 1e-3  # far from Delaunay
    count, out = flip(points, tris)
    assert count > 0
    check_triangulation(points, tris, out)
    assert worst_interior_det(points, out) <= 1e-6
    assert {tuple(sorted(t)) for t in out} == brute_force_delaunay(points)
    assert flip(points, out)[0] == 0  # a fixed point


@pytest.mark.parametrize("seed", range(4))
def test_a_jittered_grid_flips_to_the_delaunay_triangulation(seed):
    points, tris = jittered_grid(4, 4, 0.3, seed)
    count, out = flip(points, tris)
    assert count > 0
    check_triangulation(points, tris, out)
    assert worst_interior_det(points, out) <= 1e-6
    # the grid's border points are collinear: its Delaunay triangles are those of the points' (unique) one
    assert {tuple(sorted(t)) for t in out} == brute_force_delaunay(points)


def test_scipy_agrees_up_to_ties():
    spatial = pytest.importorskip("scipy.spatial")
    points, tris = ellipse_fan(60, seed=7)
    _, out = flip(points, tris)
    assert {tuple(sorted(t)) for t in out} == {tuple(sorted(t)) for t in spatial.Delaunay(points).simplices}


def test_flips_are_deterministic_and_converge_in_few_passes_on_a_sheared_grid():
    xs, ys = np.meshgrid(np.arange(41), np.arange(41), indexing="ij")
    points = np.stack([xs.ravel() + 0.1 * ys.ravel(), ys.ravel()], axis=1).astype(np.float32)
    tris = []
    for i in range(40):
        for j in range(40):
            v00, v10, v11, v01 = i * 41 + j, (i + 1) * 41 + j, (i + 1) * 41 + j + 1, i * 41 + j + 1
            tris += [[v00, v10, v11], [v00, v11, v01]]
    tris = np.array(tris, np.int32)
    count, out = flip(points, tris, max_passes=5)
    assert count == 1600  # every cell's diagonal is the long one
    assert worst_interior_det(points, out) <= 1e-6
    assert all((flip(points, tris, max_passes=5)[1] == out).all() for _ in range(2))
    one_pass, partial = flip(points, tris, max_passes=1)
    assert 0 < one_pass < count and worst_interior_det(points, partial) > 0  # passes stop at max_passes


def test_flips_keep_a_non_convex_domain():
    # a star polygon fanned from its centre: spokes whose quad is not convex cannot flip
    angles = np.pi * np.arange(14) / 7
    radii = np.where(np.arange(14) % 2 == 0, 1.0, 0.45)
    points = np.concatenate([[[0.0, 0.0]], np.stack([radii * np.cos(angles), radii * np.sin(angles)], 1)])
    points = points.astype(np.float32)
    tris = np.array([[0, 1 + i, 1 + (i + 1) % 14] for i in range(14)], np.int32)
    count, out = flip(points, tris)
    assert count > 0
    check_triangulation(points, tris, out)
    assert flip(points, out)[0] == 0


def test_what_must_not_flip_does_not():
    thin = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 1.0], [0.0, -1.0]], np.float32)
    pair = np.array([[0, 1, 2], [1, 0, 3]], np.int32)
    assert flip(thin, pair)[0] == 1
    # a reference configuration where the flip would make flat triangles
    flat = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 0.0], [0.0, 0.0]], np.float32)
    count, out = flip(thin, pair, ref_positions=wp.array(flat, dtype=wp.vec2))
    assert count == 0 and (out == pair).all()
    # an area threshold the new triangles (area 3 each) do not pass
    assert flip(thin, pair, area_epsilon=3.0)[0] == 0 and flip(thin, pair, area_epsilon=2.9)[0] == 1
    # clockwise triangles (as Warp: the new ones would be clockwise too)
    assert flip(thin, pair[:, ::-1].copy())[0] == 0
    # four points on a circle: no strict in-circle violation
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    count, out = flip(square, np.array([[0, 1, 2], [0, 2, 3]], np.int32))
    assert count == 0 and out.tolist() == [[0, 1, 2], [0, 2, 3]]
    # a grid of right triangles is already Delaunay
    points, tris = jittered_grid(4, 4, 0.0, seed=0)
    count, out = flip(points, tris)
    assert count == 0 and (out == tris).all()


def test_an_empty_mesh_makes_no_flip():
    total = geo.delaunay_edge_flip(wp.zeros(0, dtype=wp.vec2), wp.zeros((0, 3), dtype=wp.int32))
    assert total.dtype == wp.int32 and total.shape == (1,) and total.numpy().tolist() == [0]


def test_a_captured_flip_replays_as_the_eager_one():
    points, tris = jittered_grid(6, 6, 0.3, seed=5)
    count, eager = flip(points, tris)
    positions, indices = wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32)
    with wp.ScopedCapture() as capture:
        total = geo.delaunay_edge_flip(positions, indices)
    assert (indices.numpy() == tris).all()  # recorded, not run
    wp.capture_launch(capture.graph)
    assert (indices.numpy() == eager).all() and int(total.numpy()[0]) == count
    wp.capture_launch(capture.graph)  # on the flipped mesh: nothing more
    assert (indices.numpy() == eager).all() and int(total.numpy()[0]) == 0


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_gives_the_cpus_result():
    points, tris = jittered_grid(8, 7, 0.3, seed=2)
    cpu_count, cpu_out = flip(points, tris)
    random_tris = np.random.default_rng(0).integers(0, 9, (40, 3)).astype(np.int32)
    with config.override(target="cuda-emulation"):
        count, out = flip(points, tris)
        nbr, edge = geo.tri_tri_adjacency(wp.array(random_tris, dtype=wp.int32))
        nbr, edge = nbr.numpy(), edge.numpy()
    assert count == cpu_count and (out == cpu_out).all()
    want_nbr, want_edge = reference_adjacency(random_tris)
    assert (nbr == want_nbr).all() and (edge == want_edge).all()


# -- the user's errors ---------------------------------------------------------------------------------------------


def test_flip_refuses_bad_arguments_and_changes_nothing():
    points, tris = jittered_grid(3, 3, 0.3, seed=5)
    positions, indices = wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32)
    bad = [
        (dict(max_passes=0), ValueError, "max_passes must be at least 1"),
        (dict(max_passes=-1), ValueError, "max_passes must be at least 1"),
        (dict(max_passes=1.5), TypeError, "max_passes must be an integer, got float"),
        (dict(max_passes=True), TypeError, "max_passes must be an integer, got bool"),
        (dict(area_epsilon="0"), TypeError, "area_epsilon must be a number, got str"),
        (dict(ref_positions=wp.zeros(3, dtype=wp.vec2)), ValueError, r"one position per vertex \(16\), got 3"),
        (dict(ref_positions=points), TypeError, "ref_positions must be a wp.array of wp.vec2, got ndarray"),
    ]
    bad += [(dict(area_epsilon=e), ValueError, "area_epsilon must be a finite, non-negative number")
            for e in (-1.0, float("nan"), float("inf"))]
    bad += [(dict(ref_area_epsilon=e), ValueError, "ref_area_epsilon must be a finite, non-negative number")
            for e in (-1.0, float("nan"), float("inf"))]
    for kwargs, error, message in bad:
        with pytest.raises(error, match=message):
            geo.delaunay_edge_flip(positions, indices, **kwargs)
    with pytest.raises(TypeError, match=r"positions must be a one-dimensional array of wp.vec2 \(float32\), got 1 "
                                        r"dimension\(s\) of vec3f"):
        geo.delaunay_edge_flip(wp.zeros(16, dtype=wp.vec3), indices)
    with pytest.raises(TypeError, match="positions must be a wp.array of wp.vec2, got ndarray"):
        geo.delaunay_edge_flip(points, indices)
    with pytest.raises(ValueError, match=r"indices must be a \(num_tris, 3\) array"):
        geo.delaunay_edge_flip(positions, wp.zeros(6, dtype=wp.int32))
    assert (indices.numpy() == tris).all()
    # an index past the positions, or negative
    for wrong in (16, -1):
        changed = tris.copy()
        changed[3, 1] = wrong
        indices = wp.array(changed, dtype=wp.int32)
        with pytest.raises(ValueError, match=r"indices must lie in \[0, 16\)"):
            geo.delaunay_edge_flip(positions, indices)
        assert (indices.numpy() == changed).all()


def test_a_captured_flip_with_a_wrong_index_flips_nothing():
    points, tris = jittered_grid(3, 3, 0.3, seed=5)
    tris[0, 0] = 99
    positions, indices = wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32)
    with wp.ScopedCapture() as capture:
        total = geo.delaunay_edge_flip(positions, indices)
    wp.capture_launch(capture.graph)
    assert int(total.numpy()[0]) == 0 and (indices.numpy() == tris).all()


def test_flip_refuses_arrays_on_another_device():
    points, tris = jittered_grid(2, 2, 0.2, seed=1)
    positions, indices = wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32)
    with installed(FakeDriver()):
        elsewhere = wp.array(points, dtype=wp.vec2, device="cuda:0")
        with pytest.raises(ValueError, match="positions and indices must be on the same device, got cuda:0 and cpu"):
            geo.delaunay_edge_flip(elsewhere, indices)
        with pytest.raises(ValueError, match="ref_positions and indices must be on the same device"):
            geo.delaunay_edge_flip(positions, indices, ref_positions=elsewhere)
    assert (indices.numpy() == tris).all()
