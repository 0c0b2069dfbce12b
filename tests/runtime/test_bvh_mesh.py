"""wp.Bvh and wp.Mesh: kernel queries against brute force in numpy (box overlap, slab ray tests, closest
points on every triangle, Moeller-Trumbore), the tree's structure, refit/rebuild, signs on a closed mesh,
gradients through kernels that query, the CUDA mapping (emulation + NVRTC), a fake-driver device build, and
the errors a user can cause (type, message, nothing changed)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime.bvh import DESCRIPTOR, BvhError, Tree
from brickwork.runtime.mesh import MeshError

from .test_mesh_query_forms import point_triangle_distance


@wp.kernel
def boxes_hit(bvh: wp.uint64, kind: int, a: wp.vec3, b: wp.vec3, radius: float, max_dist: float,
              hits: wp.array(dtype=int)):
    """Counts per box of one query of the given kind (0 box, 1 ray, 2 sphere)."""
    if kind == 0:
        query = wp.bvh_query_aabb(bvh, a, b)
    elif kind == 1:
        query = wp.bvh_query_ray(bvh, a, b)
    else:
        query = wp.bvh_query_sphere(bvh, a, radius)
    i = 0
    while wp.bvh_query_next(query, i, max_dist):
        hits[i] += 1


@wp.func
def count_all(query: wp.BvhQuery, hits: wp.array(dtype=int)) -> int:
    n = 0
    for i in query:
        hits[i] += 1
        n += 1
    return n


@wp.kernel
def ray_via_func(bvh: wp.uint64, start: wp.vec3, d: wp.vec3, hits: wp.array(dtype=int), total: wp.array(dtype=int)):
    total[0] = count_all(wp.bvh_query_ray(bvh, start, d), hits)


def _boxes(rng, n, spread=5.0):
    lo = (rng.random((n, 3)) * spread).astype(np.float32)
    return lo, (lo + rng.random((n, 3)) * 0.8).astype(np.float32)


def _bvh(lo, hi, **kw):
    return wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), **kw)


def _hits(bvh, n, kind, a, b=(0.0, 0.0, 0.0), radius=0.0, max_dist=float("inf")):
    hits = wp.zeros(n, dtype=int)
    wp.launch(boxes_hit, 1, [bvh.id, kind, wp.vec3(*a), wp.vec3(*b), radius, max_dist, hits])
    return hits.numpy()


def _np_overlap(lo, hi, qlo, qhi):
    return np.all((lo <= np.asarray(qhi)) & (hi >= np.asarray(qlo)), axis=1).astype(int)


def _np_ray(lo, hi, start, d, max_t=np.inf):
    with np.errstate(all="ignore"):
        r = np.float32(1.0) / np.asarray(d, np.float32)
        t1, t2 = (lo - np.float32(start)) * r, (hi - np.float32(start)) * r
        tmin, tmax = np.minimum(t1, t2).max(1), np.maximum(t1, t2).min(1)
    return ((tmax >= 0) & (tmax >= tmin) & (tmin <= max_t)).astype(int)


def _np_sphere(lo, hi, c, r):
    d = np.maximum(np.maximum(lo - np.float32(c), np.float32(c) - hi), 0)
    return ((d * d).sum(1) <= np.float32(r) * np.float32(r)).astype(int)


@pytest.mark.parametrize("leaf_size", [1, 2, 5])
def test_box_ray_and_sphere_queries_equal_brute_force_each_box_once(leaf_size):
    rng = np.random.default_rng(leaf_size)
    lo, hi = _boxes(rng, 500)
    bvh = _bvh(lo, hi, leaf_size=leaf_size)
    for _ in range(5):
        qlo = rng.random(3) * 5
        qhi = qlo + rng.random(3) * 2
        np.testing.assert_array_equal(_hits(bvh, 500, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))
        start, d = rng.uniform(-1, 6, 3), rng.normal(size=3)
        np.testing.assert_array_equal(_hits(bvh, 500, 1, start, d), _np_ray(lo, hi, start, d))
        np.testing.assert_array_equal(_hits(bvh, 500, 1, start, d, max_dist=2.0), _np_ray(lo, hi, start, d, 2.0))
        c, r = rng.random(3) * 5, rng.random() * 1.5
        np.testing.assert_array_equal(_hits(bvh, 500, 2, c, radius=r), _np_sphere(lo, hi, c, r))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 80), leaf=st.integers(1, 6))
def test_property_box_queries_equal_brute_force(seed, n, leaf):
    rng = np.random.default_rng(seed)
    lo, hi = _boxes(rng, n, spread=2.0)
    bvh = _bvh(lo, hi, leaf_size=leaf)
    qlo = rng.random(3) * 2
    qhi = qlo + rng.random(3)
    np.testing.assert_array_equal(_hits(bvh, n, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))


def test_a_query_passed_to_a_function_and_iterated_finds_the_ray_boxes():
    rng = np.random.default_rng(3)
    lo, hi = _boxes(rng, 300)
    bvh = _bvh(lo, hi)
    hits, total = wp.zeros(300, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(ray_via_func, 1, [bvh.id, wp.vec3(0.0), wp.vec3(1.0, 0.9, 1.1), hits, total])
    expected = _np_ray(lo, hi, (0, 0, 0), (1.0, 0.9, 1.1))
    np.testing.assert_array_equal(hits.numpy(), expected)
    assert total.numpy()[0] == expected.sum() > 0


def test_the_tree_is_a_median_split_with_consistent_parents_bounds_and_leaves():
    rng = np.random.default_rng(4)
    lo, hi = _boxes(rng, 1000)
    tree = Tree((lo.astype(np.float64) + hi) * 0.5, 3)
    node_lo, node_hi = tree.bounds(lo, hi)
    inner = np.flatnonzero(tree.lo_i >= 0)
    for child in (tree.lo_i[inner], tree.hi_i[inner]):
        np.testing.assert_array_equal(tree.parents[child], inner)
        assert np.all(node_lo[inner] <= node_lo[child]) and np.all(node_hi[inner] >= node_hi[child])
    sizes = tree.hi_i[tree.leaves] - tree.leaf_starts
    assert sizes.sum() == 1000 and sizes.max() <= 3 and sizes.min() >= 1
    assert sorted(tree.order) == list(range(1000))
    assert tree.max_depth == int(np.ceil(np.log2(1000 / 3)))
    assert tree.parents[0] == -1 and tree.num_nodes == len(tree.parents)
    again = Tree((lo.astype(np.float64) + hi) * 0.5, 3)  # deterministic
    np.testing.assert_array_equal(again.order, tree.order)


def test_refit_follows_moved_boxes_and_rebuild_keeps_the_id():
    rng = np.random.default_rng(6)
    lo, hi = _boxes(rng, 200)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers, constructor="median", leaf_size=2)
    ident = bvh.id
    lo2, hi2 = lo + 10.0, hi + 10.0
    lowers.assign(lo2)
    uppers.assign(hi2)
    assert _hits(bvh, 200, 0, (10, 10, 10), (16, 16, 16)).sum() == 0  # the tree still holds the old bounds
    bvh.refit()
    np.testing.assert_array_equal(_hits(bvh, 200, 0, (10, 10, 10), (12, 12, 12)),
                                  _np_overlap(lo2, hi2, (10, 10, 10), (12, 12, 12)))
    bvh.rebuild("sah")
    assert bvh.id == ident
    np.testing.assert_array_equal(_hits(bvh, 200, 2, (12, 12, 12), radius=1.0), _np_sphere(lo2, hi2, (12, 12, 12), 1))


def test_a_captured_refit_runs_at_each_replay():
    lowers = wp.array([[0.0, 0.0, 0.0]], dtype=wp.vec3)
    uppers = wp.array([[1.0, 1.0, 1.0]], dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers)
    with wp.ScopedCapture() as capture:
        bvh.refit()
    lowers.assign([[5.0, 5.0, 5.0]])
    uppers.assign([[6.0, 6.0, 6.0]])
    assert _hits(bvh, 1, 0, (5, 5, 5), (5.5, 5.5, 5.5))[0] == 0
    wp.capture_launch(capture.graph)
    assert _hits(bvh, 1, 0, (5, 5, 5), (5.5, 5.5, 5.5))[0] == 1


def test_trees_made_during_a_capture_are_built_then_and_a_captured_rebuild_runs_at_each_replay():
    """Found by trying it: the compiled build's launches were recorded into the graph instead of run, and the
    tree's item table was left uninitialized (a query then crashed)."""
    rng = np.random.default_rng(13)
    lo, hi = _boxes(rng, 40)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    with wp.ScopedCapture() as capture:
        bvh = wp.Bvh(lowers, uppers, leaf_size=2)
        mesh = wp.Mesh(points=wp.array(lo, dtype=wp.vec3), indices=wp.array(np.arange(39, dtype=np.int32),
                                                                           dtype=wp.int32))
        bvh.rebuild()
    assert len(capture.graph.calls) == 1  # the rebuild only
    np.testing.assert_array_equal(_hits(bvh, 40, 0, (-100, -100, -100), (100, 100, 100)), 1)
    assert sorted(mesh._tree.order) == list(range(13))
    lowers.assign(lo + 50)
    uppers.assign(hi + 50)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(_hits(bvh, 40, 0, (49, 49, 49), (100, 100, 100)), 1)


