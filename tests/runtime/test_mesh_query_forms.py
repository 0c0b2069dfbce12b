"""Mesh queries as Warp 1.19 answers them: sphere queries keep the triangles within the radius (not their
boxes), rays parallel to a box face that start on it still enter the box, and the older point and ray
queries that write their results into variables give what the struct forms give."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import KernelTypeError
from kernel_files import kernel_module


def point_triangle_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The distance from p (3,) to each triangle (a[i], b[i], c[i]) (float64): the nearest of the point's
    projection when it falls inside the triangle and the three edges' nearest points."""
    p, a, b, c = (np.asarray(x, np.float64) for x in (p, a, b, c))

    def to_segment(s, e):
        d = e - s
        length = (d * d).sum(axis=1)
        t = np.clip(np.where(length > 0, ((p - s) * d).sum(axis=1) / np.where(length > 0, length, 1), 0), 0, 1)
        return np.linalg.norm(p - (s + t[:, None] * d), axis=1)

    best = np.minimum(np.minimum(to_segment(a, b), to_segment(b, c)), to_segment(c, a))
    n = np.cross(b - a, c - a)
    nn = (n * n).sum(axis=1)
    flat = nn > 0
    h = ((p - a) * n).sum(axis=1) / np.where(flat, nn, 1)
    q = p - h[:, None] * n  # the projection on the plane
    inside = flat.copy()
    for s, e in ((a, b), (b, c), (c, a)):
        inside &= (np.cross(e - s, q - s) * n).sum(axis=1) >= 0
    return np.where(inside, np.abs(h) * np.sqrt(nn), best)


@wp.kernel
def _sphere_hits(mesh: wp.uint64, center: wp.vec3, radius: float, hits: wp.array(dtype=int)):
    for face in wp.mesh_query_sphere(mesh, center, radius):
        hits[face] += 1


def _mesh(corners: np.ndarray):
    points = wp.array(corners.reshape(-1, 3), dtype=wp.vec3)
    return wp.Mesh(points=points, indices=wp.array(np.arange(corners.size // 3, dtype=np.int32), dtype=wp.int32))


def test_a_sphere_query_finds_the_triangles_within_the_radius_each_once():
    rng = np.random.default_rng(3)
    corners = (rng.uniform(-1, 1, (200, 3, 3)) * 0.6 + rng.uniform(0, 8, (200, 1, 3))).astype(np.float32)
    mesh = _mesh(corners)
    eps = 1e-4  # float32 against float64 at the sphere's surface
    for _ in range(15):
        center = rng.uniform(0, 8, 3).astype(np.float32)
        radius = float(rng.uniform(0.1, 1.5))
        hits = wp.zeros(200, dtype=int)
        wp.launch(_sphere_hits, 1, [mesh.id, wp.vec3(*center), radius, hits])
        got = hits.numpy()
        assert got.max() <= 1
        d = point_triangle_distance(center, corners[:, 0], corners[:, 1], corners[:, 2])
        assert not np.any((got == 1) & (d > radius + eps)), "a triangle beyond the radius"
        assert not np.any((got == 0) & (d <= radius - eps)), "a triangle within the radius missed"


def test_zero_negative_radii_and_triangles_of_no_area():
    tri = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]],
                    [[3, 0, 0], [5, 0, 0], [4, 0, 0]],  # a segment from (3,0,0) to (5,0,0): its longest edge
                    [[7, 7, 7], [7, 7, 7], [7, 7, 7]]], np.float32)  # a point
    mesh = _mesh(tri)
    cases = [((0.25, 0.25, 0.0), 0.0, [1, 0, 0]),  # on the triangle: a zero radius meets it
             ((0.9, 0.9, 0.0), 0.0, [0, 0, 0]),  # inside its box, off the triangle
             ((0.25, 0.25, 0.0), -1.0, [1, 0, 0]),  # a negative radius is 0
             ((4.5, 0.5, 0.0), 0.5, [0, 1, 0]),  # tangent to the segment: included
             ((4.5, 0.6, 0.0), 0.5, [0, 0, 0]),
             ((7.0, 7.0, 7.3), 0.31, [0, 0, 1])]
    for center, radius, want in cases:
        hits = wp.zeros(3, dtype=int)
        wp.launch(_sphere_hits, 1, [mesh.id, wp.vec3(*center), radius, hits])
        np.testing.assert_array_equal(hits.numpy(), want, err_msg=f"{center}, {radius}")


