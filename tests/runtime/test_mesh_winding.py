"""The fast winding number of ``wp.Mesh(..., support_winding_number=True)``: the nodes' moments against numpy
integrals, the query's value against the exact sum of the triangles' solid angles (read through the sign's
``threshold``: the sign is -1 exactly where the winding number exceeds it), its ``accuracy``, inside/outside of
closed meshes, open meshes, refits, the fallback without the flag (Warp's ray sign), gradients, and the GPU's
per-level form on the emulation target (compiled for sm_90) and with a fake driver."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.runtime import mesh_winding

from .test_bvh_mesh import sphere_mesh


@wp.kernel
def _winding_signs(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), thresholds: wp.array(dtype=float), accuracy: float,
                   out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.mesh_query_point_sign_winding_number(mesh, qs[i], 1.0e6, accuracy, thresholds[i]).sign


@wp.kernel
def _default_signs(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[0, i] = wp.mesh_query_point_sign_winding_number(mesh, qs[i], 1.0e6).sign
    out[1, i] = wp.mesh_query_point(mesh, qs[i], 1.0e6).sign


def _mesh(pts, tris, **kw):
    return wp.Mesh(wp.array(np.asarray(pts, np.float32), dtype=wp.vec3),
                   wp.array(np.asarray(tris, np.int32).reshape(-1), dtype=wp.int32), **kw)


def exact_winding(pts, tris, qs):
    """The sum of the triangles' signed solid angles / 4 pi at each point (float64)."""
    a, b, c = (np.asarray(pts, np.float64)[np.asarray(tris)[:, k]] for k in range(3))
    out = np.empty(len(qs))
    for i, p in enumerate(np.asarray(qs, np.float64)):
        x, y, z = a - p, b - p, c - p
        lx, ly, lz = (np.linalg.norm(v, axis=1) for v in (x, y, z))
        num = (x * np.cross(y, z)).sum(1)
        den = lx * ly * lz + (x * y).sum(1) * lz + (y * z).sum(1) * lx + (z * x).sum(1) * ly
        out[i] = 2 * np.arctan2(num, den).sum() / (4 * np.pi)
    return out


def _signs(mesh, qs, thresholds, accuracy):
    out = wp.zeros(len(qs), dtype=float)
    wp.launch(_winding_signs, len(qs), [mesh.id, wp.array(np.asarray(qs, np.float32), dtype=wp.vec3),
                                        wp.array(np.asarray(thresholds, np.float32), dtype=float), accuracy, out])
    return out.numpy()


def assert_winding_near(mesh, qs, want, tol, accuracy=2.0):
    """The mesh's winding number at each point is within ``tol`` of ``want``: above ``want - tol`` (sign -1) and
    not above ``want + tol`` (sign +1)."""
    np.testing.assert_array_equal(_signs(mesh, qs, want - tol, accuracy), -1.0)
    np.testing.assert_array_equal(_signs(mesh, qs, want + tol, accuracy), 1.0)