# -- meshes -------------------------------------------------------------------------------------------
def sphere_mesh(n=10):
    """A closed UV sphere of radius 1 (outward-facing triangles)."""
    th, ph = np.linspace(0, np.pi, n + 1), np.linspace(0, 2 * np.pi, 2 * n, endpoint=False)
    pts = [[0, 0, 1]] + [[np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)] for t in th[1:-1] for p in ph]
    pts.append([0, 0, -1])
    m = 2 * n
    tris = [[0, 1 + j, 1 + (j + 1) % m] for j in range(m)]
    for r in range(n - 2):
        for j in range(m):
            a, b = 1 + r * m + j, 1 + r * m + (j + 1) % m
            tris += [[a, a + m, b], [b, a + m, b + m]]
    last = len(pts) - 1
    tris += [[last, 1 + (n - 2) * m + (j + 1) % m, 1 + (n - 2) * m + j] for j in range(m)]
    return np.array(pts, np.float32), np.array(tris, np.int32)


def closest_on_triangles(p, a, b, c):
    """Closest points of p on each triangle (a, b, c rows), by projecting onto the plane and else the edges."""
    ab, ac = b - a, c - a
    n = np.cross(ab, ac)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    q = p - ((p - a) * n).sum(1, keepdims=True) * n
    # barycentric of q
    v0, v1, v2 = ab, ac, q - a
    d00, d01, d11 = (v0 * v0).sum(1), (v0 * v1).sum(1), (v1 * v1).sum(1)
    d20, d21 = (v2 * v0).sum(1), (v2 * v1).sum(1)
    den = d00 * d11 - d01 * d01
    wb, wc = (d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den
    inside = (wb >= 0) & (wc >= 0) & (wb + wc <= 1)
    best = q.copy()
    dist = np.where(inside, np.linalg.norm(p - q, axis=1), np.inf)
    for s, e in ((a, b), (b, c), (c, a)):
        t = np.clip(((p - s) * (e - s)).sum(1) / ((e - s) ** 2).sum(1), 0, 1)[:, None]
        x = s + t * (e - s)
        d = np.linalg.norm(p - x, axis=1)
        better = ~inside & (d < dist)
        best[better], dist[better] = x[better], d[better]
    return best, dist


def moller_trumbore(start, d, a, b, c):
    e1, e2 = b - a, c - a
    pv = np.cross(d, e2)
    det = (e1 * pv).sum(1)
    with np.errstate(all="ignore"):
        inv = 1.0 / det
        s = start - a
        u = (s * pv).sum(1) * inv
        qv = np.cross(s, e1)
        v = (qv * d).sum(1) * inv
        t = (e2 * qv).sum(1) * inv
    ok = (det != 0) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
    return np.where(ok, t, np.inf)


@wp.kernel
def point_queries(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), max_dist: float, out: wp.array2d(dtype=float),
                  pos: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = qs[i]
    a = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    out[i, 0] = float(a.result)
    out[i, 1] = float(a.face)
    pos[i] = wp.mesh_eval_position(mesh, a.face, a.u, a.v)
    out[i, 2] = wp.mesh_query_point(mesh, p, max_dist).sign
    out[i, 3] = wp.mesh_query_point_sign_normal(mesh, p, max_dist).sign
    out[i, 4] = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist, 2.0, 0.5).sign
    out[i, 5] = wp.mesh_query_point_sign_parity(mesh, p, max_dist).sign
    f = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0)
    out[i, 6] = wp.length(wp.mesh_eval_position(mesh, f.face, f.u, f.v) - p)