@wp.kernel
def _parallel_rays(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int),
                   closest: wp.array(dtype=int), anyhit: wp.array(dtype=int)):
    i = wp.tid()
    d = wp.vec3(0.0, 0.0, -1.0)
    counts[i] = wp.mesh_query_ray_count_intersections(mesh, starts[i], d)
    closest[i] = int(wp.mesh_query_ray(mesh, starts[i], d, 10.0).result)
    anyhit[i] = int(wp.mesh_query_ray_anyhit(mesh, starts[i], d, 10.0))


@wp.kernel
def _bvh_ray(bvh: wp.uint64, starts: wp.array(dtype=wp.vec3), found: wp.array(dtype=int)):
    i = wp.tid()
    for item in wp.bvh_query_ray(bvh, starts[i], wp.vec3(0.0, -0.0, -1.0)):
        found[i] += 1


def test_rays_parallel_to_a_face_that_start_on_it_enter_the_box():
    """dir 0 along x and y: (face - start) / dir is 0 * inf on a face, which must not reject the box."""
    quad = np.array([[[0, 0, 0], [2, 0, 0], [2, 2, 0]], [[0, 0, 0], [2, 2, 0], [0, 2, 0]]], np.float32)
    mesh = _mesh(quad)
    starts = wp.array(np.array([[2, 1, 1], [0, 1, 1], [1, 2, 1], [1, 0, 1], [1, 1, 1], [2.5, 1, 1]], np.float32),
                      dtype=wp.vec3)
    counts, closest, anyhit = (wp.zeros(6, dtype=int) for _ in range(3))
    wp.launch(_parallel_rays, 6, [mesh.id, starts, counts, closest, anyhit])
    np.testing.assert_array_equal(closest.numpy(), [1, 1, 1, 1, 1, 0])
    np.testing.assert_array_equal(anyhit.numpy(), [1, 1, 1, 1, 1, 0])
    assert (counts.numpy()[:5] >= 1).all() and counts.numpy()[5] == 0
    box = np.array([[0, 0, 0]], np.float32), np.array([[2, 2, 0]], np.float32)
    bvh = wp.Bvh(wp.array(box[0], dtype=wp.vec3), wp.array(box[1], dtype=wp.vec3))
    found = wp.zeros(6, dtype=int)
    wp.launch(_bvh_ray, 6, [bvh.id, starts, found])
    np.testing.assert_array_equal(found.numpy(), [1, 1, 1, 1, 1, 0])


@wp.kernel
def _older_forms(mesh: wp.uint64, p: wp.vec3, start: wp.vec3, out: wp.array2d(dtype=float)):
    sign = 0.0
    face = -1
    u = 0.0
    v = 0.0
    t = 0.0
    n = wp.vec3()
    r = 0
    if wp.mesh_query_point(mesh, p, 10.0, sign, face, u, v):
        out[r, 0], out[r, 1], out[r, 2], out[r, 3] = sign, float(face), u, v
    q = wp.mesh_query_point(mesh, p, 10.0)
    out[r + 1, 0], out[r + 1, 1], out[r + 1, 2], out[r + 1, 3] = q.sign, float(q.face), q.u, q.v
    found = wp.mesh_query_point_no_sign(mesh, p, 10.0, face, u, v)
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = float(found), float(face), u, v
    found = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0, face, u, v)
    out[3, 0], out[3, 1], out[3, 2], out[3, 3] = float(found), float(face), u, v
    wp.mesh_query_point_sign_normal(mesh, p, 10.0, sign, face, u, v, 1.0e-3)  # a statement, epsilon after
    out[4, 0], out[4, 1], out[4, 2], out[4, 3] = sign, float(face), u, v
    q = wp.mesh_query_point_sign_normal(mesh, p, 10.0, 1.0e-3)
    out[5, 0], out[5, 1], out[5, 2], out[5, 3] = q.sign, float(q.face), q.u, q.v
    found = wp.mesh_query_point_sign_winding_number(mesh, p, 10.0, sign, face, u, v)
    out[6, 0], out[6, 1], out[6, 2], out[6, 3] = sign * float(found), float(face), u, v
    found = wp.mesh_query_point_sign_parity(mesh, p, 10.0, sign, face, u, v)
    out[7, 0], out[7, 1], out[7, 2], out[7, 3] = sign * float(found), float(face), u, v
    hit = wp.mesh_query_ray(mesh, start, wp.vec3(0.0, 0.0, -1.0), 10.0, t, u, v, sign, n, face, -1)
    out[8, 0], out[8, 1], out[8, 2], out[8, 3] = float(hit), t, u, v
    out[9, 0], out[9, 1], out[9, 2], out[9, 3] = sign, n[2], float(face), 0.0
    h = wp.mesh_query_ray(mesh, start, wp.vec3(0.0, 0.0, -1.0), 10.0)
    out[10, 0], out[10, 1], out[10, 2], out[10, 3] = float(h.result), h.t, h.u, h.v
    out[11, 0], out[11, 1], out[11, 2], out[11, 3] = h.sign, h.normal[2], float(h.face), 0.0