def torus_mesh(n=24, m=12, big=1.0, small=0.35):
    """A closed torus around z (outward-facing triangles)."""
    u, v = np.meshgrid(np.arange(n) * 2 * np.pi / n, np.arange(m) * 2 * np.pi / m, indexing="ij")
    pts = np.stack([(big + small * np.cos(v)) * np.cos(u), (big + small * np.cos(v)) * np.sin(u),
                    small * np.sin(v)], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    a, b = i * m + j, ((i + 1) % n) * m + j
    c, d = ((i + 1) % n) * m + (j + 1) % m, i * m + (j + 1) % m
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return pts.astype(np.float32), tris.astype(np.int32)


def _node_triangles(tree, node):
    """The triangles under ``node`` of a host tree."""
    if tree.lo_i[node] < 0:
        return tree.order[-(tree.lo_i[node] + 1):tree.hi_i[node]]
    return np.concatenate([_node_triangles(tree, tree.lo_i[node]), _node_triangles(tree, tree.hi_i[node])])


def _moments(pts, tris, lo, hi):
    """A node's record by numpy: areas and area vectors of its triangles, the integrals of n_i y_j and
    n_i y_j y_k by the three-edge-midpoint rule (exact for quadratics), about the area-weighted centroid."""
    p = np.asarray(pts, np.float64)[tris]  # (t, 3 corners, 3)
    nvec = 0.5 * np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = np.linalg.norm(nvec, axis=1)
    cen = p.mean(axis=1)
    total = area.sum()
    c = (area[:, None] * cen).sum(0) / total if total > 0 else (lo + hi) / 2
    mids = (p + np.roll(p, -1, axis=1)) / 2 - c  # (t, 3 midpoints, 3)
    nij = np.einsum("ti,tmj->ij", nvec, mids) / 3
    nijk = np.einsum("ti,tmj,tmk->ijk", nvec, mids, mids) / 3
    r2 = (np.maximum(c - lo, hi - c) ** 2).sum()
    pairs = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
    sym = np.array([[nijk[i, j, k] for j, k in pairs] for i in range(3)]).reshape(-1)
    return np.concatenate([c, [r2], nvec.sum(0), [total], nij.reshape(-1), sym, [0.0]])


@pytest.mark.parametrize("constructor", ["sah", "median", "lbvh"])
@pytest.mark.parametrize("leaf_size", [1, 3])
def test_every_nodes_moments_are_the_integrals_over_its_triangles(constructor, leaf_size):
    pts, tris = torus_mesh(10, 6)
    rng = np.random.default_rng(leaf_size)
    pts = (pts + rng.normal(scale=0.05, size=pts.shape)).astype(np.float32)
    mesh = _mesh(pts, tris, support_winding_number=True, bvh_constructor=constructor, bvh_leaf_size=leaf_size)
    records = mesh._storage.tables["winding"]
    nodes = mesh._storage.tables["node_lowers"][:, :3], mesh._storage.tables["node_uppers"][:, :3]
    assert records.shape == (mesh._tree.num_nodes, mesh_winding.RECORD)
    assert mesh._storage.descriptor["winding"][0] == records.ctypes.data
    for node in range(mesh._tree.num_nodes):
        want = _moments(pts, tris[_node_triangles(mesh._tree, node)], nodes[0][node], nodes[1][node])
        scale = np.abs(want).max()
        np.testing.assert_allclose(records[node], want, rtol=1e-4, atol=2e-5 * scale, err_msg=f"node {node}")


def test_the_root_expansion_alone_at_accuracy_zero_is_the_second_order_taylor_series():
    """Accuracy 0 takes the root's expansion wherever the point is not its centre (as Warp): the series'
    terms, evaluated here in numpy from the root's moments, near and far."""
    pts, tris = torus_mesh()
    mesh = _mesh(pts, tris, support_winding_number=True)
    rec = mesh._storage.tables["winding"][0].astype(np.float64)
    c, n, nij = rec[0:3], rec[4:7], rec[8:17].reshape(3, 3)
    pairs = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)]
    nijk = np.zeros((3, 3, 3))
    for i in range(3):
        for s, (j, k) in enumerate(pairs):
            nijk[i, j, k] = nijk[i, k, j] = rec[17 + 6 * i + s]
    rng = np.random.default_rng(5)
    qs = rng.normal(size=(200, 3)) * rng.choice([0.7, 2.0, 10.0], size=(200, 1))
    want = []
    for q in qs:
        r = c - q
        d = np.linalg.norm(r)
        eye = np.eye(3)
        hess = eye / d**3 - 3 * np.outer(r, r) / d**5
        third = (-3 * (np.einsum("ij,k->ijk", eye, r) + np.einsum("ik,j->ijk", eye, r)
                       + np.einsum("jk,i->ijk", eye, r)) / d**5 + 15 * np.einsum("i,j,k->ijk", r, r, r) / d**7)
        want.append((n @ r / d**3 + (hess * nij).sum() + 0.5 * (third * nijk).sum()) / (4 * np.pi))
    want = np.array(want)
    assert_winding_near(mesh, qs, want, 1e-5 + 1e-4 * np.abs(want), accuracy=0.0)