@wp.kernel
def ray_queries(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), max_t: float,
                out: wp.array2d(dtype=float), normals: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    r = wp.mesh_query_ray(mesh, qs[i], dirs[i], max_t)
    out[i, 0] = float(r.result)
    out[i, 1] = r.t
    out[i, 2] = float(r.face)
    out[i, 3] = r.sign
    normals[i] = r.normal
    hit = wp.mesh_eval_position(mesh, r.face, r.u, r.v)
    out[i, 4] = wp.length(hit - (qs[i] + r.t * dirs[i]))
    out[i, 5] = float(wp.mesh_query_ray_count_intersections(mesh, qs[i], dirs[i]))
    out[i, 6] = float(wp.mesh_query_ray_anyhit(mesh, qs[i], dirs[i], max_t))


def _mesh_case(seed=7, n=300):
    pts, tris = sphere_mesh()
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
    rng = np.random.default_rng(seed)
    qs = rng.uniform(-1.6, 1.6, (n, 3)).astype(np.float32)
    return mesh, pts, tris, qs, rng


def test_closest_points_signs_and_furthest_points_equal_brute_force():
    mesh, pts, tris, qs, _ = _mesh_case()
    out, pos = wp.zeros((len(qs), 7), dtype=float), wp.zeros(len(qs), dtype=wp.vec3)
    wp.launch(point_queries, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), 10.0, out, pos])
    out, pos = out.numpy(), pos.numpy()
    a, b, c = (pts[tris[:, k]].astype(np.float64) for k in range(3))
    for i, p in enumerate(qs.astype(np.float64)):
        _, dist = closest_on_triangles(np.broadcast_to(p, a.shape), a, b, c)
        assert out[i, 0] == 1
        assert abs(np.linalg.norm(pos[i] - p) - dist.min()) < 1e-5
        assert abs(dist[int(out[i, 1])] - dist.min()) < 1e-5
        far = np.linalg.norm(pts - p, axis=1).max()
        assert abs(out[i, 6] - far) < 1e-5
    # signs: inside the polyhedron (its faces' planes) -> -1; points near the surface excluded
    a32, n = pts[tris[:, 0]], np.cross(pts[tris[:, 1]] - pts[tris[:, 0]], pts[tris[:, 2]] - pts[tris[:, 0]])
    side = np.einsum("qfk,fk->qf", qs[:, None, :] - a32[None], n)
    inside = np.all(side < 0, axis=1)
    clear = np.abs(np.linalg.norm(qs, axis=1) - 0.97) > 0.06
    expected = np.where(inside, -1.0, 1.0)
    for column in (2, 3, 4, 5):
        np.testing.assert_array_equal(out[clear, column], expected[clear])