def test_the_older_forms_write_what_the_struct_forms_return():
    cube = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]],
                    np.float32)
    faces = np.array([0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 2, 3, 7, 2, 7, 6, 0, 4, 7, 0, 7, 3,
                      1, 2, 6, 1, 6, 5], np.int32)
    mesh = wp.Mesh(points=wp.array(cube, dtype=wp.vec3), indices=wp.array(faces, dtype=wp.int32))
    out = wp.zeros((12, 4), dtype=float)
    wp.launch(_older_forms, 1, [mesh.id, wp.vec3(0.3, 0.4, 0.9), wp.vec3(0.3, 0.4, 2.0), out])
    o = out.numpy()
    np.testing.assert_array_equal(o[0], o[1])  # mesh_query_point: inside (-1), face, u, v
    assert o[0, 0] == -1.0 and o[0, 1] in (2, 3)  # the top face (z = 1), 0.1 away
    np.testing.assert_array_equal(o[2, 1:], o[0, 1:])  # the same closest point, unsigned
    assert o[2, 0] == 1.0 and o[3, 0] == 1.0 and o[3, 1] != o[2, 1]  # the furthest: another face
    np.testing.assert_array_equal(o[4], o[5])
    np.testing.assert_array_equal(o[6], o[4])  # each sign: inside
    np.testing.assert_array_equal(o[7], o[4])
    np.testing.assert_array_equal(o[8:10], o[10:12])  # the ray: hit, t, u, v, sign, normal, face
    assert o[8, 0] == 1.0 and o[8, 1] == pytest.approx(1.0) and o[9, 0] == 1.0 and o[9, 1] == 1.0


def _error(tmp_path, body: str) -> str:
    module, path = kernel_module(tmp_path, "@wp.kernel\ndef k(mesh: wp.uint64, hits: wp.array(dtype=int)):\n"
                                 "    face = int(0)\n    u = float(0.0)\n    v = float(0.0)\n    x = wp.vec3()\n"
                                 + body)
    hits = wp.zeros(1, dtype=int)
    with pytest.raises(KernelTypeError) as e:
        wp.launch(module.k, 1, [0, hits])
    np.testing.assert_array_equal(hits.numpy(), [0])
    assert f'File "{path}", line 9' in str(e.value)  # the call's line
    return str(e.value)


@pytest.mark.parametrize("body, words", [
    ("    wp.mesh_query_point(mesh, x, 1.0, face, face, u, v)\n",
     "output argument 'face' of mesh_query_point() holds a int32; mesh_query_point() stores a float32 there"),
    ("    wp.mesh_query_point_no_sign(mesh, x, 1.0, face, u, w)\n",
     "output argument 'w' of mesh_query_point_no_sign() must be a variable that already holds a float32"),
    ("    wp.mesh_query_point_no_sign(mesh, x, 1.0, face, u, hits[0])\n",
     "output argument 6 of mesh_query_point_no_sign() must be a local variable, got 'hits[0]'"),
    ("    while wp.mesh_query_point_no_sign(mesh, x, 1.0, face, u, v):\n        hits[0] = 1\n",
     "mesh_query_point_no_sign() with output arguments cannot be called in a while condition"),
])
def test_errors_of_the_older_forms_name_the_argument_and_the_line(tmp_path, body, words):
    assert words in _error(tmp_path, body)