@pytest.mark.parametrize("accuracy, tol", [(1.0, 0.25), (2.0, 5e-3), (4.0, 3e-4), (1e4, 2e-6)])
def test_the_fast_winding_number_approaches_the_exact_sum_as_accuracy_grows(accuracy, tol):
    pts, tris = sphere_mesh(16)
    rng = np.random.default_rng(2)
    near = rng.normal(size=(150, 3))
    near *= rng.uniform(0.8, 1.25, (150, 1)) / np.linalg.norm(near, axis=1, keepdims=True)
    qs = np.concatenate([near, rng.uniform(-4, 4, (150, 3)), rng.normal(size=(50, 3)) * 50]).astype(np.float32)
    mesh = _mesh(pts, tris, support_winding_number=True)
    assert_winding_near(mesh, qs, exact_winding(pts, tris, qs), tol, accuracy)


@pytest.mark.parametrize("make", [sphere_mesh, torus_mesh])
def test_closed_meshes_are_one_inside_and_zero_outside_and_signed_so(make):
    pts, tris = make()
    mesh = _mesh(pts, tris, support_winding_number=True)
    rng = np.random.default_rng(4)
    qs = (rng.uniform(-1.6, 1.6, (600, 3)) * [1, 1, 0.4 if make is torus_mesh else 1]).astype(np.float32)
    if make is sphere_mesh:
        r = np.linalg.norm(qs, axis=1)
        inside, margin = r < 1, np.abs(r - 1)
    else:  # the tube's distance from its centre circle
        ring = np.linalg.norm(qs[:, :2], axis=1) - 1.0
        tube = np.hypot(ring, qs[:, 2])
        inside, margin = tube < 0.35, np.abs(tube - 0.35)
    qs, inside = qs[margin > 0.08], inside[margin > 0.08]  # clear of the polyhedron's chords
    assert 50 < inside.sum() < len(qs) - 50
    assert_winding_near(mesh, qs, np.where(inside, 1.0, 0.0), 0.02)
    out = wp.zeros((2, len(qs)), dtype=float)
    wp.launch(_default_signs, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), out])
    np.testing.assert_array_equal(out.numpy()[0], np.where(inside, -1.0, 1.0))


def test_an_open_mesh_has_fractional_winding_numbers_near_the_exact_ones():
    """A hemisphere (the upper half of the sphere, open below): about 1/2 at its centre, falling off outside."""
    pts, tris = sphere_mesh(16)
    upper = tris[pts[tris].mean(axis=1)[:, 2] > 0]
    rng = np.random.default_rng(6)
    qs = np.concatenate([[[0, 0, 0], [0, 0, 0.5], [0, 0, -0.5]], rng.uniform(-2, 2, (300, 3))]).astype(np.float32)
    want = exact_winding(pts, upper, qs)
    assert abs(want[0] - 0.5) < 0.02 and want[1] > 0.5 > want[2]
    mesh = _mesh(pts, upper, support_winding_number=True)
    assert_winding_near(mesh, qs, want, 5e-3)
    assert_winding_near(mesh, qs, want, 2e-6, accuracy=1e4)