def test_point_queries_beyond_max_dist_find_nothing():
    mesh, _, _, _, _ = _mesh_case()
    qs = np.array([[3.0, 0, 0], [0, 0, 0]], np.float32)
    out, pos = wp.zeros((2, 7), dtype=float), wp.zeros(2, dtype=wp.vec3)
    wp.launch(point_queries, 2, [mesh.id, wp.array(qs, dtype=wp.vec3), 0.5, out, pos])
    assert out.numpy()[:, 0].tolist() == [0.0, 0.0]


def test_ray_queries_equal_moller_trumbore():
    mesh, pts, tris, qs, rng = _mesh_case(8)
    dirs = rng.normal(size=qs.shape).astype(np.float32)
    out, normals = wp.zeros((len(qs), 7), dtype=float), wp.zeros(len(qs), dtype=wp.vec3)
    wp.launch(ray_queries, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), 1.5,
                                     out, normals])
    out, normals = out.numpy(), normals.numpy()
    a, b, c = (pts[tris[:, k]].astype(np.float64) for k in range(3))
    for i in range(len(qs)):
        t = moller_trumbore(qs[i].astype(np.float64), dirs[i].astype(np.float64), a, b, c)
        hit = t.min() <= 1.5
        assert out[i, 0] == hit and out[i, 6] == hit
        assert out[i, 5] == np.isfinite(t).sum()
        if hit:
            f = int(out[i, 2])
            assert abs(out[i, 1] - t.min()) < 1e-4 and abs(t[f] - t.min()) < 1e-4 and out[i, 4] < 1e-4
            n = np.cross(b[f] - a[f], c[f] - a[f])
            np.testing.assert_allclose(normals[i], n / np.linalg.norm(n), atol=1e-5)
            assert np.sign(out[i, 3]) == -np.sign(dirs[i] @ n)
        else:
            assert out[i, 2] == 0 and out[i, 1] == 0  # a miss is all zero, as in Warp