def corners_of(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (50, 3, 3)) * 0.6 + rng.uniform(0, 3, (50, 1, 3))).astype(np.float32)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_answers_as_the_cpu_does():
    corners = corners_of(5)
    mesh = _mesh(corners)
    results = []
    for target in ("cpu", "cuda-emulation"):
        hits, out = wp.zeros(50, dtype=int), wp.zeros((12, 4), dtype=float)
        with config.override(target=target):
            wp.launch(_sphere_hits, 1, [mesh.id, wp.vec3(1.5, 1.5, 1.5), 0.8, hits])
            wp.launch(_older_forms, 1, [mesh.id, wp.vec3(1.5, 1.5, 1.5), wp.vec3(1.5, 1.5, 5.0), out])
        results.append((hits.numpy(), out.numpy()))
    assert results[0][0].sum() > 0
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    arrays = []
    corners_np = corners_of(5)
    for target in ("cpu", "cuda-emulation"):
        corners, sizes, hits = wp.zeros(150, dtype=wp.vec3), wp.zeros(3, dtype=int), wp.zeros(50, dtype=int)
        moved = _mesh(corners_np)  # _arrays_and_tree writes points[0]: a mesh of its own per target
        with config.override(target=target):
            wp.launch(_arrays_and_tree, 150, [moved.id, corners, sizes, hits])
        arrays.append((corners.numpy(), sizes.numpy(), hits.numpy()))
    for a, b in zip(*arrays):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(arrays[0][1], [150, 0, 150])
    np.testing.assert_array_equal(arrays[0][0][1:], corners_np.reshape(-1, 3)[1:])


@wp.kernel
def _arrays_and_tree(mesh: wp.uint64, corners: wp.array(dtype=wp.vec3), sizes: wp.array(dtype=int),
                     hits: wp.array(dtype=int)):
    t = wp.tid()
    m = wp.mesh_get(mesh)
    corners[t] = m.points[m.indices[t]]
    if t == 0:
        sizes[0], sizes[1], sizes[2] = m.points.shape[0], m.velocities.shape[0], m.indices.shape[0]
        m.points[0] = wp.vec3(-1.0, -1.0, -1.0)  # the mesh's own array
        for face in wp.bvh_query_sphere(wp.mesh_get_bvh(mesh), wp.vec3(2.0, 2.0, 0.2), 0.3):
            hits[face] += 1


def test_mesh_get_gives_the_mesh_arrays_and_mesh_get_bvh_its_tree():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2, 0], [3, 2, 0], [2, 3, 0]], np.float32)
    indices = np.array([0, 1, 2, 3, 4, 5], np.int32)
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32))
    corners, sizes, hits = wp.zeros(6, dtype=wp.vec3), wp.zeros(3, dtype=int), wp.zeros(2, dtype=int)
    wp.launch(_arrays_and_tree, 6, [mesh.id, corners, sizes, hits])
    np.testing.assert_array_equal(corners.numpy()[1:], points[indices][1:])
    np.testing.assert_array_equal(sizes.numpy(), [6, 0, 6])
    np.testing.assert_array_equal(hits.numpy(), [0, 1])  # the box of face 1 only
    np.testing.assert_array_equal(mesh.points.numpy()[0], [-1, -1, -1])
    with_velocities = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(indices, dtype=wp.int32),
                              velocities=wp.array(points * 2, dtype=wp.vec3))
    wp.launch(_arrays_and_tree, 6, [with_velocities.id, corners, sizes, hits])
    np.testing.assert_array_equal(sizes.numpy(), [6, 6, 6])


def test_mesh_get_of_a_float_names_the_id(tmp_path):
    module, path = kernel_module(tmp_path, "@wp.kernel\ndef k(x: float, out: wp.array(dtype=wp.vec3)):\n"
                                 "    out[0] = wp.mesh_get(x).points[0]\n")
    out = wp.zeros(1, dtype=wp.vec3)
    with pytest.raises(KernelTypeError, match=r"mesh_get\(\): needs a mesh id \(uint64\), got float32") as e:
        wp.launch(module.k, 1, [1.0, out])
    assert f'File "{path}", line 5' in str(e.value)
    np.testing.assert_array_equal(out.numpy(), 0)