def test_a_refit_and_new_points_update_the_moments():
    pts, tris = torus_mesh()
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32), support_winding_number=True)
    rng = np.random.default_rng(7)
    qs = rng.uniform(-2, 2, (300, 3)).astype(np.float32)
    moved = (pts * np.float32(1.3) + np.float32([0.2, -0.1, 0.3])).astype(np.float32)
    points.assign(moved)
    mesh.refit()
    assert_winding_near(mesh, qs, exact_winding(moved, tris, qs), 5e-3)
    assert_winding_near(mesh, qs, exact_winding(moved, tris, qs), 2e-6, accuracy=1e4)
    flipped = moved * np.float32([1, 1, -1])  # mirrored: every triangle now winds inwards
    mesh.points = wp.array(flipped, dtype=wp.vec3)
    want = exact_winding(flipped, tris, qs)
    assert want.min() < -0.99
    assert_winding_near(mesh, qs, want, 5e-3)


def test_a_captured_refit_updates_the_moments_at_each_replay():
    pts, tris = torus_mesh()
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(tris.reshape(-1), dtype=wp.int32), support_winding_number=True)
    before = mesh._storage.tables["winding"].copy()
    with wp.ScopedCapture() as capture:
        mesh.refit()
    qs = np.random.default_rng(14).uniform(-2, 2, (200, 3)).astype(np.float32)
    moved = (pts + np.float32([0.5, 0.0, 0.0])).astype(np.float32)
    points.assign(moved)
    np.testing.assert_array_equal(mesh._storage.tables["winding"], before)  # recorded, not run
    wp.capture_launch(capture.graph)
    assert_winding_near(mesh, qs, exact_winding(moved, tris, qs), 5e-3)


def test_without_support_winding_number_the_sign_is_mesh_query_points_as_in_warp():
    """Warp 1.19 without the flag: the winding-number sign falls back to the closest hits of three axis rays.
    On a cube wound inwards that is "outside" everywhere, as the winding number (-1 inside) also says; on a
    cube missing its top and its +x face they differ inside, where the +x and +z rays leave through the holes
    (the winding number there is above 1/2)."""
    corners = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], np.float32)
    cube = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                     [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int32)
    rng = np.random.default_rng(8)
    qs = np.concatenate([rng.uniform(-0.5, 1.5, (400, 3)), rng.uniform(0.3, 0.7, (50, 3))]).astype(np.float32)
    open_cube = np.delete(cube, [2, 3, 10, 11], axis=0)
    for tris in (cube, cube[:, ::-1].copy(), open_cube):
        plain = _mesh(corners, tris)
        assert plain._storage.descriptor["winding"][0] == 0 and "winding" not in plain._storage.tables
        out = wp.zeros((2, len(qs)), dtype=float)
        wp.launch(_default_signs, len(qs), [plain.id, wp.array(qs, dtype=wp.vec3), out])
        np.testing.assert_array_equal(out.numpy()[0], out.numpy()[1])
    inside = (np.abs(qs - 0.5) < 0.5).all(axis=1)
    with_flag = _mesh(corners, open_cube, support_winding_number=True)
    out = wp.zeros((2, len(qs)), dtype=float)
    wp.launch(_default_signs, len(qs), [with_flag.id, wp.array(qs, dtype=wp.vec3), out])
    signs, ray_signs = out.numpy()
    np.testing.assert_array_equal(signs, np.where(exact_winding(corners, open_cube, qs) > 0.5, -1.0, 1.0))
    centre = inside & (np.abs(qs - 0.5) < 0.2).all(axis=1)
    assert centre.sum() > 40 and (signs[centre] == -1).all() and (ray_signs[centre] == 1).all()