@wp.kernel
def triangles_in_box(mesh: wp.uint64, lower: wp.vec3, upper: wp.vec3, hits: wp.array(dtype=int)):
    query = wp.mesh_query_aabb(mesh, lower, upper)
    f = 0
    while wp.mesh_query_aabb_next(query, f):
        hits[f] += 1
    for g in wp.mesh_query_aabb(mesh, lower, upper):
        hits[g] += 10


def test_box_queries_give_the_triangles_whose_bounds_overlap_once():
    mesh, pts, tris, _, _ = _mesh_case()
    hits = wp.zeros(len(tris), dtype=int)
    wp.launch(triangles_in_box, 1, [mesh.id, wp.vec3(-0.2, 0.1, -1.0), wp.vec3(0.5, 0.7, 0.3), hits])
    corners = pts[tris]
    expected = _np_overlap(corners.min(1), corners.max(1), (-0.2, 0.1, -1.0), (0.5, 0.7, 0.3))
    np.testing.assert_array_equal(hits.numpy(), 11 * expected)


@wp.kernel
def evaluate(mesh: wp.uint64, face: int, u: float, v: float, out: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int)):
    out[0] = wp.mesh_eval_position(mesh, face, u, v)
    out[1] = wp.mesh_eval_velocity(mesh, face, u, v)
    out[2] = wp.mesh_get_point(mesh, 3 * face + 1)
    out[3] = wp.mesh_get_velocity(mesh, 3 * face + 2)
    idx[0] = wp.mesh_get_index(mesh, 3 * face + 1)


def test_eval_and_getters_weigh_the_first_vertex_by_u_and_the_second_by_v():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    vel = pts * 2 + 1
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array([0, 1, 2, 1, 3, 2], dtype=wp.int32),
                   velocities=wp.array(vel, dtype=wp.vec3))
    out, idx = wp.zeros(4, dtype=wp.vec3), wp.zeros(1, dtype=int)
    wp.launch(evaluate, 1, [mesh.id, 1, 0.2, 0.3, out, idx])
    out = out.numpy()
    np.testing.assert_allclose(out[0], 0.2 * pts[1] + 0.3 * pts[3] + 0.5 * pts[2], atol=1e-6)
    np.testing.assert_allclose(out[1], 0.2 * vel[1] + 0.3 * vel[3] + 0.5 * vel[2], atol=1e-6)
    np.testing.assert_array_equal(out[2], pts[3])
    np.testing.assert_array_equal(out[3], vel[2])
    assert idx.numpy()[0] == 3
    assert mesh.velocities is not None and mesh.points.shape == (4,)


def test_moved_points_are_read_directly_and_refit_updates_the_tree():
    mesh, pts, tris, _, _ = _mesh_case()
    out, pos = wp.zeros((1, 7), dtype=float), wp.zeros(1, dtype=wp.vec3)
    q = wp.array([[5.0, 0.0, 0.0]], dtype=wp.vec3)
    mesh.points.assign(pts + np.float32([5, 0, 0]))
    mesh.refit()
    wp.launch(point_queries, 1, [mesh.id, q, 10.0, out, pos])
    assert out.numpy()[0, 2] == -1.0  # inside the moved sphere
    mesh.points = wp.array(pts, dtype=wp.vec3)  # a new array: refit to it
    wp.launch(point_queries, 1, [mesh.id, q, 10.0, out, pos])
    assert out.numpy()[0, 2] == 1.0 and abs(np.linalg.norm(pos.numpy()[0] - [5, 0, 0]) - 4.0) < 1e-3


@wp.kernel
def distance_weighted(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), w: wp.array(dtype=float),
                      loss: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.mesh_query_point_no_sign(mesh, qs[i], 10.0)
    d = wp.length(wp.mesh_eval_position(mesh, r.face, r.u, r.v) - qs[i])
    wp.atomic_add(loss, 0, w[i] * w[i] * d)