@wp.kernel
def _capsule_hits(bvh: wp.uint64, p0: wp.vec3, p1: wp.vec3, radius: float, hits: wp.array(dtype=int)):
    query = wp.bvh_query_capsule(bvh, p0, p1 - p0, radius)
    item = 0
    while wp.bvh_query_next(query, item, 1.0):
        hits[item] += 1


def _grown_box_meets_segment(p0, p1, radius, lo, hi) -> np.ndarray:
    """Each box grown by radius along every axis against the segment p0..p1 (slabs in float64)."""
    lo, hi = lo - max(radius, 0.0), hi + max(radius, 0.0)
    d = p1 - p0
    tmin, tmax = np.zeros(len(lo)), np.ones(len(lo))
    ok = np.ones(len(lo), bool)
    for k in range(3):
        if d[k] == 0:
            ok &= (p0[k] >= lo[:, k]) & (p0[k] <= hi[:, k])
            continue
        t1, t2 = (lo[:, k] - p0[k]) / d[k], (hi[:, k] - p0[k]) / d[k]
        tmin, tmax = np.maximum(tmin, np.minimum(t1, t2)), np.minimum(tmax, np.maximum(t1, t2))
    return (ok & (tmin <= tmax)).astype(int)


def test_a_capsule_query_finds_the_boxes_its_grown_sweep_meets_each_once():
    rng = np.random.default_rng(11)
    lo = rng.uniform(0, 10, (300, 3)).astype(np.float32)
    hi = lo + rng.uniform(0, 1, (300, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=2)
    for p0, p1, radius in (((0, 0, 0), (10, 10, 10), 1.0), ((1, 5, 2), (9, 4.5, 8), 0.5),
                           ((5, 0, 5), (5, 10, 5), 0.7), ((2, 2, 2), (8, 3, 2), -1.0)):
        p0, p1 = np.array(p0, np.float64), np.array(p1, np.float64)
        hits = wp.zeros(300, dtype=int)
        wp.launch(_capsule_hits, 1, [bvh.id, wp.vec3(*p0), wp.vec3(*p1), radius, hits])
        want = _grown_box_meets_segment(p0, p1, radius, lo.astype(np.float64), hi.astype(np.float64))
        assert want.sum() > 0
        np.testing.assert_array_equal(hits.numpy(), want, err_msg=f"{p0} {p1} {radius}")


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_sweeps_capsules_as_the_cpu_does():
    rng = np.random.default_rng(12)
    lo = rng.uniform(0, 10, (100, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 0.5, dtype=wp.vec3))
    found = []
    for target in ("cpu", "cuda-emulation"):
        hits = wp.zeros(100, dtype=int)
        with config.override(target=target):
            wp.launch(_capsule_hits, 1, [bvh.id, wp.vec3(0.0), wp.vec3(10.0, 9.0, 8.0), 1.0, hits])
        found.append(hits.numpy())
    assert found[0].sum() > 0
    np.testing.assert_array_equal(found[0], found[1])


@wp.kernel
def _signs(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), signs: wp.array2d(dtype=float)):
    i = wp.tid()
    signs[0, i] = wp.mesh_query_point(mesh, points[i], 1.0e6).sign
    signs[1, i] = wp.mesh_query_point_sign_parity(mesh, points[i], 1.0e6).sign


def test_mesh_query_point_signs_by_the_faces_the_axis_rays_meet_first_and_parity_by_crossings():
    """A unit cube wound outwards, then inwards: Warp 1.19's vote finds the inside of the first only."""
    corners = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], np.float32)
    outward = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                        [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int32)
    rng = np.random.default_rng(8)
    points = rng.uniform(-0.5, 1.5, (300, 3)).astype(np.float32)
    inside = np.where((np.abs(points - 0.5) < 0.5).all(axis=1), -1.0, 1.0)
    assert 0 < (inside < 0).sum() < 300
    for faces, want in ((outward, inside), (outward[:, ::-1].copy(), np.ones(300))):
        mesh = wp.Mesh(points=wp.array(corners, dtype=wp.vec3), indices=wp.array(faces.reshape(-1), dtype=wp.int32))
        signs = wp.zeros((2, 300), dtype=float)
        wp.launch(_signs, 300, [mesh.id, wp.array(points, dtype=wp.vec3), signs])
        np.testing.assert_array_equal(signs.numpy()[0], want)
        np.testing.assert_array_equal(signs.numpy()[1], inside)  # parity ignores the winding