def test_degenerate_triangles_and_one_triangle_meshes():
    """Triangles of no area have no moments (a node of only those takes its box's centre); a one-triangle mesh
    is one leaf, summed exactly at any accuracy; a query at a corner counts that triangle as 0."""
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    flat = np.array([[2, 2, 2], [3, 3, 3], [4, 4, 4]], np.float32)  # collinear
    pts = np.concatenate([tri, flat])
    mesh = _mesh(pts, [[0, 1, 2], [3, 4, 5], [3, 3, 3]], support_winding_number=True, bvh_constructor="median")
    records = mesh._storage.tables["winding"]
    assert np.isfinite(records).all()
    for node in range(mesh._tree.num_nodes):
        if set(_node_triangles(mesh._tree, node)) <= {1, 2}:
            lo, hi = mesh._storage.tables["node_lowers"][node, :3], mesh._storage.tables["node_uppers"][node, :3]
            np.testing.assert_array_equal(records[node, :3], (lo + hi) / 2)
            assert records[node, 7] == 0 and not records[node, 4:35].any()
    qs = np.array([[0.2, 0.2, 0.5], [0.2, 0.2, -0.5], [5, 5, 5], [0.25, 0.25, 1e-3], [0, 0, 0]], np.float32)
    want = exact_winding(tri, [[0, 1, 2]], qs)
    want[-1] = 0.0
    one = _mesh(tri, [[0, 1, 2]], support_winding_number=True)
    for accuracy in (0.0, 2.0):
        assert_winding_near(one, qs, want, 1e-6, accuracy)
    assert_winding_near(mesh, qs[:3], want[:3], 1e-6, accuracy=1e4)


@wp.kernel
def _older_form(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), thresholds: wp.array(dtype=float), accuracy: float,
                out: wp.array(dtype=float)):
    i = wp.tid()
    sign = 0.0
    face = 0
    u = 0.0
    v = 0.0
    found = wp.mesh_query_point_sign_winding_number(mesh, qs[i], 1.0e6, sign, face, u, v, accuracy, thresholds[i])
    out[i] = sign * float(found)


def test_the_older_form_takes_accuracy_and_threshold_as_the_struct_form():
    pts, tris = torus_mesh()
    mesh = _mesh(pts, tris, support_winding_number=True)
    qs = np.random.default_rng(12).uniform(-1.5, 1.5, (200, 3)).astype(np.float32)
    want = exact_winding(pts, tris, qs)
    for accuracy, tol in ((0.0, 0.0), (1e4, 2e-6)):
        for shift in (-1, 1):
            out = wp.zeros(len(qs), dtype=float)
            thresholds = (want + shift * max(tol, 0.01)).astype(np.float32)
            wp.launch(_older_form, len(qs), [mesh.id, wp.array(qs, dtype=wp.vec3), wp.array(thresholds, dtype=float),
                                             accuracy, out])
            np.testing.assert_array_equal(out.numpy(), _signs(mesh, qs, thresholds, accuracy))
            if tol:
                np.testing.assert_array_equal(out.numpy(), float(shift))  # below the winding number: inside


@wp.kernel
def _distance_loss(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float),
                   closest: wp.array(dtype=wp.vec3), signs: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_sign_winding_number(mesh, qs[i], 10.0)
    p = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    closest[i] = p
    signs[i] = q.sign
    wp.atomic_add(loss, 0, q.sign * wp.length(p - qs[i]))