def test_kernels_that_query_differentiate_in_the_other_values():
    mesh, _, _, qs, _ = _mesh_case(n=20)
    w = wp.array(np.linspace(0.5, 1.5, 20, dtype=np.float32), dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    q = wp.array(qs, dtype=wp.vec3)
    tape = wp.Tape()
    with tape:
        wp.launch(distance_weighted, 20, [mesh.id, q, w, loss])
    tape.backward(loss)
    out, pos = wp.zeros((20, 7), dtype=float), wp.zeros(20, dtype=wp.vec3)
    wp.launch(point_queries, 20, [mesh.id, q, 10.0, out, pos])
    d = np.linalg.norm(pos.numpy() - qs, axis=1)
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.numpy() * d, rtol=1e-5)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_runs_queries_as_the_cpu_does():
    mesh, pts, tris, qs, rng = _mesh_case(9, 64)
    dirs = rng.normal(size=qs.shape).astype(np.float32)
    args = lambda: [mesh.id, wp.array(qs, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), 2.0,  # noqa: E731
                    wp.zeros((64, 7), dtype=float), wp.zeros(64, dtype=wp.vec3)]
    on_cpu, emulated = args(), args()
    wp.launch(ray_queries, 64, on_cpu)
    lo, hi = _boxes(rng, 100)
    bvh = _bvh(lo, hi)
    cpu_hits = _hits(bvh, 100, 1, (0, 0, 0), (1, 1, 1))
    with config.override(target="cuda-emulation"):
        wp.launch(ray_queries, 64, emulated)
        emulated_hits = _hits(bvh, 100, 1, (0, 0, 0), (1, 1, 1))
        hits = wp.zeros(len(tris), dtype=int)
        wp.launch(triangles_in_box, 1, [mesh.id, wp.vec3(-1.0), wp.vec3(0.0), hits])
    np.testing.assert_array_equal(on_cpu[4].numpy(), emulated[4].numpy())
    np.testing.assert_array_equal(cpu_hits, emulated_hits)
    out, pos = wp.zeros((64, 7), dtype=float), wp.zeros(64, dtype=wp.vec3)
    with config.override(target="cuda-emulation"):
        wp.launch(point_queries, 64, [mesh.id, wp.array(qs, dtype=wp.vec3), 10.0, out, pos])
    assert out.numpy()[:, 0].all()


def test_a_device_tree_uploads_the_host_tables_and_points_its_descriptor_at_them():
    from .cuda_fake import FakeDriver, installed

    rng = np.random.default_rng(10)
    lo, hi = _boxes(rng, 40)
    host = _bvh(lo, hi, leaf_size=2, constructor="sah")
    expected = host._storage.descriptor[0]
    with installed(FakeDriver()) as fake:
        bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3, device="cuda:0"), wp.array(hi, dtype=wp.vec3, device="cuda:0"),
                     leaf_size=2, constructor="sah")

        def device_bytes(ptr, n):
            base = max(b for b in fake.memory if b <= ptr)
            return bytes(fake.memory[base][ptr - base:ptr - base + n])

        descriptor = np.frombuffer(device_bytes(bvh.id, DESCRIPTOR.itemsize), DESCRIPTOR)[0]
        for name in ("max_depth", "max_nodes", "num_nodes", "num_items"):
            assert descriptor[name] == expected[name]
        for name in ("node_lowers", "node_uppers", "node_parents", "primitive_indices", "item_lowers"):
            table = host._storage.tables[name]
            np.testing.assert_array_equal(np.frombuffer(device_bytes(int(descriptor[name]), table.nbytes), np.uint8),
                                          table.reshape(-1).view(np.uint8))


# -- errors a user can cause ---------------------------------------------------------------------------
def test_construction_errors_name_the_problem():
    lo = wp.array(np.zeros((3, 3), np.float32), dtype=wp.vec3)
    with pytest.raises(BvhError, match="The same number of lower and upper bounds"):
        wp.Bvh(lo, wp.array(np.ones((2, 3), np.float32), dtype=wp.vec3))
    with pytest.raises(RuntimeError, match=r"uppers should be a contiguous array of type wp.vec3, got vec3d"):
        wp.Bvh(lo, wp.array(np.ones((3, 3)), dtype=wp.vec3d))
    with pytest.raises(ValueError, match="leaf_size must be greater than or equal to 1, current value: 0"):
        wp.Bvh(lo, lo, leaf_size=0)
    with pytest.raises(BvhError, match="Unknown BVH constructor 'fast'"):
        wp.Bvh(lo, lo, constructor="fast")
    pts = wp.array(np.zeros((3, 3), np.float32), dtype=wp.vec3)
    with pytest.raises(MeshError, match="Mesh indices should be a contiguous array of type wp.int32, got float32"):
        wp.Mesh(pts, wp.array([0.0, 1.0, 2.0], dtype=float))
    with pytest.raises(MeshError, match="three per triangle, got 4"):
        wp.Mesh(pts, wp.array([0, 1, 2, 0], dtype=wp.int32))
    with pytest.raises(MeshError, match=r"Mesh indices must lie in \[0, 3\), got values from 0 to 3"):
        wp.Mesh(pts, wp.array([0, 1, 3], dtype=wp.int32))
    with pytest.raises(MeshError, match="Mesh velocities should have one per point"):
        wp.Mesh(pts, wp.array([0, 1, 2], dtype=wp.int32), velocities=wp.zeros(2, dtype=wp.vec3))
    mesh = wp.Mesh(pts, wp.array([0, 1, 2], dtype=wp.int32))
    with pytest.raises(MeshError, match=r"same length as the old ones \(3\), got 4"):
        mesh.points = wp.zeros(4, dtype=wp.vec3)
    assert mesh.points is pts
    assert issubclass(BvhError, wp.errors.BrickworkError) and issubclass(MeshError, BvhError)


def _kernel_error(source_kernel, inputs):
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(source_kernel, 1, inputs=inputs)
    return str(info.value)


def test_kernel_errors_name_the_argument():
    @wp.kernel
    def not_a_variable(bvh: wp.uint64, out: wp.array(dtype=int)):
        query = wp.bvh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0))
        wp.bvh_query_next(query, out[0])

    assert "bvh_query_next() writes its index argument, which must be a local variable, got 'out[0]'" in \
        _kernel_error(not_a_variable, [0, wp.zeros(1, dtype=int)])

    @wp.kernel
    def wrong_query(mesh: wp.uint64):
        query = wp.mesh_query_aabb(mesh, wp.vec3(0.0), wp.vec3(1.0))
        i = 0
        wp.bvh_query_next(query, i)

    assert "bvh_query_next(): the query must come from bvh_query_aabb/ray/sphere/capsule(), got MeshQuery" in \
        _kernel_error(wrong_query, [0])

    @wp.kernel
    def float_point(mesh: wp.uint64):
        wp.mesh_query_point(mesh, wp.vec3d(0.0), 1.0)

    assert "a mesh id (uint64), a vec3f point and a float32 distance" in _kernel_error(float_point, [0])


@wp.kernel
def _sphere_or_box_hits(mesh: wp.uint64, center: wp.vec3, radius: float, use_sphere: int, hits: wp.array(dtype=int)):
    """One query variable of either kind (wp.MeshQuery), advanced by mesh_query_next."""
    if use_sphere == 1:
        query = wp.mesh_query_sphere(mesh, center, radius)
    else:
        query = wp.mesh_query_aabb(mesh, center - wp.vec3(radius), center + wp.vec3(radius))
    face = 0
    while wp.mesh_query_next(query, face):
        hits[face] += 1


@wp.func
def _count_all(query: wp.MeshQuery, hits: wp.array(dtype=int)):
    for face in query:
        hits[face] += 10


@wp.kernel
def _sphere_hits_in_a_function(mesh: wp.uint64, center: wp.vec3, radius: float, hits: wp.array(dtype=int)):
    _count_all(wp.mesh_query_sphere(mesh, center, radius), hits)


def test_sphere_queries_of_a_mesh_visit_the_triangles_within_the_radius_through_either_kind_of_query():
    rng = np.random.default_rng(41)
    corners = rng.uniform(-2, 2, (60, 3, 3)).astype(np.float32) * np.float32(0.3) + rng.uniform(-2, 2, (60, 1, 3)).astype(np.float32)
    points = wp.array(corners.reshape(-1, 3), dtype=wp.vec3)
    mesh = wp.Mesh(points=points, indices=wp.array(np.arange(180, dtype=np.int32), dtype=wp.int32))
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    for center, radius in ((np.zeros(3, np.float32), 1.0), (np.array([1, -1, 0.5], np.float32), 0.7)):
        distance = point_triangle_distance(center, corners[:, 0], corners[:, 1], corners[:, 2])
        assert not np.any(np.abs(distance - radius) < 1e-4)  # no triangle at the surface: exact expectations
        expected = (distance <= radius).astype(int)
        assert 0 < expected.sum() < (np.linalg.norm(np.clip(center, lo, hi) - center, axis=1) <= radius).sum()
        hits = wp.zeros(60, dtype=int)
        wp.launch(_sphere_or_box_hits, 1, inputs=[mesh.id, wp.vec3(*center), radius, 1, hits])
        np.testing.assert_array_equal(hits.numpy(), expected)
        box = ((lo <= center + radius) & (hi >= center - radius)).all(axis=1).astype(int)
        hits = wp.zeros(60, dtype=int)
        wp.launch(_sphere_or_box_hits, 1, inputs=[mesh.id, wp.vec3(*center), radius, 0, hits])
        np.testing.assert_array_equal(hits.numpy(), box)
        hits = wp.zeros(60, dtype=int)
        wp.launch(_sphere_hits_in_a_function, 1, inputs=[mesh.id, wp.vec3(*center), radius, hits])
        np.testing.assert_array_equal(hits.numpy(), 10 * expected)
    assert wp.MeshQueryAABB is wp.MeshQuery