def test_gradients_flow_through_the_closest_point_as_in_warp():
    """Warp's adjoint of the winding-number query is the closest point's (the sign has none): the signed
    distance's gradient with respect to the query point is the sign times the unit vector from the closest
    point, pointing outwards on both sides."""
    pts, tris = sphere_mesh(12)
    mesh = _mesh(pts, tris, support_winding_number=True)
    rng = np.random.default_rng(9)
    q = rng.normal(size=(40, 3))
    q = (q / np.linalg.norm(q, axis=1, keepdims=True) * rng.uniform(0.5, 1.6, (40, 1))).astype(np.float32)
    qs = wp.array(q, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    closest, signs = wp.zeros(len(q), dtype=wp.vec3), wp.zeros(len(q), dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(_distance_loss, len(q), [mesh.id, qs, loss, closest, signs])
    tape.backward(loss)
    d = q - closest.numpy()
    want = signs.numpy()[:, None] * d / np.linalg.norm(d, axis=1, keepdims=True)
    np.testing.assert_allclose(qs.grad.numpy(), want, rtol=1e-4, atol=1e-5)
    r = np.linalg.norm(q, axis=1)
    clear = (r < 0.9) | (r > 1.0)  # inside the polyhedron, or outside the sphere around it
    np.testing.assert_array_equal(signs.numpy()[clear], np.where(r < 0.9, -1.0, 1.0)[clear])
    assert ((qs.grad.numpy() * q).sum(1) > 0).all()


def _gpu_form_records(mesh, tables):
    """The records the per-level kernels write for ``mesh``'s tree from ``tables`` (into a copy)."""
    storage = mesh._storage
    kept = storage.tables["winding"].copy()
    storage.tables["winding"][:] = np.nan
    mesh_winding.compute(storage, mesh._tree, mesh.points, mesh.indices, tables)
    got = storage.tables["winding"].copy()
    storage.tables["winding"][:] = kept
    return got, kept


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_of_the_moments_and_of_the_query_runs_as_the_cpu_does():
    pts, tris = torus_mesh()
    host = _mesh(pts, tris, support_winding_number=True, bvh_constructor="sah", bvh_leaf_size=2)
    linear = _mesh(pts, tris, support_winding_number=True, bvh_constructor="lbvh")
    tree = linear._tree  # its levels as the ranges of ids a tree built on its device has
    t = tree.kernel_tables
    ranges = [(int(ids[0]), int(ids[-1]) + 1) for ids, split in reversed(tree.levels) if split.any()]
    by_ranges = {"first": t["first"], "last": t["last"], "order": t["order"], "num_nodes": tree.num_nodes,
                 "ranges": ranges}
    with config.override(target="cuda-emulation"):
        got, want = _gpu_form_records(host, host._tree.tables_on(wp.get_device("cpu")))
        got_ranges, want_ranges = _gpu_form_records(linear, by_ranges)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_ranges, want_ranges, rtol=1e-5, atol=1e-6)
    rng = np.random.default_rng(11)
    qs = rng.uniform(-2, 2, (128, 3)).astype(np.float32)
    want = exact_winding(pts, tris, qs)
    with config.override(target="cuda-emulation"):
        assert_winding_near(host, qs, want, 5e-3)
        assert_winding_near(linear, qs, want, 2e-6, accuracy=1e4)


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the launches compile for CUDA)")
def test_a_device_meshs_moments_are_computed_on_the_device_at_build_and_refit():
    from .cuda_fake import FakeDriver, installed

    pts, tris = torus_mesh(8, 6)
    with installed(FakeDriver()) as fake:
        reads = []
        host_read = fake.copy_to_host
        fake.copy_to_host = lambda *a: (reads.append(a), host_read(*a))
        points = wp.array(pts, dtype=wp.vec3, device="cuda:0")
        indices = wp.array(tris.reshape(-1), dtype=wp.int32, device="cuda:0")
        for constructor in ("lbvh", "sah"):
            plain = wp.Mesh(points, indices, bvh_constructor=constructor)
            mesh = wp.Mesh(points, indices, support_winding_number=True, bvh_constructor=constructor)
            tables = mesh._tree.tables_on(mesh.device)
            plain._tree.tables_on(plain.device)  # a host tree's tables go up once, at its first refit
            levels = len(tables["ranges"] if "ranges" in tables else tables["levels"])
            table = mesh._storage.tables["winding"]
            assert table.shape[0] == 4 * mesh_winding.RECORD * mesh._tree.num_nodes
            assert mesh._storage.descriptor["winding"][0] == table.ptr and plain._storage.descriptor["winding"][0] == 0
            del reads[:], fake.launches[:], fake.stream_log[:]
            plain.refit()
            bounds_only = len(fake.launches)
            mesh.refit()
            assert len(fake.launches) == 2 * bounds_only + 1 + levels  # the bounds, then the moments by levels
            assert reads == [] and not [e for e in fake.stream_log if e[0] == "upload"]