def test_leaf_bounds_cover_every_item_of_the_leaf():
    """Found by the property test (seed 87934541, 56 boxes, leaves of 3): leaf bounds were reduced over the
    leaves' item ranges in node order, whose starts do not ascend, so some leaves were bounded by their first
    item alone and a box overlapping the query was missed."""
    rng = np.random.default_rng(87934541)
    lo, hi = _boxes(rng, 56, spread=2.0)
    bvh = _bvh(lo, hi, leaf_size=3)
    qlo = rng.random(3) * 2
    qhi = qlo + rng.random(3)
    np.testing.assert_array_equal(_hits(bvh, 56, 0, qlo, qhi), _np_overlap(lo, hi, qlo, qhi))
    for n, leaf in ((57, 2), (200, 5), (1000, 4)):
        lo, hi = _boxes(rng, n)
        bvh = _bvh(lo, hi, leaf_size=leaf)
        everything = _hits(bvh, n, 0, (-1.0, -1.0, -1.0), (7.0, 7.0, 7.0))
        np.testing.assert_array_equal(everything, np.ones(n))
        for q in rng.random((5, 3)) * 5:
            np.testing.assert_array_equal(_hits(bvh, n, 0, q, q + 0.5), _np_overlap(lo, hi, q, q + 0.5))


@wp.kernel
def _faces_in_box(mesh: wp.uint64, lower: wp.vec3, upper: wp.vec3, hits: wp.array(dtype=int)):
    for f in wp.mesh_query_aabb(mesh, lower, upper):
        hits[f] += 1


def test_the_indices_of_a_mesh_cannot_be_replaced_under_its_kernels():
    """The descriptor holds the indices' address: replacing ``mesh.indices`` freed the array the queries then read
    (as in Warp, whose native mesh keeps the old address). Now a MeshError; the mesh keeps its array and answers
    as before."""
    pts = wp.array(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32), dtype=wp.vec3)
    indices = wp.array(np.array([0, 1, 2, 0, 1, 3], np.int32), dtype=wp.int32)
    mesh = wp.Mesh(pts, indices)
    with pytest.raises(MeshError, match=r"^Mesh.indices cannot be replaced \(the mesh's tree is built over its "
                                        r"triangles\): build a new wp.Mesh for other triangles$"):
        mesh.indices = wp.array(np.array([0, 1, 2], np.int32), dtype=wp.int32)
    assert mesh.indices is indices and mesh._storage.descriptor["indices"][0] == indices.ptr
    hits = wp.zeros(2, dtype=int)
    wp.launch(_faces_in_box, 1, [mesh.id, wp.vec3(-1, -1, 0.5), wp.vec3(2, 2, 2), hits])
    np.testing.assert_array_equal(hits.numpy(), [0, 1])


def test_a_ray_hit_at_exactly_max_t_is_a_miss_as_in_warp():
    # Warp 1.19 (its CPU): the triangle at z = 1 is met at t = 1 exactly; max_t = 1 finds nothing, the next float does
    mesh = wp.Mesh(wp.array(np.array([[0, 0, 1], [1, 0, 1], [0, 1, 1]], np.float32), dtype=wp.vec3),
                   wp.array([0, 1, 2], dtype=wp.int32))
    q, d = wp.array([[0.25, 0.25, 0.0]], dtype=wp.vec3), wp.array([[0.0, 0.0, 1.0]], dtype=wp.vec3)
    for max_t, hit in ((1.0, 0.0), (float(np.nextafter(np.float32(1), np.float32(2))), 1.0)):
        out, normals = wp.zeros((1, 7), dtype=float), wp.zeros(1, dtype=wp.vec3)
        wp.launch(ray_queries, 1, [mesh.id, q, d, max_t, out, normals])
        assert out.numpy()[0, 0] == hit and out.numpy()[0, 6] == hit  # mesh_query_ray and its anyhit
        assert out.numpy()[0, 1] == hit  # t = 1 where it hits, 0 (Warp's miss) where not
